#include "client/transport.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <zlib.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>
#include <cctype>
#include <fstream>
#include <iterator>
#include <mutex>
#include <deque>
#include <optional>
#include <thread>

#include "client/rate_limiter.h"
#include "util/one_shot_wake.h"
#include "util/log.h"

namespace ksched::client {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

ApiError transport_error(std::string msg) { return ApiError::transport(std::move(msg)); }

// Streaming gzip/deflate decoder (zlib auto-detects the header).
class Inflater {
 public:
  Inflater() {
    zs_ = {};
    ok_ = inflateInit2(&zs_, 15 + 32) == Z_OK;
  }
  ~Inflater() { inflateEnd(&zs_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  bool feed(std::string_view in, std::string& out) {
    if (!ok_) return false;
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs_.avail_in = static_cast<uInt>(in.size());
    char buf[16384];
    while (zs_.avail_in > 0) {
      zs_.next_out = reinterpret_cast<Bytef*>(buf);
      zs_.avail_out = sizeof buf;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      out.append(buf, sizeof buf - zs_.avail_out);
      if (rc == Z_STREAM_END) return true;
      if (rc != Z_OK && rc != Z_BUF_ERROR) return false;
      if (rc == Z_BUF_ERROR && zs_.avail_out != 0) break;
    }
    // Drain remaining output buffered inside zlib.
    for (;;) {
      zs_.next_out = reinterpret_cast<Bytef*>(buf);
      zs_.avail_out = sizeof buf;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      std::size_t n = sizeof buf - zs_.avail_out;
      out.append(buf, n);
      if (n == 0 || rc == Z_STREAM_END) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR) return false;
    }
    return true;
  }

 private:
  z_stream zs_;
  bool ok_ = false;
};

std::string openssl_errors() {
  std::string s;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!s.empty()) s += "; ";
    s += buf;
  }
  return s;
}

bool is_ip_literal(const std::string& host) {
  boost::system::error_code ec;
  (void)asio::ip::make_address(host, ec);
  return !ec;
}

int parse_retry_after(std::string_view v) {
  if (v.empty()) return 0;
  int n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
    if (n > 3600) return 3600;
  }
  return n;
}

bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" || method == "OPTIONS";
}

}  // namespace

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (iequals(k, name)) return v;
  return {};
}

// A connected TCP socket read and written with blocking recv and send, each bounded by the
// socket's SO_RCVTIMEO/SO_SNDTIMEO (a timeout surfaces as asio::error::timed_out). A synchronous
// caller then sleeps in one recv, where asio's reactor needed recv (EAGAIN), epoll_wait and recv
// again plus a timerfd per deadline: most of a small request's system time. Asio's own blocking
// sockets cannot time out (on EAGAIN they poll without a limit), hence this stream. It meets
// SyncReadStream/SyncWriteStream, so that OpenSSL (asio::ssl::stream) and Beast run over it.
class BlockingSocket {
 public:
  using lowest_layer_type = tcp::socket;
  using executor_type = tcp::socket::executor_type;

