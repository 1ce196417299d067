#include "controllers/controller_utils.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>

#include <boost/json.hpp>

#include "api/codec.h"
#include "api/helpers.h"
#include "controllers/metadata_informer.h"

namespace ksched::controllers {

namespace json = boost::json;

// ---------------------------------------------------------------- expectations

bool Expectations::satisfied(const std::string& owner) const {
  std::lock_guard l(mu_);
  auto it = records_.find(owner);
  if (it == records_.end()) return true;  // never set (or forgotten): the controller may act
  const Record& r = it->second;
  if (r.add <= 0 && r.del <= 0) return true;
  return clock_.now() - r.at > kTimeout;
}

void Expectations::expect_creations(const std::string& owner, int n) {
  std::lock_guard l(mu_);
  auto& r = records_[owner];
  r.add = n;
  r.del = 0;
  r.deleting.clear();
  r.at = clock_.now();
}

void Expectations::expect(const std::string& owner, int creations, const std::vector<std::string>& keys) {
  std::lock_guard l(mu_);
  auto& r = records_[owner];
  r.add = creations;
  r.deleting = std::set<std::string>(keys.begin(), keys.end());
  r.del = static_cast<int>(r.deleting.size());
  r.at = clock_.now();
}

void Expectations::expect_deletions(const std::string& owner, const std::vector<std::string>& keys) {
  std::lock_guard l(mu_);
  auto& r = records_[owner];
  r.add = 0;
  r.deleting = std::set<std::string>(keys.begin(), keys.end());
  r.del = static_cast<int>(r.deleting.size());
  r.at = clock_.now();
}

void Expectations::creation_observed(const std::string& owner) {
  std::lock_guard l(mu_);
  auto it = records_.find(owner);
  if (it != records_.end()) --it->second.add;
}

void Expectations::deletion_observed(const std::string& owner, const std::string& key) {
  std::lock_guard l(mu_);
  auto it = records_.find(owner);
  if (it == records_.end()) return;
  if (it->second.deleting.erase(key)) --it->second.del;
}

void Expectations::lower_creations(const std::string& owner, int n) {
  std::lock_guard l(mu_);
  auto it = records_.find(owner);
  if (it != records_.end()) it->second.add -= n;
}

void Expectations::forget(const std::string& owner) {
  std::lock_guard l(mu_);
  records_.erase(owner);
}

// ---------------------------------------------------------------- pods

bool is_pod_active(const api::Pod& p) {
  return p.status.phase != "Succeeded" && p.status.phase != "Failed" && !p.metadata.deletionTimestamp;
}

bool is_pod_terminating(const api::Pod& p) { return !api::pod_is_terminal(p) && p.metadata.deletionTimestamp.has_value(); }

bool is_pod_ready(const api::Pod& p) {
  const auto* c = api::find_pod_condition(p.status, "Ready");
  return c && c->status == "True";
}

bool is_pod_available(const api::Pod& p, std::int32_t min_ready_seconds, api::Time now) {
  const auto* c = api::find_pod_condition(p.status, "Ready");
  if (!c || c->status != "True") return false;
  if (min_ready_seconds == 0) return true;
  if (!c->lastTransitionTime) return false;
  return c->lastTransitionTime->unixNanos + std::int64_t{min_ready_seconds} * 1'000'000'000 < now.unixNanos;
}

const api::OwnerReference* controller_of(const api::ObjectMeta& m) {
  for (const auto& r : m.ownerReferences)
    if (r.controller.value_or(false)) return &r;
  return nullptr;
}

bool same_owner_ref(const api::OwnerReference& a, const api::OwnerReference& b) {
  return a.apiVersion == b.apiVersion && a.kind == b.kind && a.name == b.name && a.uid == b.uid &&
         a.controller == b.controller && a.blockOwnerDeletion == b.blockOwnerDeletion;
}

bool same_owner_refs(const std::vector<api::OwnerReference>& a, const std::vector<api::OwnerReference>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_owner_ref);
}

