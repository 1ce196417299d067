// Pod counts per topology domain (topology key -> node label value -> count), as InterPodAffinity
// keeps them (upstream topologyToMatchedTermCount), and a cache that keeps such counts across
// scheduling cycles so that a cycle recounts only the nodes whose pods changed since the last one.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::framework {

// Label values are held as views of the nodes' label strings, not copies: a copy of the counts is
// then a flat copy, and a cycle's counts are read only while its snapshot's nodes are alive. Keys
// are owned (few per counts). A count that drops to zero reads as absent.
class TopologyCounts {
 public:
  static constexpr std::uint32_t npos = UINT32_MAX;
  // Index of a topology key, added when new; indexes stay valid for the counts' lifetime and in copies.
  std::uint32_t key_index(std::string_view key);
  // Index of a key already present, else npos.
  std::uint32_t find_key(std::string_view key) const;
  void add(std::uint32_t key, std::string_view value, std::int64_t delta);
  void add(std::string_view key, std::string_view value, std::int64_t delta) { add(key_index(key), value, delta); }

  // Also keeps the hostname domain's counts by node position, for counts made over the nodes of
  // a lister with hostnames_by_position() holding `nodes` nodes: a node's count is then read from
  // a flat array (20 KB at 5,000 nodes) instead of probing a table of thousands of hostnames.
  // Holds while every hostname count is added with add_from, naming the node whose own label the
  // value is; any other hostname count drops the array.
  void track_positions(std::size_t nodes);
  void add_from(std::uint32_t key, std::string_view value, std::int64_t delta, const NodeInfo& from);
  std::int64_t get(std::string_view key, std::string_view value) const { return get(find_key(key), value); }
  std::int64_t get(std::uint32_t key, std::string_view value) const;  // key may be npos
  // No non-zero count (upstream: the map is empty).
  bool empty() const { return nonzero_ == 0; }
  // Values with a non-zero count for the key (npos: 0).
  std::size_t size(std::uint32_t key) const { return key == npos ? 0 : domains_[key].nonzero; }
  // Calls fn(value, count) for each value with a non-zero count, in no particular order.
  template <class F>
  void for_each(std::uint32_t key, F&& fn) const {
    if (key == npos) return;
    for (const Slot& s : domains_[key].slots) {
      if (s.data != nullptr && s.count != 0) fn(std::string_view(s.data, s.size), std::int64_t{s.count});
    }
  }
  // Whether any_positive_at can answer for every node: positions are kept and only the hostname
  // domain holds counts.
  bool answers_by_position() const;
  // any_positive_for the node at `position` of the lister's list, when answers_by_position().
  bool any_positive_at(std::uint32_t position) const {
    return position < by_position_.size() && by_position_[position] > 0;
  }
  // Sum over keys of the count of the node's value for that key (a node lacking a key adds nothing).
  std::int64_t sum_for(const NodeInfo& node) const;
  // Whether any key has a positive count for the node's value.
  bool any_positive_for(const NodeInfo& node) const;

  // Counts held by a cycle and shared (with a TopologyCountsCache, or with the state they were
  // cloned from), made changeable: copied first unless `p` is their only holder. Counts are only
  // ever created non-const, so the sole holder may write them.
  static TopologyCounts& writable(std::shared_ptr<const TopologyCounts>& p) {
    if (p.use_count() != 1) p = std::make_shared<TopologyCounts>(*p);
    return const_cast<TopologyCounts&>(*p);
  }

