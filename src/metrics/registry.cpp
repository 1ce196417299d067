#include "metrics/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include <cmath>

namespace ksched::metrics {

namespace {

const char* stability_tag(Stability s) {
  switch (s) {
    case Stability::Alpha:
      return "[ALPHA] ";
    case Stability::Beta:
      return "[BETA] ";
    case Stability::Stable:
      return "[STABLE] ";
  }
  return "";
}

// Go's strconv.FormatFloat(v, 'g', -1, 64) as the Prometheus client writes values.
std::string format_value(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  return fmt::format("{}", v);
}

void escape_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

void escape_help(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

}  // namespace

std::vector<double> exponential_buckets(double start, double factor, int count) {
  std::vector<double> b;
  b.reserve(count);
  double v = start;
  for (int i = 0; i < count; ++i) {
    b.push_back(v);
    v *= factor;
  }
  return b;
}

void Metric::write_header(std::string& out, std::string_view type) const {
  out += "# HELP ";
  out += name_;
  out += ' ';
  out += stability_tag(stability_);
  escape_help(out, help_);
  out += "\n# TYPE ";
  out += name_;
  out += ' ';
  out += type;
  out += '\n';
}

std::string Metric::label_text(const std::vector<std::string>& values, std::string_view extra_key,
                               std::string_view extra_value) const {
  if (values.empty() && extra_key.empty()) return {};
  // Like client_golang: label pairs sorted by name, the bucket's "le" last.
  const std::size_t n = std::min(values.size(), label_names_.size());
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return label_names_[a] < label_names_[b]; });
  std::string out = "{";
  bool first = true;
  for (std::size_t i : order) {
    if (!first) out += ',';
    first = false;
    out += label_names_[i];
    out += "=\"";
    escape_label_value(out, values[i]);
    out += '"';
  }
  if (!extra_key.empty()) {
    if (!first) out += ',';
    out += extra_key;
    out += "=\"";
    escape_label_value(out, extra_value);
    out += '"';
  }
  out += '}';
  return out;
}

HistogramChild::HistogramChild(const std::vector<double>* bounds) : bounds_(bounds) {
  for (auto& s : shards_) {
    s.counts = std::make_unique<std::atomic<std::uint64_t>[]>(bounds->size());
    for (std::size_t i = 0; i < bounds->size(); ++i) s.counts[i].store(0, std::memory_order_relaxed);
  }
}

void HistogramChild::observe(double v) {
  static std::atomic<std::size_t> next_thread{0};
  thread_local const std::size_t shard = next_thread.fetch_add(1, std::memory_order_relaxed) % kShards;
  Shard& s = shards_[shard];
  // Buckets hold non-cumulative counts; exposition accumulates.
  for (std::size_t i = 0; i < bounds_->size(); ++i) {
    if (v <= (*bounds_)[i]) {
      s.counts[i].fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  s.count.fetch_add(1, std::memory_order_relaxed);
  s.sum.fetch_add(v, std::memory_order_relaxed);
}

void HistogramChild::add(std::span<const std::uint64_t> buckets, std::uint64_t count, double sum) {
  Shard& s = shards_[0];
  for (std::size_t i = 0; i < bounds_->size() && i < buckets.size(); ++i) {
    if (buckets[i] != 0) s.counts[i].fetch_add(buckets[i], std::memory_order_relaxed);
  }
  s.count.fetch_add(count, std::memory_order_relaxed);
  s.sum.fetch_add(sum, std::memory_order_relaxed);
}

std::uint64_t HistogramChild::count() const {
  std::uint64_t n = 0;
  for (const auto& s : shards_) n += s.count.load(std::memory_order_relaxed);
  return n;
}

double HistogramChild::sum() const {
  double v = 0;
  for (const auto& s : shards_) v += s.sum.load(std::memory_order_relaxed);
  return v;
}

std::uint64_t HistogramChild::bucket(std::size_t i) const {
  std::uint64_t n = 0;
  for (const auto& s : shards_) n += s.counts[i].load(std::memory_order_relaxed);
  return n;
}

void Counter::write(std::string& out) const {
  write_header(out, "counter");
  std::lock_guard l(mu_);
  for (const auto& [labels, c] : children_) {
    out += name_ + label_text(labels) + ' ' + format_value(c->value()) + '\n';
  }
}

void Gauge::write(std::string& out) const {
  write_header(out, "gauge");
  std::lock_guard l(mu_);
  for (const auto& [labels, g] : children_) {
    out += name_ + label_text(labels) + ' ' + format_value(g->value()) + '\n';
  }
}

void Histogram::write(std::string& out) const {
  write_header(out, "histogram");
  std::lock_guard l(mu_);
  for (const auto& [labels, h] : children_) {
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < bounds_.size(); ++i) {
      cumulative += h->bucket(i);
      out += name_ + "_bucket" + label_text(labels, "le", format_value(bounds_[i])) + ' ' +
             std::to_string(cumulative) + '\n';
    }
    out += name_ + "_bucket" + label_text(labels, "le", "+Inf") + ' ' + std::to_string(h->count()) + '\n';
    out += name_ + "_sum" + label_text(labels) + ' ' + format_value(h->sum()) + '\n';
    out += name_ + "_count" + label_text(labels) + ' ' + std::to_string(h->count()) + '\n';
  }
}

Counter& Registry::counter(std::string name, std::string help, Stability st, std::vector<std::string> labels) {
  auto m = std::make_unique<Counter>(std::move(name), std::move(help), st, std::move(labels));
  auto& ref = *m;
  std::lock_guard l(mu_);
  metrics_.push_back(std::move(m));
  return ref;
}

Gauge& Registry::gauge(std::string name, std::string help, Stability st, std::vector<std::string> labels) {
  auto m = std::make_unique<Gauge>(std::move(name), std::move(help), st, std::move(labels));
  auto& ref = *m;
  std::lock_guard l(mu_);
  metrics_.push_back(std::move(m));
  return ref;
}

Histogram& Registry::histogram(std::string name, std::string help, Stability st, std::vector<std::string> labels,
                               std::vector<double> buckets) {
  auto m = std::make_unique<Histogram>(std::move(name), std::move(help), st, std::move(labels), std::move(buckets));
  auto& ref = *m;
  std::lock_guard l(mu_);
  metrics_.push_back(std::move(m));
  return ref;
}

int Registry::add_collector(std::function<void()> fn) {
  std::lock_guard l(collectors_mu_);
  int id = next_collector_++;
  collectors_.emplace(id, std::move(fn));
  return id;
}

void Registry::remove_collector(int id) {
  std::lock_guard l(collectors_mu_);
  collectors_.erase(id);
}

std::string Registry::expose() const {
  {
    // Held while collecting so remove_collector() waits for a scrape in progress.
    std::lock_guard cl(collectors_mu_);
    for (const auto& [id, fn] : collectors_) fn();
  }
  std::string out;
  std::lock_guard l(mu_);
  for (const auto& m : metrics_) m->write(out);
  return out;
}

}  // namespace ksched::metrics
