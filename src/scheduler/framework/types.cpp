#include "scheduler/framework/types.h"

#include <algorithm>
#include <atomic>
#include <iterator>

#include "scheduler/config/features.h"
#include "scheduler/framework/interface.h"

namespace ksched::scheduler::framework {

// ---------------------------------------------------------------- QueuedPodInfo

bool priority_sort_less(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  const QueuedGroupInfo* ga = a.group.get();
  const QueuedGroupInfo* gb = b.group.get();
  // Two entities: a plain pod is its own entity, a member counts as its group. Members of one
  // group skip this (and never read the shared record, which the scheduling thread may sort by
  // outside the queue's lock).
  if (ga != gb || ga == nullptr) {
    const std::int32_t pa = ga ? ga->priority : a.pod().spec.priority.value_or(0);
    const std::int32_t pb = gb ? gb->priority : b.pod().spec.priority.value_or(0);
    if (pa != pb) return pa > pb;
    const auto& ta = ga ? ga->timestamp : a.timestamp;
    const auto& tb = gb ? gb->timestamp : b.timestamp;
    if (ta != tb) return ta < tb;
    const std::uint64_t sa = ga ? ga->seq : 0, sb = gb ? gb->seq : 0;
    if (sa != sb) return sa < sb;
    if (ga == nullptr || gb == nullptr) return false;  // a plain pod's own values were compared above
  }
  const std::int32_t pa = a.pod().spec.priority.value_or(0), pb = b.pod().spec.priority.value_or(0);
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

// ---------------------------------------------------------------- Resource

bool is_scalar_resource_name(std::string_view name) {
  if (name.starts_with("hugepages-") || name.starts_with("attachable-volumes-")) return true;
  if (name.find('/') == std::string_view::npos) return false;  // unprefixed: native, not scalar
  if (name.find("kubernetes.io/") != std::string_view::npos) return true;  // prefixed native
  // Extended resource: any other domain-prefixed name, except the quota form "requests.*".
  return !name.starts_with("requests.");
}

void Resource::add(const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    if (name == "cpu") {
      milliCPU += q.milli_value();
    } else if (name == "memory") {
      memory += q.value();
    } else if (name == "pods") {
      allowedPodNumber += q.value();
    } else if (name == "ephemeral-storage") {
      ephemeralStorage += q.value();
    } else if (is_scalar_resource_name(name)) {
      auto* v = scalarResources.find(name);
      if (v) {
        *v += q.value();
      } else {
        scalarResources.set(name, q.value());
      }
    }
  }
}

void Resource::add(const Resource& r) {
  milliCPU += r.milliCPU;
  memory += r.memory;
  ephemeralStorage += r.ephemeralStorage;
  allowedPodNumber += r.allowedPodNumber;
  for (const auto& [name, v] : r.scalarResources) {
    auto* cur = scalarResources.find(name);
    if (cur) {
      *cur += v;
    } else {
      scalarResources.set(name, v);
    }
  }
}

void Resource::sub(const Resource& r) {
  milliCPU -= r.milliCPU;
  memory -= r.memory;
  ephemeralStorage -= r.ephemeralStorage;
  allowedPodNumber -= r.allowedPodNumber;
  for (const auto& [name, v] : r.scalarResources) {
    auto* cur = scalarResources.find(name);
    if (cur) {
      *cur -= v;
    } else {
      scalarResources.set(name, -v);
    }
  }
}

void Resource::set_max(const Resource& r) {
  milliCPU = std::max(milliCPU, r.milliCPU);
  memory = std::max(memory, r.memory);
  ephemeralStorage = std::max(ephemeralStorage, r.ephemeralStorage);
  allowedPodNumber = std::max(allowedPodNumber, r.allowedPodNumber);
  for (const auto& [name, v] : r.scalarResources) {
    auto* cur = scalarResources.find(name);
    if (!cur) {
      scalarResources.set(name, v);
    } else if (v > *cur) {
      *cur = v;
    }
  }
}

std::int64_t Resource::get(std::string_view name) const {
  if (name == "cpu") return milliCPU;
  if (name == "memory") return memory;
  if (name == "ephemeral-storage") return ephemeralStorage;
  if (name == "pods") return allowedPodNumber;
  const auto* v = scalarResources.find(name);
  return v ? *v : 0;
}

Resource Resource::from(const api::ResourceList& rl) {
  Resource r;
  r.add(rl);
  return r;
}

// ---------------------------------------------------------------- pod requests
namespace {

// Summation and per-resource max are done on Quantities, as upstream does, so that rounding to
// millicores / units happens once at the end. A negative quantity counts as zero: the API server
// refuses one, but a cached pod may come from any server, and a negative request would free
// room on its node for other pods (upstream adds it as it is).
api::Quantity at_least_zero(const api::Quantity& q) { return q.sign() < 0 ? api::Quantity() : q; }

void add_list(api::ResourceList& into, const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    auto* cur = into.find(name);
    if (cur) {
      *cur += at_least_zero(q);
    } else {
      into.set(name, at_least_zero(q));
    }
  }
}

void max_list(api::ResourceList& into, const api::ResourceList& rl) {
  for (const auto& [name, q] : rl) {
    auto* cur = into.find(name);
    if (!cur) {
      into.set(name, at_least_zero(q));
    } else if (q > *cur) {
      *cur = q;
    }
  }
}

// A container's requests with the scoring defaults for what it lacks (upstream's
// NonMissingContainerRequests): `default_cpu` / `default_memory` say which defaults apply.
const api::ResourceList& container_requests(const api::Container& c, bool default_cpu, bool default_memory,
                                            api::ResourceList& scratch) {
  const auto& req = c.resources.requests;
  const bool add_cpu = default_cpu && !req.contains("cpu");
  const bool add_memory = default_memory && !req.contains("memory");
  if (!add_cpu && !add_memory) return req;
  scratch = req;
  if (add_cpu) scratch.set("cpu", api::Quantity::from_milli(kDefaultMilliCPURequest));
  if (add_memory) scratch.set("memory", api::Quantity::from_int(kDefaultMemoryRequest, api::Quantity::Format::BinarySI));
  return scratch;
}

// Upstream resourcehelper.PodRequests: the containers' requests (sidecar formula), then the
// pod-level requests in place of the sum for the resources set there (when the gate is on), then
// the overhead. As a ResourceList: which names are present matters to the non-zero defaults.
api::ResourceList pod_request_list(const api::Pod& pod, bool default_cpu, bool default_memory, bool pod_level) {
  api::ResourceList reqs;
  api::ResourceList scratch;
  for (const auto& c : pod.spec.containers) add_list(reqs, container_requests(c, default_cpu, default_memory, scratch));

  if (!pod.spec.initContainers.empty()) {
    api::ResourceList sidecars;  // cumulative requests of restartable init containers so far
    api::ResourceList init_peak;
    for (const auto& ic : pod.spec.initContainers) {
      const auto& r = container_requests(ic, default_cpu, default_memory, scratch);
      if (ic.restartPolicy && *ic.restartPolicy == "Always") {
        add_list(reqs, r);
        add_list(sidecars, r);
        max_list(init_peak, sidecars);
      } else {
        api::ResourceList use = r;
        add_list(use, sidecars);
        max_list(init_peak, use);
      }
    }
    max_list(reqs, init_peak);
  }
  if (pod_level && has_pod_level_requests(pod)) {
    for (const auto& [name, q] : pod.spec.resources->requests) {
      if (is_supported_pod_level_resource(name)) reqs.set(name, at_least_zero(q));
    }
  }
  add_list(reqs, pod.spec.overhead);
  return reqs;
}

}  // namespace

