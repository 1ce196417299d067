// Bearer-token authentication: the generated admin and component tokens plus upstream's static
// token CSV (token,user,uid[,"group1,group2"]), and anonymous requests as upstream's union of a
// bearer-token authenticator and the anonymous one (FailOnError: a token the server does not know
// is 401, never anonymous).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace ksched::apiserver {

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
};

inline constexpr std::string_view kAllAuthenticated = "system:authenticated";
inline constexpr std::string_view kAllUnauthenticated = "system:unauthenticated";
inline constexpr std::string_view kAnonymousUser = "system:anonymous";
inline constexpr std::string_view kPrivilegedGroup = "system:masters";

// The user of the generated admin token (and, in --no-tls development mode, of requests without
// credentials): "admin" in system:masters.
const UserInfo& admin_user();

class TokenAuthenticator {
 public:
  // Every user a token names is in system:authenticated (upstream's AuthenticatedGroupAdder).
  void add(std::string token, UserInfo user);
  util::Result<void> load_file(const std::string& path);
  // Authorization header value -> user; nullptr when missing or unknown.
  const UserInfo* authenticate(std::string_view authorization) const;
  // The user of a bare token (TokenReview); nullptr when unknown.
  const UserInfo* user_of_token(std::string_view token) const;
  // The caller of a request from its Authorization header: the token's user; system:anonymous
  // (group system:unauthenticated) when the header carries no bearer token and anonymous requests
  // are on; nullptr (401) otherwise, and always for a bearer token the server does not know.
  const UserInfo* authenticate_request(std::string_view authorization) const;
  void set_anonymous(bool on) { anonymous_ = on; }
  static const UserInfo& anonymous_user();

 private:
  std::map<std::string, UserInfo, std::less<>> tokens_;
  bool anonymous_ = true;
};

std::string random_token(std::size_t bytes = 24);

}  // namespace ksched::apiserver
