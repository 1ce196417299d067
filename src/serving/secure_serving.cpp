#include "serving/secure_serving.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "tls/certs.h"
#include "util/log.h"
#include "util/thread.h"

namespace ksched::serving {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct Route {
  std::string path;
  HttpHandler handler;
  bool prefix;
};

// Handlers hold the Impl by plain pointer: they run only on the serving thread, which stop()
// joins before the Impl can go, and io.stop() leaves the pending ones queued in `io`. Held by
// shared_ptr they would keep the Impl, and so `io` and themselves, alive forever.
struct SecureServer::Impl {
  SecureServingOptions opts;
  asio::io_context io{1};
  asio::ssl::context ssl{asio::ssl::context::tls_server};
  std::optional<tcp::acceptor> acceptor;
  std::thread thread;
  std::mutex mu;
  std::vector<Route> routes;
  std::shared_ptr<RequestAuthorizer> authorizer;
  std::string ca_pem;
  std::uint16_t bound_port = 0;
  std::atomic<bool> running{false};

  const Route* find_route(const std::string& path) {
    const Route* best = nullptr;
    for (const auto& r : routes) {
      bool match = r.path == path || (r.prefix && path.size() > r.path.size() && path.compare(0, r.path.size(), r.path) == 0 &&
                                      path[r.path.size()] == '/');
      if (match && (!best || r.path.size() > best->path.size())) best = &r;
    }
    return best;
  }

  bool always_allowed(const std::string& path) const {
    for (const auto& p : opts.always_allow_paths) {
      if (p == path) return true;
      // "/healthz/*" style entries allow subpaths.
      if (p.size() > 1 && p.back() == '*' && path.compare(0, p.size() - 1, p, 0, p.size() - 1) == 0) return true;
    }
    return false;
  }

  HttpResponse dispatch(const HttpRequest& req) {
    std::shared_ptr<RequestAuthorizer> authz;
    const Route* route = nullptr;
    HttpHandler handler;
    {
      std::lock_guard l(mu);
      authz = authorizer;
      route = find_route(req.path);
      if (route) handler = route->handler;
    }
    if (!always_allowed(req.path)) {
      UserInfo user{"system:anonymous", {"system:unauthenticated"}};
      if (authz) {
        auto u = authz->authenticate(req);
        if (!u) return HttpResponse{401, "application/json", unauthorized_status(), {}};
        user = *u;
      }
      bool masters = std::find(user.groups.begin(), user.groups.end(), "system:masters") != user.groups.end();
      std::string verb = req.method == "GET" || req.method == "HEAD" ? "get" : "post";
      std::transform(verb.begin(), verb.end(), verb.begin(), ::tolower);
      if (!masters && !(authz && authz->authorize(user, verb, req.path))) {
        return HttpResponse{403, "application/json", forbidden_status(user.name, verb, req.path), {}};
      }
    }
    if (!handler) return HttpResponse{404, "text/plain; charset=utf-8", "404 page not found\n", {}};
    try {
      return handler(req);
    } catch (const std::exception& e) {
      // Panic recovery, as upstream's filter chain: one bad request never takes the server down.
      log::error("Handler failed", {{"path", req.path}, {"err", e.what()}});
      return HttpResponse{500, "text/plain; charset=utf-8", "Internal Server Error\n", {}};
    }
  }