bool is_supported_pod_level_resource(std::string_view name) {
  return name == "cpu" || name == "memory" || name.starts_with("hugepages-");
}

bool has_pod_level_requests(const api::Pod& pod) {
  if (!pod.spec.resources) return false;
  for (const auto& [name, _] : pod.spec.resources->requests) {
    if (is_supported_pod_level_resource(name)) return true;
  }
  return false;
}

bool has_pod_level_resources(const api::Pod& pod) {
  if (!pod.spec.resources) return false;
  if (has_pod_level_requests(pod)) return true;
  for (const auto& [name, _] : pod.spec.resources->limits) {
    if (is_supported_pod_level_resource(name)) return true;
  }
  return false;
}

Resource compute_pod_requests(const api::Pod& pod, bool non_zero) {
  return Resource::from(pod_request_list(pod, non_zero, non_zero, config::features().podLevelResources));
}

PodRequests compute_pod_info_requests(const api::Pod& pod) {
  const bool pod_level = config::features().podLevelResources;
  const api::ResourceList reqs = pod_request_list(pod, false, false, pod_level);
  PodRequests out;
  out.requests = Resource::from(reqs);
  // Upstream getNonMissingContainerRequests: without pod-level requests, the defaults for both;
  // with them, a default only for what neither the pod level nor any container (nor the
  // overhead) names.
  bool default_cpu = true;
  bool default_memory = true;
  if (pod_level && has_pod_level_requests(pod)) {
    default_cpu = !reqs.contains("cpu");
    default_memory = !reqs.contains("memory");
  }
  if (!default_cpu && !default_memory) {
    out.nonZero = out.requests;
  } else {
    out.nonZero = Resource::from(pod_request_list(pod, default_cpu, default_memory, pod_level));
  }
  return out;
}