  explicit BlockingSocket(tcp::socket s) : sock_(std::move(s)) {
    boost::system::error_code ec;
    sock_.native_non_blocking(false, ec);
  }
  lowest_layer_type& lowest_layer() { return sock_; }
  const lowest_layer_type& lowest_layer() const { return sock_; }
  executor_type get_executor() { return sock_.get_executor(); }

  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers, boost::system::error_code& ec) {
    asio::mutable_buffer b = first_nonempty(asio::buffer_sequence_begin(buffers), asio::buffer_sequence_end(buffers));
    return io(b.size(), ec, [&] { return ::recv(sock_.native_handle(), b.data(), b.size(), 0); });
  }
  template <class MutableBufferSequence>
  std::size_t read_some(const MutableBufferSequence& buffers) {
    boost::system::error_code ec;
    return or_throw(read_some(buffers, ec), ec);
  }
  template <class ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers, boost::system::error_code& ec) {
    asio::const_buffer b = first_nonempty(asio::buffer_sequence_begin(buffers), asio::buffer_sequence_end(buffers));
    return io(b.size(), ec, [&] { return ::send(sock_.native_handle(), b.data(), b.size(), MSG_NOSIGNAL); });
  }
  template <class ConstBufferSequence>
  std::size_t write_some(const ConstBufferSequence& buffers) {
    boost::system::error_code ec;
    return or_throw(write_some(buffers, ec), ec);
  }

 private:
  // One recv or send of `size` > 0 bytes, retried on EINTR; 0 bytes received is the peer's EOF
  // (send never returns 0 for a non-empty buffer).
  template <class Syscall>
  static std::size_t io(std::size_t size, boost::system::error_code& ec, Syscall call) {
    ec = {};
    if (size == 0) return 0;
    for (;;) {
      ssize_t n = call();
      if (n > 0) return static_cast<std::size_t>(n);
      if (n == 0) {
        ec = asio::error::eof;
        return 0;
      }
      if (errno == EINTR) continue;
      ec = failure(errno);
      return 0;
    }
  }
  static std::size_t or_throw(std::size_t n, const boost::system::error_code& ec) {
    if (ec) throw boost::system::system_error(ec);
    return n;
  }
  template <class It>
  static auto first_nonempty(It it, It end) -> std::decay_t<decltype(*it)> {
    for (; it != end; ++it)
      if (asio::buffer_size(*it) > 0) return *it;
    return {};
  }
  static boost::system::error_code failure(int err) {
    if (err == EAGAIN || err == EWOULDBLOCK) return asio::error::timed_out;
    return {err, boost::system::system_category()};
  }
  tcp::socket sock_;
};

// One keep-alive connection: blocking I/O on the caller's thread (BlockingSocket), with the
// socket's send and receive timeouts as each request's deadline.
struct Connection {
  asio::io_context ioc{1};  // owns the socket's registration; only the connect runs on it
  std::unique_ptr<BlockingSocket> plain;
  std::unique_ptr<beast::ssl_stream<BlockingSocket>> tls;
  beast::flat_buffer buffer;
  bool reused = false;
  std::chrono::milliseconds io_timeout{-1};  // what SO_RCVTIMEO/SO_SNDTIMEO are set to

  tcp::socket& lowest() { return tls ? tls->next_layer().lowest_layer() : plain->lowest_layer(); }
  // The deadline of each blocking send and receive (0 = none); set only when it changes.
  void set_io_timeout(std::chrono::milliseconds t) {
    if (t.count() < 0) t = std::chrono::milliseconds(0);
    if (t == io_timeout) return;
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(t.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((t.count() % 1000) * 1000);
    int fd = lowest().native_handle();
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    io_timeout = t;
  }
  // Sends a whole request as formatted by Transport::Impl::wire: one buffer is one TLS record.
  void write(std::string_view wire, boost::system::error_code& ec) {
    if (tls)
      asio::write(*tls, asio::buffer(wire.data(), wire.size()), ec);
    else
      asio::write(*plain, asio::buffer(wire.data(), wire.size()), ec);
  }
  template <class Parser>
  void read(Parser& p, boost::system::error_code& ec) {
    if (tls)
      http::read(*tls, buffer, p, ec);
    else
      http::read(*plain, buffer, p, ec);
  }
  template <class Parser>
  void read_header(Parser& p, boost::system::error_code& ec) {
    if (tls)
      http::read_header(*tls, buffer, p, ec);
    else
      http::read_header(*plain, buffer, p, ec);
  }
  template <class Parser>
  void read_some(Parser& p, boost::system::error_code& ec) {
    if (tls)
      http::read_some(*tls, buffer, p, ec);
    else
      http::read_some(*plain, buffer, p, ec);
  }
  // Wakes a thread blocked in a read or write on this connection (from any thread).
  void shutdown() { ::shutdown(lowest().native_handle(), SHUT_RDWR); }
};

// A blocking receive or send that ran into SO_RCVTIMEO/SO_SNDTIMEO.
bool timed_out(const boost::system::error_code& ec) { return ec == asio::error::timed_out; }

struct Transport::Impl {
  RestConfig cfg;
  bool use_tls = true;
  std::string host, port, host_header;
  std::unique_ptr<ssl::context> ssl_ctx;
  TokenBucket limiter;
  mutable std::mutex mu;
  std::vector<std::unique_ptr<Connection>> idle;
  std::atomic<std::uint64_t> n_requests{0}, n_conns{0}, n_retries{0}, n_throttled{0};
  std::mutex token_mu;
  std::string token_cache;
  std::chrono::steady_clock::time_point token_read{};

