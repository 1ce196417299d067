// Statistics of a bench run: scheduler_perf's throughput summary (per-second samples of pods
// bound, averaged and ranked like its throughputCollector) and histogram quantiles read from the
// scheduler's Prometheus text (/metrics).
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ksched::perf {

struct Summary {
  double average = 0, perc50 = 0, perc90 = 0, perc95 = 0, perc99 = 0;
  std::size_t samples = 0;
};

// scheduler_perf's rule: samples sorted ascending, Average = their mean, PercN = the sample at
// ceil(len*N/100)-1. Empty input gives zeros.
Summary summarize_throughput(std::vector<double> samples);

// Turns cumulative "pods bound" readings taken at (roughly) one-second intervals into per-interval
// throughput samples (pods/s). Intervals before the first bound pod are not samples (the scheduler
// had nothing to do yet); a reading that came late spreads its pods over the intervals it covers,
// as upstream does when a tick was missed.
class ThroughputSampler {
 public:
  explicit ThroughputSampler(double interval_seconds = 1.0) : interval_(interval_seconds) {}
  // t: seconds since the start of the measured phase; bound: cumulative count at t.
  void add_reading(double t, long bound);
  // Final partial interval (the tail after the last full tick), counted when it holds pods.
  void finish(double t, long bound);
  const std::vector<double>& samples() const { return samples_; }
  // (t, pods/s) for plotting: one point per sample at the end of its interval.
  const std::vector<std::pair<double, double>>& series() const { return series_; }

 private:
  double interval_;
  double last_t_ = 0;
  long last_bound_ = 0;
  bool started_ = false;
  std::vector<double> samples_;
  std::vector<std::pair<double, double>> series_;
};

// One histogram family from Prometheus text, summed over the series whose labels match `match`
// (every given label must be equal), keyed by upper bound.
struct Histogram {
  std::vector<std::pair<double, double>> buckets;  // (le, cumulative count), ascending le, +Inf last
  double sum = 0;
  double count = 0;
  bool empty() const { return count <= 0; }
  Histogram minus(const Histogram& earlier) const;  // the observations made between two scrapes
  // Prometheus histogram_quantile: linear interpolation inside the bucket that holds rank q*count.
  double quantile(double q) const;
};

Histogram parse_histogram(std::string_view metrics_text, std::string_view family,
                          const std::map<std::string, std::string>& match = {});

// Sum of <family>_sum per value of `label` (e.g. extension_point -> seconds).
std::map<std::string, double> histogram_sums_by(std::string_view metrics_text, std::string_view family,
                                                const std::string& label);
std::map<std::string, double> histogram_counts_by(std::string_view metrics_text, std::string_view family,
                                                  const std::string& label);
// Sum of a counter's samples per value of `label` (family with its _total suffix).
std::map<std::string, double> counter_sums_by(std::string_view metrics_text, std::string_view family,
                                              const std::string& label);

// Parses `name{a="b",c="d"} value` into name, labels, value. False for comments/garbage.
bool parse_sample_line(std::string_view line, std::string& name, std::map<std::string, std::string>& labels,
                       double& value);

}  // namespace ksched::perf
