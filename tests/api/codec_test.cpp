// Codec behaviour: presence, extra fields, nulls, times, quantities, error paths.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/codec.h"
#include "api/core.h"
#include "api/helpers.h"

using namespace ksched::api;

namespace {
boost::json::value J(std::string_view s) { return boost::json::parse(s); }
}  // namespace

TEST(Codec, DecodesPodFieldsAndKeepsUnknownMembers) {
  const char* in = R"J({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default",
    "creationTimestamp":null,"labels":{"run":"web","a":"b"},"uid":"u1"},
    "spec":{"containers":[{"name":"web","image":"nginx","resources":{"requests":{"cpu":"100m","memory":"1Gi"}},
      "env":[{"name":"A","value":"x\"y"}]}],"dnsPolicy":"ClusterFirst","priority":0,
      "securityContext":{}},
    "status":{}})J";
  auto pod = decode<Pod>(in);
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(pod->metadata.name, "web");
  EXPECT_FALSE(pod->metadata.creationTimestamp.has_value());
  EXPECT_EQ(pod->metadata.labels.get("run"), "web");
  ASSERT_EQ(pod->spec.containers.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.find("cpu")->milli_value(), 100);
  EXPECT_EQ(pod->spec.containers[0].resources.requests.find("memory")->value(), 1073741824);
  ASSERT_EQ(pod->spec.containers[0].extra.fields.size(), 1u);
  EXPECT_EQ(pod->spec.containers[0].extra.fields[0].first, "env");
  ASSERT_TRUE(pod->spec.priority.has_value());
  EXPECT_EQ(*pod->spec.priority, 0);
  auto out = encode(*pod);
  EXPECT_EQ(J(out), J(in)) << out;
}

// Pod-level resources (spec.resources) and a node's status.declaredFeatures are modelled: the
// scheduler reads them. Absent, spec.resources stays unset (Boxed) and is not written.
TEST(Codec, PodLevelResourcesAndDeclaredFeatures) {
  const char* in = R"J({"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"100m"}}}],
    "resources":{"requests":{"cpu":"2","memory":"1Gi"},"limits":{"cpu":"4"},"claims":[{"name":"x"}]}}})J";
  auto pod = decode<Pod>(in);
  ASSERT_TRUE(pod.ok()) << pod.error();
  ASSERT_TRUE(pod->spec.resources.has_value());
  EXPECT_EQ(pod->spec.resources->requests.find("cpu")->milli_value(), 2000);
  EXPECT_EQ(pod->spec.resources->requests.find("memory")->value(), 1073741824);
  EXPECT_EQ(pod->spec.resources->limits.find("cpu")->milli_value(), 4000);
  EXPECT_EQ(J(encode(*pod)), J(in));
  auto bad = decode<Pod>(R"J({"spec":{"resources":{"requests":{"cpu":"2x"}}}})J");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind("spec.resources.requests.cpu: ", 0), 0u) << bad.error();
  auto plain = decode<Pod>(R"J({"spec":{"containers":[]}})J");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->spec.resources.has_value());
  EXPECT_EQ(encode(*plain).find("resources"), std::string::npos);

  const char* node_in = R"J({"status":{"declaredFeatures":["GuaranteedQoSPodCPUResize","RestartAllContainersOnContainerExits"]}})J";
  auto node = decode<Node>(node_in);
  ASSERT_TRUE(node.ok()) << node.error();
  EXPECT_EQ(node->status.declaredFeatures,
            (std::vector<std::string>{"GuaranteedQoSPodCPUResize", "RestartAllContainersOnContainerExits"}));
  EXPECT_EQ(J(encode(*node)), J(node_in));
}

TEST(Codec, ErrorsNameTheFieldPath) {
  auto r = decode<Pod>(R"J({"spec":{"containers":[{"name":"a"},{"resources":{"requests":{"cpu":"1x"}}}]}})J");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(),
            "spec.containers[1].resources.requests.cpu: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  auto t = decode<Pod>(R"J({"metadata":{"name":5}})J");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error(), "metadata.name: cannot unmarshal number into a value of type string");
  auto bad = decode<Pod>(R"J({"metadata":{"name":"x"})J");
  EXPECT_FALSE(bad.ok());
  auto trailing = decode<Pod>(R"J({"metadata":{}} {})J");
  EXPECT_FALSE(trailing.ok());
  auto i32 = decode<Pod>(R"J({"spec":{"priority":3000000000}})J");
  ASSERT_FALSE(i32.ok());
  EXPECT_EQ(i32.error(), "spec.priority: value 3000000000 overflows int32");
  auto ts = decode<Pod>(R"J({"metadata":{"creationTimestamp":"2024-13-01T00:00:00Z"}})J");
  ASSERT_FALSE(ts.ok());
  EXPECT_EQ(ts.error().rfind("metadata.creationTimestamp: parsing time", 0), 0u);
}

