// A bootstrapped Api driven through Api::handle (no HTTP), with a fake clock: the fixture the REST
// tests share. Requests are the admin's (system:masters) unless a test names another user.
#pragma once
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "apiserver/auth/auth.h"
#include "apiserver/endpoints/handlers.h"
#include "util/clock.h"

namespace ksched::apiserver {

class ApiHarness : public ::testing::Test {
 protected:
  ApiHarness() : api_(1000, clock_) { api_.bootstrap(); }

  // `target` may carry a query string ("/api/v1/pods?watch=1").
  Response call(const std::string& method, const std::string& target, const std::string& body = "",
                const std::string& content_type = "application/json", const std::string& accept = "application/json",
                const UserInfo* user = &admin_user()) {
    Request r;
    r.user = user;
    r.method = method;
    auto q = target.find('?');
    r.path = target.substr(0, q);
    if (q != std::string::npos) r.query = parse_query(target.substr(q + 1));
    r.body = body;
    r.content_type = content_type;
    r.accept = accept;
    return api_.handle(r);
  }
  static boost::json::object parse(const Response& r) { return boost::json::parse(r.body).as_object(); }
  static std::string message(const Response& r) { return std::string(parse(r).at("message").as_string()); }
  static std::string reason(const Response& r) { return std::string(parse(r).at("reason").as_string()); }

  util::FakeClock clock_;
  Api api_;
};

}  // namespace ksched::apiserver