// ---------------------------------------------------------------- affinity terms

bool AffinityTerm::matches(const api::Pod& pod, const api::StringMap* namespace_labels) const {
  static const api::StringMap kNoLabels;
  if (namespaces.count(pod.metadata.namespace_) ||
      namespaceSelector.matches(namespace_labels ? *namespace_labels : kNoLabels)) {
    return selector.matches(pod.metadata.labels);
  }
  return false;
}

namespace {

util::Result<AffinityTerm> make_affinity_term(const api::Pod& pod, const api::PodAffinityTerm& t) {
  AffinityTerm out;
  out.topologyKey = t.topologyKey;
  if (t.namespaces.empty() && !t.namespaceSelector) {
    out.namespaces.insert(pod.metadata.namespace_);
  } else {
    out.namespaces.insert(t.namespaces.begin(), t.namespaces.end());
  }
  auto sel = labels::from_label_selector(t.labelSelector ? &*t.labelSelector : nullptr);
  if (!sel) return util::make_error(sel.error());
  out.selector = std::move(sel.value());
  auto ns_sel = labels::from_label_selector(t.namespaceSelector ? &*t.namespaceSelector : nullptr);
  if (!ns_sel) return util::make_error(ns_sel.error());
  out.namespaceSelector = std::move(ns_sel.value());
  return out;
}

}  // namespace

std::shared_ptr<const PodInfo> PodInfo::make(PodPtr pod) {
  auto pi = std::make_shared<PodInfo>();
  pi->pod = std::move(pod);
  const api::Pod& p = *pi->pod;
  auto reqs = compute_pod_info_requests(p);
  pi->requests = std::move(reqs.requests);
  pi->nonZeroRequests = std::move(reqs.nonZero);
  if (!p.spec.affinity) return pi;

  auto note_error = [&](const std::string& e) {
    if (pi->parseError.empty()) pi->parseError = e;
  };
  auto required = [&](const std::vector<api::PodAffinityTerm>& in, std::vector<AffinityTerm>& out) {
    for (const auto& t : in) {
      auto r = make_affinity_term(p, t);
      if (!r) {
        note_error(r.error());
        continue;
      }
      out.push_back(std::move(r.value()));
    }
  };
  auto preferred = [&](const std::vector<api::WeightedPodAffinityTerm>& in, std::vector<WeightedAffinityTerm>& out) {
    for (const auto& wt : in) {
      auto r = make_affinity_term(p, wt.podAffinityTerm);
      if (!r) {
        note_error(r.error());
        continue;
      }
      out.push_back(WeightedAffinityTerm{std::move(r.value()), wt.weight});
    }
  };
  if (const auto& a = p.spec.affinity->podAffinity) {
    required(a->requiredDuringSchedulingIgnoredDuringExecution, pi->requiredAffinityTerms);
    preferred(a->preferredDuringSchedulingIgnoredDuringExecution, pi->preferredAffinityTerms);
  }
  if (const auto& a = p.spec.affinity->podAntiAffinity) {
    required(a->requiredDuringSchedulingIgnoredDuringExecution, pi->requiredAntiAffinityTerms);
    preferred(a->preferredDuringSchedulingIgnoredDuringExecution, pi->preferredAntiAffinityTerms);
  }
  return pi;
}

