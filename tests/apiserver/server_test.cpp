// The in-process Server over real loopback HTTP: TLS with the generated CA, bearer tokens,
// a chunked watch stream that sees a create, and stop() ending the stream cleanly.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/json.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "apiserver/server.h"

namespace ksched::apiserver {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

class TlsClient {
 public:
  TlsClient(const Server& s) : ctx_(ssl::context::tls_client), stream_(ioc_, ctx_) {
    ctx_.add_certificate_authority(net::buffer(s.ca_pem()));
    ctx_.set_verify_mode(ssl::verify_peer);
    stream_.set_verify_callback(ssl::host_name_verification("127.0.0.1"));
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(20));
    beast::get_lowest_layer(stream_).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), s.port()));
    stream_.handshake(ssl::stream_base::client);
  }
  http::response<http::string_body> request(http::verb v, const std::string& target, const std::string& token,
                                            const std::string& body = "") {
    send(v, target, token, body);
    http::response<http::string_body> res;
    http::read(stream_, buf_, res);
    return res;
  }
  void send(http::verb v, const std::string& target, const std::string& token, const std::string& body = "") {
    http::write(stream_, make(v, target, token, body));
  }
  static http::request<http::string_body> make(http::verb v, const std::string& target, const std::string& token,
                                                const std::string& body = "") {
    http::request<http::string_body> req{v, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!token.empty()) req.set(http::field::authorization, "Bearer " + token);
    if (!body.empty()) req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    return req;
  }
  http::response<http::string_body> request(const http::request<http::string_body>& req) {
    http::write(stream_, req);
    http::response<http::string_body> res;
    http::read(stream_, buf_, res);
    return res;
  }
  beast::ssl_stream<beast::tcp_stream>& stream() { return stream_; }
  beast::flat_buffer& buffer() { return buf_; }

 private:
  net::io_context ioc_;
  ssl::context ctx_;
  beast::ssl_stream<beast::tcp_stream> stream_;
  beast::flat_buffer buf_;
};

