#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "client/rate_limiter.h"
#include "client/rest.h"
#include "client/transport.h"
#include "client/watch.h"

using namespace ksched::client;
using namespace std::chrono_literals;

TEST(TokenBucket, BurstThenQpsWithFakeClock) {
  ksched::util::FakeClock clock;
  TokenBucket tb(10, 3, clock);
  EXPECT_EQ(tb.reserve(), 0ns);
  EXPECT_EQ(tb.reserve(), 0ns);
  EXPECT_EQ(tb.reserve(), 0ns);
  // Bucket empty: the next callers queue 100 ms apart.
  EXPECT_NEAR(std::chrono::duration<double>(tb.reserve()).count(), 0.1, 1e-6);
  EXPECT_NEAR(std::chrono::duration<double>(tb.reserve()).count(), 0.2, 1e-6);
  EXPECT_FALSE(tb.try_accept());
  clock.step(1s);  // debt of 2 repaid, 8 refilled, capped by burst 3
  EXPECT_NEAR(tb.tokens(), 3.0, 1e-6);
  EXPECT_TRUE(tb.try_accept());
  EXPECT_NEAR(tb.tokens(), 2.0, 1e-6);
}

TEST(TokenBucket, ZeroQpsIsUnlimited) {
  ksched::util::FakeClock clock;
  TokenBucket tb(0, 1, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(tb.reserve(), 0ns);
}

TEST(ListOptions, QueryMatchesReflectorRequests) {
  ListOptions o;
  o.limit = 500;
  o.resourceVersion = "0";
  o.fieldSelector = "status.phase!=Succeeded,status.phase!=Failed";
  EXPECT_EQ(o.query(false),
            "?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed&limit=500&resourceVersion=0");
  ListOptions w;
  w.resourceVersion = "42";
  w.allowWatchBookmarks = true;
  w.timeoutSeconds = 331;
  EXPECT_EQ(w.query(true), "?allowWatchBookmarks=true&resourceVersion=42&timeoutSeconds=331&watch=true");
}

TEST(ResourceRef, Paths) {
  EXPECT_EQ((ResourceRef{"", "v1", "pods", "ns1", "web-0", "binding"}.path()), "/api/v1/namespaces/ns1/pods/web-0/binding");
  EXPECT_EQ((ResourceRef{"", "v1", "nodes", "", "", ""}.path()), "/api/v1/nodes");
  EXPECT_EQ((ResourceRef{"coordination.k8s.io", "v1", "leases", "kube-system", "kube-scheduler", ""}.path()),
            "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler");
}

TEST(DeleteOptions, Body) {
  DeleteOptions d;
  d.gracePeriodSeconds = 0;
  d.preconditionUID = "u1";
  EXPECT_EQ(d.body(), R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":"u1"}})");
}

TEST(WatchStream, DecodesEventsSplitAcrossChunks) {
  std::vector<std::string> chunks = {
      R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"1"}}})" "\n{\"type\":\"MOD",
      R"(IFIED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"2"}}})" "\n\n",
      R"({"object":{"kind":"Pod","metadata":{"resourceVersion":"3"}},"type":"BOOKMARK"})" "\n",
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})"};  // no final newline
  WatchStream w(std::make_unique<MemoryResponseStream>(chunks));
  RawWatchEvent ev;
  std::vector<std::string> types;
  while (w.next(ev)) types.push_back(ev.type);
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "MODIFIED", "BOOKMARK", "ERROR"}));
  EXPECT_EQ(ev.json, R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})");
  EXPECT_EQ(w.error(), "");
}

TEST(WatchStream, GarbageEndsTheStreamWithAnError) {
  WatchStream w(std::make_unique<MemoryResponseStream>(std::vector<std::string>{"not json\n"}));
  RawWatchEvent ev;
  EXPECT_FALSE(w.next(ev));
  EXPECT_NE(w.error().find("unable to decode watch event"), std::string::npos);
}

TEST(LineSplitter, HandlesCRLFAndLargeLines) {
  LineSplitter s;
  std::string big(100000, 'x');
  s.feed("a\r\n" + big.substr(0, 50000));
  std::string line;
  ASSERT_TRUE(s.next(line));
  EXPECT_EQ(line, "a");
  EXPECT_FALSE(s.next(line));
  s.feed(big.substr(50000) + "\n");
  ASSERT_TRUE(s.next(line));
  EXPECT_EQ(line.size(), big.size());
}

TEST(Transport, RejectsBadHostAndTlsMaterial) {
  RestConfig c;
  c.host = "ftp://x";
  EXPECT_FALSE(Transport::create(c).ok());
  c.host = "https://127.0.0.1:1";
  c.ca_pem = "not a pem";
  auto t = Transport::create(c);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().find("root certificates"), std::string::npos);
}

