// HTTPS endpoints of a component (the scheduler's /healthz, /readyz, /livez, /metrics, /configz): a small
// request/response model independent of the server's transport.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ksched::serving {

struct HttpRequest {
  std::string method;
  std::string path;   // without the query
  std::string query;  // raw, without '?'
  std::string bearer_token;
  std::string client_cert_subject;  // CN of a verified client certificate, if any
  std::string query_param(const std::string& key) const;   // first value, "" if absent
  bool has_query_param(const std::string& key) const;
  std::vector<std::string> query_params(const std::string& key) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::map<std::string, std::string> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace ksched::serving
