// A small Prometheus registry (component-base/metrics in upstream): counters, gauges and
// histograms with labels, exposed in the text format 0.0.4 with upstream's stability tags. Any
// component registers its metric set into one Registry and serves expose() at /metrics.
//
// Children (one label-value combination) are created once and live as long as the registry, so
// hot paths may keep the reference returned by with(). Updates are lock-free atomics.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::metrics {

enum class Stability { Alpha, Beta, Stable };

std::vector<double> exponential_buckets(double start, double factor, int count);

class Metric {
 public:
  Metric(std::string name, std::string help, Stability st, std::vector<std::string> label_names)
      : name_(std::move(name)), help_(std::move(help)), stability_(st), label_names_(std::move(label_names)) {}
  virtual ~Metric() = default;
  const std::string& name() const { return name_; }
  virtual void write(std::string& out) const = 0;

 protected:
  void write_header(std::string& out, std::string_view type) const;
  // {a="x",b="y"} plus an optional extra pair (le for buckets); "" when there are no labels.
  std::string label_text(const std::vector<std::string>& values, std::string_view extra_key = {},
                         std::string_view extra_value = {}) const;

  std::string name_, help_;
  Stability stability_;
  std::vector<std::string> label_names_;
};

// Base for metric families: label values -> child, created on first use.
template <class Child>
class Family : public Metric {
 public:
  using Metric::Metric;
  Child& with(const std::vector<std::string>& values) {
    std::lock_guard l(mu_);
    auto& slot = children_[values];
    if (!slot) slot = make_child();
    return *slot;
  }
  // Looks the child up without building the key: this runs several times per scheduling cycle.
  Child& with(std::initializer_list<std::string_view> values) {
    std::lock_guard l(mu_);
    if (auto it = children_.find(values); it != children_.end()) return *it->second;
    auto& slot = children_[std::vector<std::string>(values.begin(), values.end())];
    slot = make_child();
    return *slot;
  }
  // No labels.
  Child& get() { return with(std::vector<std::string>{}); }

 protected:
  virtual std::unique_ptr<Child> make_child() const = 0;
  mutable std::mutex mu_;
  // Ordered as std::vector<std::string>'s operator<, and comparable with any sequence of strings.
  struct LabelsLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                          [](std::string_view x, std::string_view y) { return x < y; });
    }
  };
  std::map<std::vector<std::string>, std::unique_ptr<Child>, LabelsLess> children_;
};

// A lock-free front for Family::with() on hot paths whose label values are views of storage
// that outlives the cache (plugin and profile names, string literals). A hit compares the
// values' addresses and sizes: a few loads, no lock, no string compare. The first use of a
// combination takes the family's lock; when every slot is taken, lookups fall back to with().
template <class Child, std::size_t Labels, std::size_t Slots = 256>
class ChildCache {
 public:
  explicit ChildCache(Family<Child>& family) : family_(family) {}
  ChildCache(const ChildCache&) = delete;
  ChildCache& operator=(const ChildCache&) = delete;

  Child& with(const std::array<std::string_view, Labels>& values) {
    const std::size_t h = hash(values);
    for (std::size_t probe = 0; probe < Slots; ++probe) {
      Slot& s = slots_[(h + probe) % Slots];
      Child* child = s.child.load(std::memory_order_acquire);
      if (!child) return insert(values, h);
      if (s.matches(values)) return *child;
    }
    return lookup(values);
  }

 private:
  struct Slot {
    std::array<const char*, Labels> data{};
    std::array<std::size_t, Labels> size{};
    std::atomic<Child*> child{nullptr};  // published after data and size
    bool matches(const std::array<std::string_view, Labels>& v) const {
      for (std::size_t i = 0; i < Labels; ++i) {
        if (data[i] != v[i].data() || size[i] != v[i].size()) return false;
      }
      return true;
    }
  };

  static std::size_t hash(const std::array<std::string_view, Labels>& values) {
    std::size_t h = 0;
    for (const auto& v : values) h = h * 31 + (reinterpret_cast<std::uintptr_t>(v.data()) >> 3) + v.size();
    return h;
  }

  Child& lookup(const std::array<std::string_view, Labels>& values) {
    std::vector<std::string> key(values.begin(), values.end());
    return family_.with(key);
  }