TEST(Transport, ConnectionRefusedIsATransportError) {
  RestConfig c;
  c.host = "http://127.0.0.1:1";
  c.timeout = 2s;
  auto rc = RestClient::create(c);
  ASSERT_TRUE(rc.ok());
  auto r = (*rc)->get(ResourceRef{"", "v1", "nodes", "", "", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(is_transport(r.error()));
  EXPECT_NE(r.error().message.find("connect"), std::string::npos) << r.error().message;
}

namespace {

// A TCP listener on 127.0.0.1 that accepts connections and holds them without ever answering;
// `greeting` (if any) is written to each one first.
class SilentServer {
 public:
  explicit SilentServer(std::string greeting = {}) : greeting_(std::move(greeting)) {
    acceptor_.open(boost::asio::ip::tcp::v4());
    acceptor_.bind({boost::asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    thread_ = std::thread([this] {
      for (;;) {
        boost::system::error_code ec;
        boost::asio::ip::tcp::socket s(ioc_);
        acceptor_.accept(s, ec);
        if (ec || stop_) return;
        if (!greeting_.empty()) boost::asio::write(s, boost::asio::buffer(greeting_), ec);
        held_.push_back(std::move(s));
      }
    });
  }
  ~SilentServer() {
    stop_ = true;
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);  // wakes the blocked accept
    thread_.join();
  }
  std::string url(const char* scheme) const {
    return std::string(scheme) + "://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }

 private:
  std::string greeting_;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_{ioc_};
  std::vector<boost::asio::ip::tcp::socket> held_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

// Requests block in recv with the socket's timeout as their deadline: a server that never
// answers ends the request with a Timeout error, and a TLS peer that never handshakes fails it.
TEST(Transport, SilentServerTimesOutAndSilentTlsPeerFailsTheHandshake) {
  SilentServer server;
  RestConfig c;
  c.host = server.url("http");
  c.timeout = 200ms;
  auto t = Transport::create(c);
  ASSERT_TRUE(t.ok());
  HttpRequest get;
  get.method = "GET";
  get.target = "/api/v1/nodes";
  auto r = (*t)->round_trip(get);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(is_timeout(r.error())) << r.error().message;
  HttpRequest post = get;
  post.method = "POST";
  post.body = "{}";
  r = (*t)->round_trip(post);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(is_timeout(r.error())) << r.error().message;

  c.host = server.url("https");
  c.insecure = true;
  auto tls = Transport::create(c);
  ASSERT_TRUE(tls.ok());
  r = (*tls)->round_trip(get);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(is_transport(r.error()));
  EXPECT_NE(r.error().message.find("handshake"), std::string::npos) << r.error().message;
}

// A watch stream's reader sleeps in recv (no deadline); stop() from another thread wakes it.
TEST(Transport, StopWakesAStreamReaderBlockedInRecv) {
  SilentServer server(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\n{}\n\r\n");
  RestConfig c;
  c.host = server.url("http");
  auto t = Transport::create(c);
  ASSERT_TRUE(t.ok());
  HttpRequest w;
  w.method = "GET";
  w.target = "/api/v1/pods?watch=true";
  w.timeout = 0ms;  // none: only stop() can end the read
  auto s = (*t)->open_stream(w);
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::string out;
  ASSERT_TRUE((*s)->read(out));
  EXPECT_EQ(out, "{}\n");
  std::atomic<bool> reading{false};
  bool more = true;
  std::thread reader([&] {
    reading = true;
    std::string rest;
    more = (*s)->read(rest);
  });
  while (!reading) std::this_thread::yield();
  (*s)->stop();
  reader.join();
  EXPECT_FALSE(more);
  EXPECT_TRUE((*s)->stopped());
}

namespace {

// Answers each request on one connection with 200 and records what arrived, parsed by Beast.
class RecordingServer {
 public:
  explicit RecordingServer(int requests) {
    acceptor_.open(boost::asio::ip::tcp::v4());
    acceptor_.bind({boost::asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    thread_ = std::thread([this, requests] {
      boost::system::error_code ec;
      boost::asio::ip::tcp::socket s(ioc_);
      acceptor_.accept(s, ec);
      boost::beast::flat_buffer buf;
      for (int i = 0; i < requests && !ec; ++i) {
        boost::beast::http::request<boost::beast::http::string_body> req;
        boost::beast::http::read(s, buf, req, ec);
        if (ec) return;
        received.push_back(req);
        boost::asio::write(s, boost::asio::buffer(std::string_view("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")),
                           ec);
      }
    });
  }
  ~RecordingServer() {
    // A test that failed before connecting leaves the thread in accept: wake it. (One that
    // connected closes its connection first, which ends the thread's read.)
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }
  // Waits for the server to have read its requests (or failed), then gives what it read.
  const std::vector<boost::beast::http::request<boost::beast::http::string_body>>& join() {
    if (thread_.joinable()) thread_.join();
    return received;
  }

 private:
  std::vector<boost::beast::http::request<boost::beast::http::string_body>> received;
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_{ioc_};
  std::thread thread_;
};

}  // namespace

// What a request puts on the wire: the request line, Host, User-Agent, Accept, gzip, the bearer
// token, the body with its type and length; a caller's header replaces ours of the same name.
TEST(Transport, RequestsCarryTheirHeadersAndBody) {
  auto server = std::make_unique<RecordingServer>(2);
  RestConfig c;
  c.host = server->url();
  c.bearer_token = "tok-123";
  c.user_agent = "ksched-test/1.0";
  auto t = Transport::create(c);
  ASSERT_TRUE(t.ok());
  HttpRequest post;
  post.method = "POST";
  post.target = "/api/v1/namespaces/ns/pods?fieldManager=x";
  post.body = R"({"kind":"Pod"})";
  auto r = (*t)->round_trip(post);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{}");
  HttpRequest get;
  get.target = "/api/v1/nodes";
  get.accept = "application/yaml";
  get.headers = {{"user-agent", "override/2"}};
  ASSERT_TRUE((*t)->round_trip(get).ok());
  const auto& got = server->join();
  ASSERT_EQ(got.size(), 2u);

  namespace http = boost::beast::http;
  const auto& p = got[0];
  EXPECT_EQ(p.method(), http::verb::post);
  EXPECT_EQ(p.target(), "/api/v1/namespaces/ns/pods?fieldManager=x");
  EXPECT_EQ(p.version(), 11);
  EXPECT_TRUE(p.keep_alive());
  EXPECT_EQ(p[http::field::host], "127.0.0.1:" + server->url().substr(server->url().rfind(':') + 1));
  EXPECT_EQ(p[http::field::user_agent], "ksched-test/1.0");
  EXPECT_EQ(p[http::field::accept], "application/json");
  EXPECT_EQ(p[http::field::accept_encoding], "gzip");
  EXPECT_EQ(p[http::field::authorization], "Bearer tok-123");
  EXPECT_EQ(p[http::field::content_type], "application/json");
  EXPECT_EQ(p[http::field::content_length], std::to_string(post.body.size()));
  EXPECT_EQ(p.body(), post.body);

  const auto& g = got[1];
  EXPECT_EQ(g.method(), http::verb::get);
  EXPECT_EQ(g[http::field::accept], "application/yaml");
  EXPECT_EQ(g.count(http::field::user_agent), 1u);
  EXPECT_EQ(g[http::field::user_agent], "override/2");
  EXPECT_EQ(g.count(http::field::content_length), 0u);
  EXPECT_EQ(g.count(http::field::content_type), 0u);
  EXPECT_TRUE(g.body().empty());
}

namespace {

// Echoes each request's body as its answer, one thread per connection, and holds every answer
// until the test opens the gate: requests pile up on the client meanwhile.
class GatedEchoServer {
 public:
  GatedEchoServer() {
    acceptor_.open(boost::asio::ip::tcp::v4());
    acceptor_.bind({boost::asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    accept_thread_ = std::thread([this] {
      for (;;) {
        auto s = std::make_shared<boost::asio::ip::tcp::socket>(ioc_);
        boost::system::error_code ec;
        acceptor_.accept(*s, ec);
        if (ec) return;
        std::lock_guard l(mu_);
        ++connections_;
        sockets_.push_back(s);
        conn_threads_.emplace_back([this, s] { serve(*s); });
      }
    });
  }
  ~GatedEchoServer() {
    open_gate();
    ::shutdown(acceptor_.native_handle(), SHUT_RDWR);
    accept_thread_.join();
    {
      std::lock_guard l(mu_);
      for (auto& s : sockets_) ::shutdown(s->native_handle(), SHUT_RDWR);
    }
    for (auto& t : conn_threads_) t.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()); }
  // A transport to this server, unthrottled.
  ksched::util::Result<std::shared_ptr<Transport>> transport() const {
    RestConfig c;
    c.host = url();
    c.qps = 0;
    c.timeout = 20s;
    return Transport::create(c);
  }
  void open_gate() {
    std::lock_guard l(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // The next n requests are answered 429 with Retry-After: 1.
  void answer_busy(int n) {
    std::lock_guard l(mu_);
    busy_ = n;
  }
  // Blocks until the server has read n requests in all.
  void wait_for_requests(int n) {
    std::unique_lock l(mu_);
    cv_.wait(l, [&] { return requests_ >= n; });
  }
  int connections() {
    std::lock_guard l(mu_);
    return connections_;
  }

 private:
  void serve(boost::asio::ip::tcp::socket& s) {
    namespace http = boost::beast::http;
    boost::beast::flat_buffer buf;
    for (;;) {
      http::request<http::string_body> req;
      boost::system::error_code ec;
      http::read(s, buf, req, ec);
      if (ec) return;
      bool busy = false;
      {
        std::unique_lock l(mu_);
        ++requests_;
        cv_.notify_all();
        cv_.wait(l, [&] { return open_; });
        if (busy_ > 0) {
          --busy_;
          busy = true;
        }
      }
      std::string answer = busy ? "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
                                : "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(req.body().size()) +
                                      "\r\n\r\n" + req.body();
      boost::asio::write(s, boost::asio::buffer(answer), ec);
      if (ec) return;
    }
  }
  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::acceptor acceptor_{ioc_};
  std::thread accept_thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int requests_ = 0, connections_ = 0, busy_ = 0;
  std::vector<std::shared_ptr<boost::asio::ip::tcp::socket>> sockets_;
  std::vector<std::thread> conn_threads_;
};

}  // namespace

// Two pipelined requests lead a batch each; six more arrive while those wait for their answers
// and queue; once the answers come, the queued six go out together on the two connections
// already open, in at most two batches, and every caller gets the answer to its own request.
TEST(Transport, PipelinedRequestsQueuedBehindABatchShareTheNextOne) {
  GatedEchoServer server;
  auto t = server.transport();
  ASSERT_TRUE(t.ok());
  Transport& tr = **t;
  std::vector<std::string> answers(8);
  std::vector<std::thread> callers;
  auto call = [&](int i) {
    callers.emplace_back([&, i] {
      HttpRequest r;
      r.method = "POST";
      r.target = "/echo";
      r.body = "request-" + std::to_string(i);
      r.pipelined = true;
      auto res = tr.round_trip(r);
      answers[i] = res.ok() ? res->body : "error: " + res.error().message;
    });
  };
  call(0);
  call(1);
  server.wait_for_requests(2);  // both leaders' batches are on the wire, unanswered
  for (int i = 2; i < 8; ++i) call(i);
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (tr.stats().pipelined_waiting < 6 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  ASSERT_EQ(tr.stats().pipelined_waiting, 6u);
  server.open_gate();
  for (auto& th : callers) th.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(answers[i], "request-" + std::to_string(i));
  auto s = tr.stats();
  EXPECT_EQ(s.pipelined_requests, 8u);
  EXPECT_GE(s.pipelined_batches, 3u);
  EXPECT_LE(s.pipelined_batches, 4u);
  EXPECT_EQ(s.pipelined_waiting, 0u);
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(s.connections_opened, 2u);
}

// POSTs of "body-<i>" for the echo server.
std::vector<HttpRequest> echo_requests(std::size_t n) {
  std::vector<HttpRequest> reqs(n);
  for (std::size_t i = 0; i < n; ++i) {
    reqs[i].method = "POST";
    reqs[i].target = "/echo";
    reqs[i].body = "body-" + std::to_string(i);
  }
  return reqs;
}

// One thread's many requests: all go pipelined on one connection in batches of up to 64, and
// the answers come back in the requests' order.
TEST(Transport, RoundTripAllAnswersInOrderOnOneConnection) {
  GatedEchoServer server;
  server.open_gate();
  auto t = server.transport();
  ASSERT_TRUE(t.ok());
  auto reqs = echo_requests(100);
  auto answers = (*t)->round_trip_all(reqs);
  ASSERT_EQ(answers.size(), reqs.size());
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    ASSERT_TRUE(answers[i].ok()) << answers[i].error().message;
    EXPECT_EQ(answers[i]->body, reqs[i].body);
  }
  auto s = (*t)->stats();
  EXPECT_EQ(s.pipelined_batches, 2u);
  EXPECT_EQ(s.pipelined_requests, 100u);
  EXPECT_EQ(s.connections_opened, 1u);
  EXPECT_EQ(server.connections(), 1);
}

// Requests of a round_trip_all batch that the server answers 429 with Retry-After go again alone,
// after the wait, and get their own answers; the others keep theirs.
TEST(Transport, RoundTripAllSendsAgainWhatTheServerAsksToRepeat) {
  GatedEchoServer server;
  server.open_gate();
  server.answer_busy(2);
  auto t = server.transport();
  ASSERT_TRUE(t.ok());
  auto reqs = echo_requests(3);
  auto answers = (*t)->round_trip_all(reqs);
  ASSERT_EQ(answers.size(), 3u);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    ASSERT_TRUE(answers[i].ok()) << answers[i].error().message;
    EXPECT_EQ(answers[i]->status, 200);
    EXPECT_EQ(answers[i]->body, reqs[i].body);
  }
  server.wait_for_requests(5);
  EXPECT_EQ((*t)->stats().requests, 5u);
}
