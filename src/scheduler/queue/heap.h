// Indexed binary heap keyed by string: O(log n) push/pop/update/erase by key, as the activeQ and
// backoffQ need (upstream pkg/scheduler/backend/heap). Not thread-safe; the queue locks around it.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ksched::scheduler::queue {

template <class T>
class KeyedHeap {
 public:
  using Less = std::function<bool(const T&, const T&)>;
  using KeyFn = std::function<std::string(const T&)>;

  KeyedHeap(KeyFn key, Less less) : key_(std::move(key)), less_(std::move(less)) {}

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  bool has(const std::string& key) const { return index_.count(key) != 0; }

  const T* get(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value;
  }

  // Inserts or replaces the item with the same key and restores heap order.
  void add_or_update(T item) {
    auto [it, inserted] = index_.try_emplace(key_(item), items_.size());
    if (!inserted) {
      const std::size_t i = it->second;
      items_[i].value = std::move(item);
      fix(i);
      return;
    }
    items_.push_back(Entry{std::move(item), &*it});
    up(items_.size() - 1);
  }

  // Re-establishes order after the item with `key` was mutated in place.
  void fix_key(const std::string& key) {
    auto it = index_.find(key);
    if (it != index_.end()) fix(it->second);
  }

  bool erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    remove_at(it->second);
    return true;
  }

  const T& top() const { return items_.front().value; }

  T pop() {
    T out = std::move(items_.front().value);
    remove_at(0);
    return out;
  }

  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& e : items_) fn(e.value);
  }

 private:
  void remove_at(std::size_t i) {
    const auto gone = index_.find(items_[i].slot->first);
    const std::size_t last = items_.size() - 1;
    if (i != last) {
      items_[i] = std::move(items_[last]);
      items_[i].slot->second = i;
    }
    items_.pop_back();
    index_.erase(gone);
    if (i != last) fix(i);
  }
  void fix(std::size_t i) {
    if (!up(i)) down(i);
  }
  // Positions are kept in the index entries the items point to: a swap writes two integers and
  // hashes no key.
  void swap_at(std::size_t a, std::size_t b) {
    std::swap(items_[a], items_[b]);
    items_[a].slot->second = a;
    items_[b].slot->second = b;
  }
  bool up(std::size_t i) {
    bool moved = false;
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!less_(items_[i].value, items_[parent].value)) break;
      swap_at(i, parent);
      i = parent;
      moved = true;
    }
    return moved;
  }
  void down(std::size_t i) {
    const std::size_t n = items_.size();
    for (;;) {
      std::size_t l = 2 * i + 1, r = l + 1, best = i;
      if (l < n && less_(items_[l].value, items_[best].value)) best = l;
      if (r < n && less_(items_[r].value, items_[best].value)) best = r;
      if (best == i) return;
      swap_at(i, best);
      i = best;
    }
  }

  // key -> position in items_. Its nodes do not move when it rehashes, so items can point at them;
  // the key lives there only.
  using Index = std::unordered_map<std::string, std::size_t>;
  struct Entry {
    T value;
    typename Index::value_type* slot;
  };
  KeyFn key_;
  Less less_;
  std::vector<Entry> items_;
  Index index_;
};

}  // namespace ksched::scheduler::queue
