// Copy-on-write containers (SharedVector, and FlatMap on top of it): copies share, writes detach,
// the codec interns identical JSON so replicas hold one block, and the last holder frees it.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "api/codec.h"
#include "api/core.h"

using namespace ksched::api;

namespace {

std::string replica(int i, std::string_view tolerations = R"([{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}])") {
  return R"({"metadata":{"name":"web-)" + std::to_string(i) +
         R"(","namespace":"default","labels":{"app":"web","pod-template-hash":"7d9f8b6c5"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d9f8b6c5","uid":"u1","controller":true}]},"spec":{"containers":[{"name":"web","image":"nginx","resources":{"requests":{"cpu":"250m","memory":"256Mi"}}}],"tolerations":)" +
         std::string(tolerations) + "}}";
}

Pod decode_ok(const std::string& j) {
  auto p = decode<Pod>(j);
  EXPECT_TRUE(p.ok()) << p.error();
  return p.ok() ? std::move(*p) : Pod{};
}

}  // namespace

static_assert(sizeof(SharedVector<Toleration>) == sizeof(void*));
static_assert(sizeof(StringMap) == sizeof(void*));

TEST(SharedVector, CopiesShareAndWritesDetach) {
  SharedVector<std::string> a{"x", "y"};
  SharedVector<std::string> b = a;
  EXPECT_TRUE(a.shares_with(b));
  const auto& cb = b;
  EXPECT_EQ(cb[1], "y");  // const read: still shared
  EXPECT_TRUE(a.shares_with(b));
  b.push_back("z");
  EXPECT_FALSE(a.shares_with(b));
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 3u);
  b[0] = "changed";
  EXPECT_EQ(a[0], "x");
  b.clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.begin(), b.end());
  SharedVector<std::string> c = std::vector<std::string>{"x", "y"};
  EXPECT_EQ(a, c);
  EXPECT_NE(a, b);
}

TEST(SharedVector, ReplicasDecodedFromIdenticalJsonShareTheirBlocks) {
  Pod p1 = decode_ok(replica(1));
  Pod p2 = decode_ok(replica(2));
  EXPECT_TRUE(p1.spec.tolerations.shares_with(p2.spec.tolerations));
  EXPECT_TRUE(p1.metadata.labels.shares_with(p2.metadata.labels));
  EXPECT_TRUE(p1.metadata.ownerReferences.shares_with(p2.metadata.ownerReferences));
  EXPECT_TRUE(p1.spec.containers[0].resources.requests.shares_with(p2.spec.containers[0].resources.requests));
  EXPECT_EQ(p1.spec.tolerations[0].tolerationSeconds, 300);

  // Different text, different block; equal values still compare equal.
  Pod p3 = decode_ok(replica(3, R"([{"key":"node.kubernetes.io/unreachable","operator":"Exists"}])"));
  EXPECT_FALSE(p3.spec.tolerations.shares_with(p1.spec.tolerations));

  // A write to one replica's labels is not seen by the other, and the interned block is untouched.
  p2.metadata.labels.set("extra", "1");
  EXPECT_FALSE(p1.metadata.labels.shares_with(p2.metadata.labels));
  EXPECT_FALSE(p1.metadata.labels.contains("extra"));
  Pod p4 = decode_ok(replica(4));
  EXPECT_TRUE(p4.metadata.labels.shares_with(p1.metadata.labels));
  EXPECT_FALSE(p4.metadata.labels.contains("extra"));
  if (auto* v = p4.metadata.labels.find("app")) *v = "api";
  EXPECT_EQ(p1.metadata.labels.get("app"), "web");
  EXPECT_EQ(p4.metadata.labels.get("app"), "api");

  // Encoding is unaffected by sharing.
  EXPECT_EQ(encode(p1), replica(1));
}

// A container whose text is already interned is adopted without being decoded; the rest of the
// document is still decoded and checked, and decoding into a reused object replaces its block.
TEST(SharedVector, AdoptedTextStillChecksTheRestOfTheDocument) {
  Pod p1 = decode_ok(replica(1));
  const std::string bad_after =
      R"J({"metadata":{"labels":{"app":"web","pod-template-hash":"7d9f8b6c5"},"name":nul}})J";
  EXPECT_FALSE(decode<Pod>(bad_after).ok());
  Pod reused = decode_ok(replica(3, R"([{"key":"other","operator":"Exists"}])"));
  ASSERT_TRUE(decode_into(reused, replica(4)).ok());
  EXPECT_TRUE(reused.spec.tolerations.shares_with(p1.spec.tolerations));
  EXPECT_EQ(reused.spec.tolerations[0].key, p1.spec.tolerations[0].key);
  EXPECT_EQ(encode(reused), replica(4));
}

TEST(SharedVector, TheLastHolderRemovesTheInternedBlock) {
  auto before = SharedVector<Toleration>::interned_blocks();
  {
    Pod p1 = decode_ok(replica(1, R"([{"key":"only-here","operator":"Exists"}])"));
    Pod copy = p1;
    EXPECT_EQ(SharedVector<Toleration>::interned_blocks(), before + 1);
    Pod p2 = decode_ok(replica(2, R"([{"key":"only-here","operator":"Exists"}])"));
    EXPECT_EQ(SharedVector<Toleration>::interned_blocks(), before + 1);
  }
  EXPECT_EQ(SharedVector<Toleration>::interned_blocks(), before);
}

TEST(SharedVector, ConcurrentDecodeCopyAndReleaseKeepCountsRight) {
  auto before = SharedVector<Toleration>::interned_blocks();
  std::atomic<int> wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      std::vector<Pod> keep;
      for (int i = 0; i < 300; ++i) {
        auto j = replica(i, R"([{"key":"k)" + std::to_string(i % 7) + R"(","operator":"Exists"}])");
        Pod p = decode_ok(j);
        Pod c = p;
        c.spec.tolerations.push_back(Toleration{});
        if (p.spec.tolerations.size() != 1 || c.spec.tolerations.size() != 2) ++wrong;
        if (i % 3 == t % 3) keep.push_back(std::move(p));
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(SharedVector<Toleration>::interned_blocks(), before);
}
