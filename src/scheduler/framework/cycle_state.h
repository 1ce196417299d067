// CycleState: per-scheduling-cycle data written by PreFilter/PreScore and read by Filter/Score.
// Writes happen on the scheduling thread only (PreFilter, PreScore, Reserve) or on a clone
// (preemption dry runs, nominated-pod passes); Filter/Score read concurrently without locks.
#pragma once
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ksched::scheduler::framework {

class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::shared_ptr<StateData> clone() const = 0;
};

class CycleState {
 public:
  // Returns nullptr when absent.
  // Heterogeneous lookup: no std::string is built per call (Filter/Score read per node).
  template <class T>
  T* read(std::string_view key) const {
    auto it = data_.find(key);
    return it == data_.end() ? nullptr : dynamic_cast<T*>(it->second.get());
  }
  void write(std::string key, std::shared_ptr<StateData> value) { data_[std::move(key)] = std::move(value); }
  void erase(std::string_view key) { data_.erase(std::string(key)); }

  // Deep copy: every StateData is cloned (used before AddPod/RemovePod on hypothetical states).
  std::unique_ptr<CycleState> clone() const {
    auto c = std::make_unique<CycleState>();
    for (const auto& [k, v] : data_) c->data_[k] = v ? v->clone() : nullptr;
    c->skip_filter_plugins = skip_filter_plugins;
    c->skip_score_plugins = skip_score_plugins;
    c->record_plugin_metrics = record_plugin_metrics;
    c->skip_filter_mask = skip_filter_mask;
    c->skip_filter_mask_size = skip_filter_mask_size;
    return c;
  }

  std::set<std::string, std::less<>> skip_filter_plugins;  // PreFilter returned Skip
  std::set<std::string, std::less<>> skip_score_plugins;   // PreScore returned Skip
  bool record_plugin_metrics = false;
  // Framework-internal: skip flag per Filter plugin (in run order), derived from
  // skip_filter_plugins when PreFilter wrote it, so Filter avoids a string-set lookup per plugin
  // per node. Used only while skip_filter_plugins still has skip_filter_mask_size entries.
  std::vector<char> skip_filter_mask;
  std::size_t skip_filter_mask_size = 0;

 private:
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::shared_ptr<StateData>, KeyHash, std::equal_to<>> data_;
};

}  // namespace ksched::scheduler::framework
