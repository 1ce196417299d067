// HTTP/1.1 (keep-alive, chunked watch streams) over TCP or TLS with Boost.Beast.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "apiserver/endpoints/request_limits.h"
#include "util/result.h"

namespace ksched::apiserver {

class Api;
class TokenAuthenticator;

struct TlsMaterial {
  std::string cert_pem;
  std::string key_pem;
};

class HttpServer {
 public:
  // `tls` empty cert = plain HTTP. `handler_threads` > 0: requests are handled on a pool of that
  // many threads rather than on the io threads (for handlers that block on a database).
  HttpServer(Api& api, const TokenAuthenticator& auth, TlsMaterial tls, int io_threads, int handler_threads = 0,
             const RequestLimits& limits = {});
  ~HttpServer();
  util::Result<std::uint16_t> listen(const std::string& host, std::uint16_t port);
  // Ends every watch stream, stops accepting and joins the io threads.
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksched::apiserver
