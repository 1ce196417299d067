// The compact object layout (see src/api/README.md): boxed optionals, the one-pointer Extra and
// exact vector capacities must not change what decode+encode returns.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "api/core.h"
#include "api/events.h"

using namespace ksched::api;

namespace {
boost::json::value J(std::string_view s) { return boost::json::parse(s); }

// Decodes `in`, checks that encode returns the same JSON text, and returns the object.
Pod exact_round_trip(std::string_view in) {
  auto p = decode<Pod>(in);
  EXPECT_TRUE(p.ok()) << p.error();
  if (!p.ok()) return {};
  EXPECT_EQ(encode(*p), in);
  return std::move(*p);
}
}  // namespace

// What the layout is for: a struct's bookkeeping is two words and a rarely present sub-object
// costs one pointer until it appears.
static_assert(sizeof(Extra) == sizeof(void*));
static_assert(sizeof(Presence) == 8);
static_assert(sizeof(Boxed<Affinity>) == sizeof(void*));
static_assert(sizeof(Volume) < 128);

TEST(MemoryLayout, BoxedOptionalAbsentNullEmptyAndPresentRoundTripExactly) {
  Pod absent = exact_round_trip(R"J({"spec":{"nodeName":"n1"}})J");
  EXPECT_FALSE(absent.spec.affinity.has_value());
  EXPECT_FALSE(absent.spec.present.has(12));

  Pod null = exact_round_trip(R"J({"spec":{"affinity":null}})J");
  EXPECT_FALSE(null.spec.affinity);
  EXPECT_EQ(null.spec.affinity, std::nullopt);

  Pod empty = exact_round_trip(R"J({"spec":{"affinity":{}}})J");
  ASSERT_TRUE(empty.spec.affinity);
  EXPECT_FALSE(empty.spec.affinity->nodeAffinity);

  Pod full = exact_round_trip(
      R"J({"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}]}},"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname","namespaceSelector":{},"x-future":[1]}]}}}})J");
  ASSERT_TRUE(full.spec.affinity && full.spec.affinity->podAntiAffinity);
  const auto& term = full.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution.at(0);
  EXPECT_TRUE(term.namespaceSelector.has_value());
  EXPECT_EQ(term.extra.fields.size(), 1u);
  EXPECT_FALSE(full.spec.affinity->podAffinity.has_value());
  EXPECT_EQ(full.spec.affinity->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms[0]
                .matchExpressions[0]
                .values[1],
            "b");

  // Boxed volume sources and the boxed sidecar restartPolicy.
  Pod vol = exact_round_trip(
      R"J({"spec":{"volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"c","readOnly":true}},{"name":"e","ephemeral":{"volumeClaimTemplate":{"spec":{}}}},{"name":"p","projected":{"sources":[]}}],"initContainers":[{"name":"s","restartPolicy":"Always"}]}})J");
  ASSERT_EQ(vol.spec.volumes.size(), 3u);
  EXPECT_EQ(vol.spec.volumes[0].persistentVolumeClaim->claimName, "c");
  EXPECT_TRUE(vol.spec.volumes[1].ephemeral.has_value());
  EXPECT_FALSE(vol.spec.volumes[2].persistentVolumeClaim);
  EXPECT_EQ(vol.spec.initContainers[0].restartPolicy, "Always");
}

TEST(MemoryLayout, BoxedCopiesAreDeepAndCompareByValue) {
  Pod a = exact_round_trip(R"J({"spec":{"affinity":{"nodeAffinity":{}}}})J");
  Pod b = a;
  ASSERT_TRUE(b.spec.affinity);
  EXPECT_NE(&*a.spec.affinity, &*b.spec.affinity);
  EXPECT_EQ(encode(a), encode(b));
  b.spec.affinity->podAffinity.emplace();
  EXPECT_FALSE(a.spec.affinity->podAffinity);
  b.spec.affinity.reset();
  EXPECT_TRUE(a.spec.affinity.has_value());
  EXPECT_THROW((void)b.spec.affinity.value(), std::bad_optional_access);

  Boxed<std::string> s;
  EXPECT_EQ(s.value_or("none"), "none");
  s = "Always";
  EXPECT_TRUE(s == "Always");
  EXPECT_FALSE(s == "Never");
  Boxed<std::string> t = std::optional<std::string>("Always");
  EXPECT_TRUE(s == t);
  t = std::nullopt;
  EXPECT_FALSE(s == t);
  EXPECT_EQ(s.to_optional(), std::optional<std::string>("Always"));
}

