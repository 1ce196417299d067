#include "scheduler/batch.h"

#include <algorithm>
#include <functional>

namespace ksched::scheduler {

using framework::Status;

std::uint64_t tie_break_rank(std::string_view node_name, std::uint64_t key) {
  return tie_break_rank_of_hash(std::hash<std::string_view>{}(node_name), key);
}

std::uint64_t tie_break_rank_of_hash(std::uint64_t name_hash, std::uint64_t key) {
  // splitmix64's finalizer over the name's hash and the key.
  std::uint64_t z = name_hash ^ key;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

const char* OpportunisticBatch::flush_reason(Flush f) {
  switch (f) {
    case Flush::Incompatible: return "pod_incompatible";
    case Flush::PodFailed: return "pod_failed";
    case Flush::Expired: return "expired";
    case Flush::ClusterChanged: return "cluster_changed";
    case Flush::EmptyList: return "empty_list";
    case Flush::LimitReached: return "limit_reached";
    case Flush::NotBatchable: return "pod_not_batchable";
  }
  return "unknown";
}

std::uint64_t OpportunisticBatch::affinity_fingerprint(const framework::NodeInfo& ni) {
  std::uint64_t fp = 0;
  for (const auto& p : ni.podsWithAffinity) fp ^= std::hash<const void*>{}(p.get()) * 0x9e3779b97f4a7c15ULL + 1;
  return fp;
}

void OpportunisticBatch::note_snapshot_delta(const cache::Snapshot::Delta& delta) {
  if (!active_) return;
  if (delta.structural) structural_ = true;
  dirty_.insert(dirty_.end(), delta.updated.begin(), delta.updated.end());
}

bool OpportunisticBatch::usable(const framework::Framework* fwk, const std::string& signature,
                                std::chrono::steady_clock::time_point now, std::optional<Flush>& flushed) {
  if (!active_) return false;
  if (fwk != fwk_ || signature != signature_) {
    drop(Flush::Incompatible, flushed);
  } else if (now - created_ > kMaxAge) {
    drop(Flush::Expired, flushed);
  } else if (!complete_ && used_ >= limit_) {
    drop(Flush::LimitReached, flushed);
  } else if (structural_) {
    drop(Flush::ClusterChanged, flushed);
  }
  return active_;
}

void OpportunisticBatch::start(const framework::Framework* fwk, std::string signature,
                               std::vector<framework::NodeInfoPtr> nodes, framework::RawScores raw, bool complete,
                               std::chrono::steady_clock::time_point now, const framework::NodeInfoLister& snapshot) {
  active_ = true;
  fwk_ = fwk;
  signature_ = std::move(signature);
  nodes_ = std::move(nodes);
  raw_ = std::move(raw);
  complete_ = complete;
  limit_ = nodes_.size();
  used_ = 0;
  created_ = now;
  structural_ = false;
  dirty_.clear();
  snapshot_ = &snapshot;
  // Filled on first use: a batch that serves no pod (the next one has another signature) should
  // cost next to nothing.
  name_hashes_.assign(nodes_.size(), 0);
  affinity_.clear();
  for (const auto& ni : snapshot.have_pods_with_affinity_list()) affinity_.emplace(ni.get(), affinity_fingerprint(*ni));
}

std::string OpportunisticBatch::place(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                                      std::uint64_t tie_key, std::optional<Flush>& flushed, Status& err) {
  auto fail = [&](Status s) {
    err = std::move(s);
    drop(Flush::PodFailed, flushed);
    return std::string();
  };
  std::sort(dirty_.begin(), dirty_.end());
  dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());

  // A changed node whose pods with (anti-)affinity changed may change the verdicts and scores of
  // every node in its topology domains, not only its own.
  for (const auto* d : dirty_) {
    auto it = affinity_.find(d);
    if (affinity_fingerprint(*d) != (it == affinity_.end() ? 0 : it->second)) {
      drop(Flush::ClusterChanged, flushed);
      return {};
    }
  }

  std::vector<framework::NodeInfoPtr> rescore;
  std::vector<std::size_t> rescore_cols;
  std::vector<std::size_t> removed;
  for (const auto* d : dirty_) {
    // A few changed nodes per pod: a scan is cheaper than keeping an index of every node.
    const auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const auto& n) { return n.get() == d; });
    const bool listed = it != nodes_.end();
    framework::NodeInfoPtr ni;
    if (listed) {
      ni = *it;
    } else if (complete_ && snapshot_) {
      // Infeasible before: it may fit now.
      ni = snapshot_->get(d->name_view());
      if (!ni || ni.get() != d) continue;
    } else {
      continue;  // outside the sample
    }
    Status s = fwk.run_filter_plugins_with_nominated_pods(state, pod, *ni);
    if (s.is_error()) return fail(std::move(s));
    if (!s.is_success()) {
      if (listed) removed.push_back(static_cast<std::size_t>(it - nodes_.begin()));
      continue;
    }
    std::size_t col;
    if (listed) {
      col = static_cast<std::size_t>(it - nodes_.begin());
    } else {
      col = nodes_.size();
      name_hashes_.push_back(0);
      nodes_.push_back(ni);
      for (auto& row : raw_.rows) row.push_back(0);
    }
    rescore.push_back(std::move(ni));
    rescore_cols.push_back(col);
  }
  dirty_.clear();

  // PreScore runs for every pod: NormalizeScore below may read what it wrote in the cycle state.
  {
    Status s = fwk.run_pre_score_plugins(state, pod, rescore.empty() ? std::vector{nodes_.front()} : rescore);
    if (!s.is_success()) return fail(std::move(s));
    if (fwk.active_score_plugins(state) != raw_.plugins) {
      drop(Flush::Incompatible, flushed);
      return {};
    }
  }
  if (!rescore.empty()) {
    framework::RawScores fresh;
    fresh.plugins = raw_.plugins;
    fresh.rows.assign(raw_.plugins.size(), std::vector<std::int64_t>(rescore.size()));
    Status s = fwk.run_score_plugins_raw(state, pod, rescore, fresh, 0);
    if (!s.is_success()) return fail(std::move(s));
    for (std::size_t k = 0; k < fresh.rows.size(); ++k) {
      for (std::size_t i = 0; i < rescore_cols.size(); ++i) raw_.rows[k][rescore_cols[i]] = fresh.rows[k][i];
    }
  }

  // Highest column first, so that the last column moved into a freed slot is never one still to
  // be removed.
  std::sort(removed.begin(), removed.end(), std::greater<>());
  for (std::size_t col : removed) {
    const std::size_t last = nodes_.size() - 1;
    if (col != last) {
      nodes_[col] = std::move(nodes_[last]);
      name_hashes_[col] = name_hashes_[last];
      for (auto& row : raw_.rows) row[col] = row[last];
    }
    nodes_.pop_back();
    name_hashes_.pop_back();
    for (auto& row : raw_.rows) row.pop_back();
  }
  if (nodes_.empty()) {
    drop(Flush::EmptyList, flushed);
    return {};
  }

  if (Status s = fwk.weigh_raw_scores(state, pod, nodes_, raw_, totals_); !s.is_success()) return fail(std::move(s));
  const std::size_t best = best_node(
      nodes_.size(), [&](std::size_t i) { return totals_[i]; },
      [&](std::size_t i) {
        if (name_hashes_[i] == 0) name_hashes_[i] = nodes_[i]->name_hash();
        return tie_break_rank_of_hash(name_hashes_[i], tie_key);
      });
  ++used_;
  return std::string(nodes_[best]->name_view());
}

}  // namespace ksched::scheduler
