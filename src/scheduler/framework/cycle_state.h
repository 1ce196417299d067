// CycleState: per-scheduling-cycle data written by PreFilter/PreScore and read by Filter/Score.
// Writes happen on the scheduling thread only (PreFilter, PreScore, Reserve) or on a clone
// (preemption dry runs, nominated-pod passes); Filter/Score read concurrently without locks.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace ksched::scheduler::framework {

class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::shared_ptr<StateData> clone() const = 0;
  // False for data that only PreFilter..Permit read: it is dropped before the binding cycle, so
  // that the pod's binding does not keep it (and what it shares with caches) alive.
  virtual bool read_after_scheduling() const { return true; }
};

class CycleState {
 public:
  // Returns nullptr when absent (or of another type). Filter/Score read per node, so this is a
  // linear scan of a handful of entries (length and last eight bytes first: keys mostly share
  // their "PreFilter" prefix) and, when the stored object's dynamic type is exactly T, a
  // type_info comparison instead of a dynamic_cast.
  template <class T>
  T* read(std::string_view key) const {
    const std::uint64_t tail = key_tail(key);
    for (const auto& e : data_) {
      if (e.key.size() != key.size() || e.tail != tail || !same_text(e.key.data(), key.data(), key.size())) continue;
      if (!e.value) return nullptr;
      if (*e.type == typeid(T)) return static_cast<T*>(e.value.get());
      return dynamic_cast<T*>(e.value.get());
    }
    return nullptr;
  }
  void write(std::string_view key, std::shared_ptr<StateData> value) {
    const std::type_info* t = value ? &typeid(*value) : &typeid(void);
    for (auto& e : data_) {
      if (e.key == key) {
        e.value = std::move(value);
        e.type = t;
        return;
      }
    }
    data_.push_back(Entry{std::string(key), key_tail(key), std::move(value), t});
  }
  void erase(std::string_view key) {
    std::erase_if(data_, [&](const Entry& e) { return e.key == key; });
  }
  // Drops the data no extension point after Permit reads (StateData::read_after_scheduling), and
  // the skip sets Filter and Score read. Done on the scheduling thread, which made them: freed by
  // the binding thread, they cost an allocator hand-back between threads per pod.
  void drop_scheduling_only() {
    std::erase_if(data_, [](const Entry& e) { return e.value && !e.value->read_after_scheduling(); });
    skip_filter_plugins.clear();
    skip_score_plugins.clear();
    run_filters = {};
    run_filters_skip_size = SIZE_MAX;
  }

  // Deep copy: every StateData is cloned (used before AddPod/RemovePod on hypothetical states).
  std::unique_ptr<CycleState> clone() const {
    auto c = std::make_unique<CycleState>();
    c->data_.reserve(data_.size());
    for (const auto& e : data_) {
      auto v = e.value ? e.value->clone() : nullptr;
      const std::type_info* t = v ? &typeid(*v) : &typeid(void);
      c->data_.push_back(Entry{e.key, e.tail, std::move(v), t});
    }
    c->skip_filter_plugins = skip_filter_plugins;
    c->skip_score_plugins = skip_score_plugins;
    c->skip_pre_bind_plugins = skip_pre_bind_plugins;
    c->record_plugin_metrics = record_plugin_metrics;
    c->run_filters = run_filters;
    c->run_filters_skip_size = run_filters_skip_size;
    return c;
  }

  std::set<std::string, std::less<>> skip_filter_plugins;  // PreFilter returned Skip
  std::set<std::string, std::less<>> skip_score_plugins;   // PreScore returned Skip
  // Bit i: the i-th PreBind plugin's PreBindPreFlight returned Skip, so its PreBind is not run
  // (upstream SkipPreBindPlugins; a mask, not a set of names, so the binding cycle allocates none).
  std::uint64_t skip_pre_bind_plugins = 0;
  bool record_plugin_metrics = false;
  // Framework-internal: the positions (in run order) of the Filter plugins not skipped, derived
  // from skip_filter_plugins when PreFilter wrote it, so that a node visit walks only the plugins
  // that run (five of twelve in a default profile), with no string-set lookup. Used only while
  // skip_filter_plugins still has run_filters_skip_size entries.
  std::vector<std::uint16_t> run_filters;
  std::size_t run_filters_skip_size = SIZE_MAX;

 private:
  static std::uint64_t key_tail(std::string_view key) {
    std::uint64_t t = 0;
    const std::size_t n = std::min<std::size_t>(key.size(), sizeof t);
    if (n != 0) std::memcpy(&t, key.data() + key.size() - n, n);
    return t;
  }
  // Inline word compare: the library's memcmp is a call per read, and a read is per node per plugin.
  static bool same_text(const char* a, const char* b, std::size_t n) {
    for (; n >= 8; n -= 8, a += 8, b += 8) {
      std::uint64_t x, y;
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      if (x != y) return false;
    }
    for (; n != 0; --n) {
      if (*a++ != *b++) return false;
    }
    return true;
  }
  struct Entry {
    std::string key;
    std::uint64_t tail;  // key_tail(key)
    std::shared_ptr<StateData> value;
    const std::type_info* type;  // dynamic type of *value
  };
  std::vector<Entry> data_;  // a dozen entries at most (one or two per plugin)
};

}  // namespace ksched::scheduler::framework
