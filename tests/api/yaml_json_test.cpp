// The YAML -> JSON conversion: sigs.k8s.io/yaml's (go-yaml v2, YAML 1.1) scalar rules.
#include <gtest/gtest.h>

#include <boost/json.hpp>

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