// ---------------------------------------------------------------- host ports
namespace {
void sanitize(std::string& ip, std::string& protocol) {
  if (ip.empty()) ip = "0.0.0.0";
  if (protocol.empty()) protocol = "TCP";
}
}  // namespace

void HostPortInfo::add(std::string ip, std::string protocol, std::int32_t port) {
  if (port <= 0) return;
  sanitize(ip, protocol);
  ports_[std::move(ip)].emplace(std::move(protocol), port);
}

void HostPortInfo::remove(std::string ip, std::string protocol, std::int32_t port) {
  if (port <= 0) return;
  sanitize(ip, protocol);
  auto it = ports_.find(ip);
  if (it == ports_.end()) return;
  it->second.erase({protocol, port});
  if (it->second.empty()) ports_.erase(it);
}

bool HostPortInfo::check_conflict(std::string ip, std::string protocol, std::int32_t port) const {
  if (port <= 0) return false;
  sanitize(ip, protocol);
  const std::pair<std::string, std::int32_t> pp{protocol, port};
  if (ip == "0.0.0.0") {
    for (const auto& [_, set] : ports_) {
      if (set.count(pp)) return true;
    }
    return false;
  }
  for (const auto* key : {"0.0.0.0", ip.c_str()}) {
    auto it = ports_.find(key);
    if (it != ports_.end() && it->second.count(pp)) return true;
  }
  return false;
}

std::size_t HostPortInfo::size() const {
  std::size_t n = 0;
  for (const auto& [_, set] : ports_) n += set.size();
  return n;
}

// ---------------------------------------------------------------- NodeInfo

namespace {
std::atomic<std::int64_t> g_generation{0};

bool has_pod_affinity(const api::Pod& p) {
  return p.spec.affinity && (p.spec.affinity->podAffinity || p.spec.affinity->podAntiAffinity);
}
bool has_required_anti_affinity(const api::Pod& p) {
  return p.spec.affinity && p.spec.affinity->podAntiAffinity &&
         !p.spec.affinity->podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution.empty();
}

// Swap-with-last removal, as upstream (order of the remaining entries changes).
bool remove_by_uid(std::vector<PodInfoPtr>& v, std::string_view uid) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i]->pod->metadata.uid == uid) {
      v[i] = std::move(v.back());
      v.pop_back();
      return true;
    }
  }
  return false;
}

void update_ports_and_pvcs(NodeInfo& n, const api::Pod& pod, bool add) {
  for (const auto& c : pod.spec.containers) {
    for (const auto& p : c.ports) {
      if (add) {
        n.usedPorts.add(p.hostIP, p.protocol, p.hostPort);
      } else {
        n.usedPorts.remove(p.hostIP, p.protocol, p.hostPort);
      }
    }
  }
  for (const auto& v : pod.spec.volumes) {
    if (!v.persistentVolumeClaim) continue;
    std::string key = pod.metadata.namespace_ + "/" + v.persistentVolumeClaim->claimName;
    auto* cur = n.pvcRefCounts.find(key);
    if (add) {
      if (cur) {
        ++*cur;
      } else {
        n.pvcRefCounts.set(std::move(key), 1);
      }
    } else if (cur) {
      if (--*cur <= 0) n.pvcRefCounts.erase(key);
    }
  }
}
}  // namespace

std::int64_t next_generation() { return ++g_generation; }

const api::CompactString& NodeInfo::name() const {
  static const api::CompactString kEmpty;
  return node_ ? node_->metadata.name : kEmpty;
}

