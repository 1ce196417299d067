// Patch semantics: RFC 6902, RFC 7386 and strategic merge with directives.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/patch.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

json::value smp(const char* doc, const char* patch, const char* kind = "Pod") {
  json::value d = json::parse(doc);
  auto r = apply_strategic_merge_patch(d, json::parse(patch), kind);
  EXPECT_TRUE(r) << (r ? "" : r.error());
  return d;
}

TEST(StrategicMerge, ListsMergeByKeyWithPatchElementsFirst) {
  auto d = smp(R"({"status":{"conditions":[{"type":"Ready","status":"True"},{"type":"PodScheduled","status":"True"}]}})",
               R"({"status":{"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"False"}]}})");
  EXPECT_EQ(json::serialize(d),
            R"({"status":{"conditions":[{"type":"Initialized","status":"True"},{"type":"Ready","status":"False"},{"type":"PodScheduled","status":"True"}]}})");
}

TEST(StrategicMerge, SetElementOrderAndDeleteDirective) {
  auto d = smp(R"({"c":[{"name":"a"},{"name":"b"},{"name":"x"}]})", R"({"containers":[]})");
  (void)d;
  auto e = smp(R"({"spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}})",
               R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","image":"3"}]}})");
  EXPECT_EQ(json::serialize(e), R"({"spec":{"containers":[{"name":"b","image":"2"},{"name":"a","image":"3"}]}})");
  auto f = smp(R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})",
               R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})");
  EXPECT_EQ(json::serialize(f), R"({"spec":{"containers":[{"name":"b"}]}})");
}

// Upstream's order: patch elements in patch order, live-only elements in live order, and a live
// element goes first only when both were live and it came first.
TEST(StrategicMerge, ListOrderFollowsUpstreamsMergeSortedSlice) {
  auto names = [](const json::value& d) {
    std::string out;
    for (const auto& c : d.at("spec").at("containers").as_array()) out += std::string(c.at("name").as_string());
    return out;
  };
  const char* live = R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})";
  EXPECT_EQ(names(smp(live, R"({"spec":{"containers":[{"name":"b","image":"x"},{"name":"c"}]}})")), "abc");
  EXPECT_EQ(names(smp(live, R"({"spec":{"containers":[{"name":"c"}]}})")), "cab");
  EXPECT_EQ(names(smp(live, R"({"spec":{"containers":[{"name":"c"},{"name":"a"}]}})")), "cab");
  EXPECT_EQ(names(smp(live, R"({"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"},{"name":"c"}],)"
                            R"("containers":[{"name":"c"}]}})")),
            "abc");
}

TEST(StrategicMerge, ListsWithoutMergeKeyAreReplaced) {
  auto d = smp(R"({"spec":{"tolerations":[{"key":"a"}],"x":1}})", R"({"spec":{"tolerations":[{"key":"b"}],"x":null}})");
  EXPECT_EQ(json::serialize(d), R"({"spec":{"tolerations":[{"key":"b"}]}})");
  auto svc = smp(R"({"spec":{"ports":[{"port":80,"name":"http"}]}})", R"({"spec":{"ports":[{"port":443}]}})", "Service");
  EXPECT_EQ(svc.as_object().at("spec").as_object().at("ports").as_array().size(), 2u);
  auto fin = smp(R"({"metadata":{"finalizers":["a"]}})", R"({"metadata":{"finalizers":["b","a"],"$deleteFromPrimitiveList/finalizers":["a"]}})");
  EXPECT_EQ(json::serialize(fin), R"({"metadata":{"finalizers":["b"]}})");
}

TEST(MergePatch, NullDeletesAndNonObjectsReplace) {
  json::value d = json::parse(R"({"a":{"b":1,"c":2},"l":[1,2]})");
  apply_merge_patch(d, json::parse(R"({"a":{"b":null,"d":3},"l":[3]})"));
  EXPECT_EQ(json::serialize(d), R"({"a":{"c":2,"d":3},"l":[3]})");
}

TEST(JsonPatch, Operations) {
  json::value d = json::parse(R"({"a":[1,2],"b":{"c":"x"}})");
  ASSERT_TRUE(apply_json_patch(d, json::parse(R"([
    {"op":"add","path":"/a/-","value":3},
    {"op":"add","path":"/a/0","value":0},
    {"op":"replace","path":"/b/c","value":"y"},
    {"op":"copy","from":"/b/c","path":"/b/d"},
    {"op":"move","from":"/b/d","path":"/e"},
    {"op":"remove","path":"/a/1"},
    {"op":"test","path":"/e","value":"y"},
    {"op":"add","path":"/k~1x","value":true}])")));
  EXPECT_EQ(json::serialize(d), R"({"a":[0,2,3],"b":{"c":"y"},"e":"y","k/x":true})");
  auto bad = apply_json_patch(d, json::parse(R"([{"op":"test","path":"/e","value":"z"}])"));
  EXPECT_FALSE(bad);
  auto missing = apply_json_patch(d, json::parse(R"([{"op":"replace","path":"/nope","value":1}])"));
  EXPECT_FALSE(missing);
  auto idx = apply_json_patch(d, json::parse(R"([{"op":"remove","path":"/a/9"}])"));
  EXPECT_FALSE(idx);
}

}  // namespace
}  // namespace ksched::apiserver
