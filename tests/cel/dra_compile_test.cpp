// DRA's CEL environment, case by case.
//
// Mirrors kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/cel/compile_test.go
// (TestCEL): the same expressions, devices, expected results or error substrings, and expected
// worst-case cost estimates. Cases about list-typed attributes (DRAListTypeAttributes, after
// v1.35) are left out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cel/cel.h"
#include "cel_testing.h"

namespace ksched::cel {
namespace {

using testing::Outcome;
using testing::TestDevice;
using testing::Version;

struct Case {
  const char* name;
  std::string expression;
  TestDevice device;
  Outcome::Kind want;
  std::string message;  // substring of the compile or evaluation error
  std::uint64_t cost = 0;
  CompileOptions options = {.stored_expression = true};
};

std::vector<Case> cases() {
  using K = Outcome::Kind;
  const std::string d = "dra.example.com";
  std::vector<Case> c;
  c.push_back({"true", "true", {}, K::Match});
  c.push_back({"false", "false", {}, K::NoMatch});
  c.push_back({"syntax-error", "?!", {}, K::CompileError, "Syntax error"});
  c.push_back({"type-error", "1", {}, K::CompileError, "must evaluate to bool or the unknown type, not int"});
  c.push_back({"runtime-error-lookup-identifier",
               R"(device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0")))", {}, K::EvalError,
               "no such key: noSuchAttr", 6});
  c.push_back({"runtime-error-lookup-map",
               R"(device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0")))", {}, K::EvalError,
               "no such key: noSuchAttr", 6});
  c.push_back({"domain-check-negative", R"("no-such-domain" in device.attributes)", {}, K::NoMatch, "", 3});
  c.push_back({"domain-check-positive", R"("dra.example.com" in device.attributes)",
               TestDevice().attr("dra.example.com/something", true), K::Match, "", 3});
  c.push_back({"empty-driver-name", R"(device.driver == "")", {}, K::Match, "", 2});
  c.push_back({"real-driver-name", R"(device.driver == "dra.example.com")", TestDevice(d), K::Match, "", 4});
  c.push_back({"driver-name-qualifier", R"(device.attributes["dra.example.com"].name)",
               TestDevice(d).attr("name", true), K::Match, "", 4});
  c.push_back({"driver-name-qualifier-map-lookup", R"(device.attributes["dra.example.com"]["name"])",
               TestDevice(d).attr("name", true), K::Match, "", 4});
  c.push_back({"bind", R"(cel.bind(dra, device.attributes["dra.example.com"], dra.name))",
               TestDevice(d).attr("name", true), K::Match, "", 15});
  c.push_back({"qualified-attribute-name", R"(device.attributes["other.example.com"].name)",
               TestDevice(d).attr("other.example.com/name", true), K::Match, "", 4});
  c.push_back({"bool", R"(device.attributes["dra.example.com"].name)", TestDevice(d).attr("name", true), K::Match,
               "", 4});
  c.push_back({"int", R"(device.attributes["dra.example.com"].name > 0)", TestDevice(d).attr("name", 1), K::Match,
               "", 5});
  c.push_back({"string", R"(device.attributes["dra.example.com"].name == "fish")",
               TestDevice(d).attr("name", "fish"), K::Match, "", 5});
  // Upstream's current test expects these to fail at runtime ("got 'types.Int', expected iterable
  // type"): there attributes may be lists and are typed dyn. In v1.35 (cel-go v0.26) an attribute
  // is google.protobuf.Any, which cel-go's checker does not accept as a comprehension range.
  c.push_back({"macro-exists-on-int (v1.35)", R"(device.attributes["dra.example.com"].name.exists(x, x > 0))",
               TestDevice(d).attr("name", 1), K::CompileError,
               "expression of type 'any' cannot be range of a comprehension (must be list, map, or dynamic)"});
  c.push_back({"macro-exists-on-version (v1.35)",
               R"(device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1"))))",
               TestDevice(d).attr("name", Version{"1.0.0"}), K::CompileError,
               "ERROR: <input>:1:37: expression of type 'any' cannot be range of a comprehension"});
  c.push_back({"version", R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1")))",
               TestDevice(d).attr("name", Version{"1.0.0"}), K::Match, "", 6});
  c.push_back({"version_v",
               R"(device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true))",
               TestDevice(d).attr("name", Version{"1.0.0"}), K::Match, "", 7});
  c.push_back({"quantity", R"(device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
               TestDevice(d).cap("name", "1Mi"), K::Match, "", 6});
  c.push_back({"check-positive",
               R"("name" in device.capacity["dra.example.com"] && device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
               TestDevice(d).cap("name", "1Mi"), K::Match, "", 10});
  c.push_back({"check-negative",
               R"(!("name" in device.capacity["dra.example.com"]) || device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki")))",
               {}, K::Match, "", 11});
  c.push_back({"all", R"(
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
)",
               TestDevice(d)
                   .attr("bool", true)
                   .attr("int", 1)
                   .attr("string", "fish")
                   .attr("version", Version{"1.0.0"})
                   .cap("quantity", "1Mi"),
               K::Match, "", 52});
  c.push_back({"many",
               R"(device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && device.attributes["dra.example.com"].c)",
               TestDevice(d).attr("a", true).attr("b", true).attr("c", true), K::Match, "", 12});
  c.push_back({"check_attribute_domains", R"(device.attributes.exists_one(x, x == "dra.example.com"))",
               TestDevice(d).attr("services", "some_example_value"), K::Match, "", 164});
  c.push_back({"check_attribute_ids", R"(device.attributes["dra.example.com"].exists_one(x, x == "services"))",
               TestDevice(d).attr("services", "some_example_value"), K::Match, "", 133});
  c.push_back({"split_attribute", R"(device.attributes["dra.example.com"].services.split("example").size() >= 2)",
               TestDevice(d).attr("services", "some_example_value"), K::Match, "", 19});
  c.push_back({"regexp_attribute", R"(device.attributes["dra.example.com"].services.matches("[^a]?sym"))",
               TestDevice(d).attr("services", "asymetric"), K::Match, "", 18});
  c.push_back({"check_capacity_domains", R"(device.capacity.exists_one(x, x == "dra.example.com"))",
               TestDevice(d).cap("memory", "1Mi"), K::Match, "", 164});
  c.push_back({"check_capacity_ids", R"(device.capacity["dra.example.com"].exists_one(x, x == "memory"))",
               TestDevice(d).cap("memory", "1Mi"), K::Match, "", 133});
  {
    // The worst case needs many attributes with long names to be reached.
    TestDevice many(d);
    for (int i = 0; i < 32; ++i) {
      std::string suffix = "-" + std::to_string(i);
      many.attr("dra.example.com/" + std::string(32 - suffix.size(), 'x') + suffix, "abc");
    }
    c.push_back({"expensive",
                 "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, "
                 "8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, "
                 "2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) "
                 "< 100)))))))",
                 many, K::EvalError, "actual cost limit exceeded", 85555551});
  }
  c.push_back({"allow_multiple_allocations", "device.allowMultipleAllocations == true",
               TestDevice(d).allow_multiple(true), K::Match, "", 3, {.consumable_capacity = true}});
  c.push_back({"allow_multiple_allocations_default", "device.allowMultipleAllocations == false", TestDevice(d),
               K::Match, "", 3, {.consumable_capacity = true}});
  c.push_back({"allow_multiple_allocations_false", "device.allowMultipleAllocations == false",
               TestDevice(d).allow_multiple(false), K::Match, "", 3, {.consumable_capacity = true}});
  c.push_back({"allow_multiple_allocations_new", "device.allowMultipleAllocations == false",
               TestDevice(d).allow_multiple(false), K::Match, "", 3,
               {.stored_expression = false, .consumable_capacity = true}});
  c.push_back({"allow_multiple_allocations_disabled", "device.allowMultipleAllocations == false", TestDevice(d),
               K::CompileError, "undefined field 'allowMultipleAllocations'", 0,
               {.stored_expression = false, .consumable_capacity = false}});
  return c;
}

TEST(DraCompile, MirrorsUpstreamCases) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    Outcome o = testing::run(c.expression, c.device, c.options);
    EXPECT_EQ(o.kind, c.want) << c.expression << "\n  got " << testing::describe(o);
    if (!c.message.empty()) {
      EXPECT_NE(o.message.find(c.message), std::string::npos) << "message: " << o.message;
    }
    if (o.kind != Outcome::Kind::CompileError) {
      EXPECT_EQ(o.max_cost, c.cost) << c.expression;
      // Upstream checks that the estimate bounds the actual cost.
      if (o.kind != Outcome::Kind::EvalError || c.message.find("cost limit") == std::string::npos) {
        EXPECT_LE(o.actual_cost, o.max_cost) << c.expression;
      }
    }
  }
}

}  // namespace
}  // namespace ksched::cel
