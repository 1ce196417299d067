#include "perf/pod_tracker.h"

#include <simdjson.h>

#include "perf/procinfo.h"

namespace ksched::perf {

namespace {

struct PodFields {
  std::string_view ns, name, rv;
  bool bound = false;
  bool attempted = false;
};

bool pod_fields(simdjson::dom::element obj, PodFields& f) {
  auto meta = obj["metadata"];
  if (meta.error()) return false;
  if (meta["namespace"].get(f.ns) || meta["name"].get(f.name)) return false;
  if (meta["resourceVersion"].get(f.rv)) f.rv = {};
  std::string_view node;
  f.bound = !obj["spec"]["nodeName"].get(node) && !node.empty();
  f.attempted = f.bound;
  simdjson::dom::array gates;
  if (!obj["spec"]["schedulingGates"].get(gates) && gates.size() > 0) f.attempted = true;
  simdjson::dom::array conds;
  if (!f.attempted && !obj["status"]["conditions"].get(conds)) {
    for (auto c : conds) {
      std::string_view type;
      if (!c["type"].get(type) && type == "PodScheduled") f.attempted = true;
    }
  }
  return true;
}

}  // namespace

void PodTracker::apply(std::string_view type, std::string_view ns, std::string_view name, bool bound, bool attempted,
                       std::string_view rv) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  key.append(ns).push_back('/');
  key.append(name);
  auto& c = ns_[std::string(ns)];
  auto it = pods_.find(key);
  if (!rv.empty()) rv_.assign(rv);
  if (type == "DELETED") {
    if (it == pods_.end()) return;
    c.live--;
    if (it->second.bound) c.live_bound--;
    if (it->second.attempted) c.live_attempted--;
    pods_.erase(it);
    return;
  }
  if (it == pods_.end()) {
    it = pods_.emplace(std::move(key), PodState{}).first;
    c.live++;
    if (!arrival_log_.empty())
      if (auto log = arrival_log_.find(ns); log != arrival_log_.end())
        log->second.emplace_back(std::string(name), std::chrono::steady_clock::now());
  }
  PodState& p = it->second;
  if (bound && !p.bound) {
    c.ever_bound++;
    c.live_bound++;
    c.last_bound = std::chrono::steady_clock::now();
    if (!binding_log_.empty())
      if (auto log = binding_log_.find(ns); log != binding_log_.end()) log->second.emplace_back(std::string(name), c.last_bound);
  } else if (!bound && p.bound) {
    c.live_bound--;  // not expected (nodeName is immutable), but keep counts honest
  }
  if (attempted != p.attempted) c.live_attempted += attempted ? 1 : -1;
  p.bound = bound;
  p.attempted = attempted;
}

void PodTracker::log_bindings(const std::string& ns) {
  std::lock_guard l(mu_);
  binding_log_[ns];
  arrival_log_[ns];
}

std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> PodTracker::arrivals(
    const std::string& ns) const {
  std::lock_guard l(mu_);
  auto it = arrival_log_.find(ns);
  return it == arrival_log_.end() ? decltype(it->second){} : it->second;
}

std::vector<std::pair<std::string, std::chrono::steady_clock::time_point>> PodTracker::bindings(
    const std::string& ns) const {
  std::lock_guard l(mu_);
  auto it = binding_log_.find(ns);
  return it == binding_log_.end() ? decltype(it->second){} : it->second;
}

void PodTracker::apply_event_line(std::string_view line) {
  thread_local simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(line.data(), line.size()).get(doc)) return;
  std::string_view type;
  if (doc["type"].get(type)) return;
  if (type == "BOOKMARK") {
    std::string_view rv;
    if (!doc["object"]["metadata"]["resourceVersion"].get(rv)) {
      std::lock_guard<std::mutex> lk(mu_);
      rv_.assign(rv);
    }
    return;
  }
  if (type == "ERROR") {
    std::lock_guard<std::mutex> lk(mu_);
    rv_.clear();  // forces a relist
    return;
  }
  PodFields f;
  if (!pod_fields(doc["object"].value_unsafe(), f)) return;
  {
    std::lock_guard<std::mutex> lk(mu_);
    apply(type, f.ns, f.name, f.bound, f.attempted, f.rv);
  }
  cv_.notify_all();
}

