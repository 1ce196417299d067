#include "apiserver/auth/auth.h"

#include <openssl/rand.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ksched::apiserver {

namespace {

// One CSV record with double-quote quoting.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace

util::Result<void> TokenAuthenticator::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return util::make_error("failed to read token file \"" + path + "\"");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    auto f = csv_fields(line);
    if (f.size() < 3)
      return util::make_error("token file '" + path + "' must have at least 3 columns (token, user name, user uid), found " +
                              std::to_string(f.size()) + " on line " + std::to_string(n));
    if (f[0].empty()) return util::make_error("token file '" + path + "': empty token on line " + std::to_string(n));
    UserInfo u{f[1], f[2], {}};
    if (f.size() > 3) {
      std::stringstream gs(f[3]);
      std::string g;
      while (std::getline(gs, g, ','))
        if (!g.empty()) u.groups.push_back(g);
    }
    add(f[0], std::move(u));
  }
  return {};
}

void TokenAuthenticator::add(std::string token, UserInfo user) {
  if (std::find(user.groups.begin(), user.groups.end(), kAllAuthenticated) == user.groups.end())
    user.groups.emplace_back(kAllAuthenticated);
  tokens_[std::move(token)] = std::move(user);
}

namespace {

std::string_view trim_space(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The bearer token of an Authorization header as upstream's bearertoken authenticator reads it
// (scheme case-insensitive, the token up to the next space); "" when there is none.
std::string_view bearer_token(std::string_view h) {
  h = trim_space(h);
  auto sp = h.find(' ');
  if (sp != 6) return {};
  for (std::size_t i = 0; i < 6; ++i)
    if ((h[i] | 0x20) != "bearer"[i]) return {};
  auto tok = h.substr(7);
  return tok.substr(0, tok.find(' '));
}

}  // namespace

const UserInfo* TokenAuthenticator::user_of_token(std::string_view token) const {
  if (token.empty()) return nullptr;
  auto it = tokens_.find(token);
  return it == tokens_.end() ? nullptr : &it->second;
}

const UserInfo* TokenAuthenticator::authenticate(std::string_view h) const { return user_of_token(bearer_token(h)); }

const UserInfo* TokenAuthenticator::authenticate_request(std::string_view h) const {
  auto tok = bearer_token(h);
  if (!tok.empty()) return user_of_token(tok);
  return anonymous_ ? &anonymous_user() : nullptr;
}

const UserInfo& admin_user() {
  static const UserInfo u{"admin", "admin", {std::string(kPrivilegedGroup), std::string(kAllAuthenticated)}};
  return u;
}

const UserInfo& TokenAuthenticator::anonymous_user() {
  static const UserInfo u{std::string(kAnonymousUser), "", {std::string(kAllUnauthenticated)}};
  return u;
}

std::string random_token(std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  RAND_bytes(b.data(), static_cast<int>(b.size()));
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (auto c : b) {
    s += hex[c >> 4];
    s += hex[c & 15];
  }
  return s;
}

}  // namespace ksched::apiserver
