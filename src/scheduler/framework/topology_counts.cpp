#include "scheduler/framework/topology_counts.h"

#include <algorithm>

namespace ksched::scheduler::framework {

// ---------------------------------------------------------------- TopologyCounts

std::uint32_t TopologyCounts::key_index(std::string_view key) {
  if (const std::uint32_t i = find_key(key); i != npos) return i;
  domains_.push_back(Domain{std::string(key), key == kLabelHostname, {}, {}, 0, 0});
  return static_cast<std::uint32_t>(domains_.size() - 1);
}

std::uint32_t TopologyCounts::find_key(std::string_view key) const {
  for (std::size_t i = 0; i < domains_.size(); ++i) {
    if (domains_[i].key == key) return static_cast<std::uint32_t>(i);
  }
  return npos;
}

const TopologyCounts::Slot* TopologyCounts::find(const Domain& d, std::string_view value, std::size_t hash) {
  if (d.slots.empty()) return nullptr;
  const std::size_t mask = d.slots.size() - 1;
  const std::uint32_t tag = tag_of(hash);
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint32_t t = d.tags[i];
    if (t == 0) return &d.slots[i];
    if (t != tag) continue;
    const Slot& s = d.slots[i];
    // A node's own label is often the one counted: same text, same address.
    if (s.size == value.size() && (s.data == value.data() || std::string_view(s.data, s.size) == value)) return &s;
  }
}

const TopologyCounts::Slot* TopologyCounts::find_for(const Domain& d, const NodeInfo& node) {
  if (d.hostname) {
    const std::string_view v = node.hostname_label();
    return v.data() == nullptr ? nullptr : find(d, v, node.hostname_label_hash());
  }
  const api::Node* n = node.node();
  const std::string* v = n == nullptr ? nullptr : n->metadata.labels.find(d.key);
  return v == nullptr ? nullptr : find(d, *v, std::hash<std::string_view>{}(*v));
}

void TopologyCounts::grow(Domain& d) {
  std::vector<Slot> old = std::move(d.slots);
  const std::size_t size = old.empty() ? 8 : old.size() * 2;
  d.slots.assign(size, Slot{});
  d.tags.assign(size, 0);
  const std::size_t mask = size - 1;
  for (const Slot& s : old) {
    if (s.data == nullptr) continue;
    const std::size_t hash = std::hash<std::string_view>{}(std::string_view(s.data, s.size));
    std::size_t i = hash & mask;
    while (d.tags[i] != 0) i = (i + 1) & mask;
    d.slots[i] = s;
    d.tags[i] = tag_of(hash);
  }
}

void TopologyCounts::track_positions(std::size_t nodes) { by_position_.assign(nodes, 0); }

void TopologyCounts::add_from(std::uint32_t key, std::string_view value, std::int64_t delta, const NodeInfo& from) {
  if (delta == 0) return;
  if (!by_position_.empty() && domains_[key].hostname) {
    // Only a count of the node's own hostname (hostnames being unique) is a count of its position.
    const std::string_view own = from.hostname_label();
    const std::uint32_t p = from.list_position();
    if (own.data() != nullptr && own == value && p < by_position_.size()) {
      by_position_[p] = static_cast<std::int32_t>(by_position_[p] + delta);
    } else {
      by_position_.clear();
    }
  }
  add_counted(key, value, delta);
}

void TopologyCounts::add(std::uint32_t key, std::string_view value, std::int64_t delta) {
  if (delta == 0) return;
  if (!by_position_.empty() && domains_[key].hostname) by_position_.clear();
  add_counted(key, value, delta);
}

void TopologyCounts::add_counted(std::uint32_t key, std::string_view value, std::int64_t delta) {
  Domain& d = domains_[key];
  // Keep at most half the slots used, so probes stay short and a free slot always ends them.
  if ((d.used + 1) * 2 > d.slots.size()) grow(d);
  const std::size_t hash = std::hash<std::string_view>{}(value);
  Slot& s = const_cast<Slot&>(*find(d, value, hash));
  if (s.data == nullptr) {
    // A label value may be empty; a view of it still has a non-null pointer into the label.
    s.data = value.data() != nullptr ? value.data() : "";
    s.size = static_cast<std::uint32_t>(value.size());
    d.tags[static_cast<std::size_t>(&s - d.slots.data())] = tag_of(hash);
    ++d.used;
  }
  const bool was_zero = s.count == 0;
  s.count = static_cast<std::int32_t>(s.count + delta);
  if (was_zero) {
    ++nonzero_;
    ++d.nonzero;
  } else if (s.count == 0) {
    --nonzero_;
    --d.nonzero;
  }
}

std::int64_t TopologyCounts::get(std::uint32_t key, std::string_view value) const {
  if (key == npos) return 0;
  const Slot* s = find(domains_[key], value, std::hash<std::string_view>{}(value));
  return s == nullptr ? 0 : s->count;
}

std::int64_t TopologyCounts::sum_for(const NodeInfo& node) const {
  std::int64_t sum = 0;
  for (const Domain& d : domains_) {
    if (d.used == 0) continue;
    if (const std::int32_t* c = position_count(d, node)) {
      sum += *c;
    } else if (const Slot* s = find_for(d, node)) {
      sum += s->count;
    }
  }
  return sum;
}

bool TopologyCounts::answers_by_position() const {
  if (by_position_.empty()) return false;
  for (const Domain& d : domains_) {
    if (!d.hostname && d.nonzero != 0) return false;
  }
  return true;
}

