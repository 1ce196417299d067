#include "apiserver/endpoints/http_server.h"

#include "apiserver/conversion.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <deque>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/handlers.h"
#include "apiserver/endpoints/protobuf.h"
#include "apiserver/status.h"
#include "util/log.h"

namespace ksched::apiserver {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {
// An answer must be taken by the client within this (a bound on a reader that stalls).
constexpr auto kWriteTimeout = std::chrono::seconds(600);
constexpr auto kBookmarkInterval = std::chrono::seconds(30);
constexpr auto kCoalesce = std::chrono::milliseconds(2);
constexpr std::size_t kReadBuffer = 16u << 10;
// The most one read asks for (Beast's own read loop uses the same).
constexpr std::size_t kReadSize = 64u << 10;
// A connection's read buffer grown past this by a large request gives the memory back once empty.
constexpr std::size_t kKeptReadBuffer = 256u << 10;
// After an answer that ends the connection, what the client still sends is read and dropped for
// this long, so that closing with its bytes unread does not reset the connection and lose the
// answer (Go's closeWriteAndWait).
constexpr auto kLingerTime = std::chrono::milliseconds(500);
// Answers to pipelined requests queued before they are written regardless (bounds the buffer).
constexpr std::size_t kMaxQueuedAnswers = 256u << 10;

// A watch event line is {"type":T,"object":OBJ}\n; these are the parts around OBJ.
constexpr std::string_view kEventPrefix[3] = {"{\"type\":\"ADDED\",\"object\":", "{\"type\":\"MODIFIED\",\"object\":",
                                             "{\"type\":\"DELETED\",\"object\":"};
constexpr std::string_view kEventSuffix = "}\n";

// The prefix of an event sent as the stored object itself, or null when it needs formatting.
const std::string_view* plain_event_prefix(const WatchItem& it) {
  if (!it.obj || it.restamp) return nullptr;
  switch (it.kind) {
    case WatchItem::Kind::Added: return &kEventPrefix[0];
    case WatchItem::Kind::Modified: return &kEventPrefix[1];
    case WatchItem::Kind::Deleted: return &kEventPrefix[2];
    default: return nullptr;
  }
}
}  // namespace

struct HttpServer::Impl {
  Api& api;
  const TokenAuthenticator& auth;
  RequestLimits limits;
  // Requests being served: [0] read-only, [1] mutating (the max-in-flight filter).
  std::atomic<int> in_flight[2] = {0, 0};
  bool tls = false;
  ssl::context ssl_ctx{ssl::context::tls_server};
  // One io_context per io thread: a connection lives on one of them, so its handlers need no
  // strand and completions no hand-off between threads (one io_context run by two threads woke
  // the other thread for nearly every completion). The guards keep idle contexts running.
  std::vector<std::unique_ptr<net::io_context>> iocs;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> guards;
  std::size_t next_ioc = 0;  // used by the accept handler only
  std::unique_ptr<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::list<std::weak_ptr<Watcher>> watchers;  // for stop()
  std::atomic<int> active_watches{0};
  std::atomic<bool> stopping{false};
  std::unique_ptr<net::thread_pool> handler_pool;  // null: requests are answered on the io threads

  Impl(Api& a, const TokenAuthenticator& au, const RequestLimits& l) : api(a), auth(au), limits(l) {}

  void track(const std::shared_ptr<Watcher>& w) {
    std::lock_guard l(mu);
    for (auto it = watchers.begin(); it != watchers.end();) {
      if (it->expired()) it = watchers.erase(it);
      else ++it;
    }
    watchers.push_back(w);
  }

  void accept();
};

namespace {

template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(HttpServer::Impl& srv, Stream stream) : srv_(srv), stream_(std::move(stream)), timer_(stream_.get_executor()),
                                                    bookmark_timer_(stream_.get_executor()) {
    // Beast reads at most the buffer's free space (512 bytes when empty): room for a TLS record
    // lets one read take a whole batch of pipelined requests.
    buffer_.reserve(kReadBuffer);
  }

  ~Session() { release_in_flight(); }

