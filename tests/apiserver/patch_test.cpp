// Patch semantics: RFC 6902, RFC 7386 and strategic merge with directives.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "apiserver/endpoints/patch.h"

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

// Each copy of /data into /data doubles it: thirty would make 2^30 copies of the value. The
// values copies add are counted as upstream's json-patch counts them (their JSON size) and the
// operation that passes 3 MiB fails the patch, so the document grows to ~3 MiB at most.
TEST(JsonPatch, JsonPatchCopyAmplificationRefused) {
  json::value d = json::parse(R"({"data":{"k":")" + std::string(1000, 'v') + R"("}})");
  json::array ops;
  for (int i = 0; i < 30; ++i)
    ops.push_back(json::object{{"op", "copy"}, {"from", "/data"}, {"path", "/data/x" + std::to_string(i)}});
  auto r = apply_json_patch(d, ops);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().rfind("Unable to complete the copy, the accumulated size increase of copy is ", 0), 0u) << r.error();
  EXPECT_NE(r.error().find(", exceeding the limit 3145728"), std::string::npos) << r.error();
  EXPECT_LT(json::serialize(d).size(), std::size_t{4} << 20);
  // Copies that stay within the bound apply, and the bound is a parameter (0: none).
  json::value small = json::parse(R"({"data":{"k":"v"}})");
  json::array few(ops.begin(), ops.begin() + 4);
  ASSERT_TRUE(apply_json_patch(small, few));
  EXPECT_EQ(small.at("data").as_object().size(), 5u);
  json::value bounded = json::parse(R"({"data":{"k":"v"}})");
  auto tight = apply_json_patch(bounded, few, 40);
  ASSERT_FALSE(tight);
  // {"k":"v"} is 9 bytes, then 24, then 54: the third copy passes 40.
  EXPECT_EQ(tight.error(), "Unable to complete the copy, the accumulated size increase of copy is 87, exceeding the limit 40");
}

}  // namespace
}  // namespace ksched::apiserver