  explicit Impl(const RestConfig& c) : cfg(c), limiter(c.qps, c.burst) {}

  util::Result<void> init() {
    std::string_view h = cfg.host;
    if (h.rfind("https://", 0) == 0) {
      h.remove_prefix(8);
    } else if (h.rfind("http://", 0) == 0) {
      use_tls = false;
      h.remove_prefix(7);
    } else {
      return util::make_error("host must be a URL or host:port with https:// or http:// scheme: \"" + cfg.host + "\"");
    }
    if (auto slash = h.find('/'); slash != std::string_view::npos) h = h.substr(0, slash);
    host_header = std::string(h);
    if (!h.empty() && h.front() == '[') {
      auto close = h.find(']');
      if (close == std::string_view::npos) return util::make_error("invalid IPv6 host in \"" + cfg.host + "\"");
      host = std::string(h.substr(1, close - 1));
      auto rest = h.substr(close + 1);
      port = rest.size() > 1 && rest[0] == ':' ? std::string(rest.substr(1)) : (use_tls ? "443" : "80");
    } else {
      auto colon = h.rfind(':');
      host = std::string(h.substr(0, colon));
      port = colon == std::string_view::npos ? (use_tls ? "443" : "80") : std::string(h.substr(colon + 1));
    }
    if (host.empty()) return util::make_error("host has no hostname: \"" + cfg.host + "\"");
    if (!use_tls) return {};
    ssl_ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
    ssl_ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    boost::system::error_code ec;
    if (cfg.insecure) {
      ssl_ctx->set_verify_mode(ssl::verify_none);
    } else {
      ssl_ctx->set_verify_mode(ssl::verify_peer);
      if (!cfg.ca_pem.empty()) {
        ssl_ctx->add_certificate_authority(asio::buffer(cfg.ca_pem), ec);
        if (ec) return util::make_error("unable to load root certificates: " + ec.message() + " " + openssl_errors());
      } else {
        ssl_ctx->set_default_verify_paths(ec);
      }
      std::string verify_name = cfg.tls_server_name.empty() ? host : cfg.tls_server_name;
      ssl_ctx->set_verify_callback(ssl::host_name_verification(verify_name));
    }
    if (!cfg.cert_pem.empty()) {
      ssl_ctx->use_certificate_chain(asio::buffer(cfg.cert_pem), ec);
      if (ec) return util::make_error("unable to load client certificate: " + ec.message() + " " + openssl_errors());
      ssl_ctx->use_private_key(asio::buffer(cfg.key_pem), ssl::context::pem, ec);
      if (ec) return util::make_error("unable to load client key: " + ec.message() + " " + openssl_errors());
    }
    return {};
  }

  std::chrono::milliseconds timeout_for(const HttpRequest& r) const {
    return r.timeout.count() < 0 ? cfg.timeout : r.timeout;
  }