TEST(Codec, TimesAndMicroTimes) {
  auto ev = decode<Event>(R"J({"firstTimestamp":"2024-01-02T03:04:05Z","eventTime":"2024-01-02T03:04:05.123456Z",
      "lastTimestamp":"2024-01-02T05:04:05+02:00"})J");
  ASSERT_TRUE(ev.ok()) << ev.error();
  EXPECT_EQ(ev->firstTimestamp->unixNanos, 1704164645LL * 1000000000LL);
  EXPECT_EQ(ev->lastTimestamp->unixNanos, ev->firstTimestamp->unixNanos);
  EXPECT_EQ(ev->eventTime->unixNanos, 1704164645LL * 1000000000LL + 123456000);
  auto out = encode(*ev);
  EXPECT_EQ(J(out), J(R"J({"firstTimestamp":"2024-01-02T03:04:05Z","eventTime":"2024-01-02T03:04:05.123456Z",
      "lastTimestamp":"2024-01-02T03:04:05Z"})J"));
}

TEST(Codec, EncodesConstructedObjectsWithoutEmptyMembers) {
  Binding b;
  b.apiVersion = "v1";
  b.kind = "Binding";
  b.metadata.name = "p";
  b.metadata.namespace_ = "ns";
  b.target.kind = "Node";
  b.target.name = "n1";
  EXPECT_EQ(encode(b),
            R"J({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","namespace":"ns"},"target":{"kind":"Node","name":"n1"}})J");
  Pod p;
  p.metadata.name = "we\"ird\n\x01";
  EXPECT_EQ(encode(p), R"J({"metadata":{"name":"we\"ird\n\u0001"}})J");
}

TEST(Codec, QuantityAcceptsJsonNumbers) {
  auto n = decode<Node>(R"J({"status":{"capacity":{"cpu":4,"memory":" 8Gi ","pods":110.5}}})J");
  ASSERT_TRUE(n.ok()) << n.error();
  EXPECT_EQ(n->status.capacity.find("cpu")->milli_value(), 4000);
  EXPECT_EQ(n->status.capacity.find("pods")->milli_value(), 110500);
  EXPECT_EQ(J(encode(*n)), J(R"J({"status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110500m"}}})J"));
}

TEST(Codec, ListsAndWatchEvents) {
  auto l = decode<List<Pod>>(R"J({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42"},
      "items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})J");
  ASSERT_TRUE(l.ok()) << l.error();
  ASSERT_EQ(l->items.size(), 2u);
  EXPECT_EQ(l->items[1].metadata.name, "b");
  EXPECT_EQ(l->metadata.resourceVersion, "42");
  auto w = decode<WatchEvent<Pod>>(R"J({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}})J");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->type, "ADDED");
  EXPECT_EQ(w->object.metadata.name, "a");
  auto s = decode<WatchEvent<Status>>(
      R"J({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (2)","reason":"Expired","code":410}})J");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->object.code, 410);
  EXPECT_EQ(s->object.reason, "Expired");
}

TEST(Codec, DecodeIntoReusesTheObject) {
  Pod p;
  ASSERT_TRUE(decode_into(p, R"J({"metadata":{"name":"a","labels":{"x":"1"}},"spec":{"priority":5},"zz":1})J").ok());
  EXPECT_EQ(p.metadata.name, "a");
  // A second decode replaces everything: members the new input lacks are reset, extra is not kept.
  ASSERT_TRUE(decode_into(p, R"J({"metadata":{"namespace":"ns"},"spec":null})J").ok());
  EXPECT_EQ(p.metadata.name, "");
  EXPECT_TRUE(p.metadata.labels.empty());
  EXPECT_FALSE(p.spec.priority.has_value());
  EXPECT_EQ(encode(p), R"J({"metadata":{"namespace":"ns"},"spec":null})J");
  auto bad = decode_into(p, R"J({"metadata":{"name":1}})J");
  EXPECT_FALSE(bad.ok());
}

TEST(Codec, UnknownMembersMustBeValidJson) {
  // Unmodelled values are kept verbatim, so they are validated token by token first.
  for (const char* bad : {R"J({"x":{"a":tru}})J", R"J({"x":[1,2,-]})J", R"J({"x":{"a":"\q"}})J", R"J({"x":[1 2]})J",
                          R"J({"x":{"\q":1}})J", R"J({"metadata":{"managedFields":[{"a":nul}]}})J", R"J({"x":01})J"}) {
    EXPECT_FALSE(decode<Pod>(bad).ok()) << bad;
  }
  auto ok = decode<Pod>(R"J({"x" : [ 1 , {"y" : 2 } ]  , "z": "s\"" , "w":null, "v":[], "u":{}})J");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(encode(*ok), R"J({"x":[ 1 , {"y" : 2 } ],"z":"s\"","w":null,"v":[],"u":{}})J");
}

