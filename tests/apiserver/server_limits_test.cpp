// The limits of the HTTP layer over real loopback connections, each answered as upstream answers
// it rather than by a closed connection: bodies over the limit (413 Status), headers over the
// limit (431), malformed requests (400); slow and idle connections dropped at their timeouts;
// the max-in-flight filter (429, Retry-After); simulated nodes made once per cluster; and the
// server's memory under the amplification attacks of issue #38.
//
// The client is a plain socket with receive and send timeouts, so no test can hang on a server
// that neither answers nor closes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>

#include "apiserver/server.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

class RawConn {
 public:
  // `rcvbuf` > 0 fixes the receive buffer (no autotuning), so that an unread answer soon fills it.
  explicit RawConn(std::uint16_t port, int rcvbuf = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    timeval tv{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawConn() { ::close(fd_); }
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;

  bool connected() const { return connected_; }

  bool send(std::string_view s) {
    while (!s.empty()) {
      ssize_t n = ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      s.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  struct Reply {
    int status = 0;  // 0: no answer (closed, reset or timed out first)
    std::string head;
    std::string body;
    std::string header(std::string_view name) const {
      std::string lower_head = lower(head), key = "\r\n" + lower(name) + ": ";
      auto p = lower_head.find(key);
      if (p == std::string::npos) return "";
      auto start = p + key.size();
      return head.substr(start, head.find("\r\n", start) - start);
    }
    static std::string lower(std::string_view s) {
      std::string out(s);
      for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return out;
    }
  };

  // One response: its head, then Content-Length bytes of body, or (without a length, and not
  // chunked) the bytes up to the end of the stream.
  Reply read_reply() {
    Reply r;
    std::size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (recv_some() <= 0) return r;
    r.head = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    r.status = std::atoi(r.head.substr(9, 3).c_str());
    if (std::string len = r.header("Content-Length"); !len.empty()) {
      const auto n = static_cast<std::size_t>(std::stoull(len));
      while (buf_.size() < n)
        if (recv_some() <= 0) return r;
      r.body = buf_.substr(0, n);
      buf_.erase(0, n);
    } else if (r.header("Transfer-Encoding").empty()) {
      while (recv_some() > 0) {
      }
      r.body = std::move(buf_);
      buf_.clear();
    }
    return r;
  }

  // What arrives until `needle` has (or the stream ends, or the receive timeout passes).
  std::string read_until(std::string_view needle) {
    while (buf_.find(needle) == std::string::npos)
      if (recv_some() <= 0) break;
    return std::exchange(buf_, std::string());
  }

  // The first bytes that arrive, left unread (the answer to come starts with them).
  std::string peek() {
    char b[64];
    ssize_t n = ::recv(fd_, b, sizeof b, MSG_PEEK);
    return n > 0 ? std::string(b, static_cast<std::size_t>(n)) : std::string();
  }

  // True when the server ends the connection (end of stream or reset) before sending anything
  // more; false when bytes arrive or nothing happens within the receive timeout.
  bool closed_by_server() {
    char b[256];
    ssize_t n = ::recv(fd_, b, sizeof b, 0);
    return n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE));
  }

 private:
  int recv_some() {
    char b[64 << 10];
    ssize_t n = ::recv(fd_, b, sizeof b, 0);
    if (n > 0) buf_.append(b, static_cast<std::size_t>(n));
    return static_cast<int>(n);
  }
  int fd_ = -1;
  bool connected_ = false;
  std::string buf_;
};

std::string request(std::string_view method, std::string_view target, std::string_view body = {},
                    std::string_view token = {}, std::string_view extra_headers = {}) {
  std::string r = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  if (!token.empty()) r += "Authorization: Bearer " + std::string(token) + "\r\n";
  if (!body.empty()) r += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  r += extra_headers;
  r += "\r\n";
  r += body;
  return r;
}

Options plain_options() {
  Options o;
  o.tls = false;
  return o;
}

std::string configmap(const std::string& name, std::size_t value_bytes = 1) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"k":")" +
         std::string(value_bytes, 'v') + R"("}})";
}