  void start() {
    if constexpr (std::is_same_v<Stream, beast::ssl_stream<beast::tcp_stream>>) {
      beast::get_lowest_layer(stream_).expires_after(srv_.limits.read_header_timeout);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (ec) return;
                                self->read();
                              });
    } else {
      read();
    }
  }

 private:
  using Clock = std::chrono::steady_clock;

  // Reads the next request. The read loop is Beast's own (read some, feed the parser), kept here
  // for its deadlines, which are upstream's: a connection's first request and any request whose
  // first byte has arrived must have its line and headers within the header timeout (so a client
  // trickling header bytes is dropped), a keep-alive connection may wait the idle timeout for
  // its next request, and a body must arrive within the body timeout after its headers.
  void read() {
    // A parser fed part of a pipelined request from the buffer (next_buffered_request) goes on.
    if (!parser_primed_) new_parser();
    const bool started = parser_primed_ || buffer_.size() > 0;
    parser_primed_ = false;
    header_deadline_.reset();
    body_deadline_.reset();
    if (first_request_ || started) header_deadline_ = Clock::now() + srv_.limits.read_header_timeout;
    first_request_ = false;
    if (buffer_.size() == 0 && buffer_.capacity() > kKeptReadBuffer) {
      buffer_.shrink_to_fit();
      buffer_.reserve(kReadBuffer);
    }
    if (buffer_.size() > 0 && parse_buffered()) return;
    read_more();
  }

  void read_more() {
    auto& lowest = beast::get_lowest_layer(stream_);
    if (parser_->is_header_done()) {
      if (!body_deadline_) body_deadline_ = Clock::now() + srv_.limits.body_timeout;
      lowest.expires_at(*body_deadline_);
    } else if (header_deadline_) {
      lowest.expires_at(*header_deadline_);
    } else {
      lowest.expires_after(srv_.limits.idle_timeout);
    }
    // What Beast's own loop asks: the buffer's free space (at least 512 bytes), up to 64 KiB.
    stream_.async_read_some(buffer_.prepare(beast::read_size(buffer_, kReadSize)),
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
      // A timeout, the end of the stream or a reset: upstream does not answer these either.
      if (ec) return self->close();
      self->buffer_.commit(n);
      if (!self->header_deadline_) self->header_deadline_ = Clock::now() + self->srv_.limits.read_header_timeout;
      if (!self->parse_buffered()) self->read_more();
    });
  }

  // Feeds the buffered bytes to the parser. True when they completed the request (it is being
  // answered) or broke a limit or the grammar (the answer closes the connection); false when the
  // request needs more bytes.
  bool parse_buffered() {
    beast::error_code ec;
    feed(ec);
    if (ec) {
      refuse(ec);
      return true;
    }
    if (!parser_->is_done()) return false;
    on_read();
    return true;
  }

  // Gives the parser what the buffer holds of the current request. Leaves ec set on a malformed
  // or over-limit request; a request still incomplete is not an error.
  void feed(beast::error_code& ec) {
    while (buffer_.size() > 0 && !parser_->is_done()) {
      std::size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == http::error::need_more) {
        ec = {};
        return;
      }
      if (ec || used == 0) return;
    }
  }

  void new_parser() {
    parser_.emplace();
    if (srv_.limits.max_request_body_bytes > 0)
      parser_->body_limit(srv_.limits.max_request_body_bytes);
    else
      parser_->body_limit(boost::none);
    parser_->header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(srv_.limits.max_header_bytes, UINT32_MAX)));
    parser_->eager(true);
  }

  // A request the parser refused: answered as upstream answers it, then the connection ends (what
  // follows on it cannot be framed). A body over the limit gets kube-apiserver's Status; header
  // and grammar errors get Go's net/http plain-text answers.
  void refuse(beast::error_code ec) {
    keep_alive_ = false;
    out_.clear();
    if (ec == http::error::body_limit) {
      Response r;
      r.status = 413;
      r.body = ApiError{413, "RequestEntityTooLarge",
                        "Request entity too large: limit is " + std::to_string(srv_.limits.max_request_body_bytes)}
                   .to_json();
      format_response(r);
    } else {
      constexpr std::string_view kHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n";
      std::string_view status = ec == http::error::header_limit          ? "431 Request Header Fields Too Large"
                                : ec == http::error::bad_transfer_encoding ? "501 Not Implemented"
                                                                           : "400 Bad Request";
      std::string_view text = ec == http::error::bad_transfer_encoding ? "Unsupported transfer encoding" : status;
      out_.append("HTTP/1.1 ").append(status).append(kHeaders).append(text);
    }
    if (auto v = log::V(4); v.enabled()) v.info("HTTP request refused", {{"err", ec.message()}});
    beast::get_lowest_layer(stream_).expires_after(kWriteTimeout);
    net::async_write(stream_, net::buffer(out_), [self = this->shared_from_this()](beast::error_code wec, std::size_t) {
      if (wec) return self->close();
      self->linger_close();
    });
  }

  // Half-closes, then reads and drops what the client still sends until it closes or kLingerTime
  // passes, then closes: the client gets the answer rather than a reset.
  void linger_close() {
    auto& lowest = beast::get_lowest_layer(stream_);
    beast::error_code ec;
    lowest.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    lowest.expires_after(kLingerTime);
    drain();
  }

  void drain() {
    buffer_.clear();
    beast::get_lowest_layer(stream_).async_read_some(
        buffer_.prepare(beast::read_size(buffer_, kReadSize)), [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
          if (ec) return self->close();
          self->drain();
        });
  }

  // HTTP/1.1 pipelining: a client may send several requests before reading any answer. Requests
  // already in the buffer are answered together, their responses queued in out_ and sent in one
  // write when no complete request is left, so that a pipelined batch costs one send, not one per
  // request. Answers keep the requests' order, as HTTP/1.1 requires.
  void on_read() {
    // Requests that block on a database (etcd mode: writes, and consistent reads) run on their own
    // threads; the session waits for them as it waits for a durable commit, without holding up its
    // io thread.
    if (srv_.handler_pool)
      return net::post(*srv_.handler_pool, [self = this->shared_from_this()] { self->answer_requests(); });
    answer_requests();
  }

  void answer_requests() {
    out_.clear();
    std::int64_t commit = 0;
    for (;;) {
      Response resp = handle(parser_->release());
      commit = std::max(commit, resp.commit_rv);
      if (resp.watcher) {
        // The watch stream follows the answers queued before it.
        if (out_.empty())
          return on_io([self = this->shared_from_this(), resp = std::move(resp)]() mutable {
            self->release_in_flight();
            self->start_watch(std::move(resp));
          });
        return when_durable(commit, [self = this->shared_from_this(), resp = std::move(resp)]() mutable {
          beast::get_lowest_layer(self->stream_).expires_after(kWriteTimeout);
          net::async_write(self->stream_, net::buffer(self->out_),
                           [self, resp = std::move(resp)](beast::error_code ec, std::size_t) mutable {
                             self->release_in_flight();
                             if (ec) return self->close();
                             self->start_watch(std::move(resp));
                           });
        });
      }
      format_response(resp);
      if (!keep_alive_ || out_.size() >= kMaxQueuedAnswers || !next_buffered_request()) break;
    }
    when_durable(commit, [self = this->shared_from_this()] {
      beast::get_lowest_layer(self->stream_).expires_after(kWriteTimeout);
      net::async_write(self->stream_, net::buffer(self->out_), [self](beast::error_code ec, std::size_t) {
        self->release_in_flight();
        if (ec || !self->keep_alive_) return self->close();
        self->read();
      });
    });
  }

  // A write is acknowledged only once durable (with a data directory), or back from etcd's watch
  // (etcd mode): the answers wait off the io thread, and the session reads nothing more until they
  // are sent.
  template <class Fn>
  void when_durable(std::int64_t rv, Fn fn) {
    if (rv == 0) return on_io(std::move(fn));
    auto shared = std::make_shared<Fn>(std::move(fn));
    srv_.api.store().when_durable(rv, [self = this->shared_from_this(), shared] {
      self->on_io([shared] { (*shared)(); });
    });
  }

  // Runs `fn` on the session's io thread: at once when already there, else queued to it.
  template <class Fn>
  void on_io(Fn fn) {
    net::dispatch(stream_.get_executor(), std::move(fn));
  }

  // Parses the next request from bytes already received, without waiting for more. True when a
  // whole request was there; otherwise the parser keeps what it took and read() continues it.
  bool next_buffered_request() {
    if (buffer_.size() == 0) return false;
    new_parser();
    beast::error_code ec;
    feed(ec);
    if (ec) {
      // A malformed request: read() meets the error again, with a fresh parser, once the answers
      // before it are sent.
      new_parser();
      return false;
    }
    if (parser_->is_done()) return true;
    parser_primed_ = true;
    return false;
  }

  // Upstream's max-in-flight filter (k8s.io/apiserver filters.WithMaxInFlightLimit, used when
  // priority and fairness is off): a request beyond the limit of its kind is answered 429, unless
  // it is long-running (a watch) or its user is in system:masters. The session holds at most one
  // slot of each kind, from its first request of that kind in a batch until the batch's answers
  // are written: a connection's requests are served in order, as Go's HTTP/1.1 server serves them.
  bool admit_in_flight(const Request& r, const UserInfo& user) {
    if (query_bool(r.param("watch"))) return true;
    const int kind = r.method == "GET" || r.method == "HEAD" ? 0 : 1;
    if (held_[kind]) return true;
    const int limit = kind ? srv_.limits.max_mutating_requests_inflight : srv_.limits.max_requests_inflight;
    if (limit <= 0) return true;
    if (srv_.in_flight[kind].fetch_add(1, std::memory_order_relaxed) < limit) {
      held_[kind] = true;
      return true;
    }
    srv_.in_flight[kind].fetch_sub(1, std::memory_order_relaxed);
    return std::find(user.groups.begin(), user.groups.end(), "system:masters") != user.groups.end();
  }

  void release_in_flight() {
    for (int k = 0; k < 2; ++k)
      if (held_[k]) {
        srv_.in_flight[k].fetch_sub(1, std::memory_order_relaxed);
        held_[k] = false;
      }
  }

  // The filter's answer, as upstream writes it (http.Error: plain text).
  static Response too_many_requests() {
    Response r;
    r.status = 429;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "Too many requests, please try again later.\n";
    r.headers.emplace_back("Retry-After", "1");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return r;
  }

  Response handle(http::request<http::string_body> req) {
    keep_alive_ = req.keep_alive();
    Request r;
    r.method = std::string(req.method_string());
    std::string_view target = req.target();
    auto q = target.find('?');
    r.path = percent_decode(target.substr(0, q), false);
    if (q != std::string_view::npos) r.query = parse_query(target.substr(q + 1));
    r.content_type = std::string(req[http::field::content_type]);
    r.accept = std::string(req[http::field::accept]);
    r.body = std::move(req.body());
    // Plain HTTP (--no-tls) is loopback development mode like upstream's old insecure port:
    // client-go never sends bearer tokens over http://, so requests without credentials are
    // admitted as admin; wrong credentials are still refused. Otherwise a request without a token
    // is system:anonymous (unless --anonymous-auth=false), and Api::handle authorizes it.
    std::string_view authorization = req[http::field::authorization];
    const UserInfo* user = !srv_.tls && authorization.empty() ? &admin_user() : srv_.auth.authenticate_request(authorization);
    r.user = user;
    Response resp;
    if (!user) {
      resp.status = 401;
      resp.body = ApiError{401, "Unauthorized", "Unauthorized"}.to_json();
    } else if (!admit_in_flight(r, *user)) {
      resp = too_many_requests();
    } else {
      resp = srv_.api.handle(r);
    }
    if (auto v = log::V(4); v.enabled()) v.info("HTTP", {{"verb", r.method}, {"URI", std::string(target)}, {"status", resp.status}});
    return resp;
  }

  // Appends the response as it goes on the wire, status line to body, to the session's reused
  // buffer: one buffer is one TLS record and one send, with no header container or serializer per
  // response. Handlers set no header twice, nor one of those written here.
  void format_response(const Response& resp) {
    auto status = static_cast<http::status>(resp.status);
    out_.append("HTTP/1.1 ").append(std::to_string(resp.status)).append(" ");
    out_.append(http::obsolete_reason(status)).append("\r\nContent-Type: ").append(resp.content_type);
    out_.append("\r\nCache-Control: no-cache, private\r\n");
    for (const auto& [k, v] : resp.headers) out_.append(k).append(": ").append(v).append("\r\n");
    // No body, and no length, where HTTP forbids one (1xx, 204, 304).
    bool bodyless = resp.status / 100 == 1 || resp.status == 204 || resp.status == 304;
    if (!bodyless) out_.append("Content-Length: ").append(std::to_string(resp.body.size())).append("\r\n");
    if (!keep_alive_) out_.append("Connection: close\r\n");
    out_.append("\r\n");
    if (!bodyless) out_.append(resp.body);
  }

  // ------------------------------------------------------------------ watch streaming
  void start_watch(Response resp) {
    watcher_ = std::move(resp.watcher);
    resource_ = resp.watch_resource;
    table_ = resp.watch_table;
    protobuf_ = resp.watch_protobuf;
    include_ = resp.watch_include;
    srv_.track(watcher_);
    ++srv_.active_watches;
    beast::get_lowest_layer(stream_).expires_never();
    header_ = std::make_shared<http::response<http::empty_body>>(http::status::ok, 11);
    header_->set(http::field::content_type, protobuf_ ? protobuf::kWatchContentType : std::string_view("application/json"));
    header_->set(http::field::cache_control, "no-cache, private");
    header_->chunked(true);
    header_->keep_alive(keep_alive_);
    serializer_ = std::make_shared<http::response_serializer<http::empty_body>>(*header_);
    writing_ = true;
    http::async_write_header(stream_, *serializer_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      self->writing_ = false;
      if (ec) return self->end_watch(false);
      std::weak_ptr<Session> weak = self;
      auto ex = self->stream_.get_executor();
      self->watcher_->set_notify([weak, ex, flag = self->wake_]() {
        if (flag->exchange(true)) return;
        net::post(ex, [weak, flag]() {
          if (auto s = weak.lock()) s->schedule_pump();
          else flag->store(false);
        });
      });
      self->pump();
    });
    if (resp.timeout_seconds > 0) {
      timer_.expires_after(std::chrono::seconds(resp.timeout_seconds));
      timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
        if (!ec && self->watcher_) self->watcher_->close();
      });
    }
    if (resp.bookmarks) schedule_bookmark();
    watch_for_client_gone();
  }

  // Detects a client that goes away while the stream is idle. The peek must not block: the
  // readiness can be stale (once the watch has ended, the session's next request read may have
  // taken the bytes), and a blocking receive here held an io thread forever, so that stopping the
  // server hung joining it. A stale wake-up waits again.
  void watch_for_client_gone() {
    beast::get_lowest_layer(stream_).socket().async_wait(
        tcp::socket::wait_read, [self = this->shared_from_this()](beast::error_code ec) {
          if (!self->watcher_ || self->finishing_) return;
          if (!ec) {
            char b;
            auto fd = beast::get_lowest_layer(self->stream_).socket().native_handle();
            ssize_t n = ::recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
            if (n > 0) return;  // the client sent bytes: it is there
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
              return self->watch_for_client_gone();
            }
          }
          self->client_gone_ = true;  // end of stream, a socket error, or the wait failed
          self->watcher_->close();
        });
  }

  void schedule_bookmark() {
    bookmark_timer_.expires_after(kBookmarkInterval);
    bookmark_timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
      if (ec || !self->watcher_ || self->watcher_->closed()) return;
      self->srv_.api.store().bookmark(*self->watcher_);
      self->schedule_bookmark();
    });
  }

  // Coalesces events arriving within a millisecond into one chunk: under fan-out load this cuts
  // writes and client wake-ups several-fold at a negligible latency cost.
  void schedule_pump() {
    coalesce_timer_.expires_after(kCoalesce);
    coalesce_timer_.async_wait([self = this->shared_from_this()](beast::error_code) {
      self->wake_->store(false);
      self->pump();
    });
  }

  void pump() {
    if (writing_ || !watcher_ || finishing_) return;
    bool closed = false;
    auto items = watcher_->drain(closed);
    if (items.empty()) {
      if (closed) end_watch(!client_gone_);
      return;
    }
    // The whole chunk (size line, events, CRLF) is assembled in one reused buffer: a stored
    // object's JSON is copied once between a constant prefix and suffix (no allocation per event
    // or watcher); table, restamped, view-converted and synthetic items are formatted per watcher.
    // One buffer also means full TLS records: Beast's flat_stream sends a lone chunk header or
    // piece smaller than the next one as a record and a send of its own.
    constexpr std::size_t kSizeLine = 18;  // 16 hex digits and CRLF, filled in below
    out_.assign(kSizeLine, ' ');
    for (auto& it : items) {
      if (protobuf_) {
        srv_.api.append_watch_frame(*resource_, it, out_);  // length-prefixed frames
        continue;
      }
      const std::string_view* prefix = plain_event_prefix(it);
      if (prefix && !table_ && !is_converted(*resource_)) {
        out_.append(*prefix).append(it.obj->json).append(kEventSuffix);
      } else {
        out_.append(srv_.api.format_watch_item(*resource_, it, table_, include_, columns_sent_));
      }
    }
    char size_line[kSizeLine + 1];
    int n = std::snprintf(size_line, sizeof size_line, "%zx\r\n", out_.size() - kSizeLine);
    std::size_t start = kSizeLine - static_cast<std::size_t>(n);
    out_.replace(start, static_cast<std::size_t>(n), size_line, static_cast<std::size_t>(n));
    out_.append("\r\n");
    writing_ = true;
    net::async_write(stream_, net::buffer(out_.data() + start, out_.size() - start),
                     [self = this->shared_from_this(), closed](beast::error_code ec, std::size_t) {
                       self->writing_ = false;
                       if (ec) return self->end_watch(false);
                       if (closed) return self->end_watch(true);
                       self->pump();
                     });
  }

  void end_watch(bool write_last) {
    if (finishing_) return;
    finishing_ = true;
    timer_.cancel();
    bookmark_timer_.cancel();
    coalesce_timer_.cancel();
    if (watcher_) {
      watcher_->set_notify(nullptr);
      watcher_->close();
      srv_.api.store().unwatch(watcher_.get());
    }
    if (!write_last) {
      --srv_.active_watches;
      return close();
    }
    net::async_write(stream_, http::make_chunk_last(), [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      --self->srv_.active_watches;  // only now is the stream complete on the wire
      self->watcher_.reset();
      self->finishing_ = false;
      if (ec || !self->keep_alive_ || self->srv_.stopping) return self->close();
      self->read();
    });
  }

  void close() {
    release_in_flight();
    beast::error_code ec;
    beast::get_lowest_layer(stream_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(stream_).close();
  }

  HttpServer::Impl& srv_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool parser_primed_ = false;  // parser_ holds the start of a pipelined request
  bool keep_alive_ = true;
  bool first_request_ = true;  // nothing read yet: the header timeout runs from the start
  std::optional<Clock::time_point> header_deadline_;  // set once the request's first byte is here
  std::optional<Clock::time_point> body_deadline_;
  bool held_[2] = {false, false};  // in-flight slots (read-only, mutating) this session holds
  // watch state
  std::shared_ptr<Watcher> watcher_;
  const ResourceInfo* resource_ = nullptr;
  bool table_ = false;
  bool protobuf_ = false;
  IncludeObject include_ = IncludeObject::Metadata;
  bool columns_sent_ = false;
  bool writing_ = false;
  bool finishing_ = false;
  bool client_gone_ = false;
  std::string out_;  // the response or watch chunk being written; keeps its capacity between writes
  std::shared_ptr<std::atomic<bool>> wake_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<http::response<http::empty_body>> header_;
  std::shared_ptr<http::response_serializer<http::empty_body>> serializer_;
  net::steady_timer timer_;
  net::steady_timer bookmark_timer_;
  net::steady_timer coalesce_timer_{stream_.get_executor()};
};

}  // namespace