  static std::string unauthorized_status() {
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})";
  }
  static std::string forbidden_status(const std::string& user, const std::string& verb, const std::string& path) {
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \")" + user +
           R"(\" cannot )" + verb + R"( path \")" + path + R"(\"","reason":"Forbidden","details":{},"code":403})";
  }

  void accept() {
    acceptor->async_accept([self = this](beast::error_code ec, tcp::socket sock) {
      if (ec) {
        if (self->running) self->accept();
        return;
      }
      auto stream = std::make_shared<beast::ssl_stream<beast::tcp_stream>>(std::move(sock), self->ssl);
      beast::get_lowest_layer(*stream).expires_after(std::chrono::seconds(30));
      stream->async_handshake(asio::ssl::stream_base::server, [self, stream](beast::error_code hec) {
        if (!hec) self->read(stream);
      });
      self->accept();
    });
  }

  void read(std::shared_ptr<beast::ssl_stream<beast::tcp_stream>> stream) {
    auto buffer = std::make_shared<beast::flat_buffer>();
    auto req = std::make_shared<http::request<http::string_body>>();
    beast::get_lowest_layer(*stream).expires_after(std::chrono::seconds(60));
    http::async_read(*stream, *buffer, *req,
                     [self = this, stream, buffer, req](beast::error_code ec, std::size_t) {
                       if (ec) {
                         stream->async_shutdown([stream](beast::error_code) {});
                         return;
                       }
                       self->respond(stream, buffer, *req);
                     });
  }

  void respond(std::shared_ptr<beast::ssl_stream<beast::tcp_stream>> stream,
               std::shared_ptr<beast::flat_buffer> buffer, const http::request<http::string_body>& req) {
    HttpRequest r;
    r.method = std::string(req.method_string());
    std::string target(req.target());
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = target.substr(q + 1);
    auto auth = req[http::field::authorization];
    if (auth.size() > 7 && (auth.substr(0, 7) == "Bearer " || auth.substr(0, 7) == "bearer ")) {
      r.bearer_token = std::string(auth.substr(7));
    }
    HttpResponse out = dispatch(r);
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(out.status),
                                                                    req.version());
    res->set(http::field::content_type, out.content_type);
    for (const auto& [k, v] : out.headers) res->set(k, v);
    res->keep_alive(req.keep_alive());
    if (req.method() != http::verb::head) res->body() = std::move(out.body);
    res->prepare_payload();
    http::async_write(*stream, *res, [self = this, stream, buffer, res](beast::error_code ec, std::size_t) {
      if (ec) return;
      if (res->keep_alive()) {
        self->read(stream);
      } else {
        stream->async_shutdown([stream](beast::error_code) {});
      }
    });
  }
};

SecureServer::SecureServer(SecureServingOptions opts) : impl_(std::make_shared<Impl>()) {
  impl_->opts = std::move(opts);
}

SecureServer::~SecureServer() { stop(); }

void SecureServer::handle(const std::string& path, HttpHandler h, bool prefix) {
  std::lock_guard l(impl_->mu);
  impl_->routes.push_back(Route{path, std::move(h), prefix});
}

void SecureServer::set_authorizer(std::shared_ptr<RequestAuthorizer> a) {
  std::lock_guard l(impl_->mu);
  impl_->authorizer = std::move(a);
}

util::Result<void> SecureServer::start() {
  auto& im = *impl_;
  std::string cert = im.opts.cert_pem, key = im.opts.key_pem;
  if (cert.empty() || key.empty()) {
    auto pair = tls::generate_self_signed_serving("localhost");
    if (!pair) return util::make_error("generating self-signed certificate: " + pair.error());
    cert = pair->cert_pem;
    key = pair->key_pem;
    auto second = cert.find("-----BEGIN CERTIFICATE-----", 10);
    if (second != std::string::npos) im.ca_pem = cert.substr(second);
  }
  beast::error_code ec;
  im.ssl.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
  im.ssl.use_certificate_chain(asio::buffer(cert), ec);
  if (ec) return util::make_error("loading serving certificate: " + ec.message());
  im.ssl.use_private_key(asio::buffer(key), asio::ssl::context::pem, ec);
  if (ec) return util::make_error("loading serving key: " + ec.message());

  auto addr = asio::ip::make_address(im.opts.bind_address, ec);
  if (ec) return util::make_error("invalid --bind-address \"" + im.opts.bind_address + "\": " + ec.message());
  tcp::endpoint ep(addr, im.opts.port);
  im.acceptor.emplace(im.io);
  im.acceptor->open(ep.protocol(), ec);
  if (!ec) im.acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) im.acceptor->bind(ep, ec);
  if (!ec) im.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return util::make_error("failed to listen on " + im.opts.bind_address + ":" + std::to_string(im.opts.port) +
                            ": " + ec.message());
  }
  im.bound_port = im.acceptor->local_endpoint().port();
  im.running = true;
  im.accept();
  im.thread = std::thread([impl = impl_] {
    util::set_thread_name("serving");
    impl->io.run();
  });
  log::info("Serving securely on", {{"address", im.opts.bind_address + ":" + std::to_string(im.bound_port)}});
  return {};
}

void SecureServer::stop() {
  if (!impl_ || !impl_->running.exchange(false)) return;
  asio::post(impl_->io, [impl = impl_] {
    beast::error_code ec;
    impl->acceptor->close(ec);
    impl->io.stop();
  });
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t SecureServer::port() const { return impl_->bound_port; }
std::string SecureServer::self_signed_ca_pem() const { return impl_->ca_pem; }

}  // namespace ksched::serving
