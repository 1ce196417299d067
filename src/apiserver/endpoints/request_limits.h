// What the API server bounds per request and per connection, with kube-apiserver's defaults
// (k8s.io/apiserver server.NewConfig and SecureServingInfo.Serve). See "Request limits" in
// docs/architecture.md.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace ksched::apiserver {

struct RequestLimits {
  // A request body larger than this is refused with 413 "Request entity too large: limit is N"
  // before it is read (upstream's MaxRequestBodyBytes, 3 MiB: twice etcd's default request size,
  // since JSON is larger than the protobuf stored). 0 = no limit.
  std::uint64_t max_request_body_bytes = std::uint64_t{3} << 20;
  // Request line and headers together (Go's http.Server MaxHeaderBytes as kube-apiserver sets it):
  // more is answered 431 Request Header Fields Too Large.
  std::size_t max_header_bytes = std::size_t{1} << 20;
  // A stored object's JSON larger than this is refused as etcd refuses a request above its
  // --max-request-bytes (1.5 MiB by default): 500 "etcdserver: request is too large".
  std::size_t max_object_bytes = std::size_t{3} << 19;
  // The TLS handshake and a request's line and headers must arrive within this from their first
  // byte (upstream's ReadHeaderTimeout); slower connections are closed without an answer.
  std::chrono::milliseconds read_header_timeout{32000};
  // A keep-alive connection may wait this long for its next request (upstream's IdleTimeout).
  std::chrono::milliseconds idle_timeout{90000};
  // A request's body must arrive within this from the end of its headers (upstream answers a
  // request still unfinished after its 60 s request timeout; a body that never ends is closed).
  std::chrono::milliseconds body_timeout{60000};
  // Requests served at once, read-only (GET) and mutating apart, as upstream's max-in-flight
  // filter without priority and fairness: more are answered 429 with Retry-After: 1. Watches are
  // exempt, and so is system:masters once the limit is reached. A connection counts once while
  // it has answers of that kind being prepared or sent (HTTP/1.1 serves a connection's requests
  // in order, so pipelining does not multiply it). 0 = no limit.
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
};

}  // namespace ksched::apiserver