void HttpServer::Impl::accept() {
  net::io_context& target = *iocs[next_ioc++ % iocs.size()];
  acceptor->async_accept(target, [this](beast::error_code ec, tcp::socket sock) {
    if (ec) {
      if (!stopping) accept();
      return;
    }
    sock.set_option(tcp::no_delay(true), ec);
    if (tls) {
      beast::ssl_stream<beast::tcp_stream> stream(beast::tcp_stream(std::move(sock)), ssl_ctx);
      // Asio turns on SSL_MODE_RELEASE_BUFFERS, so OpenSSL would allocate and free its 17 KB
      // record buffers on every read and write of a keep-alive connection; keep them instead.
      SSL_clear_mode(stream.native_handle(), SSL_MODE_RELEASE_BUFFERS);
      std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(*this, std::move(stream))->start();
    } else {
      std::make_shared<Session<beast::tcp_stream>>(*this, beast::tcp_stream(std::move(sock)))->start();
    }
    accept();
  });
}

HttpServer::HttpServer(Api& api, const TokenAuthenticator& auth, TlsMaterial tls, int io_threads,
                       int handler_threads, const RequestLimits& limits)
    : impl_(std::make_unique<Impl>(api, auth, limits)) {
  if (handler_threads > 0) impl_->handler_pool = std::make_unique<net::thread_pool>(handler_threads);
  if (!tls.cert_pem.empty()) {
    impl_->tls = true;
    impl_->ssl_ctx.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                               ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    impl_->ssl_ctx.use_certificate_chain(net::buffer(tls.cert_pem));
    impl_->ssl_ctx.use_private_key(net::buffer(tls.key_pem), ssl::context::pem);
  }
  const int n = std::max(1, io_threads);
  for (int i = 0; i < n; ++i) {
    impl_->iocs.push_back(std::make_unique<net::io_context>(1));
    impl_->guards.push_back(net::make_work_guard(*impl_->iocs.back()));
  }
}

