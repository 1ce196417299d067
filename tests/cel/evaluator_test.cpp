// Evaluation over a device: the DRA semantics upstream's DeviceMatches has (the device's maps,
// default domains, the missing-domain empty map), cel-go's error and short-circuit rules, the
// runtime cost limit, and the Kubernetes libraries (quantity, semver, regex, lists, strings).
#include <gtest/gtest.h>

#include <string>

#include "cel/cel.h"
#include "cel_testing.h"

namespace ksched::cel {
namespace {

using testing::Outcome;
using testing::TestDevice;
using testing::Version;

TestDevice gpu() {
  return TestDevice("gpu.example.com")
      .attr("model", "A100")
      .attr("cores", 6912)
      .attr("mig", true)
      .attr("driverVersion", Version{"535.104.5"})
      .attr("pcie.example.com/generation", 4)
      .cap("memory", "40Gi")
      .cap("pcie.example.com/lanes", "16");
}

void expect_match(const std::string& expression, const TestDevice& d = gpu()) {
  Outcome o = testing::run(expression, d);
  EXPECT_EQ(o.kind, Outcome::Kind::Match) << expression << ": " << testing::describe(o);
}
void expect_no_match(const std::string& expression, const TestDevice& d = gpu()) {
  Outcome o = testing::run(expression, d);
  EXPECT_EQ(o.kind, Outcome::Kind::NoMatch) << expression << ": " << testing::describe(o);
}
void expect_error(const std::string& expression, const std::string& message, const TestDevice& d = gpu()) {
  Outcome o = testing::run(expression, d);
  EXPECT_EQ(o.kind, Outcome::Kind::EvalError) << expression << ": " << testing::describe(o);
  EXPECT_EQ(o.message, message) << expression;
}

TEST(Evaluator, DeviceFields) {
  expect_match(R"(device.driver == "gpu.example.com")");
  expect_match(R"(device.attributes["gpu.example.com"].model == "A100")");
  expect_match(R"(device.attributes["gpu.example.com"]["cores"] > 6000)");
  expect_match(R"(device.attributes["gpu.example.com"].mig)");
  expect_match(R"(device.attributes["pcie.example.com"].generation >= 4)");
  expect_match(R"(device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)");
  expect_match(R"(device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("39Gi")))");
  expect_match(R"(device.capacity["pcie.example.com"].lanes == quantity("16"))");
  expect_match(R"(device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("535.0.0")))");
  expect_match(R"(device.attributes["gpu.example.com"].driverVersion.major() == 535)");
  expect_match("device.allowMultipleAllocations == false");
  expect_match("device.allowMultipleAllocations", gpu().allow_multiple(true));
  // The driver is the domain of unqualified names only.
  expect_no_match(R"("model" in device.attributes["pcie.example.com"])");
  expect_match(R"("generation" in device.attributes["pcie.example.com"])");
}

TEST(Evaluator, MapsOfTheDevice) {
  // Domains and ids as maps: size, membership, iteration.
  expect_match("device.attributes.size() == 2 && device.capacity.size() == 2");
  expect_match(R"(device.attributes["gpu.example.com"].size() == 4)");
  expect_match(R"("gpu.example.com" in device.attributes && !("nvidia.com" in device.attributes))");
  expect_match(R"(device.attributes.all(d, d.endsWith(".example.com")))");
  expect_match(R"(device.attributes["gpu.example.com"].exists(id, id == "mig"))");
  expect_match(R"(device.capacity.exists_one(d, d == "pcie.example.com"))");
  expect_match(R"(device.attributes["gpu.example.com"].filter(id, id.startsWith("c")) == ["cores"])");
  // An unknown domain is an empty map (upstream's mapper); an unknown id is an error.
  expect_match(R"(device.attributes["nvidia.com"].size() == 0)");
  expect_error(R"(device.attributes["nvidia.com"].model == "x")", "no such key: model");
  expect_error(R"(device.attributes["gpu.example.com"].vram > 0)", "no such key: vram");
  expect_error(R"(device.capacity["gpu.example.com"]["vram"].isInteger())", "no such key: vram");
  // has() on an id tests presence; on a domain it is always true, as upstream's mapper finds
  // every domain.
  expect_match(R"(has(device.attributes["gpu.example.com"].model))");
  expect_no_match(R"(has(device.attributes["gpu.example.com"].vram))");
  expect_match("has(device.attributes.nvidia)");
  // Optional access gives robust selectors.
  expect_match(R"(device.attributes["gpu.example.com"].?vram.orValue(0) == 0)");
  expect_match(R"(device.attributes["gpu.example.com"].?model.orValue("") == "A100")");
  expect_match(R"(!device.attributes["nvidia.com"][?"model"].hasValue())");
  // cel.bind as DRA's documentation suggests.
  expect_match(R"(cel.bind(gpu, device.attributes["gpu.example.com"], gpu.mig && gpu.cores > 1000))");
}

TEST(Evaluator, ResultMustBeBool) {
  expect_error(R"(device.attributes["gpu.example.com"].cores)",
               "CEL result of type int could not be converted to bool: unsupported type conversion from 'int' to bool");
  expect_error(R"(device.attributes["gpu.example.com"].model)",
               "CEL result of type string could not be converted to bool: unsupported native conversion from string "
               "to 'bool'");
  expect_error(R"(device.attributes["gpu.example.com"].driverVersion)",
               "CEL result of type kubernetes.Semver could not be converted to bool: type conversion error from "
               "'Semver' to 'bool'");
}

TEST(Evaluator, ErrorsAndShortCircuits) {
  const std::string missing = R"(device.attributes["gpu.example.com"].vram > 0)";
  // && and || are commutative on errors.
  expect_match(missing + " || true");
  expect_match("true || " + missing);
  expect_no_match(missing + " && false");
  expect_no_match("false && " + missing);
  expect_error(missing + " && true", "no such key: vram");
  expect_error(missing + " || false", "no such key: vram");
  // The first error wins when both sides fail.
  expect_error(missing + R"( || device.attributes["gpu.example.com"].hbm > 0)", "no such key: vram");
  // ?: evaluates one branch.
  expect_match("true ? true : " + missing);
  // Strict calls propagate the error.
  expect_error("size([" + missing + "]) == 1", "no such key: vram");
  // Type mismatches through dynamic values.
  expect_error(R"(device.attributes["gpu.example.com"].model > 1)", "no such overload");
  expect_error(R"(device.attributes["gpu.example.com"].cores.isGreaterThan(quantity("1")))",
               "no such overload: isGreaterThan(int, kubernetes.Quantity)");
  expect_error(R"(dyn(device.attributes["gpu.example.com"].cores).exists(x, true))",
               "got 'types.Int', expected iterable type");
  // Arithmetic errors.
  expect_error("1 / (device.attributes.size() - 2) == 0", "division by zero");
  expect_error("1 % (device.attributes.size() - 2) == 0", "modulus by zero");
  expect_error("9223372036854775807 + device.attributes.size() > 0", "integer overflow");
  expect_error("-9223372036854775808 - device.attributes.size() < 0", "integer overflow");
  expect_error("0u - uint(device.attributes.size()) > 0u", "unsigned integer overflow");
  expect_error("int(1e19 * double(device.attributes.size())) > 0", "integer overflow");
  expect_error("[1, 2][device.attributes.size()] > 0", "index out of bounds: 2");
  expect_error(R"({"a": 1}[device.driver] > 0)", "no such key: gpu.example.com");
  expect_error(R"(int(device.driver) > 0)", "type conversion error from 'string' to 'int'");
  expect_error(R"(quantity(device.driver).isInteger())",
               "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  expect_error(R"(semver(device.driver).major() > 0)", "Invalid character(s) found in major number \"gpu\"");
  expect_error(R"(semver(device.driver + "x").major() > 0)", "No Major.Minor.Patch elements found",
               TestDevice("gpu"));
}

TEST(Evaluator, VersionAttributesAreParsedWhenRead) {
  TestDevice bad = TestDevice("d").attr("v", Version{"1.02.3"}).attr("ok", true);
  expect_match(R"(device.attributes["d"].ok)", bad);
  expect_error(R"(device.attributes["d"].v.major() == 1)",
               "attribute v: parse semantic version: Minor number must not contain leading zeroes \"02\"", bad);
  auto checked = check_device(bad.view());
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().message,
            "attribute v: parse semantic version: Minor number must not contain leading zeroes \"02\"");
  EXPECT_TRUE(check_device(gpu().view()).ok());
}

TEST(Evaluator, Quantities) {
  expect_match(R"(quantity("1Gi").add(quantity("512Mi")).isGreaterThan(quantity("1.4Gi")))");
  expect_match(R"(sign(quantity("1").sub(2)) == -1 && sign(quantity("0")) == 0)");
  expect_match(R"(quantity("1500m").asApproximateFloat() == 1.5)");
  expect_match(R"(quantity("2k").asInteger() == 2000 && quantity("2k").isInteger())");
  expect_match(R"(!quantity("1.5").isInteger())");
  expect_error(R"(quantity("1.5").asInteger() == 1)", "cannot convert value to integer");
  expect_match(R"(isQuantity("1Ki") && !isQuantity("1KB"))");
  // Upstream compares a quantity value with the pointer add() returns only in this order.
  expect_match(R"(quantity("1").add(quantity("1")) == quantity("2"))");
  expect_error(R"(quantity("2") == quantity("1").add(quantity("1")))", "no such overload");
  expect_match(R"(device.capacity["gpu.example.com"].memory == quantity("40Gi"))");
}

TEST(Evaluator, SemanticVersions) {
  expect_match(R"(semver("1.2.3").isLessThan(semver("1.10.0")))");
  expect_match(R"(semver("1.0.0-alpha").isLessThan(semver("1.0.0")))");
  expect_match(R"(semver("1.0.0-alpha.1").compareTo(semver("1.0.0-alpha.beta")) == -1)");
  expect_match(R"(semver("1.0.0+build.1") == semver("1.0.0+build.2"))");
  expect_match(R"(semver("v1.2", true) == semver("1.2.0") && isSemver("v01.02.03", true) && !isSemver("1.2"))");
  expect_error(R"(semver("1.2-beta", true).major() == 1)", "short version cannot contain PreRelease/Build meta data");
}

TEST(Evaluator, StringsAndRegularExpressions) {
  expect_match(R"(device.driver.split(".").size() == 3 && device.driver.split(".", 2)[1] == "example.com")");
  expect_match(R"(device.driver.replace(".", "-") == "gpu-example-com")");
  expect_match(R"(device.driver.upperAscii() == "GPU.EXAMPLE.COM" && "ÄB".lowerAscii() == "Äb")");
  expect_match(R"(device.driver.indexOf("example") == 4 && device.driver.lastIndexOf(".") == 11)");
  expect_match(R"(device.driver.substring(4, 11) == "example" && device.driver.charAt(0) == "g")");
  expect_match(R"("  x ".trim() == "x" && ["a", "b"].join("/") == "a/b")");
  expect_match(R"(device.driver.matches("^gpu\\.[a-z]+\\.com$") && !device.driver.matches("^nvidia"))");
  expect_match(R"(device.attributes["gpu.example.com"].model.matches("(?i)^a[0-9]+$"))");
  expect_match(R"(device.driver.find("[a-z]+") == "gpu" && device.driver.findAll("[a-z]+") == ["gpu", "example", "com"])");
  expect_match(R"(device.driver.findAll("[a-z]+", 2) == ["gpu", "example"] && "abc".findAll("x*").size() == 4)");
  expect_error(R"(device.driver.matches(device.driver + "("))",
               "error parsing regexp: missing closing ): `gpu.example.com(`");
  expect_error(R"(device.driver.find(device.driver + "[") == "")",
               "Illegal regex: error parsing regexp: missing closing ]: `[`");
  expect_error(R"(device.driver.substring(20) == "")", "index out of range: 20");
}

TEST(Evaluator, ListsAndSets) {
  expect_match("[3, 1, 2].max() == 3 && [3, 1, 2].min() == 1 && [1, 2, 3].sum() == 6 && [1, 2, 3].isSorted()");
  expect_match("[1, 2, 3].indexOf(2) == 1 && [1, 2, 2].lastIndexOf(2) == 2 && [1].indexOf(5) == -1");
  expect_error("[0].filter(x, x > 0).max() == 0", "max called on empty list");
  expect_match("sets.contains([1, 2, 3], [3, 1]) && sets.intersects([1], [2, 1]) && !sets.equivalent([1], [1, 2])");
  expect_match("[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].map(x, x > 1, x) == [2, 3]");
  expect_match("[[1, 2], [3]].map(l, l.size()) == [2, 1] && [1, 2, 3].first().value() == 1");
  expect_match("optional.unwrap([optional.of(1), optional.none()]) == [1]");
}

TEST(Evaluator, CostLimit) {
  // The runtime limit ends any evaluation: nested loops over ten elements, seven deep.
  std::string loops = "true";
  for (int i = 0; i < 7; ++i) loops = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x" + std::to_string(i) + ", " + loops + ")";
  Outcome o = testing::run(loops, gpu());
  EXPECT_EQ(o.kind, Outcome::Kind::EvalError);
  EXPECT_EQ(o.message, "operation cancelled: actual cost limit exceeded");
  EXPECT_LE(o.actual_cost, kSelectorMaxCost + 100);
  // A lower limit applies as given.
  o = testing::run("[1, 2, 3].all(x, x > 0)", gpu(), {.stored_expression = true, .cost_limit = 5});
  EXPECT_EQ(o.message, "operation cancelled: actual cost limit exceeded");
  o = testing::run("[1, 2, 3].all(x, x > 0)", gpu(), {.stored_expression = true, .cost_limit = 1000});
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  // The cost of a typical selector, and its estimate.
  o = testing::run(R"(device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0)",
                   gpu());
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  EXPECT_EQ(o.max_cost, 11u);
  EXPECT_LE(o.actual_cost, o.max_cost);
}

// The Kubernetes environment builds programs with cel.OptOptimize: `in` a constant list of
// primitive values is a set lookup, charged nothing, exact where `in` otherwise compares doubles
// with integers as doubles; conversions of constants are evaluated once, when the program is
// built, and fail it when they fail.
TEST(Evaluator, OptimizedWhenBuilt) {
  Outcome o = testing::run(R"(device.driver in ["a", "gpu.example.com"])", gpu());
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  EXPECT_EQ(o.actual_cost, 2u);  // device, .driver
  o = testing::run(R"(device.driver in dyn(["a", "gpu.example.com"]))", gpu());  // no single overload: no lookup
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  EXPECT_EQ(o.actual_cost, 3u);
  o = testing::run(R"(device.driver in ["a", "gpu.example.com"] + ["b"])", gpu());  // a call, not a constant
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  EXPECT_EQ(o.actual_cost, 6u);  // device, .driver, +, and the three elements
  expect_no_match("dyn(9007199254740993) in [9007199254740992.0]");
  expect_match("dyn(9007199254740993) in dyn([9007199254740992.0])");
  expect_match("dyn(9007199254740992) in [9007199254740992.0] && dyn(1.0) in [1] && dyn(2u) in [1, 2] && dyn(2) in [2u]");
  expect_no_match("dyn(1.5) in [1] || dyn(-1) in [18446744073709551615u] || dyn(0.0/0.0) in [0.0/0.0] || dyn('1') in [1]");
  expect_error("dyn(b'a') in ['a']", "internal error: runtime error: hash of unhashable type types.Bytes");
  // An empty constant list is false without evaluating the operand.
  o = testing::run("!(1 / 0 in [])", gpu());
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  EXPECT_EQ(o.actual_cost, 1u);  // the negation
  // Conversions of constants.
  o = testing::run(R"(int("5") == 5 && string(dyn(1)) == "1")", gpu());
  EXPECT_EQ(o.kind, Outcome::Kind::Match);
  EXPECT_EQ(o.actual_cost, 2u);  // the two comparisons
  o = testing::run(R"(device.driver == "x" || int("five") == 5)", gpu());
  EXPECT_EQ(o.kind, Outcome::Kind::CompileError);
  EXPECT_EQ(o.message, "program instantiation failed: type conversion error from 'string' to 'int'");
  auto p = compile(R"(uint(-1) == 1u)");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().type, CompileError::Type::Internal);
  // A conversion of what is not a constant fails when it runs.
  expect_error("int(9223372036854775807.0 + 1.0) == 1", "integer overflow");
}

TEST(Evaluator, ValidateSelector) {
  EXPECT_FALSE(validate_selector(R"(device.driver == "x")", false, false).has_value());
  auto too_long = validate_selector(std::string(kSelectorMaxLength + 1, ' '), false, false);
  ASSERT_TRUE(too_long.has_value());
  EXPECT_EQ(too_long->kind, SelectorIssue::Kind::TooLong);
  auto invalid = validate_selector("device.driver", false, false);
  ASSERT_TRUE(invalid.has_value());
  EXPECT_EQ(invalid->kind, SelectorIssue::Kind::Invalid);
  EXPECT_EQ(invalid->detail, "must evaluate to bool or the unknown type, not string");
  // Upstream's example of an expression whose estimate is over the limit.
  std::string expensive = "int('1'.find('[0-9]*')) < 100";
  for (int i = 0; i < 7; ++i) expensive = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x" + std::to_string(i) + ", " + expensive + ")";
  auto forbidden = validate_selector(expensive, false, false);
  ASSERT_TRUE(forbidden.has_value()) << expensive;
  EXPECT_EQ(forbidden->kind, SelectorIssue::Kind::Forbidden);
  EXPECT_EQ(forbidden->detail, "too complex, exceeds cost limit");
  // A string's size is unbounded unless declared: a regular expression over an attribute is
  // bounded by the attribute's maximum length, over a computed string it is not.
  EXPECT_FALSE(validate_selector(R"(device.attributes["d"].s.matches("^a+$"))", false, false).has_value());
}

}  // namespace
}  // namespace ksched::cel