TEST(ServerLimits, BodyOverTheLimitIsAnswered413) {
  Server s(plain_options());
  ASSERT_TRUE(s.start());
  // The default, 3 MiB: a larger body is refused from its Content-Length, before it is read.
  RawConn c(s.port());
  ASSERT_TRUE(c.send("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     "application/json\r\nContent-Length: 104857600\r\n\r\n{\"kind\":\"ConfigMap\""));
  auto r = c.read_reply();
  ASSERT_EQ(r.status, 413) << r.head;
  EXPECT_EQ(r.header("Connection"), "close");
  auto st = json::parse(r.body).as_object();
  EXPECT_EQ(st.at("kind"), "Status");
  EXPECT_EQ(st.at("reason"), "RequestEntityTooLarge");
  EXPECT_EQ(st.at("message"), "Request entity too large: limit is 3145728");
  EXPECT_EQ(st.at("code"), 413);
  EXPECT_TRUE(c.closed_by_server());

  // A body within the limit is read and stored, on the same terms (chunked too).
  RawConn ok(s.port());
  ASSERT_TRUE(ok.send(request("POST", "/api/v1/namespaces/default/configmaps", configmap("fits", 900000))));
  EXPECT_EQ(ok.read_reply().status, 201);
  std::string body = configmap("chunked");
  char size[16];
  std::snprintf(size, sizeof size, "%zx", body.size());
  ASSERT_TRUE(ok.send("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      "application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
                      std::string(size) + "\r\n" + body + "\r\n0\r\n\r\n"));
  EXPECT_EQ(ok.read_reply().status, 201);
}

TEST(ServerLimits, ConfiguredBodyLimitCountsChunkedBodiesToo) {
  Options o = plain_options();
  o.limits.max_request_body_bytes = 1000;
  Server s(o);
  ASSERT_TRUE(s.start());
  RawConn c(s.port());
  std::string chunk(600, 'x');
  ASSERT_TRUE(c.send("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
                     "chunked\r\n\r\n258\r\n" + chunk + "\r\n258\r\n" + chunk + "\r\n"));
  auto r = c.read_reply();
  ASSERT_EQ(r.status, 413) << r.head;
  EXPECT_NE(r.body.find("Request entity too large: limit is 1000"), std::string::npos) << r.body;
}

TEST(ServerLimits, HeadersOverTheLimitAreAnswered431AndMalformedRequests400) {
  Server s(plain_options());
  ASSERT_TRUE(s.start());
  // What upstream accepts, this server accepts: an 8 KB request line, a thousand headers.
  RawConn fine(s.port());
  ASSERT_TRUE(fine.send(request("GET", "/version?x=" + std::string(8192, 'q'))));
  EXPECT_EQ(fine.read_reply().status, 200);
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  ASSERT_TRUE(fine.send(request("GET", "/version", {}, {}, many)));
  EXPECT_EQ(fine.read_reply().status, 200);

  // Past 1 MiB of request line and headers: Go's answer, and the connection ends.
  RawConn big(s.port());
  ASSERT_TRUE(big.send(request("GET", "/version", {}, {}, "X-Big: " + std::string(1100000, 'b') + "\r\n")));
  auto r = big.read_reply();
  ASSERT_EQ(r.status, 431) << r.head;
  EXPECT_EQ(r.head.substr(0, r.head.find("\r\n")), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(r.header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.header("Connection"), "close");
  EXPECT_EQ(r.body, "431 Request Header Fields Too Large");
  RawConn line(s.port());
  ASSERT_TRUE(line.send(request("GET", "/version?x=" + std::string(1100000, 'q'))));
  EXPECT_EQ(line.read_reply().status, 431);

  for (std::string bad : {std::string("GARBAGE\r\n\r\n"),
                          std::string("GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
                          std::string("GET /version HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"),
                          std::string("GET /version HTTP/1.1\r\nBad Header\r\n\r\n")}) {
    RawConn m(s.port());
    ASSERT_TRUE(m.send(bad));
    auto a = m.read_reply();
    EXPECT_EQ(a.status, 400) << bad;
    EXPECT_EQ(a.body, "400 Bad Request") << bad;
    EXPECT_TRUE(m.closed_by_server());
  }
  // A malformed request pipelined behind a good one: the good one is answered first.
  RawConn pipelined(s.port());
  ASSERT_TRUE(pipelined.send(request("GET", "/version") + "GARBAGE\r\n\r\n"));
  EXPECT_EQ(pipelined.read_reply().status, 200);
  EXPECT_EQ(pipelined.read_reply().status, 400);
}

TEST(ServerLimits, SlowAndIdleConnectionsAreDropped) {
  Options o;  // TLS: a handshake that never comes is bounded too
  o.limits.read_header_timeout = 300ms;
  o.limits.idle_timeout = 300ms;
  Server tls(o);
  ASSERT_TRUE(tls.start());
  RawConn silent(tls.port());
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(silent.closed_by_server()) << "a connection that never sent a ClientHello was kept";

  Options p = plain_options();
  p.limits.read_header_timeout = 300ms;
  p.limits.idle_timeout = 600ms;
  Server s(p);
  ASSERT_TRUE(s.start());
  // Slowloris: a header trickled a byte every 50 ms would take 5 s; the header timeout ends it.
  RawConn slow(s.port());
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::string head = request("GET", "/version", {}, {}, "X-Slow: " + std::string(80, 's') + "\r\n");
    for (char ch : head) {
      if (done || !slow.send(std::string_view(&ch, 1))) return;
      std::this_thread::sleep_for(50ms);
    }
  });
  EXPECT_TRUE(slow.closed_by_server()) << "a trickled header was read to its end";
  done = true;
  trickle.join();
  // A keep-alive connection is kept between requests up to the idle timeout, then closed.
  RawConn idle(s.port());
  ASSERT_TRUE(idle.send(request("GET", "/version")));
  EXPECT_EQ(idle.read_reply().status, 200);
  EXPECT_TRUE(idle.closed_by_server());
  // Neither timeout cuts a request that is being answered or a watch that is streaming.
  RawConn watch(s.port());
  ASSERT_TRUE(watch.send(request("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=2")));
  auto head = watch.read_reply();
  EXPECT_EQ(head.status, 200);
  std::this_thread::sleep_for(700ms);  // past both timeouts: the watch is still there
  RawConn writer(s.port());
  ASSERT_TRUE(writer.send(request("POST", "/api/v1/namespaces/default/configmaps", configmap("seen"))));
  EXPECT_EQ(writer.read_reply().status, 201);
  const std::string events = watch.read_until("\"seen\"");
  EXPECT_NE(events.find("\"ADDED\""), std::string::npos) << events;
}

class InFlightTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/inflight_tokens";
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/tokens.csv") << "alice-token,alice,alice-uid\n";
    Options o = plain_options();
    o.token_file = dir_ + "/tokens.csv";
    o.limits.max_requests_inflight = 1;
    o.limits.max_mutating_requests_inflight = 1;
    server_ = std::make_unique<Server>(o);
    ASSERT_TRUE(server_->start());
    admin_ = server_->admin_token();
  }
  std::string dir_, admin_;
  std::unique_ptr<Server> server_;
};

