// The web page's server against the embedded API server: a page's event stream gets a snapshot,
// then the pods and nodes created after it as deltas, without asking again.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>

#include "localcluster/ui_server.h"
#include "net_testing/net_fixture.h"

using namespace std::chrono_literals;
using ksched::localcluster::UiServer;

namespace {

// A plain HTTP/1.1 client of one GET whose body is read as it arrives (the event stream).
class Stream {
 public:
  Stream(const std::string& url, const std::string& path) {
    const auto colon = url.rfind(':');
    const int port = std::stoi(url.substr(colon + 1));
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{0, 200000};  // reads wake up to check the deadline
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
    if (connected_) connected_ = write(fd_, req.data(), req.size()) == static_cast<ssize_t>(req.size());
  }
  ~Stream() { close(fd_); }
  bool connected() const { return connected_; }
  // Reads until `text` arrived after what was consumed; returns what came up to the end of that
  // event (the next blank line), or "" at the deadline.
  std::string until(const std::string& text, std::chrono::seconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto at = buf_.find(text, consumed_); at != std::string::npos) {
        if (auto end = buf_.find("\n\n", at); end != std::string::npos) {
          std::string out = buf_.substr(consumed_, end + 2 - consumed_);
          consumed_ = end + 2;
          return out;
        }
      }
      if (std::chrono::steady_clock::now() > deadline) return {};
      char chunk[65536];
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n == 0) return {};
      if (n > 0) buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // Reads until the server closes the connection (a plain response); returns what was not
  // consumed, or "" at the deadline.
  std::string to_end(std::chrono::seconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (std::chrono::steady_clock::now() > deadline) return {};
      char chunk[65536];
      const ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n == 0) return buf_.substr(consumed_);
      if (n > 0) buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string buf_;
  std::size_t consumed_ = 0;
};

// The JSON of the last `data:` line in an event.
boost::json::object data_of(const std::string& event) {
  const auto at = event.rfind("data: ");
  if (at == std::string::npos) return {};
  return boost::json::parse(event.substr(at + 6, event.find('\n', at) - at - 6)).as_object();
}

}  // namespace

class UiServerNet : public ksched::testing::ServerTest {};

TEST_F(UiServerNet, ASnapshotThenDeltasOverOneStream) {
  auto c = new_client();
  ASSERT_TRUE(c->create(ksched::testing::bare_node("n1")).ok());
  ASSERT_TRUE(c->create(ksched::testing::pause_pod("default", "before")).ok());
  auto ui = UiServer::start("127.0.0.1:0", config);
  ASSERT_TRUE(ui.ok()) << ui.error();

  Stream s((*ui)->url().substr(0, (*ui)->url().size() - 1), "/api/events");
  ASSERT_TRUE(s.connected());
  const auto head = s.until("\r\n\r\n");
  EXPECT_NE(head.find("HTTP/1.1 200 OK\r\n"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream\r\n"), std::string::npos) << head;
  const auto snap = s.until("event: snapshot\n");
  ASSERT_FALSE(snap.empty());
  const auto so = data_of(snap);
  ASSERT_EQ(so.at("nodes").as_array().size(), 1u);
  EXPECT_EQ(so.at("nodes").as_array()[0].at("name"), "n1");
  ASSERT_EQ(so.at("pods").as_array().size(), 1u);
  EXPECT_EQ(so.at("pods").as_array()[0].at("key"), "default/before");

  // Created after the page connected: it learns of them from the stream alone.
  ASSERT_TRUE(c->create(ksched::testing::pause_pod("default", "after")).ok());
  const auto delta = s.until("\"key\":\"default/after\"");
  ASSERT_FALSE(delta.empty()) << "no delta with the new pod";
  EXPECT_NE(delta.find("event: delta\n"), std::string::npos) << delta;
  const auto d = data_of(delta);
  EXPECT_GT(d.at("rev").as_int64(), so.at("rev").as_int64());

  ASSERT_TRUE(c->remove<ksched::api::Pod>("default", "before").ok());
  const auto gone = s.until("\"deletedPods\":[\"default/before\"]");
  EXPECT_FALSE(gone.empty()) << "no delta with the deletion";

  // The same state, whole, for tools.
  const auto cluster = (*ui)->handle("/api/cluster", "");
  EXPECT_EQ(cluster.status, 200);
  const auto co = boost::json::parse(cluster.body).as_object();
  ASSERT_EQ(co.at("pods").as_array().size(), 1u);
  EXPECT_EQ(co.at("pods").as_array()[0].at("key"), "default/after");
  (*ui)->stop();
}

// The page's explanation, asked over HTTP: it is computed on the server's io thread while the
// informers' handlers keep the view up to date with a pod created meanwhile (the TSan run's
// interest), and a pod that does not exist is a 404 with the API server's message.
TEST_F(UiServerNet, ExplainsAPodOverHttpWhileTheViewUpdates) {
  auto c = new_client();
  ASSERT_TRUE(c->create(ksched::testing::bare_node("n1")).ok());
  ASSERT_TRUE(c->create(ksched::testing::pause_pod("default", "p")).ok());
  auto ui = UiServer::start("127.0.0.1:0", config);
  ASSERT_TRUE(ui.ok()) << ui.error();
  const std::string base = (*ui)->url().substr(0, (*ui)->url().size() - 1);

  Stream view(base, "/api/events");
  ASSERT_TRUE(view.connected());
  ASSERT_FALSE(view.until("event: snapshot\n").empty());
  Stream explain(base, "/api/explain?pod=default%2Fp");
  ASSERT_TRUE(explain.connected());
  ASSERT_TRUE(c->create(ksched::testing::pause_pod("default", "meanwhile")).ok());
  const auto answer = explain.to_end();
  EXPECT_NE(answer.find("HTTP/1.1 200 OK\r\n"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Content-Type: application/json\r\n"), std::string::npos) << answer;
  const auto body_at = answer.find("\r\n\r\n");
  ASSERT_NE(body_at, std::string::npos) << answer;
  const auto e = boost::json::parse(answer.substr(body_at + 4)).as_object();
  EXPECT_EQ(e.at("pod"), "default/p");
  ASSERT_EQ(e.at("nodes").as_array().size(), 1u);
  EXPECT_EQ(e.at("nodes").as_array()[0].at("name"), "n1");
  EXPECT_FALSE(view.until("\"key\":\"default/meanwhile\"").empty()) << "no delta with the pod created meanwhile";

  Stream missing(base, "/api/explain?pod=default/nope");
  ASSERT_TRUE(missing.connected());
  const auto nope = missing.to_end();
  EXPECT_NE(nope.find("HTTP/1.1 404 Not Found\r\n"), std::string::npos) << nope;
  (*ui)->stop();
}