util::Result<void> PodTracker::relist() {
  client::ResourceRef r{.resource = "pods"};
  auto body = client_->list(r, {});
  if (!body) return util::make_error("listing pods: " + body.error().to_string());
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(*body).get(doc)) return util::make_error("listing pods: undecodable response");
  std::string_view rv;
  if (doc["metadata"]["resourceVersion"].get(rv)) return util::make_error("listing pods: no resourceVersion");
  simdjson::dom::array items;
  {
    std::lock_guard<std::mutex> lk(mu_);
    // Pods gone since the last view are deleted; ever_bound stays as it was.
    std::unordered_map<std::string, bool> present;
    if (!doc["items"].get(items)) {
      for (auto item : items) {
        PodFields f;
        if (!pod_fields(item, f)) continue;
        present[std::string(f.ns) + "/" + std::string(f.name)] = true;
        apply("MODIFIED", f.ns, f.name, f.bound, f.attempted, {});
      }
    }
    std::vector<std::string> gone;
    for (const auto& [k, _] : pods_)
      if (!present.count(k)) gone.push_back(k);
    for (const auto& k : gone) {
      auto slash = k.find('/');
      apply("DELETED", std::string_view(k).substr(0, slash), std::string_view(k).substr(slash + 1), false, false, {});
    }
    rv_.assign(rv);
  }
  cv_.notify_all();
  return {};
}

util::Result<void> PodTracker::start() {
  auto r = relist();
  if (!r) return r;
  thread_ = std::thread([this] { run(); });
  return {};
}

void PodTracker::run() {
  set_thread_name("bench-watch");
  while (!stop_) {
    std::string rv;
    {
      std::lock_guard<std::mutex> lk(mu_);
      rv = rv_;
    }
    if (rv.empty()) {
      if (auto r = relist(); !r) {
        std::lock_guard<std::mutex> lk(mu_);
        error_ = r.error();
      }
      if (stop_) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));  // back off before retrying the server
      continue;
    }
    client::ListOptions lo;
    lo.resourceVersion = rv;
    lo.allowWatchBookmarks = true;
    lo.timeoutSeconds = 3600;
    auto w = client_->watch(client::ResourceRef{.resource = "pods"}, lo);
    if (!w) {
      std::lock_guard<std::mutex> lk(mu_);
      error_ = w.error().to_string();
      if (client::is_gone(w.error())) rv_.clear();
      continue;
    }
    {
      std::lock_guard<std::mutex> lk(watch_mu_);
      watch_ = std::move(*w);
      if (stop_) break;
    }
    client::RawWatchEvent ev;
    while (!stop_ && watch_->next(ev)) apply_event_line(ev.json);
    std::lock_guard<std::mutex> lk(watch_mu_);
    watch_.reset();
  }
}

void PodTracker::stop() {
  stop_ = true;
  {
    std::lock_guard<std::mutex> lk(watch_mu_);
    if (watch_) watch_->stop();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

NamespaceCounts PodTracker::counts(const std::string& ns) const {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = ns_.find(ns);
  return it == ns_.end() ? NamespaceCounts{} : it->second;
}

std::vector<std::string> PodTracker::live_pods(const std::string& ns) const {
  std::lock_guard<std::mutex> lk(mu_);
  std::vector<std::string> out;
  std::string prefix = ns + "/";
  for (const auto& [k, _] : pods_)
    if (k.compare(0, prefix.size(), prefix) == 0) out.push_back(k.substr(prefix.size()));
  return out;
}

std::string PodTracker::watch_error() const {
  std::lock_guard<std::mutex> lk(mu_);
  return error_;
}

void PodTracker::wait_change(std::chrono::steady_clock::time_point until) const {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait_until(lk, until);
}

}  // namespace ksched::perf