TEST_F(InFlightTest, RequestsBeyondTheLimitGet429) {
  const std::uint16_t port = server_->port();
  RawConn setup(port);
  // alice may do anything (once authorization is enforced) but is not system:masters.
  ASSERT_TRUE(setup.send(request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                                 R"({"metadata":{"name":"alice"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",)"
                                 R"("kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"apiGroup":)"
                                 R"("rbac.authorization.k8s.io","kind":"User","name":"alice"}]})",
                                 admin_)));
  ASSERT_EQ(setup.read_reply().status, 201);
  // A list of ~8 MB: while its reader does not read, the answer cannot be written out and the
  // read-only slot stays taken.
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(setup.send(request("POST", "/api/v1/namespaces/default/configmaps",
                                   configmap("big-" + std::to_string(i), 800000), admin_)));
    ASSERT_EQ(setup.read_reply().status, 201);
  }
  RawConn holder(port, 16 << 10);
  ASSERT_TRUE(holder.send(request("GET", "/api/v1/namespaces/default/configmaps", {}, "alice-token")));
  // Its answer has begun to arrive: the request holds the read-only slot until all of it is sent.
  ASSERT_EQ(holder.peek().substr(0, 12), "HTTP/1.1 200");

  RawConn other(port);
  ASSERT_TRUE(other.send(request("GET", "/api/v1/namespaces/default/configmaps/big-0", {}, "alice-token")));
  auto refused = other.read_reply();
  ASSERT_EQ(refused.status, 429) << "a second read-only request was served while the limit was taken";
  EXPECT_EQ(refused.header("Retry-After"), "1");
  EXPECT_EQ(refused.header("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(refused.body, "Too many requests, please try again later.\n");
  // system:masters passes the full limit; watches are not counted; mutating requests have
  // their own limit.
  ASSERT_TRUE(other.send(request("GET", "/api/v1/namespaces/default/configmaps/big-0", {}, admin_)));
  EXPECT_EQ(other.read_reply().status, 200);
  ASSERT_TRUE(other.send(request("POST", "/api/v1/namespaces/default/configmaps", configmap("small"), "alice-token")));
  EXPECT_EQ(other.read_reply().status, 201);
  RawConn watch(port);
  ASSERT_TRUE(watch.send(request("GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", {}, "alice-token")));
  EXPECT_EQ(watch.read_reply().status, 200);

  // Once the holder reads its answer, the slot is free again.
  auto list = holder.read_reply();
  ASSERT_EQ(list.status, 200);
  EXPECT_GT(list.body.size(), 8000000u);
  int status = 0;
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       status != 200 && std::chrono::steady_clock::now() < deadline;) {
    ASSERT_TRUE(other.send(request("GET", "/api/v1/namespaces/default/configmaps/big-0", {}, "alice-token")));
    status = other.read_reply().status;
  }
  EXPECT_EQ(status, 200);
}

