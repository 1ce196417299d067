#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "serving/healthz.h"
#include "serving/secure_serving.h"

using namespace ksched::serving;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

struct Reply {
  int status;
  std::string body;
};

// One HTTPS GET that verifies the server against `ca_pem`.
Reply https_get(std::uint16_t port, const std::string& ca_pem, const std::string& target,
                const std::string& token = {}) {
  asio::io_context io;
  asio::ssl::context ctx(asio::ssl::context::tls_client);
  ctx.add_certificate_authority(asio::buffer(ca_pem));
  ctx.set_verify_mode(asio::ssl::verify_peer);
  beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
  SSL_set_tlsext_host_name(stream.native_handle(), "localhost");
  stream.set_verify_callback(asio::ssl::host_name_verification("localhost"));
  beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(stream).connect({asio::ip::make_address("127.0.0.1"), port});
  stream.handshake(asio::ssl::stream_base::client);
  http::request<http::empty_body> req(http::verb::get, target, 11);
  req.set(http::field::host, "localhost");
  if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
  http::write(stream, req);
  beast::flat_buffer buf;
  http::response<http::string_body> res;
  http::read(stream, buf, res);
  return {static_cast<int>(res.result_int()), res.body()};
}

class TokenAuthorizer : public RequestAuthorizer {
 public:
  std::optional<UserInfo> authenticate(const ksched::serving::HttpRequest& req) override {
    if (req.bearer_token == "good" || req.bearer_token == "reader") return UserInfo{req.bearer_token, {}};
    return std::nullopt;
  }
  bool authorize(const UserInfo& user, const std::string& verb, const std::string& path) override {
    return user.name == "good" && verb == "get" && (path == "/metrics" || path.rfind("/readyz/", 0) == 0);
  }
};

class SecureServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SecureServingOptions o;
    o.bind_address = "127.0.0.1";
    o.port = 0;
    server = std::make_unique<SecureServer>(o);
    healthz.add({"ping", [] { return std::nullopt; }});
    readyz.add({"ping", [] { return std::nullopt; }});
    readyz.add({"sched-handler-sync", [this]() -> std::optional<std::string> {
                  if (synced) return std::nullopt;
                  return std::string("handlers not synced");
                }});
    server->handle("/healthz", [this](const auto& r) { return healthz.serve(r); }, true);
    server->handle("/readyz", [this](const auto& r) { return readyz.serve(r); }, true);
    server->handle("/metrics", [](const auto&) { return ksched::serving::HttpResponse{200, "text/plain", "m 1\n", {}}; });
    auto st = server->start();
    ASSERT_TRUE(st.ok()) << st.error();
    ca = server->self_signed_ca_pem();
    ASSERT_FALSE(ca.empty());
  }
  std::unique_ptr<SecureServer> server;
  HealthEndpoint healthz{"healthz"};
  HealthEndpoint readyz{"readyz"};
  std::atomic<bool> synced{false};
  std::string ca;
};

}  // namespace

TEST_F(SecureServerTest, HealthzOkOverVerifiedTls) {
  auto r = https_get(server->port(), ca, "/healthz");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
}

TEST_F(SecureServerTest, ReadyzFailsUntilSyncedAndWithholdsReason) {
  auto r = https_get(server->port(), ca, "/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[+]ping ok\n[-]sched-handler-sync failed: reason withheld\nreadyz check failed\n");
  auto excluded = https_get(server->port(), ca, "/readyz?exclude=sched-handler-sync");
  EXPECT_EQ(excluded.status, 200);
  synced = true;
  auto ok = https_get(server->port(), ca, "/readyz?verbose");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "[+]ping ok\n[+]sched-handler-sync ok\nreadyz check passed\n");
  // Sub-paths are not in the default always-allow list (upstream: exact paths only).
  EXPECT_EQ(https_get(server->port(), ca, "/readyz/sched-handler-sync").status, 403);
  server->set_authorizer(std::make_shared<TokenAuthorizer>());
  auto single = https_get(server->port(), ca, "/readyz/sched-handler-sync", "good");
  EXPECT_EQ(single.status, 200);
  EXPECT_EQ(single.body, "ok");
  EXPECT_EQ(https_get(server->port(), ca, "/readyz/nope", "good").status, 404);
}

TEST_F(SecureServerTest, MetricsForbiddenWithoutAuthorizer) {
  auto r = https_get(server->port(), ca, "/metrics");
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("cannot get path \\\"/metrics\\\""), std::string::npos) << r.body;
}

TEST_F(SecureServerTest, MetricsNeedAuthenticatedAndAuthorizedCaller) {
  server->set_authorizer(std::make_shared<TokenAuthorizer>());
  EXPECT_EQ(https_get(server->port(), ca, "/metrics").status, 401);
  EXPECT_EQ(https_get(server->port(), ca, "/metrics", "bad").status, 401);
  EXPECT_EQ(https_get(server->port(), ca, "/metrics", "reader").status, 403);
  auto ok = https_get(server->port(), ca, "/metrics", "good");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.body, "m 1\n");
  // Health stays reachable without credentials (always-allowed paths).
  EXPECT_EQ(https_get(server->port(), ca, "/healthz").status, 200);
}

TEST(SecureServer, PortInUseIsAClearError) {
  SecureServingOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  SecureServer a(o);
  ASSERT_TRUE(a.start().ok());
  o.port = a.port();
  SecureServer b(o);
  auto st = b.start();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("failed to listen on 127.0.0.1:" + std::to_string(o.port)), std::string::npos)
      << st.error();
}

TEST(SecureServer, BadBindAddressIsAClearError) {
  SecureServingOptions o;
  o.bind_address = "not-an-ip";
  SecureServer s(o);
  auto st = s.start();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().find("invalid --bind-address"), std::string::npos);
}
