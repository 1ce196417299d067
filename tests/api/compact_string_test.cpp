// CompactString (16 bytes, up to 15 characters inline, exact heap buffer beyond) and ThinString
// (8 bytes, interned): drop-in readers for code written against std::string.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/codec.h"
#include "api/core.h"

using ksched::api::CompactString;
using ksched::api::ThinString;

static_assert(sizeof(CompactString) == 16);

namespace {

// Every length across the inline/heap boundary, including the 15-character string whose
// terminator is the tag byte itself.
class CompactStringLengths : public ::testing::TestWithParam<int> {};

TEST_P(CompactStringLengths, HoldsTheTextAndATerminator) {
  std::string text;
  for (int i = 0; i < GetParam(); ++i) text.push_back(static_cast<char>('a' + i % 26));
  CompactString s(text);
  EXPECT_EQ(s.size(), text.size());
  EXPECT_EQ(s.empty(), text.empty());
  EXPECT_EQ(std::string_view(s), text);
  EXPECT_EQ(std::strlen(s.c_str()), text.size());
  EXPECT_EQ(s.heap_bytes(), text.size() > CompactString::kInline ? text.size() + 1 : 0u);

  CompactString copy = s;
  EXPECT_EQ(copy, s);
  if (!text.empty()) {
    EXPECT_NE(copy.data(), s.data()) << "copies own their text";
  }
  CompactString moved = std::move(copy);
  EXPECT_EQ(moved, text);
  EXPECT_TRUE(copy.empty());  // NOLINT: a moved-from string is empty
  EXPECT_EQ(copy.c_str()[0], '\0');
}

INSTANTIATE_TEST_SUITE_P(AcrossTheInlineLimit, CompactStringLengths,
                         ::testing::Values(0, 1, 7, 14, 15, 16, 17, 31, 32, 200));

TEST(CompactString, AssignmentReplacesTheValueAndFreesTheOldBuffer) {
  CompactString s = "a string long enough for the heap";
  s = "short";
  EXPECT_EQ(s, "short");
  EXPECT_EQ(s.heap_bytes(), 0u);
  s = std::string(40, 'x');
  EXPECT_EQ(s.size(), 40u);
  s.assign(std::string_view(s).substr(30));  // part of itself
  EXPECT_EQ(s, std::string(10, 'x'));
  s += "-suffix";
  EXPECT_EQ(s, "xxxxxxxxxx-suffix");
  s.clear();
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s, "");
}

TEST(CompactString, ComparesAndConcatenatesWithEveryStringType) {
  CompactString a = "node-1";
  std::string b = "node-1";
  std::string_view c = "node-1";
  EXPECT_TRUE(a == b && b == a && a == c && c == a && a == "node-1" && "node-1" == a);
  EXPECT_TRUE(a < CompactString("node-2") && a < std::string("node-2") && a < "node-2");
  EXPECT_TRUE(a != "node-10");
  EXPECT_EQ(a + "/" + b, "node-1/node-1");
  EXPECT_EQ(b + a, "node-1node-1");
  EXPECT_EQ("ns/" + a, "ns/node-1");
  EXPECT_EQ(a + a, "node-1node-1");
  EXPECT_EQ(a + '!', "node-1!");
  EXPECT_EQ(a.find('-'), 4u);
  EXPECT_TRUE(a.starts_with("node") && a.ends_with("-1") && a.contains("de-"));
  EXPECT_EQ(a.substr(5), "1");
}

TEST(CompactString, WorksWhereStdStringCodeExpectsIt) {
  CompactString name = "kube-system-controller-manager";
  std::string owned = name;  // copy-initialisation converts
  EXPECT_EQ(owned, "kube-system-controller-manager");
  auto takes_ref = [](const std::string& s) { return s.size(); };
  EXPECT_EQ(takes_ref(name), name.size());
  std::map<std::string, int, std::less<>> m{{"kube-system-controller-manager", 1}};
  EXPECT_EQ(m.count(name), 1u);
  std::unordered_map<CompactString, int> u{{name, 2}};
  EXPECT_EQ(u.at(CompactString("kube-system-controller-manager")), 2);
  std::set<CompactString> ordered{"b", "a"};
  EXPECT_EQ(*ordered.begin(), "a");
  EXPECT_EQ(fmt::format("[{}]", name), "[kube-system-controller-manager]");
  EXPECT_EQ(fmt::format("[{:>8}]", CompactString("ab")), "[      ab]");
  std::ostringstream os;
  os << name;
  EXPECT_EQ(os.str(), owned);
}

