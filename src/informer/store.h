// ThreadSafeStore with indexers (client-go's cache.Indexer / threadSafeMap): key -> object, plus
// named index functions obj -> values and their inverted indices value -> entries, kept up to date
// on every write. A "namespace" index is built in.
//
// Memory: an informer holds one entry per object of the cluster, so an entry is a single
// pointer-sized handle to the object in a hash-set node (32 bytes with the allocator's header), and
// the key ("namespace/name", client-go's MetaNamespaceKeyFunc) is not stored at all: it is the
// object's own metadata, which hashing and comparison read in place. Index sets hold the address
// of the entry (stable for a node-based set until the entry is erased), so an update replaces the
// object inside the entry and leaves every index whose value did not change untouched.
#pragma once
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "informer/object.h"

namespace ksched::informer {

inline constexpr const char* kNamespaceIndex = "namespace";

template <class T>
using IndexFunc = std::function<std::vector<std::string>(const T&)>;

template <class T>
std::vector<std::string> namespace_index_func(const T& obj) {
  return {std::string(obj.metadata.namespace_)};
}

// Transparent hashing, so string_view keys find std::string keys without building a string.
struct StringKeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// A store key split into its parts: "ns/name" or, cluster-scoped, "name" (neither part may
// contain '/', so the split is unambiguous).
struct ObjectKey {
  std::string_view ns;
  std::string_view name;
  static ObjectKey parse(std::string_view key) noexcept {
    auto slash = key.find('/');
    if (slash == std::string_view::npos) return {{}, key};
    // "/name" is not a key of any object (it would be namespaced with an empty namespace): a
    // namespace that contains '/' matches nothing.
    if (slash == 0) return {key, {}};
    return {key.substr(0, slash), key.substr(slash + 1)};
  }
  template <class T>
  static ObjectKey of(const T& obj) noexcept {
    return {std::string_view(obj.metadata.namespace_), std::string_view(obj.metadata.name)};
  }
  std::size_t hash() const noexcept {
    const std::size_t h = std::hash<std::string_view>{}(name);
    return ns.empty() ? h : h ^ (std::hash<std::string_view>{}(ns) * 0x9E3779B97F4A7C15ull);
  }
  bool operator==(const ObjectKey&) const = default;
};

// What DeltaFIFO needs to know about the cache it feeds (KnownObjects).
template <class T>
class KeyListerGetter {
 public:
  virtual ~KeyListerGetter() = default;
  virtual std::vector<std::string> list_keys() const = 0;
  virtual Ptr<T> get_by_key(const std::string& key) const = 0;
};

template <class T>
class Indexer : public KeyListerGetter<T> {
 public:
  Indexer() { indexers_[kNamespaceIndex] = namespace_index_func<T>; }

  // Adds index functions; allowed while the store is empty or later (indices are rebuilt).
  void add_indexers(const std::map<std::string, IndexFunc<T>>& fns) {
    std::unique_lock l(mu_);
    for (const auto& [name, fn] : fns) {
      if (indexers_.count(name)) throw std::invalid_argument("indexer conflict: " + name);
      indexers_[name] = fn;
      auto& idx = indices_[name];
      for (const auto& e : items_)
        for (auto& v : fn(*e.obj)) idx[v].insert(&e);
    }
  }

  void add(const Ptr<T>& obj) { update(obj); }
  void update(const Ptr<T>& obj) { (void)add_or_replace(obj); }
  // Stores obj under its key and returns the object it replaced (nullptr if none): one lookup
  // for the informer's "exists ? update : add" decision.
  Ptr<T> add_or_replace(const Ptr<T>& obj) {
    std::unique_lock l(mu_);
    auto [it, inserted] = items_.insert(Entry{obj});
    const Entry* entry = &*it;
    if (inserted) {
      add_to_indices(entry);
      return nullptr;
    }
    Ptr<T> old = std::move(it->obj);
    it->obj = obj;
    // Index values usually do not change on update: skip the churn. The built-in namespace index
    // cannot (the key holds the namespace), so its values are not even computed.
    for (const auto& [name, fn] : indexers_) {
      if (name == kNamespaceIndex) continue;
      auto before = fn(*old);
      auto after = fn(*obj);
      if (before == after) continue;
      auto& idx = indices_[name];
      for (const auto& v : before) {
        auto vi = idx.find(v);
        if (vi == idx.end()) continue;
        vi->second.erase(entry);
        if (vi->second.empty()) idx.erase(vi);
      }
      for (auto& v : after) idx[std::move(v)].insert(entry);
    }
    return old;
  }
  void remove(const std::string& key) {
    std::unique_lock l(mu_);
    auto it = items_.find(ObjectKey::parse(key));
    if (it == items_.end()) return;
    remove_from_indices(&*it);
    items_.erase(it);
  }
  void replace(std::vector<Ptr<T>> objs) {
    std::unique_lock l(mu_);
    indices_.clear();  // first: they point into items_
    items_.clear();
    for (auto& o : objs) {
      auto [it, inserted] = items_.insert(Entry{o});
      if (!inserted) it->obj = std::move(o);  // the later duplicate wins, as in a map
    }
    for (const auto& e : items_) add_to_indices(&e);
  }

