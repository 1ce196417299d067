// Bearer-token authentication: the generated admin token plus upstream's static token CSV
// (token,user,uid[,"group1,group2"]).
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

class TokenAuthenticator {
 public:
  void add(std::string token, UserInfo user) { tokens_[std::move(token)] = std::move(user); }
  util::Result<void> load_file(const std::string& path);
  // Authorization header value -> user; nullptr when missing or unknown.
  const UserInfo* authenticate(std::string_view authorization) const;

 private:
  std::map<std::string, UserInfo, std::less<>> tokens_;
};

std::string random_token(std::size_t bytes = 24);

}  // namespace ksched::apiserver