TEST(Codec, BrokenNullLiteralsAreRejectedForModelledMembers) {
  for (const char* bad : {R"J({"metadata":{"name":nul}})J", R"J({"metadata":{"labels":nulll}})J",
                          R"J({"spec":{"priority":nu}})J", R"J({"spec":{"containers":nullx}})J"}) {
    EXPECT_FALSE(decode<Pod>(bad).ok()) << bad;
  }
  EXPECT_TRUE(decode<Pod>(R"J({"metadata":{"name":null,"labels":null},"spec":{"priority":null}})J").ok());
}

TEST(Codec, EscapedMemberNamesStillMatch) {
  auto p = decode<Pod>(R"J({"metadata":{"n\u0061me":"a"}})J");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->metadata.name, "a");
  EXPECT_TRUE(p->metadata.extra.empty());
}

TEST(Codec, EscapedKeysAndValues) {
  auto p = decode<Pod>(R"J({"metadata":{"labels":{"a\"b":"\u00e9\n"},"annotations":{"k":"v\\"}},"x\"y":1})J");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->metadata.labels.get("a\"b"), "\xc3\xa9\n");
  EXPECT_EQ(J(encode(*p)), J(R"J({"metadata":{"labels":{"a\"b":"\u00e9\n"},"annotations":{"k":"v\\"}},"x\"y":1})J"));
}

TEST(Codec, DeepNestingIsRejectedNotRecursedInto) {
  std::string deep = R"J({"x":)J" + std::string(5000, '[') + std::string(5000, ']') + "}";
  auto r = decode<Pod>(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("exceeds the maximum nesting depth"), std::string::npos) << r.error();
  std::string deep2 = R"J({"spec":{"containers":)J" + std::string(3000, '[') + std::string(3000, ']') + "}}";
  EXPECT_FALSE(decode<Pod>(deep2).ok());
  std::string ok = R"J({"x":)J" + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_TRUE(decode<Pod>(ok).ok());
}

// DecodeOptions::dropManagedFields (the scheduler's pod informer): managedFields is skipped
// wherever ObjectMeta appears, everything around it is decoded and checked as usual.
TEST(Codec, DropManagedFieldsSkipsThemAndKeepsTheRest) {
  const std::string mf = R"J([{"manager":"kubectl","operation":"Update","fieldsV1":{"f:spec":{"f:x":{}}}}])J";
  const std::string pod_json = R"J({"kind":"Pod","metadata":{"name":"a","managedFields":)J" + mf +
                               R"J(,"uid":"u1","labels":{"k":"v"}},"spec":{"nodeName":"n1"}})J";
  DecodeOptions drop{.dropManagedFields = true};

  auto kept = decode<Pod>(pod_json);
  ASSERT_TRUE(kept.ok()) << kept.error();
  EXPECT_FALSE(kept->metadata.managedFields.empty());

  auto dropped = decode<Pod>(pod_json, drop);
  ASSERT_TRUE(dropped.ok()) << dropped.error();
  EXPECT_TRUE(dropped->metadata.managedFields.empty());
  EXPECT_EQ(dropped->metadata.uid, "u1");  // the member after it is still read
  EXPECT_EQ(dropped->metadata.labels.get("k"), "v");
  EXPECT_EQ(dropped->spec.nodeName, "n1");
  EXPECT_EQ(encode(*dropped).find("managedFields"), std::string::npos);  // not written back as present

  // Every item of a list.
  auto list = decode<List<Pod>>(R"J({"kind":"PodList","metadata":{},"items":[)J" + pod_json + "," + pod_json + "]}",
                                drop);
  ASSERT_TRUE(list.ok()) << list.error();
  ASSERT_EQ(list->items.size(), 2u);
  for (const auto& p : list->items) {
    EXPECT_TRUE(p.metadata.managedFields.empty());
    EXPECT_EQ(p.spec.nodeName, "n1");
  }

  // Structure is still enforced: an unterminated value is an error, and so is bad JSON next to it.
  EXPECT_FALSE(decode<Pod>(R"J({"metadata":{"managedFields":[{"a":1},"name":"x"}})J", drop).ok());
  EXPECT_FALSE(decode<Pod>(R"J({"metadata":{"managedFields":[],"name":nul}})J", drop).ok());
}
