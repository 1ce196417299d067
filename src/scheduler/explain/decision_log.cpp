#include "scheduler/explain/decision_log.h"

#include <boost/json.hpp>
#include <chrono>
#include <ctime>

namespace ksched::scheduler::explain {
namespace {

std::string now_rfc3339() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void DecisionLog::record(framework::Framework& fwk, const api::Pod& pod, const std::string& node) {
  if (capacity_ == 0) return;
  auto e = explain(fwk, pod);
  Entry entry;
  entry.pod = api::key_of(pod);
  entry.node = node;
  entry.time = now_rfc3339();
  if (!e) {
    entry.summary = "explaining failed: " + e.error();
    entry.json = boost::json::serialize(boost::json::object{{"pod", entry.pod}, {"error", e.error()}});
  } else {
    // Keep what bounds the entry (see the header); nodes stay in the explanation's order.
    std::size_t scored = 0;
    for (auto& n : e->nodes) {
      n.filters.clear();
      if (!n.scores.empty() && ++scored > kTopScored) n.scores.clear();
    }
    entry.summary = e->summary;
    auto doc = to_json_object(*e);
    doc["node"] = node;  // the cycle's own choice (it samples nodes and breaks ties at random)
    doc["time"] = entry.time;
    entry.json = boost::json::serialize(doc);
  }
  std::lock_guard l(mu_);
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) entries_.pop_front();
}

std::string DecisionLog::list_json() const {
  boost::json::array a;
  std::lock_guard l(mu_);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    a.push_back(boost::json::object{{"pod", it->pod}, {"node", it->node}, {"summary", it->summary}, {"time", it->time}});
  }
  return boost::json::serialize(boost::json::object{{"decisions", std::move(a)}}) + "\n";
}

std::optional<std::string> DecisionLog::get_json(std::string_view pod) const {
  std::lock_guard l(mu_);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->pod == pod) return it->json + "\n";
  }
  return std::nullopt;
}

std::size_t DecisionLog::size() const {
  std::lock_guard l(mu_);
  return entries_.size();
}

}  // namespace ksched::scheduler::explain