  Result<std::unique_ptr<Connection>> connect(std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0) timeout = std::chrono::milliseconds(30000);
    // Connect asynchronously for its deadline, then hand the socket to blocking I/O.
    auto c = std::make_unique<Connection>();
    // Beast reads at most the buffer's free space (512 bytes when empty): room for a TLS record
    // lets one read take several answers to pipelined requests, or a large one at once.
    c->buffer.reserve(16u << 10);
    asio::io_context& ioc = c->ioc;
    boost::system::error_code ec;
    tcp::resolver resolver(ioc);
    auto results = resolver.resolve(host, port, ec);
    if (ec) return transport_error("dial tcp: lookup " + host + ": " + ec.message());
    beast::tcp_stream dial(ioc);
    dial.expires_after(timeout);
    dial.async_connect(results, [&](boost::system::error_code e, const tcp::endpoint&) { ec = e; });
    ioc.run();
    if (ec) return transport_error("dial tcp " + host + ":" + port + ": connect: " + ec.message());
    dial.socket().set_option(tcp::no_delay(true), ec);
    BlockingSocket sock(dial.release_socket());
    if (!use_tls) {
      c->plain = std::make_unique<BlockingSocket>(std::move(sock));
      ++n_conns;
      return c;
    }
    c->tls = std::make_unique<beast::ssl_stream<BlockingSocket>>(std::move(sock), *ssl_ctx);
    // Asio turns on SSL_MODE_RELEASE_BUFFERS: OpenSSL would allocate and free its 17 KB record
    // buffers for every request on a pooled connection; keep them for the connection's life.
    SSL_clear_mode(c->tls->native_handle(), SSL_MODE_RELEASE_BUFFERS);
    if (!is_ip_literal(host) || !cfg.tls_server_name.empty()) {
      std::string sni = cfg.tls_server_name.empty() ? host : cfg.tls_server_name;
      SSL_set_tlsext_host_name(c->tls->native_handle(), sni.c_str());
    }
    c->set_io_timeout(timeout);
    c->tls->handshake(ssl::stream_base::client, ec);
    if (ec) return transport_error("tls: handshake with " + host + ":" + port + " failed: " + ec.message());
    ++n_conns;
    return c;
  }

  Result<std::unique_ptr<Connection>> acquire(std::chrono::milliseconds timeout) {
    {
      std::lock_guard l(mu);
      if (!idle.empty()) {
        auto c = std::move(idle.back());
        idle.pop_back();
        c->reused = true;
        return c;
      }
    }
    return connect(timeout);
  }

  void release(std::unique_ptr<Connection> c) {
    std::lock_guard l(mu);
    // Room for every connection of a busy client: the ResourceClaim controller alone runs 50
    // workers, and a connection dropped here is a TLS handshake on both sides at the next call.
    if (idle.size() < 128) idle.push_back(std::move(c));
  }

  // The request as it goes on the wire, request line to body, in one buffer (no header container
  // or serializer per request). The caller's headers replace ours of the same name.
  std::string wire(const HttpRequest& r, bool accept_gzip) {
    std::string w;
    w.reserve(384 + r.target.size() + r.body.size());
    w.append(r.method).append(" ").append(r.target).append(" HTTP/1.1\r\n");
    auto add = [&](std::string_view k, std::string_view v1, std::string_view v2 = {}) {
      for (const auto& h : r.headers)
        if (iequals(h.first, k)) return;
      w.append(k).append(": ").append(v1).append(v2).append("\r\n");
    };
    add("Host", host_header);
    add("User-Agent", cfg.user_agent.empty() ? default_user_agent() : cfg.user_agent);
    if (!r.accept.empty()) add("Accept", r.accept);
    if (accept_gzip) add("Accept-Encoding", "gzip");
    if (auto tok = token(); !tok.empty()) add("Authorization", "Bearer ", tok);
    bool has_body = !r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH";
    if (has_body) {
      add("Content-Type", r.content_type.empty() ? "application/json" : r.content_type);
      add("Content-Length", std::to_string(r.body.size()));
    }
    for (const auto& [k, v] : r.headers) w.append(k).append(": ").append(v).append("\r\n");
    w.append("\r\n");
    if (has_body) w.append(r.body);
    return w;
  }