TEST(MemoryLayout, ExtraSurvivesInOrderAtEveryLevelAndIsCopied) {
  const char* in =
      R"J({"zz":{"a":[1,{"b":null}]},"apiVersion":"v1","metadata":{"name":"p","k\"q":"v","x":1},"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"1"}],"image":"i","ports":[{"containerPort":80,"appProtocol":"h2c"}]}],"enableServiceLinks":true},"status":{"podIPs":[{"ip":"10.0.0.1"}],"phase":"Running","hostIPs":[]},"last":"x"})J";
  auto p = decode<Pod>(in);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(J(encode(*p)), J(in));
  ASSERT_EQ(p->extra.fields.size(), 2u);
  EXPECT_EQ(p->extra.fields[0].first, "zz");
  EXPECT_EQ(p->extra.fields[0].second, R"J({"a":[1,{"b":null}]})J");
  EXPECT_EQ(p->extra.fields[1].first, "last");
  ASSERT_EQ(p->metadata.extra.fields.size(), 2u);
  EXPECT_EQ(p->metadata.extra.fields[0].first, "k\"q");  // keys are kept unescaped
  EXPECT_EQ(p->status.extra.fields[1].second, "[]");
  EXPECT_EQ(p->spec.containers[0].ports[0].extra.fields.front().second, R"J("h2c")J");
  EXPECT_TRUE(p->spec.containers[0].resources.extra.empty());

  Pod copy = *p;
  EXPECT_EQ(encode(copy), encode(*p));
  EXPECT_TRUE(copy.metadata.extra == p->metadata.extra);
  copy.metadata.extra.fields.push_back({"added", "true"});
  EXPECT_EQ(copy.metadata.extra.fields.size(), 3u);
  EXPECT_EQ(p->metadata.extra.fields.size(), 2u);
  EXPECT_FALSE(copy.metadata.extra == p->metadata.extra);
  EXPECT_NE(encode(copy).find(R"J("x":1,"added":true})J"), std::string::npos) << encode(copy);

  // Members added in code are written like decoded ones.
  Pod built;
  built.spec.extra.fields.push_back({"template", R"J({"a":1})J"});
  built.spec.extra.fields.emplace_back("b", "[]");
  EXPECT_EQ(encode(built), R"J({"spec":{"template":{"a":1},"b":[]}})J");

  // A second decode into the same object drops the old unmodelled members.
  ASSERT_TRUE(decode_into(copy, R"J({"metadata":{"name":"q"}})J").ok());
  EXPECT_TRUE(copy.extra.empty());
  EXPECT_TRUE(copy.metadata.extra.empty());
  EXPECT_EQ(encode(copy), R"J({"metadata":{"name":"q"}})J");
}

TEST(MemoryLayout, DecodedCollectionsHaveNoSpareCapacity) {
  auto p = decode<Pod>(
      R"J({"metadata":{"labels":{"a":"1","b":"2","c":"3"},"finalizers":["x","y","z"]},"spec":{"tolerations":[{"key":"a"},{"key":"b"},{"key":"c"}],"containers":[{"name":"a","resources":{"requests":{"cpu":"1","memory":"1Gi","pods":"1"}}},{"name":"b"},{"name":"c"},{"name":"d"},{"name":"e"}]}})J");
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p->metadata.labels.capacity(), 3u);
  EXPECT_EQ(p->metadata.finalizers.capacity(), 3u);
  EXPECT_EQ(p->spec.tolerations.capacity(), 3u);
  EXPECT_EQ(p->spec.containers.capacity(), 5u);
  EXPECT_EQ(p->spec.containers[0].resources.requests.capacity(), 3u);
}

TEST(MemoryLayout, EventBoxedMembersRoundTrip) {
  const char* in =
      R"J({"metadata":{"name":"e"},"eventTime":"2024-05-10T08:15:30.000000Z","series":{"count":2,"lastObservedTime":"2024-05-10T08:15:31.000000Z"},"regarding":{"kind":"Pod"},"related":{"kind":"Node","name":"n"},"deprecatedSource":{"component":"c"}})J";
  auto e = decode<eventsv1::Event>(in);
  ASSERT_TRUE(e.ok()) << e.error();
  EXPECT_EQ(e->series->count, 2);
  EXPECT_EQ(e->related->name, "n");
  EXPECT_EQ(encode(*e), in);
}

