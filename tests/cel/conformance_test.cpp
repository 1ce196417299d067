// Conformance with the CEL specification's test suite, for the part of CEL the DRA environment
// has: each case's expression is compiled (type-checked: the DRA environment always checks) and
// evaluated, and its value compared with the expected value, itself written as a CEL literal, or
// its evaluation is expected to fail (with cel-go's message where the suite's abstract one maps
// to it). A case expected to fail whose failure is a conversion of a constant fails when the
// program is built instead, as it does in Kubernetes.
//
// The cases (spec_cases.inc) are drawn from cel-spec tests/simple/testdata/*.textproto; each
// block names the file and section it mirrors. Left out: cases with variable bindings, type
// environments or containers (proto messages), timestamps and durations, and the cases listed in
// kNotApplicable below with the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "cel/program.h"
#include "cel/runtime.h"

namespace ksched::cel {
namespace {

enum class Expect { Value, Error, CompileError };

struct Case {
  const char* name;
  const char* expr;
  Expect expect;
  const char* expected;  // Value: a CEL expression for the value; Error: a message substring
  bool disable_check = false;
};

const Case kCases[] = {
#include "spec_cases.inc"
};

// Deep equality of values for the test: same kinds, NaN equal to NaN, maps as sets of entries.
bool same(Evaluator& ev, const Value& a, const Value& b) {
  if (a.kind != b.kind) {
    if (ev.is_map(a) && ev.is_map(b)) {
    } else {
      return false;
    }
  }
  switch (a.kind) {
    case ValueKind::Null: return true;
    case ValueKind::Bool: return a.b == b.b;
    case ValueKind::Int: return a.i == b.i;
    case ValueKind::Uint: return a.u == b.u;
    case ValueKind::Double:
      if (std::isnan(a.d) && std::isnan(b.d)) return true;
      return std::memcmp(&a.d, &b.d, sizeof(double)) == 0 || a.d == b.d;
    case ValueKind::String: case ValueKind::Bytes: case ValueKind::Type: return a.str() == b.str();
    case ValueKind::List:
      if (a.list->size != b.list->size) return false;
      for (std::uint32_t i = 0; i < a.list->size; ++i)
        if (!same(ev, a.list->elems[i], b.list->elems[i])) return false;
      return true;
    case ValueKind::Optional:
      if (!a.opt || !b.opt) return !a.opt && !b.opt;
      return same(ev, *a.opt, *b.opt);
    default:
      if (ev.is_map(a)) {
        std::uint32_t n = ev.map_size(a);
        if (n != ev.map_size(b)) return false;
        for (std::uint32_t i = 0; i < n; ++i) {
          Value k = ev.map_key_at(a, i), va, vb;
          ev.map_find(a, k, va);
          if (ev.map_find(b, k, vb) != 1 || !same(ev, va, vb)) return false;
        }
        return true;
      }
      return false;
  }
}

std::string show(Evaluator& ev, const Value& v) {
  StrBuf b(ev.arena());
  ev.format(b, v);
  return std::string(Evaluator::type_name(v)) + " " + std::string(b.view());
}

TEST(Conformance, SpecCases) {
  Arena arena;
  Device device;
  int run = 0;
  int instantiation_failures = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto plan = build_plan(c.expr, {}, false);
    if (c.expect == Expect::CompileError) {
      EXPECT_FALSE(plan.ok()) << c.expr;
      if (!plan.ok()) {
        EXPECT_NE(plan.error().detail.find(c.expected), std::string::npos) << plan.error().detail;
      }
      continue;
    }
    if (!plan.ok() && c.expect == Expect::Error && plan.error().type == CompileError::Type::Internal &&
        plan.error().detail.rfind("program instantiation failed: ", 0) == 0) {
      // A conversion of a constant: the Kubernetes environment builds programs with
      // cel.OptOptimize, which evaluates it then, and the failure fails the compile.
      ++instantiation_failures;
      EXPECT_NE(plan.error().detail.find(c.expected), std::string::npos) << plan.error().detail;
      continue;
    }
    if (!plan.ok()) {
      ADD_FAILURE() << c.expr << "\n" << plan.error().detail;
      continue;
    }
    ++run;
    Evaluator ev(**plan, &device, arena, kSelectorMaxCost);
    Value got = ev.run();
    if (c.expect == Expect::Error) {
      EXPECT_EQ(got.kind, ValueKind::Error) << c.expr << " gave " << show(ev, got);
      if (got.is_error() && *c.expected) {
        EXPECT_NE(got.err->message.find(c.expected), std::string_view::npos) << got.err->message;
      }
      continue;
    }
    auto want_plan = build_plan(c.expected, {}, false);
    if (!want_plan.ok()) {
      ADD_FAILURE() << "expected value " << c.expected << ": " << want_plan.error().detail;
      continue;
    }
    Evaluator ev2(**want_plan, &device, arena, kSelectorMaxCost);
    Value want = ev2.run();
    ASSERT_NE(want.kind, ValueKind::Error) << c.expected;
    EXPECT_TRUE(same(ev, got, want)) << c.expr << "\n  got  " << show(ev, got) << "\n  want " << show(ev, want);
  }
  EXPECT_GT(run, 500);
  EXPECT_EQ(instantiation_failures, 10);  // the failing conversions of constants
}

}  // namespace
}  // namespace ksched::cel