  // The bearer token; with a token file (projected service account tokens rotate) it is re-read
  // at most once a minute, like client-go's cached file token source.
  std::string token() {
    if (cfg.token_file.empty()) return cfg.bearer_token;
    std::lock_guard l(token_mu);
    auto now = std::chrono::steady_clock::now();
    if (token_cache.empty() || now - token_read > std::chrono::minutes(1)) {
      std::ifstream in(cfg.token_file, std::ios::binary);
      std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
      if (!t.empty()) token_cache = std::move(t);
      else if (token_cache.empty()) token_cache = cfg.bearer_token;
      token_read = now;
    }
    return token_cache;
  }

  void throttle() {
    auto wait = limiter.reserve();
    if (wait > std::chrono::milliseconds(0)) {
      ++n_throttled;
      if (wait > std::chrono::seconds(1))
        log::V(3).info("Waited before sending request (client-side throttling)",
                       {{"delay_ms", std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()}});
      std::this_thread::sleep_for(wait);
    }
  }

  // One attempt on one connection. `sent` reports whether the request reached the wire fully.
  Result<HttpResponse> attempt(Connection& c, const std::string& req, std::chrono::milliseconds timeout, bool& sent,
                               bool& keep) {
    boost::system::error_code ec;
    sent = false;
    c.set_io_timeout(timeout);
    c.write(req, ec);
    if (ec) return transport_error("write " + host + ":" + port + ": " + ec.message());
    sent = true;
    return read_response(c, keep);
  }

  Result<HttpResponse> read_response(Connection& c, bool& keep) {
    boost::system::error_code ec;
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    c.read(parser, ec);
    if (timed_out(ec)) {
      auto e = transport_error("net/http: request canceled (Client.Timeout exceeded)");
      e.reason = "Timeout";  // so that callers ask is_timeout(), not the message
      return e;
    }
    if (ec) return transport_error("read " + host + ":" + port + ": " + ec.message());
    auto& res = parser.get();
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    for (const auto& f : res) out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
    auto enc = out.header("Content-Encoding");
    if (iequals(enc, "gzip") || iequals(enc, "deflate")) {
      Inflater inf;
      if (!inf.feed(res.body(), out.body)) return transport_error("invalid gzip response body");
    } else {
      out.body = std::move(res.body());
    }
    keep = res.keep_alive();
    return out;
  }

  // A request alone on a pooled connection, retried on a fresh one where that is safe: when the
  // pooled connection turned out closed before the request was sent, and for idempotent methods.
  Result<HttpResponse> send_alone(const HttpRequest& r, const std::string& req, std::chrono::milliseconds timeout) {
    int conn_retries = 0;
    auto backoff = std::chrono::milliseconds(100);
    for (;;) {
      throttle();
      ++n_requests;
      auto conn = acquire(timeout);
      if (!conn) {
        if (idempotent(r.method) && conn_retries < 2) {
          ++conn_retries;
          ++n_retries;
          std::this_thread::sleep_for(backoff);
          backoff *= 2;
          continue;
        }
        return conn.error();
      }
      bool sent = false, keep = false;
      auto res = attempt(**conn, req, timeout, sent, keep);
      if (!res) {
        bool stale = (*conn)->reused;  // a pooled connection the server may have closed meanwhile
        if ((stale && (!sent || idempotent(r.method)) && conn_retries < 3) ||
            (idempotent(r.method) && conn_retries < 2 && !is_timeout(res.error()))) {
          ++conn_retries;
          ++n_retries;
          if (!stale) {
            std::this_thread::sleep_for(backoff);
            backoff *= 2;
          }
          continue;
        }
        return res.error();
      }
      if (keep) release(std::move(*conn));
      return res;
    }
  }