// Bytes of the process's peak resident set since the last reset (Linux: /proc/self/status VmHWM,
// reset by writing 5 to /proc/self/clear_refs).
long peak_rss_kb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}
bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

// The attacks of the review, against a running server: a 400-byte YAML alias bomb (which took
// the server to 24 GB) and a 30-copy JSON patch (which doubled the object 30 times) are refused
// with a 4xx, and the process's peak memory grows by less than 64 MB while they are served.
// The bound is generous against the noise of a test process and tiny against the attack.
TEST(ServerLimits, AmplificationAttacksLeaveMemoryBounded) {
  Server s(plain_options());
  ASSERT_TRUE(s.start());
  RawConn c(s.port());
  ASSERT_TRUE(c.send(request("POST", "/api/v1/namespaces/default/configmaps", configmap("target", 1000))));
  ASSERT_EQ(c.read_reply().status, 201);
  std::string bomb =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-bomb\ndata:\n"
      "  a: &a [\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\"]\n";
  for (char l = 'b'; l <= 'i'; ++l) {
    bomb += std::string("  ") + l + ": &" + l + " [";
    for (int k = 0; k < 9; ++k) bomb += std::string(k ? "," : "") + "*" + static_cast<char>(l - 1);
    bomb += "]\n";
  }
  ASSERT_LT(bomb.size(), 450u);
  json::array copies;
  for (int i = 0; i < 30; ++i)
    copies.push_back(json::object{{"op", "copy"}, {"from", "/data"}, {"path", "/data/x" + std::to_string(i)}});
  const std::string patch = json::serialize(copies);

  const bool reset = reset_peak_rss();
  const long before = reset ? peak_rss_kb() : 0;
  ASSERT_GT(before, 0) << "no peak RSS to measure";
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(c.send("POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: "
                       "application/yaml\r\nContent-Length: " +
                       std::to_string(bomb.size()) + "\r\n\r\n" + bomb));
    auto r = c.read_reply();
    ASSERT_EQ(r.status, 400) << r.body.substr(0, 200);
    EXPECT_NE(r.body.find("yaml: document contains excessive aliasing"), std::string::npos) << r.body.substr(0, 200);
    ASSERT_TRUE(c.send("PATCH /api/v1/namespaces/default/configmaps/target HTTP/1.1\r\nHost: x\r\nContent-Type: "
                       "application/json-patch+json\r\nContent-Length: " +
                       std::to_string(patch.size()) + "\r\n\r\n" + patch));
    auto p = c.read_reply();
    ASSERT_EQ(p.status, 422) << p.body.substr(0, 200);
    EXPECT_NE(p.body.find("the accumulated size increase of copy"), std::string::npos) << p.body.substr(0, 200);
  }
  const long growth_kb = peak_rss_kb() - before;
  EXPECT_LT(growth_kb, 64 * 1024) << "peak RSS grew by " << growth_kb << " kB";
  RecordProperty("peak_rss_growth_kb", std::to_string(growth_kb));
}

// Nodes register once: --nodes makes them on a cluster's first start; on a restart of the same
// data directory, nodes the user deleted stay deleted.
TEST(ServerLimits, DeletedSimulatedNodesStayDeletedAcrossRestarts) {
  std::string dir = ::testing::TempDir() + "/nodes_once_data_dir";
  std::filesystem::remove_all(dir);
  Options o = plain_options();
  o.data_dir = dir;
  o.nodes = 3;
  {
    Server s(o);
    ASSERT_TRUE(s.start());
    RawConn c(s.port());
    ASSERT_TRUE(c.send(request("DELETE", "/api/v1/nodes/node-1")));
    ASSERT_EQ(c.read_reply().status, 200);
  }
  for (int restart = 0; restart < 2; ++restart) {
    Server s(o);
    ASSERT_TRUE(s.start());
    RawConn c(s.port());
    ASSERT_TRUE(c.send(request("GET", "/api/v1/nodes/node-1")));
    EXPECT_EQ(c.read_reply().status, 404) << "a deleted node came back on restart " << restart;
    ASSERT_TRUE(c.send(request("GET", "/api/v1/nodes/node-2")));
    EXPECT_EQ(c.read_reply().status, 200);
  }
  // In memory every start is a new cluster.
  Options m = plain_options();
  m.nodes = 2;
  Server mem(m);
  ASSERT_TRUE(mem.start());
  RawConn c(mem.port());
  ASSERT_TRUE(c.send(request("GET", "/api/v1/nodes/node-1")));
  EXPECT_EQ(c.read_reply().status, 200);
}

}  // namespace
}  // namespace ksched::apiserver