void NodeInfo::set_node(NodePtr n) {
  node_ = std::move(n);
  allocatable = node_ ? Resource::from(node_->status.allocatable) : Resource{};
  name_view_ = node_ ? std::string_view(node_->metadata.name) : std::string_view();
  name_hash_ = std::hash<std::string_view>{}(name_view_);
  const std::string* hostname = node_ ? node_->metadata.labels.find(kLabelHostname) : nullptr;
  // An empty label value is still a label: keep a non-null view of it.
  hostname_label_ = hostname == nullptr ? std::string_view() : std::string_view(hostname->data(), hostname->size());
  hostname_label_hash_ = std::hash<std::string_view>{}(hostname_label_);
  unschedulable_ = node_ && node_->spec.unschedulable;
  has_taints_ = node_ && !node_->spec.taints.empty();
  generation = next_generation();
}

void NodeInfo::remove_node() {
  node_.reset();
  name_view_ = {};
  name_hash_ = std::hash<std::string_view>{}(name_view_);
  hostname_label_ = {};
  hostname_label_hash_ = 0;
  unschedulable_ = has_taints_ = false;
  generation = next_generation();
}

void NodeInfo::add_pod(PodInfoPtr p) {
  const api::Pod& pod = *p->pod;
  if (has_pod_affinity(pod)) podsWithAffinity.push_back(p);
  if (has_required_anti_affinity(pod)) podsWithRequiredAntiAffinity.push_back(p);
  requested.add(p->requests);
  nonZeroRequested.milliCPU += p->nonZeroRequests.milliCPU;
  nonZeroRequested.memory += p->nonZeroRequests.memory;
  update_ports_and_pvcs(*this, pod, true);
  pods.push_back(std::move(p));
  generation = next_generation();
}

bool NodeInfo::remove_pod(const api::Pod& pod) {
  const auto& uid = pod.metadata.uid;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (pods[i]->pod->metadata.uid != uid) continue;
    PodInfoPtr stored = std::move(pods[i]);
    pods[i] = std::move(pods.back());
    pods.pop_back();
    remove_by_uid(podsWithAffinity, uid);
    remove_by_uid(podsWithRequiredAntiAffinity, uid);
    // Subtract what was added (the stored PodInfo), not what the caller's copy computes to.
    requested.sub(stored->requests);
    nonZeroRequested.milliCPU -= stored->nonZeroRequests.milliCPU;
    nonZeroRequested.memory -= stored->nonZeroRequests.memory;
    update_ports_and_pvcs(*this, *stored->pod, false);
    generation = next_generation();
    return true;
  }
  return false;
}

std::shared_ptr<NodeInfo> NodeInfo::clone() const { return std::make_shared<NodeInfo>(*this); }

// ---------------------------------------------------------------- NodeToStatus

std::size_t NodeToStatus::probe(std::string_view node, std::size_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const std::uint32_t at = slots_[i];
    if (at == 0) return i;
    const Entry& e = entries_[at - 1];
    if (e.hash == hash && name_of(e) == node) return i;
  }
}

void NodeToStatus::rehash(std::size_t size) {
  std::vector<std::uint32_t> fresh(size, 0);
  const std::size_t mask = fresh.size() - 1;
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    std::size_t i = entries_[k].hash & mask;
    while (fresh[i] != 0) i = (i + 1) & mask;
    fresh[i] = static_cast<std::uint32_t>(k + 1);
  }
  slots_ = std::move(fresh);
}

void NodeToStatus::reserve(std::size_t n) {
  entries_.reserve(n);
  names_.reserve(n * 24);
  std::size_t size = slots_.empty() ? 16 : slots_.size();
  while (size < 2 * n) size *= 2;
  if (size != slots_.size()) rehash(size);
}