 private:
  // A domain is an open-addressing table probed by `tags` (four bytes a slot: a table of
  // thousands of hostnames stays in cache while Filter probes it once per node) and confirmed in
  // `slots`. Counts are pod counts: 32 bits hold them.
  struct Slot {
    const char* data = nullptr;  // nullptr: free
    std::uint32_t size = 0;
    std::int32_t count = 0;
  };
  // A used slot's tag: the hash's upper half with the low bit set (0 marks a free slot).
  static std::uint32_t tag_of(std::size_t hash) { return static_cast<std::uint32_t>(hash >> 32) | 1u; }
  struct Domain {
    std::string key;
    bool hostname = false;  // key is kLabelHostname: the node's value is read from its NodeInfo
    std::vector<std::uint32_t> tags;  // linear probing, power-of-two size, parallel to slots
    std::vector<Slot> slots;
    std::size_t used = 0;
    std::size_t nonzero = 0;
  };
  static const Slot* find(const Domain& d, std::string_view value, std::size_t hash);
  // The slot of the node's value for the domain's key; nullptr when the node lacks the key or
  // the value has no slot.
  static const Slot* find_for(const Domain& d, const NodeInfo& node);
  static void grow(Domain& d);
  void add_counted(std::uint32_t key, std::string_view value, std::int64_t delta);  // the tables only
  // The hostname domain's count for the node, from by_position_; nullopt when not kept for it.
  const std::int32_t* position_count(const Domain& d, const NodeInfo& node) const {
    if (!d.hostname || by_position_.empty()) return nullptr;
    const std::uint32_t p = node.list_position();
    return p < by_position_.size() ? &by_position_[p] : nullptr;
  }
  std::vector<Domain> domains_;
  std::size_t nonzero_ = 0;
  std::vector<std::int32_t> by_position_;  // empty: not kept
};

// Counts summed over the nodes of one of a lister's lists, for one set of inputs named by a key
// string, kept across cycles. While the lister can say which nodes changed since the counts were
// made (NodeInfoLister::changed_since), only those nodes' contributions are recomputed; otherwise
// everything is. The caller's per-node function must depend only on the node, its pods and the
// inputs the key names.
class TopologyCountsCache {
 public:
  struct Contribution {
    const std::string* key;
    std::string_view value;  // a view of the node's own strings (a label value, its name)
    std::int64_t delta;
  };
  // Appends the node's contributions; called in parallel for different nodes.
  using NodeFn = std::function<void(const NodeInfo&, std::vector<Contribution>&)>;

  explicit TopologyCountsCache(std::size_t capacity = 4) : capacity_(capacity) {}

  // The counts over `nodes`, which must be a list of `lister` for the result to be kept; a list
  // of another origin is counted afresh every call. The result is immutable: copy it to change it.
  std::shared_ptr<const TopologyCounts> get(std::string_view key, const NodeInfoLister& lister,
                                            const std::vector<NodeInfoPtr>& nodes, Parallelizer& parallelizer,
                                            const NodeFn& fn);

  // Calls that found a kept result and updated it, and calls that counted every node.
  std::uint64_t updates() const { return updates_; }
  std::uint64_t recounts() const { return recounts_; }

 private:
  struct Stored {
    std::uint32_t key;
    std::string_view value;
    std::int64_t delta;
  };
  // Which of the lister's lists the counts are over, so that a changed node can be tested for
  // membership (a node enters or leaves the affinity lists with its pods).
  enum class ListKind { All, WithAffinity, WithRequiredAntiAffinity };
  static bool member(ListKind kind, const NodeInfo& ni);
  struct Entry {
    std::string key;
    NodeInfoLister::Version version;
    const std::vector<NodeInfoPtr>* list = nullptr;
    ListKind kind = ListKind::All;
    std::vector<std::vector<Stored>> rows;                          // per node counted, in first-seen order
    std::vector<std::pair<const NodeInfo*, std::uint32_t>> where;  // node -> row, sorted by NodeInfo
    std::shared_ptr<TopologyCounts> counts;
    std::uint64_t last_used = 0;
  };
  // positions: the lister's node count when it has hostnames_by_position, else 0.
  static std::shared_ptr<TopologyCounts> count_all(const std::vector<NodeInfoPtr>& nodes, Parallelizer& parallelizer,
                                                   const NodeFn& fn, Entry* keep, std::size_t positions);
  void update(Entry& e, const std::vector<const NodeInfo*>& changed, const NodeFn& fn);

  std::mutex mu_;
  std::size_t capacity_;
  std::vector<Entry> entries_;
  std::uint64_t clock_ = 0;
  std::vector<const NodeInfo*> changed_;
  std::vector<Contribution> scratch_;
  std::uint64_t updates_ = 0;
  std::uint64_t recounts_ = 0;
};

}  // namespace ksched::scheduler::framework