TEST(Server, TlsTokensWatchAndCleanStop) {
  std::string tokens = ::testing::TempDir() + "/apiserver_tokens.csv";
  std::ofstream(tokens) << "user-token,alice,1001,\"dev,qa\"\n";
  std::string kubeconfig = ::testing::TempDir() + "/apiserver_kubeconfig";
  Options o;
  o.token_file = tokens;
  o.kubeconfig_out = kubeconfig;
  o.nodes = 3;
  Server s(o);
  ASSERT_TRUE(s.start());
  ASSERT_NE(s.port(), 0);
  EXPECT_EQ(s.url(), "https://127.0.0.1:" + std::to_string(s.port()));
  std::stringstream kc;
  kc << std::ifstream(kubeconfig).rdbuf();
  EXPECT_NE(kc.str().find("server: " + s.url()), std::string::npos);
  EXPECT_NE(kc.str().find("token: " + s.admin_token()), std::string::npos);

  TlsClient c(s);
  auto v = c.request(http::verb::get, "/version", s.admin_token());
  EXPECT_EQ(v.result_int(), 200);
  EXPECT_NE(v.body().find("\"minor\":\"35\""), std::string::npos);
  // No token: system:anonymous, which may read health and version only; a wrong token is 401.
  auto anon = c.request(http::verb::get, "/api/v1/nodes", "");
  EXPECT_EQ(anon.result_int(), 403);
  EXPECT_NE(anon.body().find(R"("message":"nodes is forbidden: User \"system:anonymous\" cannot list resource \"nodes\" in API group \"\" at the cluster scope")"),
            std::string::npos) << anon.body();
  EXPECT_EQ(c.request(http::verb::get, "/healthz", "").result_int(), 200);
  auto wrong = c.request(http::verb::get, "/healthz", "not-a-token");
  EXPECT_EQ(wrong.result_int(), 401);
  EXPECT_NE(wrong.body().find("\"reason\":\"Unauthorized\""), std::string::npos);
  // A token-file user is authenticated, then authorized by RBAC: 403 until a binding allows it.
  EXPECT_EQ(c.request(http::verb::get, "/api/v1/nodes", "user-token").result_int(), 403);
  ASSERT_EQ(c.request(http::verb::post, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", s.admin_token(),
                      R"({"metadata":{"name":"dev-nodes"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:node-proxier"},"subjects":[{"kind":"Group","name":"dev"}]})")
                .result_int(),
            201);
  auto nodes = c.request(http::verb::get, "/api/v1/nodes?labelSelector=type%3Dsimulated", "user-token");
  EXPECT_EQ(nodes.result_int(), 200);
  EXPECT_NE(nodes.body().find("\"name\":\"node-2\""), std::string::npos);

  // Watch over a second connection, starting at the current revision.
  auto list = c.request(http::verb::get, "/api/v1/namespaces/default/configmaps", s.admin_token());
  auto pos = list.body().find("\"resourceVersion\":\"");
  std::string rv = list.body().substr(pos + 19, list.body().find('"', pos + 19) - pos - 19);
  TlsClient w(s);
  w.send(http::verb::get, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + rv, s.admin_token());
  http::response_parser<http::string_body> p;
  http::read_header(w.stream(), w.buffer(), p);
  EXPECT_EQ(p.get().result_int(), 200);
  EXPECT_TRUE(p.chunked());
  auto created = c.request(http::verb::post, "/api/v1/namespaces/default/configmaps", s.admin_token(),
                           R"({"metadata":{"name":"watched"}})");
  ASSERT_EQ(created.result_int(), 201);
  // Read until the event line arrived.
  std::string got;
  while (got.find('\n') == std::string::npos) {
    beast::error_code ec;
    http::read_some(w.stream(), w.buffer(), p, ec);
    ASSERT_FALSE(ec) << ec.message();
    got = p.get().body();
  }
  EXPECT_EQ(got.rfind("{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"watched\"", 0), 0u) << got;
  // stop() ends the stream with the terminating chunk.
  s.stop();
  beast::error_code ec;
  http::read(w.stream(), w.buffer(), p, ec);
  EXPECT_TRUE(p.is_done()) << ec.message();
}