TEST(CompactString, PodMembersRoundTripThroughTheCodec) {
  std::string long_image = "registry.example.com/team/web:1.4.2";
  auto pod = ksched::api::decode<ksched::api::Pod>(
      R"({"metadata":{"name":"web-0","namespace":"default"},"spec":{"nodeName":"a-node-name-longer-than-15",)"
      R"("containers":[{"name":"web","image":")" + long_image + R"("}]},"status":{"phase":"Running"}})");
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(pod->spec.nodeName, "a-node-name-longer-than-15");
  EXPECT_EQ(pod->spec.containers[0].image, long_image);
  EXPECT_EQ(pod->status.phase, "Running");
  auto again = ksched::api::decode<ksched::api::Pod>(ksched::api::encode(*pod));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(ksched::api::encode(*again), ksched::api::encode(*pod));
  auto bad = ksched::api::decode<ksched::api::Pod>(R"({"status":{"phase":3}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("status.phase"), std::string::npos) << bad.error();
}

// The members that repeat across replicas (image, node name, mount path) are ThinStrings sharing
// one interned text; the ones unique to a pod (name, uid) are CompactStrings of their own; and
// volumeMounts is modelled so that the per-pod token mount leaves the rest of the container shared.
TEST(ThinString, ReplicasShareImageNodeNameAndContainerExtras) {
  auto replica = [](int i) {
    return ksched::api::decode<ksched::api::Pod>(
        R"({"metadata":{"name":"web-7d9f8b6c5-)" + std::to_string(10000 + i) +
        R"(","uid":"8c1f0000-1234-4abc-9def-0123456789ab"},"spec":{"nodeName":"ip-10-0-1-23.ec2.internal",)"
        R"("containers":[{"name":"web","image":"registry.example.com/team/web:1.4.2","env":[{"name":"MODE","value":"prod"}],)"
        R"("volumeMounts":[{"name":"kube-api-access-)" + std::to_string(i) +
        R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","subPath":"x"}],)"
        R"("terminationMessagePath":"/dev/termination-log"}]}})");
  };
  auto a = replica(1), b = replica(2);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  const auto& ca = a->spec.containers[0];
  const auto& cb = b->spec.containers[0];
  EXPECT_EQ(ca.image.data(), cb.image.data());
  EXPECT_EQ(a->spec.nodeName.data(), b->spec.nodeName.data());
  EXPECT_NE(a->metadata.uid.data(), b->metadata.uid.data());
  EXPECT_GT(a->metadata.uid.heap_bytes(), 0u) << "a uid has a buffer of its own";
  ASSERT_EQ(ca.volumeMounts.size(), 1u);
  EXPECT_EQ(ca.volumeMounts[0].name, "kube-api-access-1");
  EXPECT_TRUE(ca.volumeMounts[0].readOnly);
  EXPECT_EQ(ca.volumeMounts[0].mountPath.data(), cb.volumeMounts[0].mountPath.data());
  EXPECT_EQ(ca.volumeMounts[0].extra.fields.size(), 1u);  // subPath
  ASSERT_EQ(ca.extra.fields.size(), 2u);                  // env, terminationMessagePath
  EXPECT_EQ(ca.extra.fields.front().first.data(), cb.extra.fields.front().first.data())
      << "the containers' unmodelled members are one interned block";
  auto again = ksched::api::decode<ksched::api::Pod>(ksched::api::encode(*a));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(ksched::api::encode(*again), ksched::api::encode(*a));
  EXPECT_NE(ksched::api::encode(*a).find(R"("subPath":"x")"), std::string::npos);
}

}  // namespace

// ThinString: one pointer; every non-empty value is interned, well-known condition texts live in
// static storage, and it reads like CompactString.
static_assert(sizeof(ThinString) == 8);