TEST(MemoryLayout, IdenticalTemplateExtrasAreSharedAndOutliveEachOther) {
  const char* in =
      R"J({"spec":{"volumes":[{"name":"v","projected":{"sources":[]}}],"containers":[{"name":"c","env":[{"name":"A"}],"terminationMessagePath":"/dev/termination-log"}],"enableServiceLinks":true},"status":{"podIPs":[]}})J";
  auto a = std::make_unique<Pod>(*decode<Pod>(in));
  auto b = decode<Pod>(in);
  ASSERT_TRUE(b.ok());
  // Same block for the pod-template types, a block per object for the rest.
  EXPECT_EQ(a->spec.containers[0].extra.fields[1].second.data(), b->spec.containers[0].extra.fields[1].second.data());
  EXPECT_EQ(a->spec.volumes[0].extra.fields[0].second.data(), b->spec.volumes[0].extra.fields[0].second.data());
  EXPECT_EQ(a->spec.extra.fields[0].first.data(), b->spec.extra.fields[0].first.data());
  EXPECT_NE(a->status.extra.fields[0].first.data(), b->status.extra.fields[0].first.data());
  a.reset();
  EXPECT_EQ(encode(*b), in);
  // Changing a shared block copies it first.
  Pod c = *b;
  c.spec.containers[0].extra.fields.emplace_back("x", "1");
  EXPECT_EQ(b->spec.containers[0].extra.fields.size(), 2u);
  EXPECT_EQ(encode(*b), in);
  b = decode<Pod>("{}");
  auto d = decode<Pod>(in);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(encode(*d), in);
}

TEST(MemoryLayout, InterningIsSafeAcrossThreads) {
  // Decoders on several threads take and drop references to the same interned blocks while
  // copies made on one thread are destroyed on another.
  std::vector<std::string> inputs;
  for (int i = 0; i < 4; ++i)
    inputs.push_back(R"J({"spec":{"containers":[{"name":"c","env":[{"name":"A","value":")J" + std::to_string(i) +
                     R"J("}]}]}})J");
  std::vector<std::vector<Pod>> kept(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3000; ++i) {
        auto p = decode<Pod>(inputs[(t + i) % inputs.size()]);
        if (!p.ok()) return;
        if (i % 3 == 0) kept[t].push_back(*p);
        if (i % 7 == 0 && !kept[t].empty()) kept[t].erase(kept[t].begin());
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    ASSERT_FALSE(kept[t].empty());
    for (const auto& p : kept[t]) {
      std::string out = encode(p);
      EXPECT_TRUE(std::find(inputs.begin(), inputs.end(), out) != inputs.end()) << out;
    }
  }
}

// OptionalTime keeps std::optional<Time>'s meaning in 8 bytes: absent, JSON null and a time
// round-trip as they were, and absent orders before every time.
static_assert(sizeof(OptionalTime) == 8);

TEST(MemoryLayout, OptionalTimeBehavesLikeStdOptional) {
  Pod absent = exact_round_trip(R"J({"status":{"phase":"Pending"}})J");
  EXPECT_FALSE(absent.status.startTime.has_value());
  EXPECT_EQ(absent.status.startTime, std::nullopt);
  Pod null = exact_round_trip(R"J({"status":{"startTime":null}})J");
  EXPECT_FALSE(null.status.startTime);
  Pod set = exact_round_trip(
      R"J({"status":{"conditions":[{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2025-01-15T10:04:07Z"}],"startTime":"1970-01-01T00:00:00Z"}})J");
  ASSERT_TRUE(set.status.startTime);
  EXPECT_EQ(set.status.startTime->unixNanos, 0) << "the epoch itself is a present time";
  const auto& c = set.status.conditions.at(0);
  EXPECT_FALSE(c.lastProbeTime);
  ASSERT_TRUE(c.lastTransitionTime);
  EXPECT_EQ(c.lastTransitionTime.value(), Time{1736935447LL * 1000000000LL});

  OptionalTime none, early{Time{-5}}, late{Time{7}};
  EXPECT_LT(none, early);
  EXPECT_LT(early, late);
  std::optional<Time> as_std = late;
  EXPECT_EQ(as_std, std::optional<Time>(Time{7}));
  OptionalTime back = std::optional<Time>{};
  EXPECT_EQ(back, none);
  EXPECT_THROW((void)none.value(), std::bad_optional_access);
  EXPECT_EQ(none.value_or(Time{3}), Time{3});
  none.emplace(Time{9});
  EXPECT_EQ(none, Time{9});
  none.reset();
  EXPECT_FALSE(none.has_value());
}

