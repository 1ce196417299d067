#include "localcluster/ui_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "client/rest.h"
#include "client/resources_dra.h"
#include "informer/factory.h"
#include "localcluster/ui_page.h"
#include "localcluster/ui_state.h"
#include "scheduler/app/app.h"
#include "scheduler/explain/explain.h"
#include "scheduler/scheduler.h"

namespace ksched::localcluster {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1; };
      const int hi = hex(s[i + 1]), lo = hex(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += s[i] == '+' ? ' ' : s[i];
  }
  return out;
}

std::string query_param(const std::string& query, std::string_view key) {
  std::size_t at = 0;
  while (at <= query.size()) {
    const std::size_t end = std::min(query.find('&', at), query.size());
    const std::string_view kv(query.data() + at, end - at);
    const auto eq = kv.find('=');
    if (kv.substr(0, eq) == key) return eq == std::string_view::npos ? std::string() : percent_decode(kv.substr(eq + 1));
    at = end + 1;
  }
  return {};
}

constexpr auto kFlushInterval = std::chrono::milliseconds(200);  // deltas coalesce this long
constexpr auto kHeartbeat = std::chrono::seconds(15);            // a comment line: finds gone pages
constexpr std::size_t kMaxQueuedBytes = 32u << 20;               // a page this far behind starts over

// One page's Server-Sent Events stream: the snapshot, then deltas. Lives on the io thread only.
struct EventStream : std::enable_shared_from_this<EventStream> {
  explicit EventStream(tcp::socket s) : socket(std::move(s)) {}
  tcp::socket socket;
  std::deque<std::shared_ptr<const std::string>> queue;
  std::size_t queued = 0;
  bool writing = false;
  bool closed = false;

  void send(std::shared_ptr<const std::string> msg) {
    if (closed) return;
    queued += msg->size();
    queue.push_back(std::move(msg));
    // A page that cannot keep up is dropped; its EventSource reconnects and gets a fresh snapshot,
    // which is smaller than the deltas it missed.
    if (queued > kMaxQueuedBytes) return close();
    if (!writing) write_next();
  }
  void write_next() {
    if (queue.empty() || closed) {
      writing = false;
      return;
    }
    writing = true;
    asio::async_write(socket, asio::buffer(*queue.front()),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->close();
                        self->queued -= self->queue.front()->size();
                        self->queue.pop_front();
                        self->write_next();
                      });
  }
  void close() {
    if (closed) return;
    closed = true;
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }
};

std::shared_ptr<const std::string> sse_message(std::string_view event, const std::string& data) {
  auto m = std::make_shared<std::string>();
  m->reserve(data.size() + event.size() + 16);
  *m += "event: ";
  *m += event;
  *m += "\ndata: ";
  *m += data;  // one line: JSON as serialized has no raw newline
  *m += "\n\n";
  return m;
}

}  // namespace

struct UiServer::Impl {
  std::shared_ptr<client::RestClient> client;
  std::unique_ptr<scheduler::app::SchedulerApp> explainer;
  std::mutex explain_mu;  // one refresh-and-explain at a time: they share the explainer's snapshot
  UiState state;
  std::unique_ptr<informer::SharedInformerFactory> informers;
  std::function<bool()> handlers_synced;  // every object listed at start is in `state`
  asio::io_context io;
  std::unique_ptr<tcp::acceptor> acceptor;
  asio::steady_timer flush_timer{io};
  std::vector<std::shared_ptr<EventStream>> streams;  // io thread only
  std::chrono::steady_clock::time_point last_heartbeat = std::chrono::steady_clock::now();
  std::thread thread;
  std::string url;
  std::atomic<bool> stopped{false};