// The components' kubeconfigs carry tokens of their own (never the admin's), whose users RBAC
// binds as upstream binds kube-scheduler, kube-controller-manager and a node.
TEST(Server, ComponentKubeconfigsCarryTheirOwnIdentities) {
  Options o;
  Server s(o);
  ASSERT_TRUE(s.start());
  TlsClient c(s);
  std::set<std::string> tokens{s.admin_token()};
  for (const char* comp : {"kube-scheduler", "kube-controller-manager", "node-simulator"}) {
    std::string t = s.component_token(comp);
    EXPECT_TRUE(tokens.insert(t).second) << comp << ": a token of its own";
    std::string kc = s.component_kubeconfig(comp);
    EXPECT_NE(kc.find("token: " + t), std::string::npos) << kc;
    EXPECT_NE(kc.find("server: " + s.url()), std::string::npos);
  }
  EXPECT_EQ(s.component_kubeconfig("nope"), "");
  const std::string sched = s.component_token("kube-scheduler");
  auto review = c.request(http::verb::post, "/apis/authentication.k8s.io/v1/tokenreviews", sched,
                          R"({"spec":{"token":")" + sched + R"("}})");
  ASSERT_EQ(review.result_int(), 201) << review.body();
  EXPECT_NE(review.body().find(R"("username":"system:kube-scheduler")"), std::string::npos) << review.body();
  EXPECT_EQ(c.request(http::verb::get, "/api/v1/pods", sched).result_int(), 200);
  EXPECT_EQ(c.request(http::verb::get, "/api/v1/secrets", sched).result_int(), 403);
  const std::string sim = s.component_token("node-simulator");
  EXPECT_EQ(c.request(http::verb::get, "/api/v1/nodes", sim).result_int(), 200);
  EXPECT_EQ(c.request(http::verb::get, "/api/v1/secrets", sim).result_int(), 403);
  const std::string kcm = s.component_token("kube-controller-manager");
  EXPECT_EQ(c.request(http::verb::get, "/apis/apps/v1/deployments", kcm).result_int(), 200);
  EXPECT_EQ(c.request(http::verb::post, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", kcm, "{}").result_int(), 403);
}

TEST(Server, AuthorizationModeAndAnonymousAuthOptions) {
  std::string tokens = ::testing::TempDir() + "/apiserver_modes_tokens.csv";
  std::ofstream(tokens) << "user-token,alice,1001\n";
  Options o;
  o.token_file = tokens;
  o.authorization_mode = "AlwaysAllow";
  o.anonymous_auth = false;
  Server s(o);
  ASSERT_TRUE(s.start());
  TlsClient c(s);
  EXPECT_EQ(c.request(http::verb::get, "/api/v1/secrets", "user-token").result_int(), 200);
  auto anon = c.request(http::verb::get, "/healthz", "");
  EXPECT_EQ(anon.result_int(), 401);
  Options bad;
  bad.authorization_mode = "ABAC";
  Server b(bad);
  auto r = b.start();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("unknown authorization mode \"ABAC\""), std::string::npos) << r.error();
}

// With a data directory: a write is answered once durable, pipelined writes on one connection are
// answered in order, and a new server on the same directory has every object, the same CA and the
// same admin token (the kubeconfig it handed out keeps working).
TEST(Server, DataDirectoryKeepsObjectsAndCredentialsAcrossRestarts) {
  std::string dir = ::testing::TempDir() + "/server_data_dir";
  std::filesystem::remove_all(dir);
  Options o;
  o.data_dir = dir;
  o.nodes = 2;
  std::string token, ca, scheduler_token;
  std::string uid;
  {
    Server s(o);
    ASSERT_TRUE(s.start());
    token = s.admin_token();
    ca = s.ca_pem();
    scheduler_token = s.component_token("kube-scheduler");
    EXPECT_EQ(std::filesystem::status(std::filesystem::path(dir) / "pki" / "kube-scheduler.token").permissions() &
                  std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    TlsClient c(s);
    // Three creates sent before reading any answer.
    for (int i = 0; i < 3; ++i)
      c.send(http::verb::post, "/api/v1/namespaces/default/configmaps", token,
             R"({"metadata":{"name":"kept-)" + std::to_string(i) + R"("},"data":{"k":"v"}})");
    for (int i = 0; i < 3; ++i) {
      http::response<http::string_body> res;
      http::read(c.stream(), c.buffer(), res);
      ASSERT_EQ(res.result_int(), 201) << res.body();
      EXPECT_NE(res.body().find("\"name\":\"kept-" + std::to_string(i) + "\""), std::string::npos);
      if (i == 0) {
        auto p = res.body().find("\"uid\":\"");
        uid = res.body().substr(p + 7, 36);
      }
    }
  }
  Server s(o);
  ASSERT_TRUE(s.start());
  EXPECT_EQ(s.admin_token(), token);
  EXPECT_EQ(s.ca_pem(), ca);
  EXPECT_EQ(s.component_token("kube-scheduler"), scheduler_token);
  TlsClient c(s);
  auto got = c.request(http::verb::get, "/api/v1/namespaces/default/configmaps/kept-0", token);
  ASSERT_EQ(got.result_int(), 200);
  EXPECT_NE(got.body().find(uid), std::string::npos);
  auto nodes = c.request(http::verb::get, "/api/v1/nodes", token);
  EXPECT_EQ(nodes.body().find("node-2"), std::string::npos);  // --nodes 2 again: no duplicates
  EXPECT_NE(nodes.body().find("node-1"), std::string::npos);
  auto list = c.request(http::verb::get, "/api/v1/namespaces/default/configmaps", token);
  EXPECT_NE(list.body().find("kept-2"), std::string::npos);
  // A second server on the same directory refuses to start.
  Server other(o);
  auto r = other.start();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("in use by another server"), std::string::npos) << r.error();
}

// Responses carry their length, type and caching headers; a keep-alive connection serves request
// after request, and one the client closes gets "Connection: close" and is closed after the response.
TEST(Server, ResponsesAreFramedForKeepAliveAndClose) {
  Options o;
  Server s(o);
  ASSERT_TRUE(s.start());
  TlsClient c(s);
  for (int i = 0; i < 3; ++i) {
    auto v = c.request(http::verb::get, "/version", s.admin_token());
    EXPECT_EQ(v.result_int(), 200);
    EXPECT_EQ(v.version(), 11);
    EXPECT_EQ(v.reason(), "OK");
    EXPECT_TRUE(v.keep_alive());
    EXPECT_EQ(v[http::field::content_type], "application/json");
    EXPECT_EQ(v[http::field::cache_control], "no-cache, private");
    EXPECT_EQ(v[http::field::content_length], std::to_string(v.body().size()));
    EXPECT_NE(v.body().find("\"gitVersion\""), std::string::npos);
  }
  // kube-apiserver v1.35's /version: apimachinery's version.Info as compatibility.effectiveVersion
  // fills it (component-base/compatibility/version.go Info(): binary, emulation and minimum
  // compatibility versions, the last one minor version back).
  auto v = c.request(http::verb::get, "/version", "");
  ASSERT_EQ(v.result_int(), 200);  // system:public-info-viewer: anonymous may read it
  auto info = boost::json::parse(v.body()).as_object();
  EXPECT_EQ(info.at("major"), "1");
  EXPECT_EQ(info.at("minor"), "35");
  EXPECT_EQ(info.at("emulationMajor"), "1");
  EXPECT_EQ(info.at("emulationMinor"), "35");
  EXPECT_EQ(info.at("minCompatibilityMajor"), "1");
  EXPECT_EQ(info.at("minCompatibilityMinor"), "34");
  EXPECT_EQ(info.at("gitVersion"), "v1.35.4+ksched");
  for (const char* f : {"gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"})
    EXPECT_TRUE(info.at(f).is_string()) << f;
  EXPECT_EQ(std::string(info.at("platform").as_string()).rfind("linux/", 0), 0u);
  auto missing = c.request(http::verb::get, "/api/v1/namespaces/default/configmaps/nope", s.admin_token());
  EXPECT_EQ(missing.result_int(), 404);
  EXPECT_EQ(missing.reason(), "Not Found");
  EXPECT_NE(missing.body().find("\"reason\":\"NotFound\""), std::string::npos);
  auto api = c.request(http::verb::get, "/api", s.admin_token());
  EXPECT_EQ(api[http::field::vary], "Accept");

  auto last = TlsClient::make(http::verb::get, "/version", s.admin_token());
  last.keep_alive(false);
  auto r = c.request(last);
  EXPECT_EQ(r.result_int(), 200);
  EXPECT_FALSE(r.keep_alive());
  EXPECT_EQ(r[http::field::connection], "close");
  http::response<http::string_body> after;
  beast::error_code ec;
  http::read(c.stream(), c.buffer(), after, ec);
  EXPECT_TRUE(ec) << "the server kept the connection open";
}

std::string wire(const http::request<http::string_body>& req) {
  std::ostringstream o;
  o << req;
  return o.str();
}

// HTTP/1.1 pipelining: requests sent together are answered in order (the server batches the
// answers into one write); a request only partly received (header or body) is answered once the
// rest arrives, without holding back the answers before it; a watch among pipelined requests
// streams after the answers before it; and a request asking to close ends the batch, the ones
// behind it unanswered.
TEST(Server, PipelinedRequestsAreAnsweredInOrder) {
  Options o;
  Server s(o);
  ASSERT_TRUE(s.start());
  const std::string tok = s.admin_token();
  TlsClient c(s);
  auto read_one = [&] {
    http::response<http::string_body> res;
    http::read(c.stream(), c.buffer(), res);
    return res;
  };
  std::string cm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"}})";
  std::string batch = wire(TlsClient::make(http::verb::post, "/api/v1/namespaces/default/configmaps", tok, cm)) +
                      wire(TlsClient::make(http::verb::get, "/api/v1/namespaces/default/configmaps/a", tok)) +
                      wire(TlsClient::make(http::verb::get, "/api/v1/namespaces/default/configmaps/b", tok)) +
                      wire(TlsClient::make(http::verb::get, "/version", tok));
  net::write(c.stream(), net::buffer(batch));
  auto created = read_one();
  EXPECT_EQ(created.result_int(), 201) << created.body();
  auto got = read_one();
  EXPECT_EQ(got.result_int(), 200);
  EXPECT_NE(got.body().find(R"("k":"v")"), std::string::npos) << got.body();
  EXPECT_EQ(read_one().result_int(), 404);
  auto version = read_one();
  EXPECT_EQ(version.result_int(), 200);
  EXPECT_NE(version.body().find("gitVersion"), std::string::npos);

  // One request and the first half of the next: the first is answered before the rest is sent.
  std::string second = wire(TlsClient::make(http::verb::get, "/api/v1/namespaces/default/configmaps/a", tok));
  std::string first = wire(TlsClient::make(http::verb::get, "/version", tok));
  net::write(c.stream(), net::buffer(first + second.substr(0, second.size() / 2)));
  EXPECT_NE(read_one().body().find("gitVersion"), std::string::npos);
  net::write(c.stream(), net::buffer(second.substr(second.size() / 2)));
  EXPECT_NE(read_one().body().find(R"("name":"a")"), std::string::npos);

  // A request and the first half of the next one's body: the parser keeps the part it took and
  // the rest of the body completes it.
  std::string cm2 = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"split"},"data":{"k":"w"}})";
  std::string post = wire(TlsClient::make(http::verb::post, "/api/v1/namespaces/default/configmaps", tok, cm2));
  std::size_t cut = post.size() - cm2.size() / 2;
  net::write(c.stream(), net::buffer(first + post.substr(0, cut)));
  EXPECT_NE(read_one().body().find("gitVersion"), std::string::npos);
  net::write(c.stream(), net::buffer(post.substr(cut)));
  auto split = read_one();
  EXPECT_EQ(split.result_int(), 201) << split.body();
  EXPECT_NE(split.body().find(R"("k":"w")"), std::string::npos) << split.body();

  // An answer, then a watch stream on the same connection.
  net::write(c.stream(), net::buffer(wire(TlsClient::make(http::verb::get, "/version", tok)) +
                                     wire(TlsClient::make(http::verb::get,
                                                          "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1",
                                                          tok))));
  EXPECT_NE(read_one().body().find("gitVersion"), std::string::npos);
  http::response_parser<http::string_body> watch;
  http::read_header(c.stream(), c.buffer(), watch);
  EXPECT_EQ(watch.get().result_int(), 200);
  EXPECT_TRUE(watch.get().chunked());

  // "Connection: close" ends the batch: the request behind it is not answered.
  TlsClient d(s);
  auto closing = TlsClient::make(http::verb::get, "/version", tok);
  closing.keep_alive(false);
  net::write(d.stream(), net::buffer(wire(TlsClient::make(http::verb::get, "/version", tok)) + wire(closing) +
                                     wire(TlsClient::make(http::verb::get, "/version", tok))));
  http::response<http::string_body> r1, r2, r3;
  http::read(d.stream(), d.buffer(), r1);
  http::read(d.stream(), d.buffer(), r2);
  EXPECT_TRUE(r1.keep_alive());
  EXPECT_FALSE(r2.keep_alive());
  beast::error_code ec;
  http::read(d.stream(), d.buffer(), r3, ec);
  EXPECT_TRUE(ec) << "the server answered a request sent after Connection: close";
}

TEST(Server, BadListenAddressIsAnError) {
  Options o;
  o.listen = "not-an-ip:1";
  Server s(o);
  auto r = s.start();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("invalid listen address"), std::string::npos);
}

}  // namespace
}  // namespace ksched::apiserver
