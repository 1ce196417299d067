// resource.Quantity with upstream's grammar and canonical forms, without floating point.
//   <quantity> ::= <signedNumber><suffix>
//   <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei | n | u | m | "" | k | M | G | T | P | E | e<int> | E<int>
// Values are rounded up to the nano scale (upstream's smallest), value()/milli_value() round up.
#pragma once
#include <compare>
#include <cstdint>
#include <optional>
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

  // Canonical string: "1", "100m", "1536Mi", "1e3" ... (upstream's String() of a computed value).
  std::string to_string() const;

  // Upstream's ParseQuantity keeps its input as the quantity's text when the value is written in
  // canonical form already ("100m", "+1", "1E3", "1.500", "01", "100Mi": a small enough integer
  // mantissa whose scale is a multiple of three without trailing "000", or a binary value with a
  // remainder modulo 8), and String() then echoes it; otherwise it prints the canonical form.
  // For a valid quantity `s` this returns the decimal scale of such a kept text (the power of ten
  // of its last digit: -3 for "1.500", 3 for "10k", 0 for a binary suffix), or nullopt when
  // upstream prints to_string() instead.
  static std::optional<int> kept_text_scale(std::string_view s);
  // The text upstream writes back for the quantity `s` (valid, already trimmed): `s` itself when
  // kept_text_scale() says so, else the canonical form. `resource_list`: a ResourceList value,
  // which SetDefaults_ResourceList rounds up to a milli-unit (RoundUp(-3) keeps a kept text whose
  // scale is at least -3 and prints the rounded value otherwise: "100n" becomes "1m").
  static std::string upstream_text(std::string_view s, const Quantity& q, bool resource_list);
  // RoundUp(-3): a value finer than a milli-unit rounded to the next one away from zero.
  Quantity rounded_up_to_milli() const;

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
