// The text kube-apiserver writes back for a quantity it decoded. A Quantity here holds no text
// (to_string() is always the canonical form); upstream's ParseQuantity keeps its input as the
// quantity's text when the value is written in canonical form already, and String() echoes it.
// Only the API server needs this, so it lives apart from quantity.h (which every object includes).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "api/quantity.h"

namespace ksched::api {

// For a valid quantity `s`: the decimal scale of its text when ParseQuantity's int64 fast path
// keeps it (apimachinery resource/quantity.go, "if the number is in canonical form, reuse the
// string": a small enough integer mantissa whose scale is a multiple of three and whose digits
// neither start with 0 nor end in "000" — "100m", "+1", "1E3", "1.500" —, or a binary value with
// a remainder modulo 8 — "100Mi"), i.e. the power of ten of its last digit (-3 for "1.500", 3 for
// "10k", 0 for a binary suffix); nullopt when upstream prints the canonical form instead.
std::optional<int> kept_text_scale(std::string_view s);

// The text upstream writes back for the valid, trimmed quantity `s` parsed as `q`: `s` itself when
// kept_text_scale() says so, else the canonical form. `resource_list`: a corev1.ResourceList value,
// which SetDefaults_ResourceList rounds up to milli-units (RoundUp(-3) keeps a kept text whose
// scale is at least -3 and prints the rounded value otherwise: "100n" becomes "1m").
std::string upstream_text(std::string_view s, const Quantity& q, bool resource_list);

// RoundUp(-3): a value finer than a milli-unit rounded to the next one away from zero.
Quantity rounded_up_to_milli(const Quantity& q);

}  // namespace ksched::api
