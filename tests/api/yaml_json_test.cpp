// The YAML -> JSON conversion: sigs.k8s.io/yaml's (go-yaml v2, YAML 1.1) scalar rules.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <yaml-cpp/yaml.h>

#include "api/yaml_json.h"

namespace ksched::api {
namespace {

namespace json = boost::json;

json::value convert(const std::string& yaml) {
  auto v = yaml_text_to_json(yaml);
  EXPECT_TRUE(v) << (v ? "" : v.error());
  return v ? *v : json::value();
}

TEST(YamlJson, PlainScalarsResolveAsYaml11) {
  auto v = convert("a: 0.5\nb: 110\nc: 1.1e2\nd: yes\ne: off\nf: ~\ng: 0x1f\nh: 0755\ni: -12\nj: 1_000\nk: .inf\nl: 1.2.3\n"
                   "m: 9223372036854775808\nn: ''\n");
  const auto& o = v.as_object();
  EXPECT_EQ(o.at("a"), 0.5);
  EXPECT_EQ(o.at("b"), 110);
  EXPECT_EQ(o.at("c"), 110.0);
  EXPECT_EQ(o.at("d"), true);
  EXPECT_EQ(o.at("e"), false);
  EXPECT_TRUE(o.at("f").is_null());
  EXPECT_EQ(o.at("g"), 31);
  EXPECT_EQ(o.at("h"), 493);
  EXPECT_EQ(o.at("i"), -12);
  EXPECT_EQ(o.at("j"), 1000);
  EXPECT_EQ(o.at("k"), ".inf");  // no JSON form: stays text
  EXPECT_EQ(o.at("l"), "1.2.3");
  EXPECT_EQ(o.at("m").as_uint64(), 9223372036854775808ull);
  EXPECT_EQ(o.at("n"), "");
}

TEST(YamlJson, QuotedAndTaggedScalarsStayStrings) {
  auto v = convert("a: \"0.5\"\nb: '110'\nc: !!str yes\nd: [1, \"2\"]\n");
  const auto& o = v.as_object();
  EXPECT_EQ(o.at("a"), "0.5");
  EXPECT_EQ(o.at("b"), "110");
  EXPECT_EQ(o.at("c"), "yes");
  EXPECT_EQ(o.at("d"), (json::array{1, "2"}));
}

TEST(YamlJson, RefusesWhatCouldNotBeStoredAsJson) {
  auto bad = yaml_text_to_json("a: [1, 2\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().rfind("yaml: line ", 0), 0u) << bad.error();
  EXPECT_FALSE(yaml_text_to_json("a: \xff\n"));  // not UTF-8
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "[";
  for (int i = 0; i < 40; ++i) deep += "]";
  EXPECT_FALSE(yaml_text_to_json(deep));
  // yaml-cpp hands back the escape \N (NEL) as one raw byte, not UTF-8: it is stored as U+FFFD.
  auto nel = convert("a: \"x\\Ny\"\n");
  EXPECT_EQ(nel.as_object().at("a"), "x\xEF\xBF\xBDy");
  EXPECT_TRUE(json::parse(json::serialize(nel)).is_object());
}

// The "billion laughs" shape of CVE-2019-11253: nine levels of nine references to the level
// before, ~400 bytes that expand to 9^9 scalars. Refused as go-yaml refuses it, after a few
// thousand nodes were converted, not after building the expansion.
std::string alias_bomb(int levels) {
  std::string y = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-bomb\ndata:\n  a: &a [\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\"]\n";
  for (int i = 1; i < levels; ++i) {
    const char prev = static_cast<char>('a' + i - 1), cur = static_cast<char>('a' + i);
    y += std::string("  ") + cur + ": &" + cur + " [";
    for (int k = 0; k < 9; ++k) y += std::string(k ? "," : "") + "*" + prev;
    y += "]\n";
  }
  return y;
}

TEST(YamlJson, YamlAliasBombRefusedQuickly) {
  for (int levels : {7, 9}) {
    const std::string bomb = alias_bomb(levels);
    EXPECT_LT(bomb.size(), 450u);
    auto r = yaml_text_to_json(bomb);
    ASSERT_FALSE(r) << levels << " levels were expanded";
    EXPECT_EQ(r.error(), "yaml: document contains excessive aliasing");
  }
  // The same through the YAML::Node entry point (node templates, workload files).
  EXPECT_THROW(yaml_to_json(YAML::Load(alias_bomb(9))), std::runtime_error);
}

TEST(YamlJson, AliasesWithinGoYamlsRatioAreExpanded) {
  // Three levels of nine (729 scalars): under go-yaml's floor of 1,000 decodes, so expanded.
  auto small = convert(alias_bomb(3));
  EXPECT_EQ(small.at("data").at("c").as_array().size(), 9u);
  EXPECT_EQ(small.at("data").at("c").at(8).at(8).at(8), "web");
  // An anchor used many times by a document that is mostly its own text: 2,000 plain entries
  // and 200 references to a one-scalar anchor stay far below the 99% share allowed.
  std::string doc = "base: &b {cpu: 1}\nlist:\n";
  for (int i = 0; i < 2000; ++i) doc += "- name: n" + std::to_string(i) + "\n";
  doc += "refs:\n";
  for (int i = 0; i < 200; ++i) doc += "- *b\n";
  auto many = convert(doc);
  EXPECT_EQ(many.at("refs").as_array().size(), 200u);
  EXPECT_EQ(many.at("refs").at(199).at("cpu"), 1);
  // One level of reuse never passes the 99% share, however wide, since each reference is itself
  // a decode outside any alias: an anchor of 100 entries referenced 100 times (10,100 alias
  // decodes against 206 others) is expanded, as go-yaml expands it.
  std::string wide = "a: &a [";
  for (int i = 0; i < 100; ++i) wide += std::string(i ? "," : "") + "x";
  wide += "]\nb: [";
  for (int i = 0; i < 100; ++i) wide += std::string(i ? "," : "") + "*a";
  wide += "]\n";
  auto expanded = convert(wide);
  EXPECT_EQ(expanded.at("b").as_array().size(), 100u);
  EXPECT_EQ(expanded.at("b").at(99).as_array().size(), 100u);
  // Nesting is what multiplies: four levels of nine (6,561 scalars) pass 99% and are refused.
  auto four = yaml_text_to_json(alias_bomb(4));
  ASSERT_FALSE(four);
  EXPECT_EQ(four.error(), "yaml: document contains excessive aliasing");
}

}  // namespace
}  // namespace ksched::api

namespace ksched::api {
namespace {

TEST(YamlJson, JsonTextWritesNumbersAsGo) {
  auto v = boost::json::parse(R"({"a":2.5,"b":[1,1e21,1e-7,-0.5],"c":"x\"y","d":null,"e":true})");
  EXPECT_EQ(to_json_text(v), R"({"a":2.5,"b":[1,1e+21,1e-07,-0.5],"c":"x\"y","d":null,"e":true})");
}

}  // namespace
}  // namespace ksched::api
