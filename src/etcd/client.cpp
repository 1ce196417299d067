#include "etcd/client.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include <grpcpp/grpcpp.h>

#include "etcd/etcd_rpc.grpc.pb.h"

namespace ksched::etcd {

namespace pb = etcdserverpb;

namespace {

util::Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return util::make_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string status_error(std::string_view what, const grpc::Status& s) {
  return "etcd " + std::string(what) + ": " + s.error_message() + " (gRPC code " +
         std::to_string(static_cast<int>(s.error_code())) + ")";
}

KeyValue from_pb(const pb::KeyValue& kv) {
  return KeyValue{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.version()};
}

struct Endpoint {
  std::string host, port;
  bool tls = false;
};

util::Result<Endpoint> parse_endpoint(std::string_view url) {
  Endpoint e;
  if (url.starts_with("http://")) {
    url.remove_prefix(7);
  } else if (url.starts_with("https://")) {
    url.remove_prefix(8);
    e.tls = true;
  } else {
    return util::make_error("--etcd-servers: \"" + std::string(url) + "\" is not an http:// or https:// URL");
  }
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  auto colon = url.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == url.size() || url.find('/') != std::string_view::npos)
    return util::make_error("--etcd-servers: \"" + std::string(url) + "\" needs host:port");
  e.host = std::string(url.substr(0, colon));
  e.port = std::string(url.substr(colon + 1));
  if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
  return e;
}

// gRPC's "ipv4:"/"ipv6:" targets list every member's address, so one channel balances over the
// members and leaves out one that is down. Host names are resolved once, here.
util::Result<std::string> target_for(const std::vector<Endpoint>& eps) {
  std::string v4, v6;
  for (const auto& e : eps) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(e.host.c_str(), e.port.c_str(), &hints, &res); rc != 0)
      return util::make_error("--etcd-servers: cannot resolve " + e.host + ": " + ::gai_strerror(rc));
    char buf[INET6_ADDRSTRLEN];
    for (addrinfo* a = res; a; a = a->ai_next) {
      if (a->ai_family == AF_INET) {
        ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr, buf, sizeof buf);
        v4 += (v4.empty() ? "" : ",") + std::string(buf) + ":" + e.port;
        break;
      }
      if (a->ai_family == AF_INET6) {
        ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr, buf, sizeof buf);
        v6 += (v6.empty() ? "" : ",") + std::string("[") + buf + "]:" + e.port;
        break;
      }
    }
    ::freeaddrinfo(res);
  }
  if (!v4.empty() && !v6.empty()) return util::make_error("--etcd-servers: mixes IPv4 and IPv6 members");
  return v4.empty() ? "ipv6:" + v6 : "ipv4:" + v4;
}

}  // namespace

std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

struct Client::Impl {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::unique_ptr<pb::Watch::Stub> watch;
  std::chrono::milliseconds timeout;

  void prepare(grpc::ClientContext& ctx) const {
    ctx.set_deadline(std::chrono::system_clock::now() + timeout);
    // While a member is down or a leader is being elected, wait for a connection rather than fail.
    ctx.set_wait_for_ready(true);
  }

  util::Result<Write> txn(const pb::TxnRequest& req, std::string_view key) {
    grpc::ClientContext ctx;
    prepare(ctx);
    pb::TxnResponse resp;
    auto s = kv->Txn(&ctx, req, &resp);
    if (!s.ok()) return util::make_error(status_error("transaction on " + std::string(key), s));
    Write w;
    w.succeeded = resp.succeeded();
    w.revision = resp.header().revision();
    if (!w.succeeded)
      for (const auto& op : resp.responses())
        if (op.has_response_range() && op.response_range().kvs_size() > 0) w.current = from_pb(op.response_range().kvs(0));
    return w;
  }
};

struct Watch::Impl {
  std::mutex write_mu;  // one writer at a time on the stream, beside the reader
  pb::Watch::Stub* stub = nullptr;
  pb::WatchRequest create;
  bool started = false;
  bool open = false;  // between a successful start and the end of the stream
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::ClientReaderWriter<pb::WatchRequest, pb::WatchResponse>> stream;
};

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

