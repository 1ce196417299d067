// Type-check errors, with cel-go's messages and positions, and the DRA environment's
// declarations.
#include <gtest/gtest.h>

#include <string>

#include "cel/cel.h"
#include "cel_testing.h"

namespace ksched::cel {
namespace {

std::string compile_error(const std::string& expression, CompileOptions options = {.stored_expression = true}) {
  auto p = compile(expression, options);
  return p.ok() ? "" : p.error().detail;
}

struct Case {
  const char* expression;
  const char* error;  // the whole detail
};

// google/cel-go checker/checker_test.go: error cases that need no declarations beyond the
// standard library.
const Case kCelGoCases[] = {
    {"1 + x",
     "compilation failed: ERROR: <input>:1:5: undeclared reference to 'x' (in container '')\n | 1 + x\n | ....^"},
    {"[].map(x, [].map(y, x in y && y in x))",
     "compilation failed: ERROR: <input>:1:33: found no matching overload for '@in' applied to '(list(dyn), dyn)'\n"
     " | [].map(x, [].map(y, x in y && y in x))\n | ................................^"},
    {"int{}", "compilation failed: ERROR: <input>:1:4: 'int' is not a message type\n | int{}\n | ...^"},
    {"Msg{}", "compilation failed: ERROR: <input>:1:4: undeclared reference to 'Msg' (in container '')\n | Msg{}\n | ...^"},
    {"fun()", "compilation failed: ERROR: <input>:1:4: undeclared reference to 'fun' (in container '')\n | fun()\n | ...^"},
    {"'string'.fun()",
     "compilation failed: ERROR: <input>:1:13: undeclared reference to 'fun' (in container '')\n | 'string'.fun()\n"
     " | ............^"},
    {"[].length",
     "compilation failed: ERROR: <input>:1:3: type 'list(_var0)' does not support field selection\n | [].length\n"
     " | ..^"},
    {"{?'key': 'hi'}",
     "compilation failed: ERROR: <input>:1:10: expected type 'optional_type(string)' but found 'string'\n"
     " | {?'key': 'hi'}\n | .........^"},
    {"[?'value']",
     "compilation failed: ERROR: <input>:1:3: expected type 'optional_type(string)' but found 'string'\n"
     " | [?'value']\n | ..^"},
    {"undef", "compilation failed: ERROR: <input>:1:1: undeclared reference to 'undef' (in container '')\n | undef\n | ^"},
    {"undef()",
     "compilation failed: ERROR: <input>:1:6: undeclared reference to 'undef' (in container '')\n | undef()\n | .....^"},
};

TEST(Checker, CelGoErrorCases) {
  for (const Case& c : kCelGoCases) {
    SCOPED_TRACE(c.expression);
    EXPECT_EQ(compile_error(c.expression), c.error);
  }
}

// The DRA declarations: `device` and its fields, typed as upstream declares them.
TEST(Checker, DeviceDeclarations) {
  // Comparing the driver (a string) with an int is a type error.
  EXPECT_EQ(compile_error("device.driver > 1"),
            "compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' applied to "
            "'(string, int)'\n | device.driver > 1\n | ..............^");
  EXPECT_EQ(compile_error("device.foo"),
            "compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n | device.foo\n | ......^");
  // Attribute values are dynamic (google.protobuf.Any): any operator type-checks against them.
  EXPECT_EQ(compile_error(R"(device.attributes["d"].x > 1 && device.attributes["d"].y.startsWith("a"))"), "");
  EXPECT_EQ(compile_error(R"(device.attributes["d"].x.isGreaterThan(semver("1.0.0")))"), "");
  // Capacities are quantities.
  EXPECT_EQ(compile_error(R"(device.capacity["d"].memory > 1)"),
            "compilation failed: ERROR: <input>:1:29: found no matching overload for '_>_' applied to "
            "'(kubernetes.Quantity, int)'\n | device.capacity[\"d\"].memory > 1\n | ............................^");
  // The result must be a bool, or the unknown type (an attribute).
  EXPECT_EQ(compile_error("device.driver"), "must evaluate to bool or the unknown type, not string");
  EXPECT_EQ(compile_error(R"(device.attributes["d"])"),
            "must evaluate to bool or the unknown type, not map(string, google.protobuf.Any)");
  EXPECT_EQ(compile_error(R"(device.attributes["d"].x)"), "");
  EXPECT_EQ(compile_error(R"(device.attributes["d"].x.y)"), "must evaluate to bool or the unknown type, not dyn");
  EXPECT_EQ(compile_error("[true]"), "must evaluate to bool or the unknown type, not list(bool)");
  // allowMultipleAllocations: stored expressions always, new ones with DRAConsumableCapacity.
  EXPECT_EQ(compile_error("device.allowMultipleAllocations", {.stored_expression = true}), "");
  EXPECT_EQ(compile_error("device.allowMultipleAllocations", {.stored_expression = false, .consumable_capacity = true}),
            "");
  EXPECT_EQ(compile_error("device.allowMultipleAllocations", {.stored_expression = false}),
            "compilation failed: ERROR: <input>:1:7: undefined field 'allowMultipleAllocations'\n"
            " | device.allowMultipleAllocations\n | ......^");
}

TEST(Checker, LibrariesAndValidators) {
  // Quantity's sign() is a global function upstream, not a method.
  EXPECT_EQ(compile_error(R"(sign(quantity("1")) == 1)"), "");
  EXPECT_EQ(compile_error(R"(quantity("1").sign() == 1)"),
            "compilation failed: ERROR: <input>:1:19: found no matching overload for 'sign' applied to "
            "'kubernetes.Quantity.()'\n | quantity(\"1\").sign() == 1\n | ..................^");
  // Regular expression literals given to matches() are validated at compile time.
  EXPECT_EQ(compile_error(R"(device.driver.matches("(abc"))"),
            "compilation failed: ERROR: <input>:1:23: invalid matches argument\n"
            " | device.driver.matches(\"(abc\")\n | ......................^");
  // ... and those find() gets make building the program fail, as upstream's regex optimization.
  auto p = compile(R"(device.driver.find("(abc") == "")", {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().type, CompileError::Type::Internal);
  EXPECT_EQ(p.error().detail, "program instantiation failed: error parsing regexp: missing closing ): `(abc`");
  // Mixed list and map literals are refused (HomogeneousAggregateLiterals).
  EXPECT_EQ(compile_error("[1, 'a'].size() > 0"),
            "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n"
            " | [1, 'a'].size() > 0\n | ....^");
  // Functions of upstream's environment that ksched leaves out say so.
  EXPECT_EQ(compile_error("timestamp('2024-01-01T00:00:00Z') != null"),
            "compilation failed: ERROR: <input>:1:10: function 'timestamp' is not supported by ksched's CEL "
            "implementation\n | timestamp('2024-01-01T00:00:00Z') != null\n | .........^");
  // Namespaced functions.
  EXPECT_EQ(compile_error("sets.contains([1, 2], [1]) && strings.quote('a') == '\"a\"' && "
                          "optional.of(1).hasValue()"),
            "");
  // cel.bind.
  EXPECT_EQ(compile_error("cel.bind(x, 1, x + 1 == 2)"), "");
  EXPECT_EQ(compile_error("cel.bind(1, 1, true)"),
            "compilation failed: ERROR: <input>:1:10: cel.bind() variable names must be simple identifiers\n"
            " | cel.bind(1, 1, true)\n | .........^");
  // Macros.
  EXPECT_EQ(compile_error("[1].all(1, true)"),
            "compilation failed: ERROR: <input>:1:9: argument must be a simple name\n | [1].all(1, true)\n"
            " | ........^");
  EXPECT_EQ(compile_error("has(1)"),
            "compilation failed: ERROR: <input>:1:5: invalid argument to has() macro\n | has(1)\n | ....^");
  EXPECT_EQ(compile_error("[1].all(x, x)"),
            "compilation failed: ERROR: <input>:1:12: expected type 'bool' but found 'int'\n | [1].all(x, x)\n"
            " | ...........^");
}

}  // namespace
}  // namespace ksched::cel
