#include "scheduler/framework/filter_durations.h"

#include <cmath>

namespace ksched::scheduler::framework {

FilterDurations::FilterDurations(const std::vector<double>& bounds, std::size_t plugins)
    : plugins_(plugins), cells_(plugins * kCodes * (bounds.size() + 2)) {
  bounds_ns_.reserve(bounds.size());
  for (double b : bounds) bounds_ns_.push_back(static_cast<std::int64_t>(std::floor(b * 1e9)));
  flushed_.assign(cells_.slots(), 0);
}

void FilterDurations::flush(const FlushFn& fn) {
  std::lock_guard l(flush_mu_);
  const auto totals = cells_.totals();
  const std::size_t width = bounds_ns_.size() + 2;
  std::vector<std::uint64_t> buckets(bounds_ns_.size());
  for (std::size_t p = 0; p < plugins_; ++p) {
    for (int c = 0; c < kCodes; ++c) {
      const std::size_t base = cell(p, static_cast<Code>(c));
      std::uint64_t count = totals[base + width - 2] - flushed_[base + width - 2];
      for (std::size_t b = 0; b < buckets.size(); ++b) count += buckets[b] = totals[base + b] - flushed_[base + b];
      if (count == 0) continue;
      const double sum = double(totals[base + width - 1] - flushed_[base + width - 1]) / 1e9;
      std::copy(totals.begin() + base, totals.begin() + base + width, flushed_.begin() + base);
      fn(p, static_cast<Code>(c), buckets, count, sum);
    }
  }
}

}  // namespace ksched::scheduler::framework
