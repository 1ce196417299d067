#include "localcluster/ui_state.h"

#include <boost/json.hpp>

#include "api/core.h"
#include "api/helpers.h"
#include "api/resource.h"
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
  if (pod.spec.schedulingGroup && pod.spec.schedulingGroup->podGroupName) {
    // v1.37's PodGroup object (spec.schedulingGroup): namespace/podGroupName. It wins over a
    // workloadRef on the same pod, as the scheduler's grouping does (scheduler/podgroup).
    std::string g(pod.metadata.namespace_.view());
    g.append("/").append(*pod.spec.schedulingGroup->podGroupName);
    o.emplace("group", std::move(g));
  } else if (pod.spec.workloadRef) {
    // The pod group it is placed with (v1.35's spec.workloadRef): namespace/workload/podGroup[/replica].
    const auto& r = *pod.spec.workloadRef;
    std::string g(pod.metadata.namespace_.view());
    g.append("/").append(r.name).append("/").append(r.podGroup);
    if (!r.podGroupReplicaKey.empty()) g.append("/").append(r.podGroupReplicaKey);
    o.emplace("group", std::move(g));
  }
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

namespace {

std::string device_id(std::string_view driver, std::string_view pool, std::string_view device) {
  std::string id;
  id.reserve(driver.size() + pool.size() + device.size() + 2);
  id.append(driver).append("/").append(pool).append("/").append(device);
  return id;
}

}  // namespace

void UiState::set_slice(const api::resourcev1::ResourceSlice& slice) {
  std::string node = slice.spec.nodeName.value_or("");  // node-less slices belong to no one node
  std::vector<std::string> devices;
  if (!node.empty()) {
    for (const auto& d : slice.spec.devices) {
      devices.push_back(device_id(slice.spec.driver.view(), slice.spec.pool.name.view(), d.name.view()));
    }
  }
  std::lock_guard l(mu_);
  const std::string name(slice.metadata.name.view());
  auto it = slices_.find(name);
  if (it != slices_.end() && it->second.first == node && it->second.second == devices) return;
  if (it != slices_.end()) {
    forget_slice_devices_locked(it->second.first, it->second.second);
    if (node.empty()) slices_.erase(it);
  }
  if (node.empty()) return;
  auto& on = node_devices_[node];
  for (const auto& d : devices) {
    ++on[d];
    device_node_[d] = node;
  }
  dirty_nodes_.insert(node);
  slices_[name] = {std::move(node), std::move(devices)};
}

void UiState::remove_slice(std::string_view name) {
  std::lock_guard l(mu_);
  auto it = slices_.find(std::string(name));
  if (it == slices_.end()) return;
  forget_slice_devices_locked(it->second.first, it->second.second);
  slices_.erase(it);
}

void UiState::forget_slice_devices_locked(const std::string& node, const std::vector<std::string>& devices) {
  auto& on = node_devices_[node];
  for (const auto& d : devices) {
    if (--on[d] <= 0) {
      on.erase(d);
      device_node_.erase(d);
    }
  }
  if (on.empty()) node_devices_.erase(node);
  dirty_nodes_.insert(node);
}

void UiState::set_claim(const api::resourcev1::ResourceClaim& claim) {
  ClaimDevices now;
  if (claim.status.allocation) {
    for (const auto& r : claim.status.allocation->devices.results) {
      if (r.adminAccess.value_or(false)) continue;  // admin access holds no device
      now.devices.push_back(device_id(r.driver.view(), r.pool.view(), r.device.view()));
    }
    now.holder.claim = api::key_of(claim);
    for (const auto& c : claim.status.reservedFor) {
      if (c.resource == "pods" && c.apiGroup.empty()) {
        now.holder.pod = std::string(claim.metadata.namespace_.view()) + "/" + std::string(c.name.view());
        break;
      }
    }
  }
  std::lock_guard l(mu_);
  const std::string key = api::key_of(claim);
  auto it = claims_.find(key);
  if (it != claims_.end() && it->second.devices == now.devices && it->second.holder.pod == now.holder.pod) return;
  auto touch = [this](const std::string& device) {
    if (auto n = device_node_.find(device); n != device_node_.end()) dirty_nodes_.insert(n->second);
  };
  if (it != claims_.end()) {
    for (const auto& d : it->second.devices) {
      if (auto h = holders_.find(d); h != holders_.end() && h->second.claim == key) holders_.erase(h);
      touch(d);
    }
  }
  if (now.devices.empty()) {
    if (it != claims_.end()) claims_.erase(it);
    return;
  }
  for (const auto& d : now.devices) {
    holders_[d] = now.holder;
    touch(d);
  }
  claims_[key] = std::move(now);
}

void UiState::remove_claim(std::string_view key) {
  std::lock_guard l(mu_);
  auto it = claims_.find(std::string(key));
  if (it == claims_.end()) return;
  for (const auto& d : it->second.devices) {
    if (auto h = holders_.find(d); h != holders_.end() && h->second.claim == it->first) holders_.erase(h);
    if (auto n = device_node_.find(d); n != device_node_.end()) dirty_nodes_.insert(n->second);
  }
  claims_.erase(it);
}

std::string UiState::node_record_locked(const std::string& name, const std::string& base) const {
  auto it = node_devices_.find(name);
  if (it == node_devices_.end() || it->second.empty()) return base;
  json::array devices;
  for (const auto& [d, _] : it->second) {
    json::object o{{"name", sv(d)}};
    if (auto h = holders_.find(d); h != holders_.end()) {
      o.emplace("claim", sv(h->second.claim));
      if (!h->second.pod.empty()) o.emplace("pod", sv(h->second.pod));
    }
    devices.push_back(std::move(o));
  }
  std::string out = base.substr(0, base.size() - 1);  // the record is an object: reopen it
  out += ",\"devices\":";
  out += json::serialize(devices);
  out += '}';
  return out;
}

void UiState::append_nodes_locked(std::string& out, const std::unordered_set<std::string>* only,
                                  std::unordered_set<std::string>* deleted) const {
  out += '[';
  bool first = true;
  auto add = [&](const std::string& name, const std::string& base) {
    if (!first) out += ',';
    first = false;
    out += node_record_locked(name, base);
  };
  if (only == nullptr) {
    for (const auto& [name, base] : nodes_) add(name, base);
  } else {
    for (const auto& name : *only) {
      auto it = nodes_.find(name);
      if (it == nodes_.end()) {
        if (deleted) deleted->insert(name);
        continue;
      }
      add(name, it->second);
    }
  }
  out += ']';
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
  append_nodes_locked(out, nullptr, nullptr);
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
    append_nodes_locked(s, &dirty_nodes_, &deleted_nodes);
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