  Ptr<T> get_by_key(const std::string& key) const override {
    std::shared_lock l(mu_);
    auto it = items_.find(ObjectKey::parse(key));
    return it == items_.end() ? nullptr : it->obj;
  }
  std::vector<std::string> list_keys() const override {
    std::shared_lock l(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& e : items_) out.push_back(meta_namespace_key(*e.obj));
    return out;
  }
  std::vector<Ptr<T>> list() const {
    std::shared_lock l(mu_);
    std::vector<Ptr<T>> out;
    out.reserve(items_.size());
    for (const auto& e : items_) out.push_back(e.obj);
    return out;
  }
  std::size_t size() const {
    std::shared_lock l(mu_);
    return items_.size();
  }
  // Objects whose index `name` has value `value`.
  std::vector<Ptr<T>> by_index(const std::string& name, const std::string& value) const {
    std::shared_lock l(mu_);
    std::vector<Ptr<T>> out;
    if (const auto* set = index_set(name, value)) {
      out.reserve(set->size());
      for (const Entry* e : *set) out.push_back(e->obj);
    }
    return out;
  }
  std::vector<std::string> index_keys(const std::string& name, const std::string& value) const {
    std::shared_lock l(mu_);
    std::vector<std::string> out;
    if (const auto* set = index_set(name, value)) {
      out.reserve(set->size());
      for (const Entry* e : *set) out.push_back(meta_namespace_key(*e->obj));
    }
    return out;
  }
  std::vector<std::string> list_index_func_values(const std::string& name) const {
    std::shared_lock l(mu_);
    std::vector<std::string> out;
    auto idx = indices_.find(name);
    if (idx != indices_.end())
      for (const auto& [v, _] : idx->second) out.push_back(v);
    return out;
  }

 private:
  // The object is replaced in place on update; its key, which hashing reads, never changes.
  struct Entry {
    mutable Ptr<T> obj;
  };
  struct EntryHash {
    using is_transparent = void;
    std::size_t operator()(const Entry& e) const noexcept { return ObjectKey::of(*e.obj).hash(); }
    std::size_t operator()(const ObjectKey& k) const noexcept { return k.hash(); }
  };
  struct EntryEqual {
    using is_transparent = void;
    bool operator()(const Entry& a, const Entry& b) const noexcept { return ObjectKey::of(*a.obj) == ObjectKey::of(*b.obj); }
    bool operator()(const ObjectKey& k, const Entry& e) const noexcept { return k == ObjectKey::of(*e.obj); }
    bool operator()(const Entry& e, const ObjectKey& k) const noexcept { return k == ObjectKey::of(*e.obj); }
  };
  using EntrySet = std::unordered_set<const Entry*>;

  const EntrySet* index_set(const std::string& name, const std::string& value) const {
    if (!indexers_.count(name)) throw std::invalid_argument("Index with name " + name + " does not exist");
    auto idx = indices_.find(name);
    if (idx == indices_.end()) return nullptr;
    auto set = idx->second.find(value);
    return set == idx->second.end() ? nullptr : &set->second;
  }
  void add_to_indices(const Entry* e) {
    for (const auto& [name, fn] : indexers_) {
      auto& idx = indices_[name];
      for (auto& v : fn(*e->obj)) idx[std::move(v)].insert(e);
    }
  }
  void remove_from_indices(const Entry* e) {
    for (const auto& [name, fn] : indexers_) {
      auto& idx = indices_[name];
      for (const auto& v : fn(*e->obj)) {
        auto it = idx.find(v);
        if (it == idx.end()) continue;
        it->second.erase(e);
        if (it->second.empty()) idx.erase(it);
      }
    }
  }

  mutable std::shared_mutex mu_;
  // Node-based: an entry's address is stable until it is erased, so the indices can hold it. The
  // hash is not cached in the node (EntryHash is noexcept): it is cheap to recompute from the
  // object's namespace and name, and caching it would cost 16 bytes per object.
  std::unordered_set<Entry, EntryHash, EntryEqual> items_;
  std::map<std::string, IndexFunc<T>> indexers_;
  // index name -> value -> entries: every path that erases an entry removes it from the indices
  // first.
  std::unordered_map<std::string, std::unordered_map<std::string, EntrySet, StringKeyHash, std::equal_to<>>> indices_;
};

// Lister<T>: read-only view over an Indexer (client-go's generated listers).
template <class T>
class Lister {
 public:
  explicit Lister(std::shared_ptr<const Indexer<T>> idx) : idx_(std::move(idx)) {}
  std::vector<Ptr<T>> list() const { return idx_->list(); }
  // Cluster-scoped get, or "ns/name" keys.
  Ptr<T> get(const std::string& name) const { return idx_->get_by_key(name); }
  Ptr<T> get(const std::string& ns, const std::string& name) const {
    return idx_->get_by_key(ns.empty() ? name : ns + "/" + name);
  }
  std::vector<Ptr<T>> list_namespace(const std::string& ns) const { return idx_->by_index(kNamespaceIndex, ns); }
  template <class Pred>
  std::vector<Ptr<T>> list_if(Pred pred) const {
    auto all = idx_->list();
    all.erase(std::remove_if(all.begin(), all.end(), [&](const Ptr<T>& p) { return !pred(*p); }), all.end());
    return all;
  }
  const Indexer<T>& indexer() const { return *idx_; }

 private:
  std::shared_ptr<const Indexer<T>> idx_;
};

}  // namespace ksched::informer
