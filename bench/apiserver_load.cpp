// Load generator for the embedded API server over loopback HTTP/1.1 keep-alive (no TLS):
// pod creates/s, binding POSTs/s, LIST of 30,000 pods, watch fan-out to 100 watchers under
// 5,000 writes/s, and RSS with 5,000 nodes + 150,000 pods. Prints the median of repeated runs.
// Memory store by default; `--data-dir D` measures the durable store (write-ahead log) in D;
// `--etcd 1` the etcd mode on a single-member etcd this program starts (its data in a temp dir).
// Own minimal Beast client (pipelined requests per connection) so it depends only on the server.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apiserver/server.h"
#include "etcd/local_etcd.h"

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// User+system CPU of the whole process: a figure that a busy shared machine disturbs less than
// wall-clock rates.
double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

long rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

struct Conn {
  net::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buf;
  std::string token;
  explicit Conn(std::uint16_t port, std::string tok) : token(std::move(tok)) {
    stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    stream.socket().set_option(tcp::no_delay(true));
  }
  http::request<http::string_body> make(http::verb v, const std::string& target, std::string body,
                                        const char* ct = "application/json") {
    http::request<http::string_body> req{v, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::authorization, "Bearer " + token);
    req.set(http::field::accept, "application/json");
    if (!body.empty()) req.set(http::field::content_type, ct);
    req.body() = std::move(body);
    req.prepare_payload();
    return req;
  }
  // Sends all requests pipelined in batches of `depth`; returns the number of 2xx answers.
  std::size_t run(std::vector<http::request<http::string_body>>& reqs, std::size_t depth, std::size_t* bytes = nullptr) {
    std::size_t ok = 0;
    for (std::size_t i = 0; i < reqs.size(); i += depth) {
      std::size_t end = std::min(reqs.size(), i + depth);
      std::string wire;
      for (std::size_t j = i; j < end; ++j) {
        std::ostringstream os;
        os << reqs[j];
        wire += os.str();
      }
      net::write(stream.socket(), net::buffer(wire));
      for (std::size_t j = i; j < end; ++j) {
        http::response_parser<http::string_body> p;
        p.body_limit(1u << 30);
        http::read(stream, buf, p);
        if (p.get().result_int() / 100 == 2) ++ok;
        if (bytes) *bytes += p.get().body().size();
      }
    }
    return ok;
  }
};

std::string pod_body(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","labels":{"app":"bench"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"100m","memory":"128Mi"}}}]}})";
}

// Creates pods [from, to) over `conns` connections; returns creates/s.
double create_pods(std::uint16_t port, const std::string& token, const std::string& prefix, int from, int to,
                   int conns, std::size_t depth) {
  std::vector<std::thread> th;
  std::atomic<std::size_t> ok{0};
  auto t0 = Clock::now();
  for (int c = 0; c < conns; ++c) {
    th.emplace_back([&, c] {
      Conn conn(port, token);
      std::vector<http::request<http::string_body>> reqs;
      for (int i = from + c; i < to; i += conns)
        reqs.push_back(conn.make(http::verb::post, "/api/v1/namespaces/default/pods", pod_body(prefix + std::to_string(i))));
      ok += conn.run(reqs, depth);
    });
  }
  for (auto& t : th) t.join();
  double s = seconds_since(t0);
  if (ok.load() != static_cast<std::size_t>(to - from)) std::fprintf(stderr, "warning: %zu/%d creates ok\n", ok.load(), to - from);
  return (to - from) / s;
}

double bind_pods(std::uint16_t port, const std::string& token, const std::string& prefix, int from, int to, int nodes,
                 int conns, std::size_t depth) {
  std::vector<std::thread> th;
  std::atomic<std::size_t> ok{0};
  auto t0 = Clock::now();
  for (int c = 0; c < conns; ++c) {
    th.emplace_back([&, c] {
      Conn conn(port, token);
      std::vector<http::request<http::string_body>> reqs;
      for (int i = from + c; i < to; i += conns) {
        std::string name = prefix + std::to_string(i);
        reqs.push_back(conn.make(http::verb::post, "/api/v1/namespaces/default/pods/" + name + "/binding",
                                 R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":")" + name +
                                     R"("},"target":{"kind":"Node","name":"node-)" + std::to_string(i % nodes) + "\"}}"));
      }
      ok += conn.run(reqs, depth);
    });
  }
  for (auto& t : th) t.join();
  if (ok.load() != static_cast<std::size_t>(to - from)) std::fprintf(stderr, "warning: %zu/%d bindings ok\n", ok.load(), to - from);
  return (to - from) / seconds_since(t0);
}