void NodeToStatus::set(std::string_view node, Status s) {
  if ((entries_.size() + 1) * 2 > slots_.size()) rehash(slots_.empty() ? 16 : slots_.size() * 2);
  const std::size_t hash = std::hash<std::string_view>{}(node);
  const std::size_t i = probe(node, hash);
  if (slots_[i] != 0) {
    entries_[slots_[i] - 1].status = std::move(s);
    return;
  }
  Entry e;
  e.name_at = static_cast<std::uint32_t>(names_.size());
  e.name_size = static_cast<std::uint32_t>(node.size());
  e.hash = hash;
  e.status = std::move(s);
  names_.append(node);
  entries_.push_back(std::move(e));
  slots_[i] = static_cast<std::uint32_t>(entries_.size());
}

const Status* NodeToStatus::get(std::string_view node) const {
  if (slots_.empty()) return nullptr;
  const std::uint32_t at = slots_[probe(node, std::hash<std::string_view>{}(node))];
  return at == 0 ? nullptr : &entries_[at - 1].status;
}

// ---------------------------------------------------------------- FitError

void Diagnosis::add_plugin_status(const Status& s) {
  if (s.plugin().empty() || !s.is_rejected()) return;
  if (s.code() == Code::Pending) {
    pendingPlugins.insert(s.plugin());
  } else {
    unschedulablePlugins.insert(s.plugin());
  }
}

FitError FitError::on_node(PodPtr pod, const std::string& node, const Status& s) {
  FitError fe;
  fe.pod = std::move(pod);
  fe.numAllNodes = 1;
  fe.diagnosis.nodeToStatus.set(node, s);
  fe.diagnosis.add_plugin_status(s);
  return fe;
}

std::string FitError::error() const {
  std::string msg = "0/" + std::to_string(numAllNodes) + " nodes are available:";
  const auto& d = diagnosis;
  if (!d.preFilterMsg.empty()) {
    msg += " " + d.preFilterMsg + ".";
  } else {
    std::map<std::string, int> counts;
    // Runs of nodes rejected with the same reasons object (a plugin's FixedReasons) are counted
    // once per run rather than looked up per node.
    const std::vector<std::string>* run = nullptr;
    int run_length = 0;
    auto flush = [&] {
      if (run != nullptr) {
        for (const auto& r : *run) counts[r] += run_length;
      }
    };
    d.nodeToStatus.for_each([&](std::string_view, const Status& st) {
      if (&st.reasons() == run) {
        ++run_length;
        return;
      }
      flush();
      run = &st.reasons();
      run_length = 1;
    });
    flush();
    const int evaluated = static_cast<int>(d.nodeToStatus.size());
    if (evaluated < numAllNodes) {
      for (const auto& r : d.nodeToStatus.absent().reasons()) counts[r] += numAllNodes - evaluated;
    }
    std::vector<std::string> parts;
    parts.reserve(counts.size());
    for (const auto& [reason, n] : counts) parts.push_back(std::to_string(n) + " " + reason);
    std::sort(parts.begin(), parts.end());
    if (!parts.empty()) {
      msg += " ";
      for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) msg += ", ";
        msg += parts[i];
      }
      msg += ".";
    }
  }
  if (!d.postFilterMsg.empty()) msg += " " + d.postFilterMsg;
  return msg;
}

// ---------------------------------------------------------------- cluster events

bool ClusterEvent::match(const ClusterEvent& e) const {
  if (is_wildcard()) return true;
  const bool resource_ok =
      resource == EventResource::WildCard || resource == e.resource ||
      (resource == EventResource::Pod &&
       (e.resource == EventResource::AssignedPod || e.resource == EventResource::UnscheduledPod));
  return resource_ok && (actionType & e.actionType) != 0;
}

// ---------------------------------------------------------------- PreFilterResult

PreFilterResult PreFilterResult::merge(const PreFilterResult& other) const {
  if (all_nodes()) return other;
  if (other.all_nodes()) return *this;
  PreFilterResult r;
  r.nodeNames.emplace();
  std::set_intersection(nodeNames->begin(), nodeNames->end(), other.nodeNames->begin(), other.nodeNames->end(),
                        std::inserter(*r.nodeNames, r.nodeNames->end()));
  return r;
}

}  // namespace ksched::scheduler::framework
