// resource.Quantity with upstream's grammar and canonical forms, without floating point.
//   <quantity> ::= <signedNumber><suffix>
//   <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | "" | k | M | G | T | P | E | e<int> | E<int>
// Values are rounded up to the nano scale (upstream's smallest), value()/milli_value() round up.
#pragma once
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/object.h"
#include "util/result.h"

namespace ksched::api {

class Quantity {
 public:
  enum class Format : std::uint8_t { DecimalSI, BinarySI, DecimalExponent };

  Quantity() = default;
  static util::Result<Quantity> parse(std::string_view s);
  // Panics (throws std::invalid_argument) on malformed input: for literals in code and tests.
  static Quantity must(std::string_view s);
  static Quantity from_int(std::int64_t v, Format f = Format::DecimalSI);
  static Quantity from_milli(std::int64_t milli, Format f = Format::DecimalSI);

  // Integer value rounded up (upstream Value()) and milli-units rounded up (MilliValue()).
  std::int64_t value() const;
  std::int64_t milli_value() const;
  bool is_zero() const;
  int sign() const;
  Format format() const { return format_; }

  // Canonical string: "1", "100m", "1536Mi", "1e3" ... (upstream's String()).
  std::string to_string() const;

  Quantity& operator+=(const Quantity& o);
  Quantity& operator-=(const Quantity& o);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  std::strong_ordering operator<=>(const Quantity& o) const;
  bool operator==(const Quantity& o) const { return (*this <=> o) == 0; }

 private:
  // 8-byte aligned so that a Quantity is 24 bytes, not 32 (resource lists are cached in every pod
  // and node); x86-64 and AArch64 load it unaligned at no cost.
  typedef __int128 Nanos __attribute__((aligned(8)));
  // value = nanos_ * 10^-9 with a wider high part for huge quantities (see quantity.cpp).
  Nanos nanos_ = 0;
  Format format_ = Format::DecimalSI;
};

// corev1.ResourceList: resource name -> quantity, sorted by name.
using ResourceList = FlatMap<Quantity, true>;  // shared: requests/limits repeat across replicas

}  // namespace ksched::api