// The watchers: N watch streams read by ONE client thread with asynchronous reads (epoll), so the
// harness pays one wake-up per batch of ready sockets instead of a thread switch per socket per
// chunk. With a thread per watcher, waking 100 reader threads cost more CPU on this 2-core VM than
// the server's fan-out itself, and the figure measured the harness. Counts event lines ("}\n").
class WatchFleet {
 public:
  WatchFleet(std::uint16_t port, const std::string& token, std::int64_t rv, int n) {
    const std::string req = "GET /api/v1/pods?watch=true&resourceVersion=" + std::to_string(rv) +
                            "&timeoutSeconds=120 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\n\r\n";
    for (int i = 0; i < n; ++i) {
      auto r = std::make_unique<Reader>(ioc_);
      r->sock.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
      net::write(r->sock, net::buffer(req));
      readers_.push_back(std::move(r));
    }
    for (auto& r : readers_) read(*r);
    th_ = std::thread([this] { ioc_.run(); });
  }
  ~WatchFleet() { stop(); }
  std::size_t events() const { return events_.load(); }
  // Ends the watches from the client side (the server sees the connections close).
  void stop() {
    guard_.reset();
    ioc_.stop();
    if (th_.joinable()) th_.join();
    for (auto& r : readers_) {
      beast::error_code ec;
      r->sock.close(ec);
    }
  }

 private:
  struct Reader {
    explicit Reader(net::io_context& io) : sock(io) {}
    tcp::socket sock;
    std::array<char, 65536> buf{};
    char prev = 0;
  };
  void read(Reader& r) {
    r.sock.async_read_some(net::buffer(r.buf), [this, &r](beast::error_code ec, std::size_t n) {
      if (ec) return;  // the server ended the stream
      std::size_t c = 0;
      const char* b = r.buf.data();
      for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\n', b + n - p))) != nullptr; ++p) {
        if ((p > b ? p[-1] : r.prev) == '}') ++c;
      }
      if (n) r.prev = r.buf[n - 1];
      events_ += c;
      read(r);
    });
  }
  net::io_context ioc_;
  net::executor_work_guard<net::io_context::executor_type> guard_ = net::make_work_guard(ioc_);
  std::vector<std::unique_ptr<Reader>> readers_;
  std::atomic<std::size_t> events_{0};
  std::thread th_;
};

}  // namespace