  // ---------------------------------------------------------------- pipelining (group commit)
  // A thread with a pipelined request either leads a batch (its request first, then those queued
  // behind it) or, when kPipelines batches are already on the wire, queues its request and sleeps
  // until a leader hands it the answer, or hands it the lead of the next batch. A queued request
  // is in exactly one of the two hands, so each sleeper is woken once.
  struct PipelinedCall {
    const HttpRequest* req;
    const std::string* wire;
    std::optional<Result<HttpResponse>> result;
    bool lead = false;  // set under pipe_mu before the wake
    util::OneShotWake wake;
  };
  static constexpr int kPipelines = 2;          // batches on the wire at once, one connection each
  static constexpr std::size_t kMaxBatch = 64;  // requests per batch
  mutable std::mutex pipe_mu;
  std::deque<PipelinedCall*> pipe_queue;
  int pipe_leaders = 0;
  std::atomic<std::uint64_t> n_batches{0}, n_pipelined{0};

  Result<HttpResponse> send_pipelined(const HttpRequest& r, const std::string& req) {
    PipelinedCall me{&r, &req};
    {
      std::unique_lock l(pipe_mu);
      if (pipe_leaders < kPipelines) {
        ++pipe_leaders;
      } else {
        pipe_queue.push_back(&me);
        l.unlock();
        me.wake.wait();
        if (!me.lead) return std::move(*me.result);
      }
    }
    std::vector<PipelinedCall*> batch{&me};
    {
      std::lock_guard l(pipe_mu);
      while (!pipe_queue.empty() && batch.size() < kMaxBatch) {
        batch.push_back(pipe_queue.front());
        pipe_queue.pop_front();
      }
    }
    send_batch(batch);
    PipelinedCall* next = nullptr;
    {
      // Requests queued meanwhile go next, led by the first of them; else this lead ends.
      std::lock_guard l(pipe_mu);
      if (!pipe_queue.empty()) {
        next = pipe_queue.front();
        pipe_queue.pop_front();
        next->lead = true;  // pipe_leaders passes to it unchanged
      } else {
        --pipe_leaders;
      }
    }
    // Woken outside the lock (a woken caller returns at once; its call object is gone after).
    for (std::size_t i = 1; i < batch.size(); ++i) batch[i]->wake.post();
    if (next) next->wake.post();
    return std::move(*me.result);
  }

  // Writes the batch's requests in one go on one connection and reads the answers in order. A
  // pooled connection found closed before anything was sent is replaced; any other failure is
  // every unanswered request's error (they may have reached the server: not resent).
  void send_batch(const std::vector<PipelinedCall*>& batch) {
    ++n_batches;
    n_pipelined += batch.size();
    auto timeout = timeout_for(*batch.front()->req);
    std::string out;
    std::size_t bytes = 0;
    for (auto* c : batch) bytes += c->wire->size();
    out.reserve(bytes);
    for (auto* c : batch) {
      throttle();
      ++n_requests;
      out.append(*c->wire);
    }
    auto fail_from = [&](std::size_t i, const ApiError& e) {
      for (; i < batch.size(); ++i) batch[i]->result = e;
    };
    for (int tries = 0;; ++tries) {
      auto conn = acquire(timeout);
      if (!conn) return fail_from(0, conn.error());
      Connection& c = **conn;
      boost::system::error_code ec;
      c.set_io_timeout(timeout);
      c.write(out, ec);
      if (ec) {
        if (c.reused && tries < 3) {
          ++n_retries;
          continue;
        }
        return fail_from(0, transport_error("write " + host + ":" + port + ": " + ec.message()));
      }
      bool keep = true;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (!keep) return fail_from(i, transport_error("the server closed the connection with pipelined requests unanswered"));
        auto res = read_response(c, keep);
        if (!res) return fail_from(i, res.error());
        batch[i]->result = std::move(res);
      }
      if (keep) release(std::move(*conn));
      return;
    }
  }

  // 429 and 5xx with Retry-After are retried (up to 10 times), other 5xx of idempotent methods up
  // to 3 times with backoff.
  static bool retryable(const HttpRequest& r, const HttpResponse& res, int server_retries, int& retry_after) {
    int status = res.status;
    retry_after = parse_retry_after(res.header("Retry-After"));
    return (status == 429 || status >= 500) && server_retries < 10 &&
           (retry_after > 0 || (status >= 500 && idempotent(r.method) && server_retries < 3));
  }

  Result<HttpResponse> round_trip(const HttpRequest& r, int server_retries = 0) {
    const std::string req = wire(r, /*accept_gzip=*/true);
    auto timeout = timeout_for(r);
    auto backoff = std::chrono::milliseconds(100);
    for (;;) {
      auto res = r.pipelined ? send_pipelined(r, req) : send_alone(r, req, timeout);
      if (!res) return res.error();
      int status = res->status;
      int retry_after = 0;
      if (retryable(r, *res, server_retries, retry_after)) {
        ++server_retries;
        ++n_retries;
        auto wait = retry_after > 0 ? std::chrono::milliseconds(retry_after * 1000) : backoff;
        if (retry_after == 0) backoff *= 2;
        log::V(4).info("Retrying request", {{"verb", r.method}, {"url", r.target}, {"status", status},
                                            {"wait_ms", wait.count()}});
        std::this_thread::sleep_for(wait);
        continue;
      }
      return res;
    }
  }
};

