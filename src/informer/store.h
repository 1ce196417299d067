// ThreadSafeStore with indexers (client-go's cache.Indexer / threadSafeMap): key -> object, plus
// named index functions obj -> values and their inverted indices value -> keys, kept up to date on
// every write. A "namespace" index is built in.
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
  return {obj.metadata.namespace_};
}

// Transparent hashing, so string_view keys find std::string keys without building a string.
struct StringKeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
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
      for (const auto& [key, obj] : items_)
        for (auto& v : fn(*obj)) idx[v].insert(std::string_view(key));
    }
  }

  void add(const Ptr<T>& obj) { update(obj); }
  void update(const Ptr<T>& obj) { (void)replace_key(meta_namespace_key(*obj), obj); }
  // Stores obj under key and returns the previous object (nullptr if none): one lookup for the
  // informer's "exists ? update : add" decision.
  Ptr<T> replace_key(const std::string& key, const Ptr<T>& obj) {
    std::unique_lock l(mu_);
    auto [it, inserted] = items_.try_emplace(key, obj);
    const std::string& stored_key = it->first;  // what the indices point into
    if (inserted) {
      add_to_indices(stored_key, *obj);
      return nullptr;
    }
    Ptr<T> old = std::move(it->second);
    it->second = obj;
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
        vi->second.erase(std::string_view(key));
        if (vi->second.empty()) idx.erase(vi);
      }
      for (auto& v : after) idx[std::move(v)].insert(std::string_view(stored_key));
    }
    return old;
  }
  void remove(const std::string& key) {
    std::unique_lock l(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return;
    remove_from_indices(key, *it->second);
    items_.erase(it);
  }
  void replace(std::vector<Ptr<T>> objs) {
    std::unique_lock l(mu_);
    indices_.clear();  // first: they view items_' keys
    items_.clear();
    for (auto& o : objs) {
      auto key = meta_namespace_key(*o);
      items_[key] = std::move(o);
    }
    for (const auto& [key, obj] : items_) add_to_indices(key, *obj);
  }

  Ptr<T> get_by_key(const std::string& key) const override {
    std::shared_lock l(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second;
  }
  std::vector<std::string> list_keys() const override {
    std::shared_lock l(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [k, _] : items_) out.push_back(k);
    return out;
  }
  std::vector<Ptr<T>> list() const {
    std::shared_lock l(mu_);
    std::vector<Ptr<T>> out;
    out.reserve(items_.size());
    for (const auto& [_, o] : items_) out.push_back(o);
    return out;
  }
  std::size_t size() const {
    std::shared_lock l(mu_);
    return items_.size();
  }
  // Objects whose index `name` has value `value`.
  std::vector<Ptr<T>> by_index(const std::string& name, const std::string& value) const {
    std::shared_lock l(mu_);
    if (!indexers_.count(name)) throw std::invalid_argument("Index with name " + name + " does not exist");
    std::vector<Ptr<T>> out;
    auto idx = indices_.find(name);
    if (idx == indices_.end()) return out;
    auto set = idx->second.find(value);
    if (set == idx->second.end()) return out;
    out.reserve(set->second.size());
    for (const auto& k : set->second) out.push_back(items_.find(k)->second);
    return out;
  }
  std::vector<std::string> index_keys(const std::string& name, const std::string& value) const {
    std::shared_lock l(mu_);
    if (!indexers_.count(name)) throw std::invalid_argument("Index with name " + name + " does not exist");
    std::vector<std::string> out;
    auto idx = indices_.find(name);
    if (idx == indices_.end()) return out;
    auto set = idx->second.find(value);
    if (set != idx->second.end())
      for (const auto& k : set->second) out.emplace_back(k);
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
  void add_to_indices(const std::string& key, const T& obj) {
    for (const auto& [name, fn] : indexers_) {
      auto& idx = indices_[name];
      for (auto& v : fn(obj)) idx[std::move(v)].insert(std::string_view(key));
    }
  }
  void remove_from_indices(const std::string& key, const T& obj) {
    for (const auto& [name, fn] : indexers_) {
      auto& idx = indices_[name];
      for (const auto& v : fn(obj)) {
        auto it = idx.find(v);
        if (it == idx.end()) continue;
        it->second.erase(std::string_view(key));
        if (it->second.empty()) idx.erase(it);
      }
    }
  }

  mutable std::shared_mutex mu_;
  // Node-based: a key's address is stable until its item is erased.
  std::unordered_map<std::string, Ptr<T>, StringKeyHash, std::equal_to<>> items_;
  std::map<std::string, IndexFunc<T>> indexers_;
  // index name -> value -> keys. The keys are views of items_' own keys (a cached pod would
  // otherwise hold its "namespace/name" once more per index): every path that erases an item
  // removes it from the indices first, and add_to_indices is only ever given items_' keys.
  std::unordered_map<std::string, std::unordered_map<std::string, std::unordered_set<std::string_view>>> indices_;
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