util::Result<std::unique_ptr<Client>> Client::connect(const Options& opts) {
  if (opts.endpoints.empty()) return util::make_error("--etcd-servers: no server given");
  std::vector<Endpoint> eps;
  for (const auto& u : opts.endpoints) {
    auto e = parse_endpoint(u);
    if (!e) return util::make_error(e.error());
    if (!eps.empty() && eps.front().tls != e->tls) return util::make_error("--etcd-servers: mixes http:// and https://");
    eps.push_back(std::move(*e));
  }
  auto target = target_for(eps);
  if (!target) return util::make_error(target.error());
  std::shared_ptr<grpc::ChannelCredentials> creds;
  bool tls = eps.front().tls || !opts.ca_file.empty() || !opts.cert_file.empty();
  if (tls) {
    grpc::SslCredentialsOptions so;
    if (!opts.ca_file.empty()) {
      auto ca = read_file(opts.ca_file);
      if (!ca) return util::make_error("--etcd-cafile: " + ca.error());
      so.pem_root_certs = std::move(*ca);
    }
    if (opts.cert_file.empty() != opts.key_file.empty())
      return util::make_error("--etcd-certfile and --etcd-keyfile go together");
    if (!opts.cert_file.empty()) {
      auto cert = read_file(opts.cert_file);
      if (!cert) return util::make_error("--etcd-certfile: " + cert.error());
      auto key = read_file(opts.key_file);
      if (!key) return util::make_error("--etcd-keyfile: " + key.error());
      so.pem_cert_chain = std::move(*cert);
      so.pem_private_key = std::move(*key);
    }
    creds = grpc::SslCredentials(so);
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  grpc::ChannelArguments args;
  args.SetLoadBalancingPolicyName("round_robin");
  args.SetMaxReceiveMessageSize(256 << 20);  // a page of a large range
  args.SetMaxSendMessageSize(16 << 20);
  // Certificates name the host, not the address a name resolved to.
  if (tls) args.SetSslTargetNameOverride(eps.front().host);
  auto impl = std::make_unique<Impl>();
  impl->channel = grpc::CreateCustomChannel(*target, creds, args);
  impl->kv = pb::KV::NewStub(impl->channel);
  impl->watch = pb::Watch::NewStub(impl->channel);
  impl->timeout = opts.request_timeout;
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

util::Result<Client::Range> Client::range(std::string_view prefix, std::string_view start, std::int64_t limit,
                                          std::int64_t revision) {
  pb::RangeRequest req;
  req.set_key(std::string(start.empty() ? prefix : start));
  req.set_range_end(prefix_end(prefix));
  req.set_limit(limit);
  req.set_revision(revision);
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::RangeResponse resp;
  auto s = impl_->kv->Range(&ctx, req, &resp);
  if (!s.ok()) return util::make_error(status_error("range over " + std::string(prefix), s));
  Range r;
  r.revision = resp.header().revision();
  r.more = resp.more();
  r.kvs.reserve(static_cast<std::size_t>(resp.kvs_size()));
  for (auto& kv : *resp.mutable_kvs()) r.kvs.push_back(KeyValue{std::move(*kv.mutable_key()), std::move(*kv.mutable_value()),
                                                                kv.create_revision(), kv.mod_revision(), kv.version()});
  return r;
}

namespace {
// A put of `key` guarded by one comparison of the key's `target` with `n`; on failure the
// transaction reads the key instead, so the caller learns its state.
pb::TxnRequest guarded_put(std::string_view key, std::string_view value, pb::Compare::CompareTarget target,
                           std::int64_t n) {
  pb::TxnRequest req;
  auto* cmp = req.add_compare();
  cmp->set_key(std::string(key));
  cmp->set_result(pb::Compare::EQUAL);
  cmp->set_target(target);
  if (target == pb::Compare::MOD)
    cmp->set_mod_revision(n);  // a key that does not exist has mod revision 0
  else
    cmp->set_version(n);
  auto* put = req.add_success()->mutable_request_put();
  put->set_key(std::string(key));
  put->set_value(std::string(value));
  req.add_failure()->mutable_request_range()->set_key(std::string(key));
  return req;
}
}  // namespace

util::Result<Client::Write> Client::put_if(std::string_view key, std::string_view value, std::int64_t expected) {
  return impl_->txn(guarded_put(key, value, pb::Compare::MOD, expected), key);
}

util::Result<Client::Write> Client::put_if_version(std::string_view key, std::string_view value, std::int64_t version) {
  return impl_->txn(guarded_put(key, value, pb::Compare::VERSION, version), key);
}

util::Result<Client::Write> Client::delete_if(std::string_view key, std::int64_t expected) {
  pb::TxnRequest req;
  auto* cmp = req.add_compare();
  cmp->set_key(std::string(key));
  if (expected != 0) {
    cmp->set_result(pb::Compare::EQUAL);
    cmp->set_target(pb::Compare::MOD);
    cmp->set_mod_revision(expected);
  } else {
    cmp->set_result(pb::Compare::GREATER);  // exists: at least one write since creation
    cmp->set_target(pb::Compare::VERSION);
    cmp->set_version(0);
  }
  req.add_success()->mutable_request_delete_range()->set_key(std::string(key));
  req.add_failure()->mutable_request_range()->set_key(std::string(key));
  return impl_->txn(req, key);
}

util::Result<KeyValue> Client::get(std::string_view key) {
  pb::RangeRequest req;
  req.set_key(std::string(key));
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::RangeResponse resp;
  auto s = impl_->kv->Range(&ctx, req, &resp);
  if (!s.ok()) return util::make_error(status_error("get " + std::string(key), s));
  if (resp.kvs_size() == 0) return KeyValue{std::string(key), "", 0, 0, 0};
  return from_pb(resp.kvs(0));
}

util::Result<void> Client::compact(std::int64_t revision) {
  pb::CompactionRequest req;
  req.set_revision(revision);
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::CompactionResponse resp;
  auto s = impl_->kv->Compact(&ctx, req, &resp);
  if (!s.ok() && s.error_message().find("compacted") == std::string::npos)
    return util::make_error(status_error("compaction to " + std::to_string(revision), s));
  return {};
}

util::Result<std::unique_ptr<Watch>> Client::watch(std::string_view prefix, std::int64_t start_revision) {
  auto w = std::make_unique<Watch::Impl>();
  w->stub = impl_->watch.get();
  auto* c = w->create.mutable_create_request();
  c->set_key(std::string(prefix));
  c->set_range_end(prefix_end(prefix));
  c->set_start_revision(start_revision);
  c->set_progress_notify(true);
  return std::make_unique<Watch>(std::move(w));
}

Watch::Watch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Watch::~Watch() {
  cancel();
  if (impl_->stream) (void)impl_->stream->Finish();
}

void Watch::cancel() { impl_->ctx.TryCancel(); }

bool Watch::request_progress() {
  std::lock_guard l(impl_->write_mu);
  if (!impl_->open) return false;
  pb::WatchRequest req;
  req.mutable_progress_request();
  return impl_->stream->Write(req);
}

util::Result<std::int64_t> Client::current_revision() {
  pb::RangeRequest req;
  req.set_key(std::string(1, '\0'));
  req.set_count_only(true);
  grpc::ClientContext ctx;
  impl_->prepare(ctx);
  pb::RangeResponse resp;
  auto s = impl_->kv->Range(&ctx, req, &resp);
  if (!s.ok()) return util::make_error(status_error("reading the current revision", s));
  return resp.header().revision();
}

Watch::Next Watch::next() {
  Next n;
  if (!impl_->started) {
    std::lock_guard l(impl_->write_mu);
    impl_->started = true;
    // No deadline: the stream lives until cancelled; wait for a member while none is reachable.
    impl_->ctx.set_wait_for_ready(true);
    impl_->stream = impl_->stub->Watch(&impl_->ctx);
    if (!impl_->stream->Write(impl_->create)) {
      auto s = impl_->stream->Finish();
      impl_->stream.reset();
      n.error = status_error("watch", s);
      return n;
    }
    impl_->open = true;
  }
  if (!impl_->stream) {
    n.error = "the watch stream is over";
    return n;
  }
  pb::WatchResponse resp;
  while (true) {
    if (!impl_->stream->Read(&resp)) {
      {
        std::lock_guard l(impl_->write_mu);
        impl_->open = false;
      }
      auto s = impl_->stream->Finish();
      impl_->stream.reset();
      n.status = Status::Failed;
      n.error = s.ok() ? "etcd closed the watch stream" : status_error("watch", s);
      return n;
    }
    if (resp.compact_revision() > 0) {
      n.status = Status::Compacted;
      n.compact_revision = resp.compact_revision();
      return n;
    }
    if (resp.canceled()) {
      n.status = Status::Failed;
      n.error = "etcd cancelled the watch: " + resp.cancel_reason();
      return n;
    }
    if (resp.created() && resp.events_size() == 0) continue;
    n.status = Status::Batch;
    n.batch.revision = resp.header().revision();
    n.batch.events.reserve(static_cast<std::size_t>(resp.events_size()));
    for (auto& ev : *resp.mutable_events()) {
      auto* kv = ev.mutable_kv();
      n.batch.events.push_back(WatchEvent{ev.type() == pb::Event::DELETE,
                                          KeyValue{std::move(*kv->mutable_key()), std::move(*kv->mutable_value()),
                                                   kv->create_revision(), kv->mod_revision(), kv->version()}});
    }
    return n;
  }
}

}  // namespace ksched::etcd