  void watch() {
    // The pages' view comes from the cluster's own watch: one informer per kind feeding UiState.
    auto feed = [this]<class T>(informer::InformerOptions<T> opts, auto set, auto remove) {
      auto inf = informers->informer_for<T>(std::move(opts));
      auto h = std::make_shared<informer::ResourceEventHandlerFuncs<T>>();
      h->add = [this, set](const informer::Ptr<T>& o, bool) { (state.*set)(*o); };
      h->update = [this, set](const informer::Ptr<T>&, const informer::Ptr<T>& o) { (state.*set)(*o); };
      h->del = [this, remove](const informer::Deleted<T>& d) { (state.*remove)(d.key); };
      return inf->add_event_handler(h);
    };
    informer::InformerOptions<api::Pod> po;
    po.transform = [](api::Pod& p) {  // what the page never reads need not be cached
      p.metadata.managedFields = {};
      p.metadata.annotations = {};
    };
    auto pods_reg = feed(std::move(po), &UiState::set_pod, &UiState::remove_pod);
    informer::InformerOptions<api::Node> no;
    no.transform = [](api::Node& n) {
      n.metadata.managedFields = {};
      n.status.images.clear();
    };
    auto nodes_reg = feed(std::move(no), &UiState::set_node, &UiState::remove_node);
    // DRA devices per node and who holds them (resource.k8s.io/v1, GA and always served here).
    namespace rv1 = api::resourcev1;
    informer::InformerOptions<rv1::ResourceSlice> so;
    so.reflector.decode.dropManagedFields = true;
    auto slices_reg = feed(std::move(so), &UiState::set_slice, &UiState::remove_slice);
    informer::InformerOptions<rv1::ResourceClaim> co;
    co.reflector.decode.dropManagedFields = true;
    auto claims_reg = feed(std::move(co), &UiState::set_claim, &UiState::remove_claim);
    informers->start();
    handlers_synced = [pods_reg, nodes_reg, slices_reg, claims_reg] {
      return pods_reg->has_synced() && nodes_reg->has_synced() && slices_reg->has_synced() && claims_reg->has_synced();
    };
  }

  // Every kFlushInterval: the changes since the last tick go to every open page as one delta.
  void schedule_flush() {
    flush_timer.expires_after(kFlushInterval);
    flush_timer.async_wait([this](beast::error_code ec) {
      if (ec) return;
      std::erase_if(streams, [](const auto& s) { return s->closed; });
      auto delta = state.take_delta(!streams.empty());
      if (delta) {
        auto msg = sse_message("delta", *delta);
        for (auto& s : streams) s->send(msg);
        last_heartbeat = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - last_heartbeat >= kHeartbeat) {
        auto msg = std::make_shared<const std::string>(":\n\n");
        for (auto& s : streams) s->send(msg);
        last_heartbeat = std::chrono::steady_clock::now();
      }
      schedule_flush();
    });
  }

  void open_stream(tcp::socket sock) {
    auto s = std::make_shared<EventStream>(std::move(sock));
    s->send(std::make_shared<const std::string>(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
        "retry: 1000\n\n"));
    s->send(sse_message("snapshot", state.snapshot()));
    streams.push_back(std::move(s));
  }

  void accept(UiServer* owner) {
    acceptor->async_accept([this, owner](beast::error_code ec, tcp::socket sock) {
      if (ec) return;
      auto stream = std::make_shared<beast::tcp_stream>(std::move(sock));
      auto buffer = std::make_shared<beast::flat_buffer>();
      auto req = std::make_shared<http::request<http::string_body>>();
      stream->expires_after(std::chrono::seconds(30));
      http::async_read(*stream, *buffer, *req, [this, owner, stream, buffer, req](beast::error_code rec, std::size_t) {
        if (rec) return;
        std::string target(req->target());
        const auto q = target.find('?');
        const std::string path = target.substr(0, q);
        const std::string query = q == std::string::npos ? std::string() : target.substr(q + 1);
        if (path == "/api/events" && req->method() == http::verb::get) {
          stream->expires_never();
          return open_stream(stream->release_socket());
        }
        Response out = req->method() == http::verb::get || req->method() == http::verb::head
                           ? owner->handle(path, query)
                           : Response{405, "text/plain; charset=utf-8", "only GET\n"};
        auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(out.status), req->version());
        res->set(http::field::content_type, out.content_type);
        res->set(http::field::cache_control, "no-store");
        res->keep_alive(false);
        if (req->method() != http::verb::head) res->body() = std::move(out.body);
        res->prepare_payload();
        http::async_write(*stream, *res, [stream, res](beast::error_code, std::size_t) {
          beast::error_code ignored;
          stream->socket().shutdown(tcp::socket::shutdown_send, ignored);
        });
      });
      accept(owner);
    });
  }

  Response explain_json(const std::string& key) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) return {400, "text/plain; charset=utf-8", "pod must be namespace/name\n"};
    auto pod = client->get<api::Pod>(key.substr(0, slash), key.substr(slash + 1));
    if (!pod) return {pod.error().code == 404 ? 404 : 502, "text/plain; charset=utf-8", pod.error().message + "\n"};
    std::lock_guard l(explain_mu);
    auto* sched = explainer->scheduler();
    auto* fwk = sched->profile(pod->spec.schedulerName);
    if (fwk == nullptr) {
      return {404, "text/plain; charset=utf-8", "the pod asks for scheduler \"" + pod->spec.schedulerName + "\", not a profile here\n"};
    }
    if (auto r = sched->refresh_snapshot(); !r) return {500, "text/plain; charset=utf-8", r.error() + "\n"};
    auto e = scheduler::explain::explain_with_group(*sched, *fwk, *pod);
    if (!e) return {500, "text/plain; charset=utf-8", e.error() + "\n"};
    return {200, "application/json", scheduler::explain::to_json(*e)};
  }
};

