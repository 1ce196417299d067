#include "apiserver/server.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <mutex>
#include <thread>

#include "apiserver/auth/auth.h"
#include "apiserver/auth/authorization.h"
#include "apiserver/auth/components.h"
#include "apiserver/storage/durable_log.h"
#include "apiserver/storage/etcd_storage.h"
#include "tls/certs.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/endpoints/http_server.h"
#include "apiserver/resources.h"
#include "util/base64.h"
#include "util/log.h"

namespace ksched::apiserver {


namespace {

struct Credentials {
  std::string token;
  tls::KeyPair ca, serving;
};

util::Result<std::string> read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) return util::make_error("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Written as the store's files are: private from creation, synced, renamed into place, so that a
// crash leaves either no file or the whole one (the token goes last and says the set is complete).
util::Result<void> write_private(const std::filesystem::path& p, const std::string& text) {
  std::string tmp = p.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return util::make_error("cannot write " + tmp + ": " + std::strerror(errno));
  std::string_view rest = text;
  bool ok = true;
  while (ok && !rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ok = ok && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), p.c_str()) != 0) return util::make_error("cannot write " + p.string() + ": " + std::strerror(errno));
  int dfd = ::open(p.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

// The admin token and the TLS material: new for a memory-only server; with a data directory, made
// once and kept in DIR/pki so that a restarted server accepts the kubeconfigs it handed out.
util::Result<Credentials> load_or_make_credentials(const std::string& data_dir, bool tls_on) {
  namespace fs = std::filesystem;
  Credentials c;
  fs::path pki = data_dir.empty() ? fs::path() : fs::path(data_dir) / "pki";
  const char* files[] = {"admin.token", "ca.crt", "ca.key", "apiserver.crt", "apiserver.key"};
  if (!data_dir.empty() && fs::exists(pki / files[0]) && fs::exists(pki / files[4])) {
    std::string* into[] = {&c.token, &c.ca.cert_pem, &c.ca.key_pem, &c.serving.cert_pem, &c.serving.key_pem};
    for (int i = 0; i < 5; ++i) {
      auto t = read_text(pki / files[i]);
      if (!t) return util::make_error(t.error());
      *into[i] = std::move(*t);
    }
    while (!c.token.empty() && (c.token.back() == '\n' || c.token.back() == '\r')) c.token.pop_back();
    if (c.token.empty()) return util::make_error((pki / files[0]).string() + " is empty");
    return c;
  }
  c.token = random_token();
  // The certificates are made even without TLS when kept, so a later --tls restart can use them.
  if (tls_on || !data_dir.empty()) {
    auto ca = tls::generate_ca("ksched-ca");
    if (!ca) return util::make_error(ca.error());
    auto srv = tls::generate_signed(*ca, "ksched-apiserver", {"localhost"}, {"127.0.0.1"});
    if (!srv) return util::make_error(srv.error());
    c.ca = std::move(*ca);
    c.serving = std::move(*srv);
  }
  if (!data_dir.empty()) {
    std::error_code ec;
    fs::create_directories(pki, ec);
    if (ec) return util::make_error("cannot create " + pki.string() + ": " + ec.message());
    const std::string* from[] = {&c.token, &c.ca.cert_pem, &c.ca.key_pem, &c.serving.cert_pem, &c.serving.key_pem};
    for (int i = 4; i >= 0; --i)
      if (auto r = write_private(pki / files[i], *from[i]); !r) return util::make_error(r.error());
  }
  return c;
}

// Each component's token (components.h), kept in DIR/pki/<component>.token with a data directory
// so that a restarted server accepts the kubeconfigs it handed out; made when missing (a data
// directory an older server wrote has none yet).
util::Result<std::map<std::string, std::string, std::less<>>> load_or_make_component_tokens(const std::string& data_dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string, std::less<>> tokens;
  for (const auto& c : kComponents) {
    std::string token;
    fs::path file = data_dir.empty() ? fs::path() : fs::path(data_dir) / "pki" / (std::string(c.component) + ".token");
    if (!data_dir.empty() && fs::exists(file)) {
      auto t = read_text(file);
      if (!t) return util::make_error(t.error());
      token = std::move(*t);
      while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
      if (token.empty()) return util::make_error(file.string() + " is empty");
    } else {
      token = random_token();
      if (!data_dir.empty())
        if (auto r = write_private(file, token); !r) return util::make_error(r.error());
    }
    tokens.emplace(c.component, std::move(token));
  }
  return tokens;
}

}  // namespace

struct Server::Impl {
  Options opts;
  Api api;
  TokenAuthenticator auth;
  std::unique_ptr<HttpServer> http;
  // After http: destroyed first, dropping the answers it still holds while their io contexts live.
  std::unique_ptr<DurableLog> log;
  std::unique_ptr<EtcdStorage> etcd;
  tls::KeyPair ca;       // generated CA, handed to clients through the kubeconfig
  tls::KeyPair serving;  // 127.0.0.1/localhost certificate signed by `ca`
  std::string token;
  std::map<std::string, std::string, std::less<>> component_tokens;  // component -> token
  std::uint16_t port = 0;
  std::string host = "127.0.0.1";
  bool started = false;
  std::thread reaper;
  std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;

