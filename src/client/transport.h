// HTTP/1.1 transport to one API server: keep-alive connection pool over TLS (or plain http),
// client-side QPS/burst throttling, retries (429/5xx with Retry-After, idempotent 5xx and dropped
// keep-alive connections with backoff), gzip response decoding. Thread-safe: any number of threads
// may call round_trip()/open_stream() concurrently; each call uses its own pooled connection.
// Beast/Asio stay in transport.cpp (pimpl).
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "client/config.h"
#include "client/error.h"

namespace ksched::client {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path + query, e.g. /api/v1/pods?limit=500
  std::string body;
  std::string content_type;  // for bodies
  std::string accept = "application/json";
  Headers headers;
  std::chrono::milliseconds timeout{-1};  // -1 = config timeout; 0 = none
  // May share a connection with concurrent pipelined requests (see Transport::round_trip). For
  // small requests the server answers promptly: a slow one delays those behind it.
  bool pipelined = false;
};

struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
  std::string header(std::string_view name) const;
};

// The body of a streaming response (watch). read() blocks until bytes arrive, the body ends, the
// peer closes, or stop() is called from any thread.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual int status() const = 0;
  virtual std::string header(std::string_view name) const = 0;
  // Appends body bytes to `out`. Returns false when the body is over (then error() is empty for a
  // clean end) or the stream failed/was stopped.
  virtual bool read(std::string& out) = 0;
  virtual void stop() = 0;
  virtual bool stopped() const = 0;
  virtual std::string error() const = 0;
};

struct TransportStats {
  std::uint64_t requests = 0;
  std::uint64_t connections_opened = 0;
  std::uint64_t retries = 0;
  std::uint64_t throttled_waits = 0;
  std::uint64_t pipelined_batches = 0;  // connection round trips that carried pipelined requests
  std::uint64_t pipelined_requests = 0;
  std::uint64_t pipelined_waiting = 0;  // now: queued for the next batch
};

class Transport {
 public:
  // Validates TLS material (CA, client cert/key) and the host URL.
  static util::Result<std::shared_ptr<Transport>> create(const RestConfig& cfg);
  ~Transport();

  // Sends the request and reads the whole response. A pipelined request (HttpRequest::pipelined)
  // joins the ones other threads send meanwhile: while a batch is on the wire the next gathers,
  // and it goes out in one write on one connection, its answers read back in order (HTTP/1.1
  // pipelining; the group commit of a database log). Many threads sending small writes then cost
  // one send and a few receives per batch instead of a send and a receive each.
  Result<HttpResponse> round_trip(const HttpRequest& req);
  // Sends the requests pipelined on one connection (in batches of up to 64) and returns their
  // answers in order: for one thread with many independent requests, none of the hand-offs
  // between threads that concurrent pipelined round_trip calls need. A request the server answers
  // with 429 or a retryable 5xx is sent again alone.
  std::vector<Result<HttpResponse>> round_trip_all(const std::vector<HttpRequest>& reqs);
  // Sends the request and returns once the response header arrived. Non-2xx answers are read in
  // full and returned as an ApiError.
  Result<std::unique_ptr<ResponseStream>> open_stream(const HttpRequest& req);
  // Drops idle pooled connections (e.g. after the server restarted).
  void close_idle();
  TransportStats stats() const;
  const RestConfig& config() const;

  struct Impl;

 private:
  explicit Transport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};


}  // namespace ksched::client