HttpServer::~HttpServer() { stop(); }

util::Result<std::uint16_t> HttpServer::listen(const std::string& host, std::uint16_t port) {
  beast::error_code ec;
  auto addr = net::ip::make_address(host, ec);
  if (ec) return util::make_error("invalid listen address \"" + host + "\": " + ec.message());
  tcp::endpoint ep(addr, port);
  impl_->acceptor = std::make_unique<tcp::acceptor>(*impl_->iocs[0]);
  impl_->acceptor->open(ep.protocol(), ec);
  if (!ec) impl_->acceptor->set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor->bind(ep, ec);
  if (!ec) impl_->acceptor->listen(net::socket_base::max_listen_connections, ec);
  if (ec) return util::make_error("failed to listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  std::uint16_t bound = impl_->acceptor->local_endpoint().port();
  impl_->accept();
  for (auto& ioc : impl_->iocs) impl_->threads.emplace_back([&ctx = *ioc] { ctx.run(); });
  return bound;
}

void HttpServer::stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  if (impl_->acceptor) {
    net::post(impl_->acceptor->get_executor(), [this] {
      beast::error_code ec;
      impl_->acceptor->close(ec);
    });
  }
  {
    std::lock_guard l(impl_->mu);
    for (auto& w : impl_->watchers)
      if (auto s = w.lock()) s->close();
  }
  // Give open watch streams a moment to write their final chunk.
  for (int i = 0; i < 100 && impl_->active_watches.load() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (auto& ioc : impl_->iocs) ioc->stop();
  for (auto& t : impl_->threads)
    if (t.joinable()) t.join();
  if (impl_->handler_pool) impl_->handler_pool->join();  // requests in flight finish first
  // A watcher outlives this server in the store's watch hub, which may still push to it or close
  // it (the store is stopped after the server); its callback posts to an io_context that is about
  // to be destroyed, so it must go now.
  std::lock_guard l(impl_->mu);
  for (auto& w : impl_->watchers)
    if (auto s = w.lock()) s->set_notify(nullptr);
  impl_->watchers.clear();
}

}  // namespace ksched::apiserver