api::OwnerReference new_controller_ref(const api::ObjectMeta& owner, std::string_view api_version,
                                       std::string_view kind) {
  api::OwnerReference r;
  r.apiVersion = api_version;
  r.kind = kind;
  r.name = owner.name;
  r.uid = owner.uid;
  r.controller = true;
  r.blockOwnerDeletion = true;
  return r;
}

api::Pod pod_from_template(const PodTemplateSpec& tmpl, std::string_view ns, std::string_view owner_name,
                           const api::OwnerReference* ref) {
  api::Pod p;
  p.apiVersion = "v1";
  p.kind = "Pod";
  p.metadata.namespace_ = ns;
  // getPodsPrefix: "<name>-", or the bare name when that is not a valid generateName (too long).
  std::string prefix = std::string(owner_name) + "-";
  if (prefix.size() > 253) prefix = std::string(owner_name);
  p.metadata.generateName = prefix;
  p.metadata.labels = tmpl.metadata.labels;
  p.metadata.annotations = tmpl.metadata.annotations;
  p.metadata.finalizers = tmpl.metadata.finalizers;
  if (ref) p.metadata.ownerReferences.push_back(*ref);
  p.spec = tmpl.spec;
  return p;
}

int create_pods_slow_start(client::RestClient& c, std::vector<api::Pod> pods,
                           const std::function<void(const api::Pod&, const client::ApiError&)>& on_error,
                           const std::function<void(std::string_view name)>& on_created) {
  int created = 0;
  std::size_t next = 0;
  for (std::size_t batch = std::min<std::size_t>(1, pods.size()); batch > 0;
       batch = std::min(2 * batch, pods.size() - next)) {
    if (pods.empty()) break;
    // One resource path per batch: the pods of a batch share their namespace.
    auto ref = client::ResourceRef::of(client::ResourceFor<api::Pod>::info, pods[next].metadata.namespace_);
    std::vector<std::string> bodies;
    bodies.reserve(batch);
    for (std::size_t i = 0; i < batch; ++i) bodies.push_back(api::encode(pods[next + i]));
    auto results = c.create_all(ref, std::move(bodies));
    bool failed = false;
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i]) {
        ++created;
        if (on_created) {
          auto m = informer::ObjectCodec<ObjectMetadata>::decode(*results[i]);
          if (m) on_created(std::string_view(m->metadata.name));
        }
      } else {
        failed = true;
        if (on_error) on_error(pods[next + i], results[i].error());
      }
    }
    next += batch;
    if (failed || next >= pods.size()) break;
  }
  return created;
}

std::vector<client::Result<void>> delete_all(client::RestClient& c, const client::ResourceInfo& info,
                                             const std::vector<std::pair<std::string, std::string>>& ns_names,
                                             const client::DeleteOptions& opts) {
  std::vector<client::HttpRequest> reqs(ns_names.size());
  std::string body = opts.body();
  for (std::size_t i = 0; i < ns_names.size(); ++i) {
    reqs[i].method = "DELETE";
    reqs[i].target = client::ResourceRef::of(info, ns_names[i].first, ns_names[i].second).path();
    reqs[i].body = body;
    reqs[i].content_type = "application/json";
  }
  auto answers = c.transport().round_trip_all(reqs);
  std::vector<client::Result<void>> out;
  out.reserve(answers.size());
  for (auto& a : answers) {
    if (!a) {
      out.emplace_back(a.error());
    } else if ((a->status < 200 || a->status >= 300) && a->status != 404) {
      out.emplace_back(client::ApiError::from_response(a->status, a->body));
    } else {
      out.emplace_back();
    }
  }
  return out;
}

namespace {

int phase_ordinal(std::string_view phase) {
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 0;  // Pending, and anything else
}

std::int32_t deletion_cost(const api::Pod& p) {
  auto v = p.metadata.annotations.get("controller.kubernetes.io/pod-deletion-cost");
  if (v.empty()) return 0;
  std::int64_t x = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size() || x < INT32_MIN || x > INT32_MAX) return 0;
  return static_cast<std::int32_t>(x);
}

std::optional<std::int64_t> ready_time(const api::Pod& p) {
  const auto* c = api::find_pod_condition(p.status, "Ready");
  if (c && c->status == "True" && c->lastTransitionTime) return c->lastTransitionTime->unixNanos;
  return std::nullopt;
}

