#include "localcluster/ui_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <mutex>
#include <thread>

#include "api/codec.h"
#include "client/rest.h"
#include "localcluster/ui_page.h"
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

std::string scheduled_reason(const api::Pod& pod) {
  for (const auto& c : pod.status.conditions) {
    if (c.type == "PodScheduled" && c.status == "False") return std::string(c.message);
  }
  return {};
}

}  // namespace

struct UiServer::Impl {
  std::shared_ptr<client::RestClient> client;
  std::unique_ptr<scheduler::app::SchedulerApp> explainer;
  std::mutex explain_mu;  // one refresh-and-explain at a time: they share the explainer's snapshot
  asio::io_context io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread thread;
  std::string url;
  std::atomic<bool> stopped{false};

  void accept(UiServer* owner) {
    acceptor->async_accept([this, owner](beast::error_code ec, tcp::socket sock) {
      if (ec) return;
      auto stream = std::make_shared<beast::tcp_stream>(std::move(sock));
      auto buffer = std::make_shared<beast::flat_buffer>();
      auto req = std::make_shared<http::request<http::string_body>>();
      stream->expires_after(std::chrono::seconds(30));
      http::async_read(*stream, *buffer, *req, [owner, stream, buffer, req](beast::error_code rec, std::size_t) {
        if (rec) return;
        std::string target(req->target());
        const auto q = target.find('?');
        const std::string path = target.substr(0, q);
        const std::string query = q == std::string::npos ? std::string() : target.substr(q + 1);
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

  std::string cluster_json() {
    std::lock_guard l(explain_mu);
    auto* sched = explainer->scheduler();
    boost::json::array nodes;
    std::size_t pods = 0;
    if (sched->refresh_snapshot().ok() && !sched->profiles().empty()) {
      for (const auto& ni : sched->profiles().begin()->second->snapshot_node_infos().list()) {
        if (ni->node() == nullptr) continue;
        boost::json::array names;
        for (const auto& p : ni->pods) names.push_back(boost::json::string(p->pod->metadata.namespace_ + "/" + p->pod->metadata.name));
        pods += ni->pods.size();
        nodes.push_back(boost::json::object{{"name", std::string(ni->name_view())},
                                            {"milliCPU", ni->requested.milliCPU},
                                            {"milliCPUAllocatable", ni->allocatable.milliCPU},
                                            {"memory", ni->requested.memory},
                                            {"memoryAllocatable", ni->allocatable.memory},
                                            {"podsAllocatable", ni->allocatable.allowedPodNumber},
                                            {"pods", std::move(names)}});
      }
    }
    std::sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
      return a.as_object().at("name").as_string() < b.as_object().at("name").as_string();
    });
    boost::json::array pending;
    for (const auto& p : sched->queue().pending_pods()) {
      pending.push_back(boost::json::object{{"pod", p->metadata.namespace_ + "/" + p->metadata.name},
                                            {"reason", scheduled_reason(*p)}});
    }
    return boost::json::serialize(boost::json::object{
               {"nodes", std::move(nodes)}, {"pods", pods + pending.size()}, {"pending", std::move(pending)}}) +
           "\n";
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
    auto e = scheduler::explain::explain(*fwk, *pod);
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
  server->impl_->thread = std::thread([im = server->impl_.get()] { im->io.run(); });
  return server;
}

void UiServer::stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->explainer.reset();
}

std::string UiServer::url() const { return impl_->url; }

UiServer::Response UiServer::handle(const std::string& path, const std::string& query) {
  if (path == "/" || path == "/index.html") return {200, "text/html; charset=utf-8", kUiPage};
  if (path == "/api/cluster") return {200, "application/json", impl_->cluster_json()};
  if (path == "/api/explain") {
    const std::string pod = query_param(query, "pod");
    if (pod.empty()) return {400, "text/plain; charset=utf-8", "give ?pod=namespace/name\n"};
    return impl_->explain_json(pod);
  }
  return {404, "text/plain; charset=utf-8", "not found\n"};
}

}  // namespace ksched::localcluster
