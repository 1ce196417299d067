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

// The standard alphabet; newlines are skipped, as Go's decoder skips them. Padding is optional
// unless `strict` (Go's StdEncoding as encoding/json decodes []byte: the length without newlines a
// multiple of 4, '=' only at the end). nullopt for any other character.
inline std::optional<std::string> base64_decode(std::string_view in, bool strict = false) {
  std::string out;
  out.reserve(in.size() / 4 * 3);
  unsigned buf = 0;
  int bits = 0;
  std::size_t pad = 0, count = 0;
  for (char c : in) {
    if (c == '\n' || c == '\r') continue;
    ++count;
    if (c == '=') {
      ++pad;
      continue;
    }
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    if (v < 0 || pad) return std::nullopt;  // not base64, or data after the padding
    buf = (buf << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buf >> bits) & 0xff));
    }
  }
  if (strict && (count % 4 != 0 || pad > 2)) return std::nullopt;
  return out;
}

}  // namespace ksched::util