  explicit Impl(Options o) : opts(std::move(o)), api(opts.watch_history) {}
};

Server::Server(Options opts) : impl_(std::make_unique<Impl>(std::move(opts))) {}

Server::~Server() { stop(); }

util::Result<void> Server::start() {
  auto& d = *impl_;
  if (d.started) return util::make_error("server already started");
  std::string listen = d.opts.listen;
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return util::make_error("--listen must be host:port, got \"" + listen + "\"");
  d.host = listen.substr(0, colon);
  if (d.host.empty()) d.host = "127.0.0.1";
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (...) {
    return util::make_error("--listen: invalid port in \"" + listen + "\"");
  }
  if (port < 0 || port > 65535) return util::make_error("--listen: invalid port in \"" + listen + "\"");
  auto admission = AdmissionPlugins::with_disabled(d.opts.disable_admission_plugins);
  if (!admission) return util::make_error(admission.error());
  d.api.set_admission_plugins(*admission);
  if (!d.opts.etcd_servers.empty()) {
    EtcdStorage::Options eo;
    eo.etcd.endpoints = d.opts.etcd_servers;
    eo.etcd.ca_file = d.opts.etcd_cafile;
    eo.etcd.cert_file = d.opts.etcd_certfile;
    eo.etcd.key_file = d.opts.etcd_keyfile;
    eo.prefix = d.opts.etcd_prefix;
    eo.compaction_interval = std::chrono::seconds(std::max(0, d.opts.etcd_compaction_interval_seconds));
    auto st = EtcdStorage::open(d.api.store(), std::move(eo));
    if (!st) return util::make_error(st.error());
    d.etcd = std::move(*st);
    log::info("etcd store opened", {{"prefix", d.opts.etcd_prefix}, {"revision", d.etcd->loaded_revision()},
                                    {"objects", static_cast<std::int64_t>(d.etcd->loaded_objects())}});
  } else if (!d.opts.data_dir.empty()) {
    auto log = DurableLog::open(d.api.store(), DurableLog::Options{d.opts.data_dir, d.opts.wal_segment_bytes});
    if (!log) return util::make_error(log.error());
    d.log = std::move(*log);
    const auto& rec = d.log->recovery();
    log::info("durable store opened", {{"dir", d.opts.data_dir}, {"revision", rec.revision},
                                       {"objects", static_cast<std::int64_t>(rec.objects)},
                                       {"snapshotRevision", rec.snapshot_revision},
                                       {"recordsReplayed", static_cast<std::int64_t>(rec.records_replayed)}});
  }
  auto creds = load_or_make_credentials(d.opts.data_dir, d.opts.tls);
  if (!creds) return util::make_error(creds.error());
  d.token = creds->token;
  d.auth.add(d.token, admin_user());
  auto component_tokens = load_or_make_component_tokens(d.opts.data_dir);
  if (!component_tokens) return util::make_error(component_tokens.error());
  d.component_tokens = std::move(*component_tokens);
  for (const auto& c : kComponents) {
    UserInfo u{std::string(c.user), std::string(c.component), {}};
    if (!c.group.empty()) u.groups.emplace_back(c.group);
    d.auth.add(d.component_tokens.find(c.component)->second, std::move(u));
  }
  if (!d.opts.token_file.empty()) {
    auto r = d.auth.load_file(d.opts.token_file);
    if (!r) return r;
  }
  auto mode = parse_authorization_mode(d.opts.authorization_mode);
  if (!mode) return util::make_error(mode.error());
  d.api.set_authorization_mode(*mode);
  d.auth.set_anonymous(d.opts.anonymous_auth);
  TlsMaterial tls;
  if (d.opts.tls) {
    d.ca = std::move(creds->ca);
    d.serving = std::move(creds->serving);
    tls.cert_pem = d.serving.cert_pem;
    tls.key_pem = d.serving.key_pem;
  }
  d.api.store().set_max_object_bytes(d.opts.limits.max_object_bytes);
  try {
    // A store that holds no object yet (memory, a new data directory, an empty etcd prefix) is a
    // new cluster: its simulated nodes are made now, and only now (nodes register once; a node the
    // user deleted does not come back on restart).
    bool new_cluster = true;
    for (const auto& r : all_resources()) new_cluster = new_cluster && d.api.store().count(r.id) == 0;
    // Idempotent: a recovered store, or one another server shares, keeps what it has (409s are
    // ignored).
    d.api.set_feature_gates(d.opts.feature_gates);  // the bootstrap policy follows them
    d.api.bootstrap();
    if (d.opts.nodes > 0 && new_cluster) {
      auto r = d.api.create_nodes(d.opts.nodes, d.opts.node_template);
      if (!r) return r;
    } else if (d.opts.nodes > 0) {
      log::info("Simulated nodes are created on a cluster's first start only; keeping the stored nodes",
                {{"nodes", d.opts.nodes}});
    }
  } catch (const StorageError& e) {
    return util::make_error(std::string("storing the bootstrap objects: ") + e.what());
  }
  d.api.set_authenticator(&d.auth);
  d.api.set_controller_manager(d.opts.controller_manager);
  d.api.set_feature_gates(d.opts.feature_gates);
  // etcd mode: a write blocks its thread for an etcd round trip, so requests get threads of their
  // own, enough for as many concurrent writes as etcd batches well.
  d.http = std::make_unique<HttpServer>(d.api, d.auth, tls, std::max(1, d.opts.io_threads), d.etcd ? 64 : 0,
                                        d.opts.limits);
  auto bound = d.http->listen(d.host, static_cast<std::uint16_t>(port));
  if (!bound) return util::make_error(bound.error());
  d.port = *bound;
  d.api.set_server_address(d.host + ":" + std::to_string(d.port));
  d.started = true;
  d.reaper = std::thread([&d] {
    std::unique_lock l(d.mu);
    while (!d.stopping) {
      d.cv.wait_for(l, std::chrono::seconds(1));
      if (d.stopping) break;
      l.unlock();
      try {
        d.api.reap_deletions();
      } catch (const StorageError& e) {
        log::warning("graceful deletions wait: storage unavailable", {{"err", e.what()}});
      }
      l.lock();
    }
  });
  if (!d.opts.kubeconfig_out.empty()) {
    std::ofstream out(d.opts.kubeconfig_out, std::ios::trunc);
    if (!out) return util::make_error("cannot write kubeconfig \"" + d.opts.kubeconfig_out + "\"");
    out << kubeconfig();
  }
  log::info("API server listening", {{"url", url()}, {"tls", d.opts.tls}, {"nodes", d.opts.nodes}});
  return {};
}

void Server::stop() {
  auto& d = *impl_;
  if (!d.started) return;
  d.started = false;
  {
    std::lock_guard l(d.mu);
    d.stopping = true;
  }
  d.cv.notify_all();
  if (d.reaper.joinable()) d.reaper.join();
  if (d.http) d.http->stop();
  d.etcd.reset();  // after http: answers waiting on the watch are dropped with their sessions
  if (d.log) {
    d.log->drop_waiters();
    d.log.reset();  // everything appended is durable before this returns
  }
}

std::uint16_t Server::port() const { return impl_->port; }

std::string Server::url() const {
  return std::string(impl_->opts.tls ? "https://" : "http://") + impl_->host + ":" + std::to_string(impl_->port);
}

std::string Server::ca_pem() const { return impl_->ca.cert_pem; }
std::string Server::admin_token() const { return impl_->token; }

namespace {

std::string kubeconfig_text(const std::string& url, const std::string* ca_pem, std::string_view user,
                            const std::string& token) {
  std::string s = "apiVersion: v1\nkind: Config\nclusters:\n- name: ksched\n  cluster:\n    server: " + url + "\n";
  if (ca_pem) s += "    certificate-authority-data: " + util::base64_encode(*ca_pem) + "\n";
  s += "contexts:\n- name: ksched\n  context:\n    cluster: ksched\n    user: " + std::string(user) +
       "\n    namespace: default\n";
  s += "current-context: ksched\nusers:\n- name: " + std::string(user) + "\n  user:\n    token: " + token + "\n";
  return s;
}

}  // namespace

std::string Server::kubeconfig() const {
  return kubeconfig_text(url(), impl_->opts.tls ? &impl_->ca.cert_pem : nullptr, "ksched", impl_->token);
}

std::string Server::component_token(std::string_view component) const {
  auto it = impl_->component_tokens.find(component);
  return it == impl_->component_tokens.end() ? std::string() : it->second;
}

std::string Server::component_kubeconfig(std::string_view component) const {
  std::string token = component_token(component);
  if (token.empty()) return {};
  return kubeconfig_text(url(), impl_->opts.tls ? &impl_->ca.cert_pem : nullptr, component, token);
}

void Server::compact(std::int64_t revision) { impl_->api.store().compact(revision); }

}  // namespace ksched::apiserver
