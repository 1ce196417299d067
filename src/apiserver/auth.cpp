#include "apiserver/auth.h"

#include <openssl/rand.h>

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
    tokens_[f[0]] = std::move(u);
  }
  return {};
}

const UserInfo* TokenAuthenticator::authenticate(std::string_view h) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (h.size() <= kBearer.size()) return nullptr;
  if (h.substr(0, 7) != kBearer && h.substr(0, 7) != "bearer ") return nullptr;
  auto tok = h.substr(kBearer.size());
  while (!tok.empty() && tok.front() == ' ') tok.remove_prefix(1);
  auto it = tokens_.find(tok);
  return it == tokens_.end() ? nullptr : &it->second;
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
