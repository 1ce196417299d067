#include "util/uuid.h"

#include <array>
#include <random>

namespace ksched::util {

std::string format_uuid_v4(std::uint64_t hi, std::uint64_t lo) {
  std::array<unsigned char, 16> b;
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<unsigned char>(hi >> (8 * i));
    b[8 + i] = static_cast<unsigned char>(lo >> (8 * i));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // variant 10xx
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 0x0f];
  }
  return out;
}

std::string new_uuid() {
  thread_local std::mt19937_64 rng = [] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }();
  const std::uint64_t hi = rng(), lo = rng();
  return format_uuid_v4(hi, lo);
}

}  // namespace ksched::util