// Container statuses are modelled: every state, an empty lastState, null, false and zero members,
// status volumeMounts and unmodelled members (kept in order after the modelled ones) come back as
// they were; replicas share the image, digest and mount path texts.
TEST(MemoryLayout, ContainerStatusesRoundTripAndShareRepeatedTexts) {
  const std::string image = "registry.example.com/team/web:1.4.2";
  const std::string digest = "registry.example.com/team/web@sha256:4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c";
  auto pod_with_id = [&](const std::string& id) {
    return R"({"status":{"phase":"Running","initContainerStatuses":[{"name":"init","state":{"terminated":{"exitCode":0,"reason":"Completed","startedAt":"2025-01-15T10:04:05Z","finishedAt":"2025-01-15T10:04:06Z","containerID":"containerd://)" +
           id + R"("}},"lastState":{},"ready":true,"restartCount":0,"image":")" + image + R"(","imageID":")" + digest +
           R"(","containerID":"containerd://)" + id + R"(","started":false}],"containerStatuses":[{"name":"web","state":{"running":{"startedAt":"2025-01-15T10:04:07Z"}},"lastState":{"terminated":{"exitCode":137,"signal":9,"reason":"OOMKilled","message":null,"startedAt":null,"finishedAt":"2025-01-15T10:04:06Z"}},"ready":true,"restartCount":3,"image":")" +
           image + R"(","imageID":")" + digest + R"(","containerID":"containerd://)" + id +
           R"(","started":true,"volumeMounts":[{"name":"kube-api-access-x7k2p","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true,"recursiveReadOnly":"Disabled"}],"allocatedResources":{"cpu":"250m"},"user":{"linux":{"uid":0,"gid":0}}},)"
           R"({"name":"sidecar","state":{"waiting":{"reason":"CrashLoopBackOff","message":"back-off 5m0s restarting failed container"}},"lastState":{},"ready":false,"restartCount":0,"image":"busybox","imageID":""}],"qosClass":"Burstable"}})";
  };
  Pod a = exact_round_trip(pod_with_id(std::string(64, 'a')));
  Pod b = exact_round_trip(pod_with_id(std::string(64, 'b')));
  ASSERT_EQ(a.status.containerStatuses.size(), 2u);
  ASSERT_EQ(a.status.initContainerStatuses.size(), 1u);
  const auto& web = a.status.containerStatuses[0];
  EXPECT_EQ(web.restartCount, 3);
  ASSERT_TRUE(web.state.running);
  EXPECT_FALSE(web.state.waiting);
  ASSERT_TRUE(web.lastState.terminated);
  EXPECT_EQ(web.lastState.terminated->exitCode, 137);
  EXPECT_EQ(web.lastState.terminated->reason, "OOMKilled");
  EXPECT_EQ(web.started, std::optional<bool>(true));
  ASSERT_EQ(web.volumeMounts.size(), 1u);
  EXPECT_EQ(web.volumeMounts[0].recursiveReadOnly, "Disabled");
  EXPECT_EQ(web.extra.fields.size(), 2u);  // allocatedResources, user
  const auto& init = a.status.initContainerStatuses[0];
  EXPECT_EQ(init.started, std::optional<bool>(false));
  EXPECT_EQ(init.state.terminated->containerID, "containerd://" + std::string(64, 'a'));
  const auto& sidecar = a.status.containerStatuses[1];
  EXPECT_EQ(sidecar.state.waiting->reason, "CrashLoopBackOff");
  EXPECT_FALSE(sidecar.ready);
  EXPECT_TRUE(sidecar.imageID.empty());
  const auto& web_b = b.status.containerStatuses[0];
  EXPECT_EQ(web.image.data(), web_b.image.data());
  EXPECT_EQ(web.imageID.data(), web_b.imageID.data());
  EXPECT_EQ(web.volumeMounts[0].mountPath.data(), web_b.volumeMounts[0].mountPath.data());
  EXPECT_NE(web.containerID, web_b.containerID);
  // In the API's own member order, unmodelled members between modelled ones move after them.
  auto go_order = decode<Pod>(
      R"({"status":{"containerStatuses":[{"name":"web","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"i","imageID":"","allocatedResources":{"cpu":"1"},"volumeMounts":[]}]}})");
  ASSERT_TRUE(go_order.ok()) << go_order.error();
  EXPECT_EQ(J(encode(*go_order)), J(R"({"status":{"containerStatuses":[{"name":"web","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"i","imageID":"","volumeMounts":[],"allocatedResources":{"cpu":"1"}}]}})"));
  auto bad = decode<Pod>(R"({"status":{"containerStatuses":[{"name":"web","restartCount":"3"}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("status.containerStatuses[0].restartCount"), std::string::npos) << bad.error();
}