std::int32_t max_restarts(const api::Pod& p) {
  std::int32_t m = 0;
  for (const auto& cs : p.status.containerStatuses) m = std::max(m, cs.restartCount);
  for (const auto& cs : p.status.initContainerStatuses) m = std::max(m, cs.restartCount);
  return m;
}

// floor(log2(now - t)) in nanoseconds, -1 when t is not in the past (logarithmicRankDiff).
std::int64_t log_rank(std::int64_t t, std::int64_t now) {
  std::int64_t d = now - t;
  return d > 0 ? static_cast<std::int64_t>(std::log2(static_cast<double>(d))) : -1;
}

// "a is after b, or a is unset": the newer (or unknown) one is deleted first (afterOrZero).
bool after_or_zero(std::optional<std::int64_t> a, std::optional<std::int64_t> b) {
  if (!a || !b) return !a;
  return *a > *b;
}

}  // namespace

void sort_pods_for_deletion(std::vector<Ptr<api::Pod>>& pods, const std::vector<Ptr<api::Pod>>& related,
                            api::Time now) {
  std::unordered_map<std::string_view, int> on_node;
  for (const auto& p : related)
    if (is_pod_active(*p)) ++on_node[std::string_view(p->spec.nodeName)];
  struct Ranked {
    Ptr<api::Pod> pod;
    int rank;
  };
  std::vector<Ranked> v;
  v.reserve(pods.size());
  for (auto& p : pods) {
    auto it = on_node.find(std::string_view(p->spec.nodeName));
    v.push_back({p, it == on_node.end() ? 0 : it->second});
  }
  const std::int64_t n = now.unixNanos;
  auto less = [n](const Ranked& x, const Ranked& y) {
    const api::Pod& a = *x.pod;
    const api::Pod& b = *y.pod;
    bool ua = a.spec.nodeName.empty(), ub = b.spec.nodeName.empty();
    if (a.spec.nodeName != b.spec.nodeName && (ua || ub)) return ua;
    int pa = phase_ordinal(a.status.phase), pb = phase_ordinal(b.status.phase);
    if (pa != pb) return pa < pb;
    bool ra = is_pod_ready(a), rb = is_pod_ready(b);
    if (ra != rb) return !ra;
    std::int32_t ca = deletion_cost(a), cb = deletion_cost(b);
    if (ca != cb) return ca < cb;
    if (x.rank != y.rank) return x.rank > y.rank;
    if (ra && rb) {
      auto ta = ready_time(a), tb = ready_time(b);
      if (ta != tb) {
        if (n == 0 || !ta || !tb) return after_or_zero(ta, tb);
        std::int64_t d = log_rank(*ta, n) - log_rank(*tb, n);
        if (d == 0) return std::string_view(a.metadata.uid) < std::string_view(b.metadata.uid);
        return d < 0;
      }
    }
    std::int32_t ma = max_restarts(a), mb = max_restarts(b);
    if (ma != mb) return ma > mb;
    std::optional<std::int64_t> tca, tcb;
    if (a.metadata.creationTimestamp) tca = a.metadata.creationTimestamp->unixNanos;
    if (b.metadata.creationTimestamp) tcb = b.metadata.creationTimestamp->unixNanos;
    if (tca != tcb) {
      if (n == 0 || !tca || !tcb) return after_or_zero(tca, tcb);
      std::int64_t d = log_rank(*tca, n) - log_rank(*tcb, n);
      if (d == 0) return std::string_view(a.metadata.uid) < std::string_view(b.metadata.uid);
      return d < 0;
    }
    return false;
  };
  std::stable_sort(v.begin(), v.end(), less);
  for (std::size_t i = 0; i < v.size(); ++i) pods[i] = std::move(v[i].pod);
}

// ---------------------------------------------------------------- adoption

std::string adopt_patch(const ClaimOwner& owner, std::string_view uid) {
  json::object ref{{"apiVersion", owner.api_version},
                   {"kind", owner.kind},
                   {"name", std::string_view(owner.meta->name)},
                   {"uid", std::string_view(owner.meta->uid)},
                   {"controller", true},
                   {"blockOwnerDeletion", true}};
  return json::serialize(
      json::object{{"metadata", json::object{{"ownerReferences", json::array{ref}}, {"uid", uid}}}});
}

