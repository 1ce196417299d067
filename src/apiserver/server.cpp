#include "apiserver/server.h"

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include "apiserver/auth.h"
#include "tls/certs.h"
#include "apiserver/handlers.h"
#include "apiserver/http_server.h"
#include "util/base64.h"
#include "util/log.h"

namespace ksched::apiserver {


struct Server::Impl {
  Options opts;
  Api api;
  TokenAuthenticator auth;
  std::unique_ptr<HttpServer> http;
  tls::KeyPair ca;       // generated CA, handed to clients through the kubeconfig
  tls::KeyPair serving;  // 127.0.0.1/localhost certificate signed by `ca`
  std::string token;
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
  d.token = random_token();
  d.auth.add(d.token, UserInfo{"admin", "admin", {"system:masters", "system:authenticated"}});
  if (!d.opts.token_file.empty()) {
    auto r = d.auth.load_file(d.opts.token_file);
    if (!r) return r;
  }
  TlsMaterial tls;
  if (d.opts.tls) {
    auto ca = tls::generate_ca("ksched-ca");
    if (!ca) return util::make_error(ca.error());
    auto srv = tls::generate_signed(*ca, "ksched-apiserver", {"localhost"}, {"127.0.0.1"});
    if (!srv) return util::make_error(srv.error());
    d.ca = std::move(*ca);
    d.serving = std::move(*srv);
    tls.cert_pem = d.serving.cert_pem;
    tls.key_pem = d.serving.key_pem;
  }
  d.api.bootstrap();
  d.api.set_authenticator(&d.auth);
  if (d.opts.nodes > 0) {
    auto r = d.api.create_nodes(d.opts.nodes, d.opts.node_template);
    if (!r) return r;
  }
  d.http = std::make_unique<HttpServer>(d.api, d.auth, tls, std::max(1, d.opts.io_threads));
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
      d.api.reap_deletions();
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
}

std::uint16_t Server::port() const { return impl_->port; }

std::string Server::url() const {
  return std::string(impl_->opts.tls ? "https://" : "http://") + impl_->host + ":" + std::to_string(impl_->port);
}

std::string Server::ca_pem() const { return impl_->ca.cert_pem; }
std::string Server::admin_token() const { return impl_->token; }

std::string Server::kubeconfig() const {
  std::string s = "apiVersion: v1\nkind: Config\nclusters:\n- name: ksched\n  cluster:\n    server: " + url() + "\n";
  if (impl_->opts.tls) s += "    certificate-authority-data: " + util::base64_encode(impl_->ca.cert_pem) + "\n";
  s += "contexts:\n- name: ksched\n  context:\n    cluster: ksched\n    user: ksched\n    namespace: default\n";
  s += "current-context: ksched\nusers:\n- name: ksched\n  user:\n    token: " + impl_->token + "\n";
  return s;
}

void Server::compact(std::int64_t revision) { impl_->api.store().compact(revision); }

}  // namespace ksched::apiserver