namespace {

class StreamImpl final : public ResponseStream {
 public:
  StreamImpl(std::unique_ptr<Connection> c, std::chrono::milliseconds idle_timeout)
      : c_(std::move(c)), idle_timeout_(idle_timeout) {
    parser_.body_limit(boost::none);
  }
  http::response_parser<http::string_body>& parser() { return parser_; }
  Connection& conn() { return *c_; }
  void set_gzip() { inflater_.emplace(); }

  int status() const override { return static_cast<int>(parser_.get().result_int()); }
  std::string header(std::string_view name) const override {
    for (const auto& f : parser_.get())
      if (iequals(f.name_string(), name)) return std::string(f.value());
    return {};
  }
  // Bytes already received with the header.
  bool drain_body(std::string& out) {
    auto& b = parser_.get().body();
    if (b.empty()) return false;
    if (inflater_) {
      bool ok = inflater_->feed(b, out);
      b.clear();
      if (!ok) {
        set_error("invalid gzip stream");
        return false;
      }
    } else {
      out.append(b);
      b.clear();
    }
    return true;
  }
  bool read(std::string& out) override {
    for (;;) {
      if (stopped_.load()) return false;
      if (drain_body(out)) return true;
      if (parser_.is_done() || done_) return false;
      boost::system::error_code ec;
      c_->set_io_timeout(idle_timeout_);
      c_->read_some(parser_, ec);
      if (ec == http::error::need_buffer) ec = {};
      if (ec) {
        done_ = true;
        drain_body(out);
        if (!stopped_.load()) set_error(ec == http::error::end_of_stream || ec == asio::error::eof ? std::string("unexpected EOF")
                                        : timed_out(ec) ? std::string("timeout waiting for data")
                                                        : ec.message());
        return !out.empty();
      }
    }
  }
  // The reading thread is blocked in recv: shutting the socket down wakes it with end of stream.
  void stop() override {
    if (stopped_.exchange(true)) return;
    c_->shutdown();
  }
  bool stopped() const override { return stopped_.load(); }
  std::string error() const override {
    std::lock_guard l(mu_);
    return error_;
  }

 private:
  void set_error(std::string e) {
    std::lock_guard l(mu_);
    error_ = std::move(e);
  }
  std::unique_ptr<Connection> c_;
  std::chrono::milliseconds idle_timeout_;
  http::response_parser<http::string_body> parser_;
  std::optional<Inflater> inflater_;
  std::atomic<bool> stopped_{false};
  bool done_ = false;
  mutable std::mutex mu_;
  std::string error_;
};

}  // namespace

Transport::Transport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Transport::~Transport() = default;

