// Lockstep checks for plugins that keep state across cycles: a real cache driven through random
// pod and node changes (RandomCluster), and one cycle's decisions by a plugin (decide_cycle), to
// compare a long-lived plugin against a fresh instance every cycle.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "scheduler/cache/cache.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::testing {

// Everything a plugin decided for a pod in one cycle.
struct CycleDecision {
  fw::Code pre_filter = fw::Code::Success;
  std::map<std::string, std::pair<fw::Code, std::string>> filter;
  fw::Code pre_score = fw::Code::Success;
  std::map<std::string, std::int64_t> raw_scores, scores;
  bool operator==(const CycleDecision&) const = default;

  std::string describe() const {
    std::string s = "pre_filter=" + std::to_string(static_cast<int>(pre_filter)) + " filter{";
    for (const auto& [n, st] : filter) s += n + ":" + std::to_string(static_cast<int>(st.first)) + " ";
    s += "} pre_score=" + std::to_string(static_cast<int>(pre_score)) + " raw{";
    for (const auto& [n, v] : raw_scores) s += n + ":" + std::to_string(v) + " ";
    return s + "}";
  }
};

// PreScore, Score and NormalizeScore over every other node (the candidates' domains are then a
// subset of the cluster's); PreFilter, then Filter on every node. `nominated` (optional) is added
// through the PreFilter extension to the state the first node is filtered with, as preemption does.
template <class Plugin>
CycleDecision decide_cycle(Plugin& plugin, const FakeSnapshot& snap, const api::Pod& pod,
                           const fw::PodInfoPtr& nominated) {
  CycleDecision d;
  const auto& nodes = snap.list();
  std::vector<fw::NodeInfoPtr> candidates;
  for (std::size_t i = 0; i < nodes.size(); i += 2) candidates.push_back(nodes[i]);
  fw::CycleState score_state;
  d.pre_score = plugin.pre_score(score_state, pod, candidates).code();
  if (d.pre_score == fw::Code::Success) {
    fw::NodeScoreList list;
    for (const auto& ni : candidates) {
      std::int64_t s = 0;
      EXPECT_TRUE(plugin.score(score_state, pod, *ni, s).is_success());
      list.push_back({ni->name(), s});
      d.raw_scores[std::string(ni->name())] = s;
    }
    EXPECT_TRUE(plugin.normalize_score(score_state, pod, list).is_success());
    for (const auto& n : list) d.scores[std::string(n.name)] = n.score;
  }
  fw::CycleState state;
  fw::PreFilterResult res;
  d.pre_filter = plugin.pre_filter(state, pod, nodes, res).code();
  if (d.pre_filter != fw::Code::Success) return d;
  std::unique_ptr<fw::CycleState> extended;
  if (nominated && !nodes.empty()) {
    extended = state.clone();
    EXPECT_TRUE(plugin.add_pod(*extended, pod, nominated, *nodes.front()).is_success());
  }
  for (const auto& ni : nodes) {
    const fw::CycleState& use = extended && ni == nodes.front() ? *extended : state;
    auto st = plugin.filter(use, pod, *ni);
    d.filter[std::string(ni->name())] = {st.code(), st.message()};
  }
  return d;
}

// A real cache and the snapshot it updates, with nodes n0..n{count-1} from `make_node(i)` and
// random changes: pods added (some only assumed) and removed, nodes replaced by a fresh
// `make_node(i)` (new labels or taints: the snapshot then forgets its history).
class RandomCluster {
 public:
  using NodeMaker = std::function<fw::NodePtr(int)>;
  using PodMaker = std::function<api::Pod(const std::string& name)>;

  RandomCluster(std::mt19937& rng, int count, NodeMaker make_node, PodMaker make_pod)
      : rng_(rng), make_node_(std::move(make_node)), make_pod_(std::move(make_pod)),
        snap_(std::make_shared<FakeSnapshot>()) {
    for (int i = 0; i < count; ++i) {
      nodes_.push_back(make_node_(i));
      cache_.add_node(nodes_.back());
    }
  }

  std::shared_ptr<FakeSnapshot> snapshot() const { return snap_; }

  // One random change: 60 % a pod added, 30 % one removed, 10 % a node replaced.
  void mutate() {
    const auto r = rng_() % 10;
    if (r < 6) {
      auto pod = make_pod_("p" + std::to_string(next_pod_++));
      pod.spec.nodeName = "n" + std::to_string(rng_() % nodes_.size());
      auto ptr = std::make_shared<const api::Pod>(std::move(pod));
      // Assumed pods count like bound ones; some stay assumed, the rest are confirmed.
      ASSERT_TRUE((rng_() % 3 == 0 ? cache_.assume_pod(ptr) : cache_.add_pod(ptr)).ok());
      pods_.push_back(ptr);
    } else if (r < 9) {
      if (pods_.empty()) return;
      const std::size_t i = rng_() % pods_.size();
      ASSERT_TRUE((cache_.is_assumed_pod(*pods_[i]) ? cache_.forget_pod(*pods_[i]) : cache_.remove_pod(*pods_[i])).ok());
      pods_.erase(pods_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const std::size_t i = rng_() % nodes_.size();
      auto fresh = make_node_(static_cast<int>(i));
      cache_.update_node(nodes_[i], fresh);
      nodes_[i] = fresh;
    }
  }

  // Between two cycles: usually up to three changes and one snapshot update, and one time in
  // twenty 70 updates, more than the snapshot remembers (every count must then be made again).
  void advance() {
    const int updates = rng_() % 20 == 0 ? 70 : 1;
    for (int u = 0; u < updates; ++u) {
      const int changes = static_cast<int>(rng_() % 4);
      for (int c = 0; c < changes; ++c) ASSERT_NO_FATAL_FAILURE(mutate());
      ASSERT_TRUE(cache_.update_snapshot(snap_->raw()).ok());
    }
  }

  void update_snapshot() { ASSERT_TRUE(cache_.update_snapshot(snap_->raw()).ok()); }

 private:
  std::mt19937& rng_;
  NodeMaker make_node_;
  PodMaker make_pod_;
  cache::Cache cache_;
  std::shared_ptr<FakeSnapshot> snap_;
  std::vector<fw::NodePtr> nodes_;
  std::vector<fw::PodPtr> pods_;
  int next_pod_ = 0;
};

}  // namespace ksched::scheduler::testing
