#include "localcluster/ui_state.h"

#include <boost/json.hpp>

#include "api/core.h"
#include "api/helpers.h"
#include "scheduler/framework/types.h"

namespace ksched::localcluster {

namespace json = boost::json;

namespace {

json::string_view sv(std::string_view s) { return {s.data(), s.size()}; }

// Appends `[r1,r2,...]` of the records named in `keys` that exist in `records`.
template <class Keys>
void append_records(std::string& out, const std::unordered_map<std::string, std::string>& records, const Keys& keys,
                    std::unordered_set<std::string>* deleted) {
  out += '[';
  bool first = true;
  for (const auto& k : keys) {
    auto it = records.find(k);
    if (it == records.end()) {
      if (deleted) deleted->insert(k);
      continue;
    }
    if (!first) out += ',';
    first = false;
    out += it->second;
  }
  out += ']';
}

void append_names(std::string& out, const std::unordered_set<std::string>& names) {
  json::array a;
  for (const auto& n : names) a.emplace_back(sv(n));
  out += json::serialize(a);
}

void append_all(std::string& out, const std::unordered_map<std::string, std::string>& records) {
  out += '[';
  bool first = true;
  for (const auto& [k, rec] : records) {
    if (!first) out += ',';
    first = false;
    out += rec;
  }
  out += ']';
}

}  // namespace

std::string UiState::node_record(const api::Node& node) {
  json::object labels;
  for (const auto& [k, v] : node.metadata.labels) labels.emplace(sv(k), sv(v));
  json::array taints;
  for (const auto& t : node.spec.taints) {
    taints.push_back(json::object{{"key", sv(t.key)}, {"value", sv(t.value)}, {"effect", sv(t.effect)}});
  }
  const auto alloc = scheduler::framework::Resource::from(node.status.allocatable);
  bool ready = false;
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") ready = c.status == "True";
  }
  return json::serialize(json::object{{"name", sv(node.metadata.name)},
                                      {"labels", std::move(labels)},
                                      {"taints", std::move(taints)},
                                      {"cpu", alloc.milliCPU},
                                      {"memory", alloc.memory},
                                      {"pods", alloc.allowedPodNumber},
                                      {"ready", ready},
                                      {"unschedulable", node.spec.unschedulable}});
}

std::string UiState::pod_record(const api::Pod& pod) {
  const auto req = scheduler::framework::compute_pod_requests(pod);
  json::object o{{"key", api::key_of(pod)}, {"cpu", req.milliCPU}, {"memory", req.memory}};
  if (!pod.spec.nodeName.empty()) o.emplace("node", sv(pod.spec.nodeName));
  if (!pod.status.phase.empty()) o.emplace("phase", sv(pod.status.phase));
  if (pod.spec.priority && *pod.spec.priority != 0) o.emplace("priority", *pod.spec.priority);
  if (!pod.status.nominatedNodeName.empty()) o.emplace("nominated", sv(pod.status.nominatedNodeName));
  if (pod.spec.nodeName.empty()) {
    for (const auto& c : pod.status.conditions) {
      if (c.type != "PodScheduled" || c.status != "False") continue;
      o.emplace("reason", sv(c.reason));
      o.emplace("message", sv(c.message));
    }
  }
  return json::serialize(o);
}

void UiState::set_node(const api::Node& node) {
  std::string rec = node_record(node);
  std::lock_guard l(mu_);
  auto [it, added] = nodes_.try_emplace(node.metadata.name);
  if (!added && it->second == rec) return;
  it->second = std::move(rec);
  dirty_nodes_.insert(node.metadata.name);
}

void UiState::remove_node(std::string_view name) {
  std::lock_guard l(mu_);
  auto it = nodes_.find(std::string(name));
  if (it == nodes_.end()) return;
  dirty_nodes_.insert(it->first);
  nodes_.erase(it);
}

void UiState::set_pod(const api::Pod& pod) {
  if (api::pod_is_terminal(pod)) {
    remove_pod(api::key_of(pod));
    return;
  }
  std::string rec = pod_record(pod);
  std::string key = api::key_of(pod);
  std::lock_guard l(mu_);
  auto [it, added] = pods_.try_emplace(key);
  if (!added && it->second == rec) return;
  it->second = std::move(rec);
  dirty_pods_.insert(std::move(key));
}

void UiState::remove_pod(std::string_view key) {
  std::lock_guard l(mu_);
  auto it = pods_.find(std::string(key));
  if (it == pods_.end()) return;
  dirty_pods_.insert(it->first);
  pods_.erase(it);
}

std::string UiState::snapshot() const {
  std::lock_guard l(mu_);
  std::string out;
  std::size_t bytes = 64;
  for (const auto& [k, r] : nodes_) bytes += r.size() + 1;
  for (const auto& [k, r] : pods_) bytes += r.size() + 1;
  out.reserve(bytes);
  out += "{\"rev\":" + std::to_string(rev_) + ",\"nodes\":";
  append_all(out, nodes_);
  out += ",\"pods\":";
  append_all(out, pods_);
  out += '}';
  return out;
}

std::optional<std::string> UiState::take_delta(bool encode) {
  std::lock_guard l(mu_);
  if (dirty_nodes_.empty() && dirty_pods_.empty()) return std::nullopt;
  ++rev_;
  std::optional<std::string> out;
  if (encode) {
    std::unordered_set<std::string> deleted_nodes, deleted_pods;
    std::string s = "{\"rev\":" + std::to_string(rev_) + ",\"nodes\":";
    append_records(s, nodes_, dirty_nodes_, &deleted_nodes);
    s += ",\"deletedNodes\":";
    append_names(s, deleted_nodes);
    s += ",\"pods\":";
    append_records(s, pods_, dirty_pods_, &deleted_pods);
    s += ",\"deletedPods\":";
    append_names(s, deleted_pods);
    s += '}';
    out = std::move(s);
  }
  dirty_nodes_.clear();
  dirty_pods_.clear();
  return out;
}

std::uint64_t UiState::revision() const {
  std::lock_guard l(mu_);
  return rev_;
}

std::size_t UiState::node_count() const {
  std::lock_guard l(mu_);
  return nodes_.size();
}

std::size_t UiState::pod_count() const {
  std::lock_guard l(mu_);
  return pods_.size();
}

}  // namespace ksched::localcluster