TEST(ThinString, HoldsAnyTextAndReadsLikeAString) {
  ThinString empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_STREQ(empty.c_str(), "");
  EXPECT_EQ(empty, "");
  for (std::string text : {std::string("x"), std::string("True"), std::string(15, 'q'), std::string(300, 'z'),
                           std::string("0/5000 nodes are available: 5000 Insufficient cpu.")}) {
    ThinString s = text;
    EXPECT_EQ(s, text);
    EXPECT_EQ(s.size(), text.size());
    EXPECT_EQ(s.c_str()[text.size()], '\0');
    EXPECT_EQ(std::string(s), text);
    EXPECT_EQ(fmt::format("{}", s), text);
    EXPECT_EQ(s + "!", text + "!");
    EXPECT_EQ(std::hash<ThinString>{}(s), std::hash<std::string_view>{}(text));
  }
  ThinString a = "Ready", b = "Unschedulable";
  EXPECT_LT(a, b);
  EXPECT_TRUE(b.starts_with("Unsched"));
  EXPECT_EQ(b.substr(2, 3), "sch");
  std::map<ThinString, int> ordered{{b, 2}, {a, 1}};
  EXPECT_EQ(ordered.begin()->first, "Ready");
}

TEST(ThinString, WellKnownTextsAreStaticAndOthersAreInternedUntilTheLastHolder) {
  const std::size_t before = ThinString::interned_texts();
  {
    ThinString status = "True", type = std::string("PodScheduled");
    EXPECT_TRUE(status.well_known());
    EXPECT_TRUE(type.well_known());
    EXPECT_EQ(ThinString::interned_texts(), before) << "well-known texts are not listed";
    ThinString reason = "NotAWellKnownReason-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed());
    ThinString same = std::string(reason.view());
    EXPECT_FALSE(reason.well_known());
    EXPECT_EQ(reason.data(), same.data()) << "equal texts share one interned buffer";
    EXPECT_EQ(ThinString::interned_texts(), before + 1);
    ThinString copy = reason;
    reason = "False";
    EXPECT_EQ(copy, same);
    same.clear();
    copy = copy;  // self-assignment keeps the value
    EXPECT_EQ(copy.substr(0, 20), "NotAWellKnownReason-");
    reason = copy.view();  // assigning from its own text
    copy = std::move(reason);
    EXPECT_TRUE(reason.empty());  // NOLINT: moved-from is empty
    EXPECT_EQ(ThinString::interned_texts(), before + 1);
  }
  EXPECT_EQ(ThinString::interned_texts(), before) << "the last holder removes the text";
}

TEST(ThinString, CopiesAreSafeAcrossThreads) {
  ThinString seed = "a condition message that several threads copy and release";
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&seed] {
      for (int i = 0; i < 2000; ++i) {
        ThinString c = seed;
        ThinString d = c.view();
        EXPECT_EQ(d.data(), seed.data());
        ThinString e = (i % 2) ? "Ready" : "ContainersReady";
        EXPECT_TRUE(e.well_known());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(seed, "a condition message that several threads copy and release");
}

// Pod conditions decode into ThinStrings: null and absent reason/message stay distinguishable
// from empty on a round trip, and a wrong type names the field.
TEST(ThinString, PodConditionsRoundTripThroughTheCodec) {
  const std::string json =
      R"({"status":{"conditions":[{"type":"PodScheduled","status":"False","lastProbeTime":null,)"
      R"("lastTransitionTime":"2025-01-15T10:04:05Z","reason":"Unschedulable","message":"0/3 nodes are available: 3 Insufficient cpu."},)"
      R"({"type":"example.com/gate","status":"True","reason":""}]}})";
  auto pod = ksched::api::decode<ksched::api::Pod>(json);
  ASSERT_TRUE(pod.ok()) << pod.error();
  const auto& c = pod->status.conditions;
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].type, "PodScheduled");
  EXPECT_EQ(c[0].reason, "Unschedulable");
  EXPECT_EQ(c[0].message, "0/3 nodes are available: 3 Insufficient cpu.");
  EXPECT_EQ(c[1].type, "example.com/gate");
  EXPECT_FALSE(c[1].type.well_known());
  EXPECT_TRUE(c[1].reason.empty());
  EXPECT_EQ(ksched::api::encode(*pod), json);
  auto bad = ksched::api::decode<ksched::api::Pod>(R"({"status":{"conditions":[{"type":7}]}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("type"), std::string::npos) << bad.error();
}
