// Base64 encoding (RFC 4648): the standard alphabet with padding (JSON []byte fields,
// kubeconfig data) and the URL alphabet without it (list continue tokens, as Go's RawURLEncoding).
#pragma once
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

}  // namespace ksched::util
