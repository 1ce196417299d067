#include "scheduler/explain/dra_detail.h"

#include <map>

#include "api/helpers.h"
#include "cel/cel.h"

namespace ksched::scheduler::explain {
namespace resourceapi = api::resourcev1;
namespace {

// One request (or one subrequest of a firstAvailable list) as the probes see it.
struct Wanted {
  std::string name;  // "gpu" or "gpu/large"
  const resourceapi::ExactDeviceRequest* exactly = nullptr;
  const resourceapi::DeviceSubRequest* sub = nullptr;
  std::string_view class_name() const { return exactly ? exactly->deviceClassName.view() : sub->deviceClassName.view(); }
  bool all() const { return (exactly ? exactly->allocationMode.view() : sub->allocationMode.view()) == "All"; }
  std::int64_t count() const { return exactly ? exactly->count : sub->count; }
  const std::vector<resourceapi::DeviceToleration>& tolerations() const {
    return exactly ? exactly->tolerations : sub->tolerations;
  }
};

// The claim with `w` as its only request, asking for every device that matches, whatever their
// taints: what the node has for it, free or not.
resourceapi::ResourceClaim probe_for(const resourceapi::ResourceClaim& claim, const Wanted& w) {
  resourceapi::ResourceClaim probe;
  probe.metadata.name = claim.metadata.name;
  probe.metadata.namespace_ = claim.metadata.namespace_;
  probe.metadata.uid = claim.metadata.uid;
  resourceapi::DeviceRequest r;
  r.name = w.name.substr(0, w.name.find('/'));
  resourceapi::ExactDeviceRequest e;
  if (w.exactly) {
    e = *w.exactly;
  } else {
    e.deviceClassName = w.sub->deviceClassName;
    e.selectors = w.sub->selectors;
    e.capacity = w.sub->capacity;
  }
  e.allocationMode = "All";
  e.count = 0;
  e.adminAccess.reset();
  resourceapi::DeviceToleration any;
  any.operator_ = "Exists";
  e.tolerations = {any};
  r.exactly = std::move(e);
  probe.spec.devices.requests.push_back(std::move(r));
  return probe;
}

const resourceapi::Device* find_device(std::span<const dra::SlicePtr> slices, std::string_view driver,
                                       std::string_view pool, std::string_view name) {
  for (const auto& s : slices) {
    if (s->spec.driver.view() != driver || s->spec.pool.name.view() != pool) continue;
    for (const auto& d : s->spec.devices) {
      if (d.name.view() == name) return &d;
    }
  }
  return nullptr;
}

bool untolerated(const resourceapi::Device& d, const std::vector<resourceapi::DeviceToleration>& tolerations) {
  for (const auto& t : d.taints) {
    if (t.effect.view() != "NoSchedule" && t.effect.view() != "NoExecute") continue;
    bool ok = false;
    for (const auto& tol : tolerations) ok = ok || dra::tolerates(tol, t);
    if (!ok) return true;
  }
  return false;
}

}  // namespace

std::string dra_rejection_detail(const dra::Manager& manager, const api::Pod& pod, const api::Node& node) {
  std::vector<dra::ClaimPtr> pending;
  for (const auto& pc : pod.spec.resourceClaims) {
    auto name = dra::pod_claim_name(pod, pc);
    if (!name.ok() || !name->name) continue;
    auto claim = manager.claim(pod.metadata.namespace_.view(), *name->name);
    if (claim && !claim->status.allocation) pending.push_back(std::move(claim));
  }
  if (pending.empty()) return {};

  std::vector<dra::SlicePtr> buf;
  const auto index = manager.slices();
  const auto slices = index->for_node(node.metadata.name.view(), buf);
  const auto in_use = manager.allocated_devices();
  const dra::DeviceClassLookup classes = [&manager](std::string_view n) { return manager.device_class(n); };
  cel::Cache selectors(16);
  const dra::Allocator matcher(dra::Features{}, static_cast<const dra::DevicesInUse*>(nullptr), &classes, slices,
                               selectors);

  std::string out;
  for (const auto& claim : pending) {
    const std::string who = "claim " + api::key_of(*claim);
    std::vector<Wanted> wanted;
    for (const auto& r : claim->spec.devices.requests) {
      if (r.exactly) wanted.push_back({std::string(r.name.view()), &*r.exactly, nullptr});
      for (const auto& s : r.firstAvailable) {
        wanted.push_back({std::string(r.name.view()) + "/" + std::string(s.name.view()), nullptr, &s});
      }
    }
    bool each_fits = true;
    std::string lines;
    for (const auto& w : wanted) {
      const auto probe = probe_for(*claim, w);
      const resourceapi::ResourceClaim* one[] = {&probe};
      auto got = matcher.allocate(node, one);
      std::string line = who + ", request " + w.name + " (" +
                         (w.all() ? std::string("all") : std::to_string(w.count())) + " of class " +
                         std::string(w.class_name()) + "): ";
      if (!got.ok() && !got.error().node_only) {
        line += got.error().message;  // a class that does not exist, a selector that fails
        each_fits = false;
      } else {
        std::int64_t matching = 0, in_use_count = 0, tainted = 0, free = 0;
        if (got.ok() && got->found()) {
          for (const auto& d : got->results.front().devices.results) {
            ++matching;
            const auto* used = in_use->in_pool(d.driver.view(), d.pool.view());
            const bool busy = used != nullptr && used->contains(d.device.view());
            const auto* dev = find_device(slices, d.driver.view(), d.pool.view(), d.device.view());
            const bool bad_taint = dev != nullptr && untolerated(*dev, w.tolerations());
            in_use_count += busy ? 1 : 0;
            tainted += bad_taint ? 1 : 0;
            free += !busy && !bad_taint ? 1 : 0;
          }
        }
        std::size_t devices_here = 0;
        for (const auto& s : slices) devices_here += s->spec.devices.size();
        if (matching == 0) {
          line += "no device matches (the node has " + std::to_string(devices_here) +
                  (devices_here == 1 ? " device)" : " devices)");
        } else {
          line += std::to_string(matching) + " match, " + std::to_string(free) + " free";
          std::vector<std::string> why;
          if (in_use_count > 0) why.push_back(std::to_string(in_use_count) + " in use");
          if (tainted > 0) why.push_back(std::to_string(tainted) + " with untolerated taints");
          if (!why.empty()) {
            line += " (";
            for (std::size_t i = 0; i < why.size(); ++i) line += (i ? ", " : "") + why[i];
            line += ")";
          }
        }
        const bool fits = w.all() ? matching > 0 && free == matching : free >= w.count();
        // A firstAvailable list needs one of its subrequests, not all.
        if (!fits && !w.sub) each_fits = false;
      }
      lines += (lines.empty() ? "" : "; ") + line;
    }
    if (each_fits) {
      // Every request has what it needs alone: they conflict with each other (or with the pod's
      // other claims).
      std::string c;
      for (const auto& k : claim->spec.devices.constraints) {
        if (k.matchAttribute) c += (c.empty() ? "" : ", ") + std::string("matchAttribute ") + *k.matchAttribute;
        if (k.distinctAttribute) c += (c.empty() ? "" : ", ") + std::string("distinctAttribute ") + *k.distinctAttribute;
      }
      lines += "; " + who + ": each request fits alone but not all together" +
               (c.empty() ? std::string(" (not enough free devices for all of them)") : " (constraints: " + c + ")");
    }
    out += (out.empty() ? "" : "; ") + lines;
  }
  return out;
}

}  // namespace ksched::scheduler::explain
