// Test helpers: a device that owns its data and hands out the view, and one-call compile+evaluate.
#pragma once
#include <deque>
#include <string>
#include <variant>
#include <vector>

#include "api/quantity.h"
#include "cel/cel.h"

namespace ksched::cel::testing {

struct Version {
  std::string text;
};

using AttrValue = std::variant<bool, std::int64_t, std::string, Version>;

class TestDevice {
 public:
  TestDevice() = default;
  explicit TestDevice(std::string driver) : driver_(std::move(driver)) {}
  TestDevice(const TestDevice& o) { *this = o; }
  TestDevice& operator=(const TestDevice& o) {
    driver_ = o.driver_;
    allow_multiple_ = o.allow_multiple_;
    attrs_.clear();
    caps_.clear();
    for (const auto& [n, v] : o.attrs_) attr(n, v);
    for (const auto& [n, q] : o.caps_) cap(n, q.to_string());
    return *this;
  }

  TestDevice& attr(std::string name, AttrValue v) {
    attrs_.emplace_back(std::move(name), std::move(v));
    return *this;
  }
  TestDevice& attr(std::string name, const char* s) { return attr(std::move(name), AttrValue(std::string(s))); }
  TestDevice& attr(std::string name, int v) { return attr(std::move(name), AttrValue(std::int64_t{v})); }
  TestDevice& attr(std::string name, bool v) { return attr(std::move(name), AttrValue(v)); }
  TestDevice& cap(std::string name, std::string quantity) {
    caps_.emplace_back(std::move(name), api::Quantity::must(quantity));
    return *this;
  }
  TestDevice& allow_multiple(bool v) {
    allow_multiple_ = v;
    return *this;
  }

  Device view() const {
    views_.clear();
    cap_views_.clear();
    for (const auto& [n, v] : attrs_) {
      DeviceAttribute a;
      a.name = n;
      if (auto* b = std::get_if<bool>(&v)) {
        a.kind = DeviceAttribute::Kind::Bool;
        a.bool_value = *b;
      } else if (auto* i = std::get_if<std::int64_t>(&v)) {
        a.kind = DeviceAttribute::Kind::Int;
        a.int_value = *i;
      } else if (auto* s = std::get_if<std::string>(&v)) {
        a.kind = DeviceAttribute::Kind::String;
        a.string_value = *s;
      } else {
        a.kind = DeviceAttribute::Kind::Version;
        a.string_value = std::get<Version>(v).text;
      }
      views_.push_back(a);
    }
    for (const auto& [n, q] : caps_) cap_views_.push_back({n, &q});
    Device d;
    d.driver = driver_;
    d.attributes = views_;
    d.capacity = cap_views_;
    d.allow_multiple_allocations = allow_multiple_;
    return d;
  }

 private:
  std::string driver_;
  bool allow_multiple_ = false;
  std::deque<std::pair<std::string, AttrValue>> attrs_;
  std::deque<std::pair<std::string, api::Quantity>> caps_;
  mutable std::vector<DeviceAttribute> views_;
  mutable std::vector<DeviceCapacity> cap_views_;
};

// The outcome of compiling and evaluating one expression, for table tests.
struct Outcome {
  enum class Kind { Match, NoMatch, CompileError, EvalError } kind;
  std::string message;  // error text
  std::uint64_t max_cost = 0;
  std::uint64_t actual_cost = 0;
};

inline Outcome run(std::string_view expression, const TestDevice& device = TestDevice(),
                   CompileOptions options = {.stored_expression = true}) {
  auto p = compile(expression, options);
  if (!p.ok()) return {Outcome::Kind::CompileError, p.error().detail};
  std::uint64_t cost = 0;
  auto r = p->evaluate(device.view(), cost);
  if (!r.ok()) return {Outcome::Kind::EvalError, r.error().message, p->max_cost(), cost};
  return {*r ? Outcome::Kind::Match : Outcome::Kind::NoMatch, "", p->max_cost(), cost};
}

inline std::string describe(const Outcome& o) {
  switch (o.kind) {
    case Outcome::Kind::Match: return "true";
    case Outcome::Kind::NoMatch: return "false";
    case Outcome::Kind::CompileError: return "compile error: " + o.message;
    case Outcome::Kind::EvalError: return "evaluation error: " + o.message;
  }
  return "";
}

}  // namespace ksched::cel::testing