int main(int argc, char** argv) {
  int pods_total = 150000, nodes = 5000, list_pods = 30000, watchers = 100, rate = 5000, runs = 3, conns = 4;
  std::string data_dir;  // --data-dir D: the durable store in D (must be new or empty); default memory
  bool with_etcd = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--data-dir") {
      data_dir = argv[i + 1];
      continue;
    }
    int v = std::atoi(argv[i + 1]);
    if (a == "--pods") pods_total = v;
    else if (a == "--nodes") nodes = v;
    else if (a == "--list-pods") list_pods = v;
    else if (a == "--watchers") watchers = v;
    else if (a == "--rate") rate = v;
    else if (a == "--runs") runs = v;
    else if (a == "--conns") conns = v;  // connections for creates and bindings (each pipelines)
    else if (a == "--etcd") with_etcd = v != 0;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  long rss0 = rss_kib();
  std::unique_ptr<WatchFleet> fleet;
  ksched::apiserver::Options opts;
  opts.tls = false;
  opts.nodes = nodes;
  opts.io_threads = 2;
  opts.watch_history = 100000;
  opts.data_dir = data_dir;
  struct RemoveDir {
    std::string dir;
    ~RemoveDir() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } etcd_dir;  // declared before etcd: removed after it stops
  std::unique_ptr<ksched::etcd::LocalEtcd> etcd;
  if (with_etcd) {
    char tmpl[] = "/tmp/ksched-bench-etcd.XXXXXX";
    if (!::mkdtemp(tmpl)) return 1;
    etcd_dir.dir = tmpl;
    auto e = ksched::etcd::LocalEtcd::start(etcd_dir.dir);
    if (!e) {
      std::fprintf(stderr, "etcd: %s\n", e.error().c_str());
      return 1;
    }
    etcd = std::move(*e);
    opts.etcd_servers = {etcd->url()};
  }
  std::printf("storage: %s\n", with_etcd ? ("etcd (single member at " + etcd->url() + ")").c_str()
                                : data_dir.empty() ? "memory"
                                                   : ("embedded (durable) in " + data_dir).c_str());
  ksched::apiserver::Server server(opts);
  if (auto r = server.start(); !r) {
    std::fprintf(stderr, "start: %s\n", r.error().c_str());
    return 1;
  }
  std::uint16_t port = server.port();
  std::string token = server.admin_token();
  const std::size_t depth = 32;

  // 1. creates/s and 2. bindings/s: `runs` batches of list_pods/runs pods each.
  std::vector<double> creates, binds;
  int batch = list_pods / runs;
  for (int r = 0; r < runs; ++r) {
    creates.push_back(create_pods(port, token, "p", r * batch, (r + 1) * batch, conns, depth));
    binds.push_back(bind_pods(port, token, "p", r * batch, (r + 1) * batch, nodes, conns, depth));
  }
  std::printf("pod creates/s (median of %d x %d): %.0f\n", runs, batch, median(creates));
  std::printf("binding POSTs/s (median of %d x %d): %.0f\n", runs, batch, median(binds));

  // 3. LIST of all pods (list_pods of them).
  {
    std::vector<double> ms, mbs;
    Conn conn(port, token);
    for (int r = 0; r < 5; ++r) {
      std::vector<http::request<http::string_body>> reqs{conn.make(http::verb::get, "/api/v1/pods", "")};
      std::size_t bytes = 0;
      auto t0 = Clock::now();
      conn.run(reqs, 1, &bytes);
      double s = seconds_since(t0);
      ms.push_back(s * 1000);
      mbs.push_back(bytes / s / 1e6);
    }
    std::printf("LIST %d pods: %.1f ms, %.0f MB/s (median of 5)\n", batch * runs, median(ms), median(mbs));
  }

  // 4. watch fan-out: `watchers` watchers while one writer patches pods at `rate` writes/s for 3 s.
  {
    std::int64_t rv = 0;
    // Start the watchers from "now" (RV unset would replay every pod as ADDED).
    {
      net::io_context ioc;
      beast::tcp_stream s(ioc);
      s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
      http::request<http::string_body> req{http::verb::get, "/api/v1/namespaces/kube-system/pods", 11};
      req.set(http::field::authorization, "Bearer " + token);
      http::write(s, req);
      beast::flat_buffer b;
      http::response<http::string_body> res;
      http::read(s, b, res);
      auto pos = res.body().find("\"resourceVersion\":\"");
      rv = std::stoll(res.body().substr(pos + 19));
    }
    fleet = std::make_unique<WatchFleet>(port, token, rv, watchers);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the watches establish
    const int seconds = 3, total = rate * seconds;
    // Several writers, as in a cluster where many clients write: one pipelined connection is
    // served by one server thread at a time and would cap the rate below what the server can do.
    const int writers = 2;
    const double cpu0 = process_cpu_seconds();
    auto t0 = Clock::now();
    std::vector<std::thread> wth;
    for (int w = 0; w < writers; ++w) {
      wth.emplace_back([&, w] {
        Conn conn(port, token);
        const int mine = total / writers + (w < total % writers ? 1 : 0);
        const double my_rate = double(rate) / writers;
        int sent = 0;
        const int tick = 25;  // writes per pacing step
        while (sent < mine) {
          std::vector<http::request<http::string_body>> reqs;
          for (int j = 0; j < tick && sent < mine; ++j, ++sent) {
            int i = sent * writers + w;
            reqs.push_back(conn.make(http::verb::patch, "/api/v1/namespaces/default/pods/p" + std::to_string(i % batch),
                                     R"({"metadata":{"annotations":{"n":")" + std::to_string(i) + "\"}}}",
                                     "application/merge-patch+json"));
          }
          conn.run(reqs, depth);
          std::this_thread::sleep_until(t0 + std::chrono::microseconds(static_cast<long>(1e6 * sent / my_rate)));
        }
      });
    }
    for (auto& t : wth) t.join();
    double write_s = seconds_since(t0);
    auto want = static_cast<std::size_t>(total) * static_cast<std::size_t>(watchers);
    auto deadline = Clock::now() + std::chrono::seconds(60);
    std::size_t got = 0;
    while (Clock::now() < deadline) {
      got = fleet->events();
      if (got >= want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    double all_s = seconds_since(t0);
    const double cpu_us = (process_cpu_seconds() - cpu0) * 1e6;
    std::printf("watch fan-out: %d watchers, %d writes at %.0f writes/s: %zu/%zu events delivered, %.0f events/s, "
                "drain lag after last write %.0f ms; CPU %.0f us per write, %.2f us per delivered event "
                "(process incl. the client, on every core)\n",
                watchers, total, total / write_s, got, want, got / all_s, (all_s - write_s) * 1000, cpu_us / total,
                got ? cpu_us / double(got) : 0.0);
    fleet->stop();
  }

  // 5. RSS with `nodes` nodes and `pods_total` pods.
  {
    int have = batch * runs;
    double rate_big = create_pods(port, token, "q", have, pods_total, conns, depth);
    long rss = rss_kib();
    std::printf("creates/s while filling to %d pods: %.0f\n", pods_total, rate_big);
    std::printf("RSS with %d nodes + %d pods: %.0f MiB (process, incl. client; at start %.0f MiB)\n", nodes, pods_total,
                rss / 1024.0, rss0 / 1024.0);
  }
  server.stop();
  if (etcd) std::printf("etcd process CPU over the whole run: %.1f s\n", etcd->cpu_seconds());
  return 0;
}