  Child& insert(const std::array<std::string_view, Labels>& values, std::size_t h) {
    std::lock_guard l(insert_mu_);
    for (std::size_t probe = 0; probe < Slots; ++probe) {
      Slot& s = slots_[(h + probe) % Slots];
      if (Child* child = s.child.load(std::memory_order_relaxed)) {
        if (s.matches(values)) return *child;  // another thread inserted it meanwhile
        continue;
      }
      Child& child = lookup(values);
      for (std::size_t i = 0; i < Labels; ++i) {
        s.data[i] = values[i].data();
        s.size[i] = values[i].size();
      }
      s.child.store(&child, std::memory_order_release);
      return child;
    }
    return lookup(values);
  }

  Family<Child>& family_;
  std::mutex insert_mu_;
  std::array<Slot, Slots> slots_;
};

class CounterChild {
 public:
  void inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  // For counters mirrored at scrape time from a monotonic total kept elsewhere.
  void set_total(double v) { value_.store(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class GaugeChild {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  void inc() { add(1); }
  void dec() { add(-1); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class HistogramChild {
 public:
  explicit HistogramChild(const std::vector<double>* bounds);
  void observe(double v);
  // Observations counted elsewhere in this histogram's buckets: non-cumulative counts, one per
  // bound; `count` includes those above the last bound.
  void add(std::span<const std::uint64_t> buckets, std::uint64_t count, double sum);
  std::uint64_t count() const;
  double sum() const;
  // Non-cumulative count of bucket i (upper bound bounds[i]).
  std::uint64_t bucket(std::size_t i) const;

 private:
  // A plugin's Filter is timed on every core at once during a sampled cycle: one set of counters
  // would bounce between the cores on every call. Each thread writes the shard its number picks;
  // reads sum the shards.
  static constexpr std::size_t kShards = 4;
  struct alignas(64) Shard {
    std::unique_ptr<std::atomic<std::uint64_t>[]> counts;
    std::atomic<std::uint64_t> count{0};
    std::atomic<double> sum{0};
  };
  const std::vector<double>* bounds_;
  std::array<Shard, kShards> shards_;
};

class Counter final : public Family<CounterChild> {
 public:
  using Family::Family;
  void write(std::string& out) const override;

 protected:
  std::unique_ptr<CounterChild> make_child() const override { return std::make_unique<CounterChild>(); }
};

class Gauge final : public Family<GaugeChild> {
 public:
  using Family::Family;
  void write(std::string& out) const override;

 protected:
  std::unique_ptr<GaugeChild> make_child() const override { return std::make_unique<GaugeChild>(); }
};

class Histogram final : public Family<HistogramChild> {
 public:
  Histogram(std::string name, std::string help, Stability st, std::vector<std::string> label_names,
            std::vector<double> buckets)
      : Family(std::move(name), std::move(help), st, std::move(label_names)), bounds_(std::move(buckets)) {}
  void write(std::string& out) const override;
  const std::vector<double>& bounds() const { return bounds_; }

 protected:
  std::unique_ptr<HistogramChild> make_child() const override { return std::make_unique<HistogramChild>(&bounds_); }

 private:
  std::vector<double> bounds_;
};

// Owns metrics; exposition in registration order.
class Registry {
 public:
  Counter& counter(std::string name, std::string help, Stability st, std::vector<std::string> labels = {});
  Gauge& gauge(std::string name, std::string help, Stability st, std::vector<std::string> labels = {});
  Histogram& histogram(std::string name, std::string help, Stability st, std::vector<std::string> labels,
                       std::vector<double> buckets);
  // Prometheus text format (version 0.0.4). Runs the collectors first.
  std::string expose() const;
  // A collector refreshes metrics whose values live elsewhere (e.g. per-thread counters) just
  // before each exposition. Remove it before whatever it reads goes away.
  int add_collector(std::function<void()> fn);
  void remove_collector(int id);

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Metric>> metrics_;
  mutable std::mutex collectors_mu_;
  std::map<int, std::function<void()>> collectors_;
  int next_collector_ = 1;
};

inline double seconds_since(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point now) {
  return std::chrono::duration<double>(now - start).count();
}

}  // namespace ksched::metrics