util::Result<std::shared_ptr<Transport>> Transport::create(const RestConfig& cfg) {
  auto impl = std::make_unique<Impl>(cfg);
  if (auto r = impl->init(); !r) return util::make_error(r.error());
  return std::shared_ptr<Transport>(new Transport(std::move(impl)));
}

Result<HttpResponse> Transport::round_trip(const HttpRequest& req) { return impl_->round_trip(req); }

std::vector<Result<HttpResponse>> Transport::round_trip_all(const std::vector<HttpRequest>& reqs) {
  auto& I = *impl_;
  std::vector<std::string> wires;
  wires.reserve(reqs.size());
  for (const auto& r : reqs) wires.push_back(I.wire(r, /*accept_gzip=*/true));
  std::deque<Impl::PipelinedCall> calls;  // not movable (atomic)
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    auto& c = calls.emplace_back();
    c.req = &reqs[i];
    c.wire = &wires[i];
  }
  for (std::size_t i = 0; i < calls.size(); i += Impl::kMaxBatch) {
    std::vector<Impl::PipelinedCall*> batch;
    for (std::size_t j = i; j < std::min(calls.size(), i + Impl::kMaxBatch); ++j) batch.push_back(&calls[j]);
    I.send_batch(batch);
  }
  // Requests the server asks to repeat go again alone, with round_trip's retries, after one wait
  // for the longest Retry-After among them.
  std::vector<Result<HttpResponse>> out;
  out.reserve(reqs.size());
  std::vector<std::size_t> again;
  int wait = 0;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    int retry_after = 0;
    if (*calls[i].result && Impl::retryable(reqs[i], **calls[i].result, 0, retry_after)) {
      again.push_back(i);
      wait = std::max(wait, retry_after);
    }
    out.push_back(std::move(*calls[i].result));
  }
  if (!again.empty()) std::this_thread::sleep_for(std::chrono::seconds(wait));
  for (std::size_t i : again) out[i] = I.round_trip(reqs[i], 1);
  return out;
}

Result<std::unique_ptr<ResponseStream>> Transport::open_stream(const HttpRequest& r) {
  auto& I = *impl_;
  const std::string req = I.wire(r, /*accept_gzip=*/false);
  auto timeout = I.timeout_for(r);
  for (int attempt = 0;; ++attempt) {
    I.throttle();
    ++I.n_requests;
    auto conn = I.acquire(timeout);
    if (!conn) return conn.error();
    bool reused = (*conn)->reused;
    auto s = std::make_unique<StreamImpl>(std::move(*conn), timeout);
    auto& c = s->conn();
    boost::system::error_code ec;
    c.set_io_timeout(std::chrono::milliseconds(30000));
    c.write(req, ec);
    if (!ec) c.read_header(s->parser(), ec);
    if (ec) {
      if (reused && attempt < 2) continue;  // stale keep-alive connection
      return transport_error("watch request " + r.target + ": " + ec.message());
    }
    int status = s->status();
    if (iequals(s->header("Content-Encoding"), "gzip")) s->set_gzip();
    if (status < 200 || status >= 300) {
      std::string body;
      while (s->read(body)) {
      }
      return ApiError::from_response(status, body, parse_retry_after(s->header("Retry-After")));
    }
    return std::unique_ptr<ResponseStream>(std::move(s));
  }
}

void Transport::close_idle() {
  std::lock_guard l(impl_->mu);
  impl_->idle.clear();
}

TransportStats Transport::stats() const {
  TransportStats s{impl_->n_requests.load(), impl_->n_conns.load(),     impl_->n_retries.load(),
                   impl_->n_throttled.load(), impl_->n_batches.load(), impl_->n_pipelined.load()};
  std::lock_guard l(impl_->pipe_mu);
  s.pipelined_waiting = impl_->pipe_queue.size();
  return s;
}

const RestConfig& Transport::config() const { return impl_->cfg; }

}  // namespace ksched::client