bool TopologyCounts::any_positive_for(const NodeInfo& node) const {
  for (const Domain& d : domains_) {
    if (d.used == 0) continue;
    if (const std::int32_t* c = position_count(d, node)) {
      if (*c > 0) return true;
      continue;
    }
    const Slot* s = find_for(d, node);
    if (s != nullptr && s->count > 0) return true;
  }
  return false;
}

// ---------------------------------------------------------------- TopologyCountsCache

std::shared_ptr<TopologyCounts> TopologyCountsCache::count_all(const std::vector<NodeInfoPtr>& nodes,
                                                              Parallelizer& parallelizer, const NodeFn& fn,
                                                              Entry* keep, std::size_t positions) {
  const int n = static_cast<int>(nodes.size());
  std::vector<std::vector<Contribution>> per_node(nodes.size());
  parallelizer.until(n, [&](int i) { fn(*nodes[i], per_node[i]); });
  auto counts = std::make_shared<TopologyCounts>();
  if (positions != 0) counts->track_positions(positions);
  if (keep != nullptr) {
    keep->rows.assign(nodes.size(), {});
    keep->where.clear();
    keep->where.reserve(nodes.size());
  }
  // Merged in list order, so the counts do not depend on the parallel schedule.
  for (std::size_t i = 0; i < per_node.size(); ++i) {
    for (const Contribution& c : per_node[i]) {
      const std::uint32_t k = counts->key_index(*c.key);
      counts->add_from(k, c.value, c.delta, *nodes[i]);
      if (keep != nullptr) keep->rows[i].push_back(Stored{k, c.value, c.delta});
    }
    if (keep != nullptr) keep->where.emplace_back(nodes[i].get(), static_cast<std::uint32_t>(i));
  }
  if (keep != nullptr) std::sort(keep->where.begin(), keep->where.end());
  return counts;
}

bool TopologyCountsCache::member(ListKind kind, const NodeInfo& ni) {
  switch (kind) {
    case ListKind::WithAffinity:
      return !ni.podsWithAffinity.empty();
    case ListKind::WithRequiredAntiAffinity:
      return !ni.podsWithRequiredAntiAffinity.empty();
    case ListKind::All:
      break;
  }
  return true;
}

void TopologyCountsCache::update(Entry& e, const std::vector<const NodeInfo*>& changed, const NodeFn& fn) {
  bool owned = false;
  for (const NodeInfo* ni : changed) {
    const bool in_list = member(e.kind, *ni);
    auto it = std::lower_bound(e.where.begin(), e.where.end(), std::make_pair(ni, std::uint32_t{0}));
    const bool counted = it != e.where.end() && it->first == ni;
    if (!counted && !in_list) continue;  // neither counted before nor now
    // A cycle that still holds the counts reads them: never change them under it.
    if (!owned && e.counts.use_count() > 1) e.counts = std::make_shared<TopologyCounts>(*e.counts);
    owned = true;
    TopologyCounts& counts = *e.counts;
    if (!counted) {
      // The node entered the list: give it a row.
      it = e.where.insert(it, {ni, static_cast<std::uint32_t>(e.rows.size())});
      e.rows.emplace_back();
    }
    auto& row = e.rows[it->second];
    for (const Stored& s : row) counts.add_from(s.key, s.value, -s.delta, *ni);
    row.clear();
    if (!in_list) continue;  // the node left the list: it no longer counts
    scratch_.clear();
    fn(*ni, scratch_);
    for (const Contribution& c : scratch_) {
      const std::uint32_t k = counts.key_index(*c.key);
      counts.add_from(k, c.value, c.delta, *ni);
      row.push_back(Stored{k, c.value, c.delta});
    }
  }
}

std::shared_ptr<const TopologyCounts> TopologyCountsCache::get(std::string_view key, const NodeInfoLister& lister,
                                                              const std::vector<NodeInfoPtr>& nodes,
                                                              Parallelizer& parallelizer, const NodeFn& fn) {
  NodeInfoLister::Version version = lister.version();
  ListKind kind = ListKind::All;
  if (&nodes == &lister.have_pods_with_affinity_list()) {
    kind = ListKind::WithAffinity;
  } else if (&nodes == &lister.have_pods_with_required_anti_affinity_list()) {
    kind = ListKind::WithRequiredAntiAffinity;
  } else if (&nodes != &lister.list()) {
    version.lister = 0;  // a list of the caller's: nothing to update it from
  }
  const std::size_t positions = lister.hostnames_by_position() ? lister.list().size() : 0;
  if (version.lister == 0) return count_all(nodes, parallelizer, fn, nullptr, positions);

  std::lock_guard l(mu_);
  ++clock_;
  Entry* e = nullptr;
  for (Entry& c : entries_) {
    if (c.key == key) {
      e = &c;
      break;
    }
  }
  if (e != nullptr && e->list == &nodes && e->kind == kind && lister.changed_since(e->version, changed_)) {
    update(*e, changed_, fn);
    e->version = version;
    e->last_used = clock_;
    ++updates_;
    return e->counts;
  }
  if (e == nullptr) {
    if (entries_.size() < capacity_) {
      e = &entries_.emplace_back();
    } else {
      e = &*std::min_element(entries_.begin(), entries_.end(),
                             [](const Entry& a, const Entry& b) { return a.last_used < b.last_used; });
    }
    e->key.assign(key);
  }
  e->counts = count_all(nodes, parallelizer, fn, e, positions);
  e->list = &nodes;
  e->kind = kind;
  e->version = version;
  e->last_used = clock_;
  ++recounts_;
  return e->counts;
}

}  // namespace ksched::scheduler::framework
