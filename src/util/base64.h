// Base64 encoding (RFC 4648): the standard alphabet with padding (JSON []byte fields,
// kubeconfig data) and the URL alphabet without it (list continue tokens, as Go's RawURLEncoding).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ksched::util {

enum class Base64 { Std, RawUrl };

inline std::string base64_encode(std::string_view in, Base64 kind = Base64::Std) {
  const char* t = kind == Base64::Std ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                                      : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  unsigned buf = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buf = (buf << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += t[(buf >> bits) & 63];
    }
  }
  if (bits > 0) out += t[(buf << (6 - bits)) & 63];
  if (kind == Base64::Std) {
    while (out.size() % 4 != 0) out += '=';
  }
  return out;
}

// Decodes the standard alphabet with padding, strictly as Go's StdEncoding (the JSON form of
// []byte): nullopt for any other character or a bad length.
inline std::optional<std::string> base64_decode(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(in.size() / 4 * 3);
  unsigned buf = 0;
  int bits = 0;
  std::size_t pad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    int v = c >= 'A' && c <= 'Z'   ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+'             ? 62
            : c == '/'             ? 63
                                   : -1;
    if (c == '=' && i + 2 >= in.size()) {
      ++pad;
      continue;
    }
    if (v < 0 || pad) return std::nullopt;
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace ksched::util
