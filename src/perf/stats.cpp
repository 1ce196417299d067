#include "perf/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace ksched::perf {

Summary summarize_throughput(std::vector<double> s) {
  Summary out;
  out.samples = s.size();
  if (s.empty()) return out;
  std::sort(s.begin(), s.end());
  double sum = 0;
  for (double v : s) sum += v;
  auto at = [&](int pct) {
    auto idx = static_cast<std::size_t>(std::ceil(static_cast<double>(s.size() * pct) / 100.0));
    return s[idx == 0 ? 0 : idx - 1];
  };
  out.average = sum / static_cast<double>(s.size());
  out.perc50 = at(50);
  out.perc90 = at(90);
  out.perc95 = at(95);
  out.perc99 = at(99);
  return out;
}

void ThroughputSampler::add_reading(double t, long bound) {
  if (!started_) {
    if (bound == 0) {
      last_t_ = t;
      return;
    }
    started_ = true;
  }
  double dt = t - last_t_;
  if (dt <= 0) return;
  long pods = bound - last_bound_;
  // A late tick covers several intervals: give each the same share, like upstream's collector.
  int intervals = std::max(1, static_cast<int>(std::lround(dt / interval_)));
  double rate = static_cast<double>(pods) / dt;
  for (int i = 0; i < intervals; ++i) {
    samples_.push_back(rate);
    series_.emplace_back(last_t_ + dt * (i + 1) / intervals, rate);
  }
  last_t_ = t;
  last_bound_ = bound;
}

void ThroughputSampler::finish(double t, long bound) {
  double dt = t - last_t_;
  long pods = bound - last_bound_;
  // A tail shorter than a tenth of an interval says nothing reliable about the rate, unless it is
  // all there is (a run that finished within its first interval).
  if (pods > 0 && dt > 0 && (dt >= interval_ * 0.1 || samples_.empty())) {
    samples_.push_back(static_cast<double>(pods) / dt);
    series_.emplace_back(t, static_cast<double>(pods) / dt);
  }
  last_t_ = t;
  last_bound_ = bound;
}

Histogram Histogram::minus(const Histogram& earlier) const {
  Histogram out = *this;
  for (auto& [le, c] : out.buckets)
    for (const auto& [ele, ec] : earlier.buckets)
      if (ele == le) c -= ec;
  out.sum -= earlier.sum;
  out.count -= earlier.count;
  return out;
}

double Histogram::quantile(double q) const {
  if (buckets.empty() || count <= 0) return std::nan("");
  double rank = q * buckets.back().second;
  double prev_le = 0, prev_c = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    auto [le, c] = buckets[i];
    if (c >= rank) {
      if (std::isinf(le)) return prev_le;  // above the highest finite bound: report that bound
      if (c == prev_c) return le;
      return prev_le + (le - prev_le) * (rank - prev_c) / (c - prev_c);
    }
    prev_le = le;
    prev_c = c;
  }
  return prev_le;
}

bool parse_sample_line(std::string_view line, std::string& name, std::map<std::string, std::string>& labels,
                       double& value) {
  labels.clear();
  if (line.empty() || line[0] == '#') return false;
  std::size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  name.assign(line.substr(0, i));
  if (name.empty()) return false;
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      std::size_t eq = line.find('=', i);
      if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return false;
      std::string key(line.substr(i, eq - i));
      std::string val;
      std::size_t j = eq + 2;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size()) {
          ++j;
          val.push_back(line[j] == 'n' ? '\n' : line[j]);
        } else {
          val.push_back(line[j]);
        }
      }
      if (j >= line.size()) return false;
      labels[key] = val;
      i = j + 1;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;  // '}'
  }
  while (i < line.size() && line[i] == ' ') ++i;
  std::string rest(line.substr(i));
  auto sp = rest.find(' ');
  if (sp != std::string::npos) rest.resize(sp);  // drop an optional timestamp
  if (rest.empty()) return false;
  if (rest == "+Inf") value = std::numeric_limits<double>::infinity();
  else if (rest == "-Inf") value = -std::numeric_limits<double>::infinity();
  else {
    char* end = nullptr;
    value = std::strtod(rest.c_str(), &end);
    if (!end || *end) return false;
  }
  return true;
}

namespace {

template <class F>
void for_each_sample(std::string_view text, F&& f) {
  std::string name;
  std::map<std::string, std::string> labels;
  double v = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    if (parse_sample_line(text.substr(pos, nl - pos), name, labels, v)) f(name, labels, v);
    pos = nl + 1;
  }
}

bool matches(const std::map<std::string, std::string>& labels, const std::map<std::string, std::string>& match) {
  for (const auto& [k, v] : match) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

Histogram parse_histogram(std::string_view text, std::string_view family, const std::map<std::string, std::string>& match) {
  std::string bucket = std::string(family) + "_bucket", sum = std::string(family) + "_sum",
              count = std::string(family) + "_count";
  std::map<double, double> by_le;
  Histogram h;
  for_each_sample(text, [&](const std::string& name, const std::map<std::string, std::string>& labels, double v) {
    if (!matches(labels, match)) return;
    if (name == bucket) {
      auto it = labels.find("le");
      if (it == labels.end()) return;
      double le = it->second == "+Inf" ? std::numeric_limits<double>::infinity() : std::strtod(it->second.c_str(), nullptr);
      by_le[le] += v;
    } else if (name == sum) {
      h.sum += v;
    } else if (name == count) {
      h.count += v;
    }
  });
  h.buckets.assign(by_le.begin(), by_le.end());
  return h;
}

std::map<std::string, double> histogram_sums_by(std::string_view text, std::string_view family, const std::string& label) {
  std::map<std::string, double> out;
  std::string sum = std::string(family) + "_sum";
  for_each_sample(text, [&](const std::string& name, const std::map<std::string, std::string>& labels, double v) {
    if (name != sum) return;
    auto it = labels.find(label);
    out[it == labels.end() ? "" : it->second] += v;
  });
  return out;
}

std::map<std::string, double> histogram_counts_by(std::string_view text, std::string_view family,
                                                  const std::string& label) {
  std::map<std::string, double> out;
  std::string count = std::string(family) + "_count";
  for_each_sample(text, [&](const std::string& name, const std::map<std::string, std::string>& labels, double v) {
    if (name != count) return;
    auto it = labels.find(label);
    out[it == labels.end() ? "" : it->second] += v;
  });
  return out;
}

std::map<std::string, double> counter_sums_by(std::string_view text, std::string_view family, const std::string& label) {
  std::map<std::string, double> out;
  for_each_sample(text, [&](const std::string& name, const std::map<std::string, std::string>& labels, double v) {
    if (name != family) return;
    auto it = labels.find(label);
    out[it == labels.end() ? "" : it->second] += v;
  });
  return out;
}

}  // namespace ksched::perf