UiServer::UiServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UiServer::~UiServer() { stop(); }

util::Result<std::unique_ptr<UiServer>> UiServer::start(const std::string& listen, const client::RestConfig& rest) {
  auto im = std::make_unique<Impl>();
  auto c = client::RestClient::create(rest);
  if (!c) return util::make_error("ui: building a client: " + c.error());
  im->client = *c;

  auto app = scheduler::app::start_inspector(rest);
  if (!app) return util::make_error("ui: " + app.error());
  im->explainer = std::move(*app);
  im->informers = std::make_unique<informer::SharedInformerFactory>(im->client);
  im->watch();
  // The first page must see the cluster whole: wait until the handlers, not only the caches, have
  // every listed object (polling, as WaitForCacheSync does).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!im->handlers_synced()) {
    if (std::chrono::steady_clock::now() > deadline) return util::make_error("ui: the informers (nodes, pods, resource slices and claims) did not sync");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  const auto colon = listen.rfind(':');
  if (colon == std::string::npos) return util::make_error("ui: listen address must be host:port, got \"" + listen + "\"");
  beast::error_code ec;
  const auto addr = asio::ip::make_address(listen.substr(0, colon), ec);
  if (ec) return util::make_error("ui: bad address \"" + listen + "\": " + ec.message());
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    return util::make_error("ui: bad port in \"" + listen + "\"");
  }
  if (port < 0 || port > 65535) return util::make_error("ui: bad port in \"" + listen + "\"");
  im->acceptor = std::make_unique<tcp::acceptor>(im->io);
  const tcp::endpoint ep(addr, static_cast<std::uint16_t>(port));
  im->acceptor->open(ep.protocol(), ec);
  if (!ec) im->acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) im->acceptor->bind(ep, ec);
  if (!ec) im->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return util::make_error("ui: listening on " + listen + ": " + ec.message());
  const auto bound = im->acceptor->local_endpoint();
  im->url = "http://" + bound.address().to_string() + ":" + std::to_string(bound.port()) + "/";

  auto server = std::unique_ptr<UiServer>(new UiServer(std::move(im)));
  server->impl_->accept(server.get());
  server->impl_->schedule_flush();
  server->impl_->thread = std::thread([im = server->impl_.get()] { im->io.run(); });
  return server;
}

void UiServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  impl_->informers->shutdown();  // its handlers write to the state the io thread reads
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->explainer.reset();
}

std::string UiServer::url() const { return impl_->url; }

UiServer::Response UiServer::handle(const std::string& path, const std::string& query) {
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", kUiPage};
  if (path == "/api/cluster") return {200, "application/json", impl_->state.snapshot() + "\n"};
  if (path == "/api/explain") {
    const std::string pod = query_param(query, "pod");
    if (pod.empty()) return {400, "text/plain; charset=utf-8", "give ?pod=namespace/name\n"};
    return impl_->explain_json(pod);
  }
  return {404, "text/plain; charset=utf-8", "not found\n"};
}

}  // namespace ksched::localcluster