std::string release_patch(std::string_view owner_uid, std::string_view uid) {
  return json::serialize(json::object{
      {"metadata", json::object{{"ownerReferences", json::array{json::object{{"$patch", "delete"}, {"uid", owner_uid}}}},
                                {"uid", uid}}}});
}

template <class T>
Claimed<T> claim_objects(client::RestClient& c, const ClaimOwner& owner, const labels::Selector& selector,
                         const std::vector<Ptr<T>>& candidates, const std::function<bool()>& can_adopt) {
  Claimed<T> out;
  std::optional<bool> adoptable;
  const auto& info = client::ResourceFor<T>::info;
  auto patch = [&](const T& obj, std::string body) -> client::Result<void> {
    auto r = c.patch(client::ResourceRef::of(info, obj.metadata.namespace_, obj.metadata.name),
                     client::PatchType::StrategicMerge, std::move(body));
    if (!r) return r.error();
    return {};
  };
  for (const auto& obj : candidates) {
    const auto* ref = controller_of(obj->metadata);
    bool matches = selector.matches(obj->metadata.labels);
    if (ref) {
      if (ref->uid != owner.meta->uid) continue;  // someone else's
      if (matches) {
        out.objects.push_back(obj);
        continue;
      }
      if (owner.meta->deletionTimestamp) continue;
      if (auto r = patch(*obj, release_patch(owner.meta->uid, obj->metadata.uid)); !r && !client::is_not_found(r.error()))
        if (!out.error) out.error = r.error();
      continue;
    }
    if (owner.meta->deletionTimestamp || !matches || obj->metadata.deletionTimestamp) continue;
    if (obj->metadata.namespace_ != owner.meta->namespace_) continue;
    if (!adoptable) adoptable = can_adopt ? can_adopt() : true;
    if (!*adoptable) {
      if (!out.error)
        out.error = client::ApiError{409, "Conflict",
                                     owner.kind + " " + std::string(owner.meta->namespace_) + "/" +
                                         std::string(owner.meta->name) + " has just been deleted"};
      continue;
    }
    auto r = patch(*obj, adopt_patch(owner, obj->metadata.uid));
    if (!r) {
      if (!client::is_not_found(r.error()) && !out.error) out.error = r.error();
      continue;
    }
    out.objects.push_back(obj);
  }
  return out;
}

template Claimed<api::Pod> claim_objects<api::Pod>(client::RestClient&, const ClaimOwner&, const labels::Selector&,
                                                   const std::vector<Ptr<api::Pod>>&, const std::function<bool()>&);
template Claimed<ReplicaSet> claim_objects<ReplicaSet>(client::RestClient&, const ClaimOwner&, const labels::Selector&,
                                                       const std::vector<Ptr<ReplicaSet>>&,
                                                       const std::function<bool()>&);
template Claimed<ControllerRevision> claim_objects<ControllerRevision>(client::RestClient&, const ClaimOwner&,
                                                                       const labels::Selector&,
                                                                       const std::vector<Ptr<ControllerRevision>>&,
                                                                       const std::function<bool()>&);

// ---------------------------------------------------------------- misc

labels::Selector selector_of(const std::optional<api::LabelSelector>& s) {
  if (!s) return labels::Selector::nothing();
  auto r = labels::from_label_selector(&*s);
  return r ? std::move(*r) : labels::Selector::nothing();
}

std::chrono::milliseconds resync_period(std::chrono::milliseconds base) {
  if (base.count() <= 0) return base;
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> f(1.0, 2.0);
  return std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(base.count()) * f(rng)));
}

api::ObjectReference object_reference(std::string_view api_version, std::string_view kind, const api::ObjectMeta& m) {
  api::ObjectReference r;
  r.apiVersion = api_version;
  r.kind = kind;
  r.namespace_ = m.namespace_;
  r.name = m.name;
  r.uid = m.uid;
  r.resourceVersion = m.resourceVersion;
  return r;
}

}  // namespace ksched::controllers
