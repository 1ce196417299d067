#include "scheduler/plugins/nodevolumelimits/nodevolumelimits.h"

#include <algorithm>
#include <random>

#include <boost/json.hpp>

#include "scheduler/plugins/volumebinding/volume_util.h"

namespace ksched::scheduler::plugins::nodevolumelimits {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::QueueingHint;
using framework::Status;

// Rejections shared by every node a pod is rejected on (see FixedReasons).
const framework::FixedReasons kFixedErrReasonMaxVolumeCountExceeded{std::string(kErrReasonMaxVolumeCountExceeded)};

namespace {

constexpr std::string_view kPreFilterStateKey = "PreFilterNodeVolumeLimits";

// When the scheduler treats an in-tree plugin as migrated on a node (upstream isCSIMigrationOn,
// v1.32): the GA migrations need only a CSINode object; Portworx (beta, on by default) also needs
// the node's migrated-plugins annotation; the rest are translatable but never pass the check.
enum class Migration { WithCSINode, Annotated, Never };

struct InTreePlugin {
  std::string_view source;  // pod Volume / PV spec member
  std::string_view plugin;  // in-tree plugin (and provisioner) name
  std::string_view driver;  // CSI driver it migrates to
  Migration migration;
};

constexpr InTreePlugin kInTreePlugins[] = {
    {"awsElasticBlockStore", "kubernetes.io/aws-ebs", "ebs.csi.aws.com", Migration::WithCSINode},
    {"gcePersistentDisk", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io", Migration::WithCSINode},
    {"azureDisk", "kubernetes.io/azure-disk", "disk.csi.azure.com", Migration::WithCSINode},
    {"cinder", "kubernetes.io/cinder", "cinder.csi.openstack.org", Migration::WithCSINode},
    {"portworxVolume", "kubernetes.io/portworx-volume", "pxd.portworx.com", Migration::Annotated},
    {"azureFile", "kubernetes.io/azure-file", "file.csi.azure.com", Migration::Never},
    {"vsphereVolume", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", Migration::Never},
};

const InTreePlugin* plugin_by_name(std::string_view name) {
  for (const auto& p : kInTreePlugins) {
    if (p.plugin == name) return &p;
  }
  return nullptr;
}

bool migration_on(const api::CSINode* csi_node, std::string_view plugin_name) {
  if (csi_node == nullptr) return false;
  const InTreePlugin* p = plugin_by_name(plugin_name);
  if (p == nullptr || p->migration == Migration::Never) return false;
  if (p->migration == Migration::WithCSINode) return true;
  const std::string* listed = csi_node->metadata.annotations.find(kMigratedPluginsAnnotation);
  if (listed == nullptr) return false;
  std::string_view rest = *listed;
  while (true) {
    auto comma = rest.find(',');
    if (rest.substr(0, comma) == plugin_name) return true;
    if (comma == std::string_view::npos) return false;
    rest.remove_prefix(comma + 1);
  }
}

// An unmodelled volume source member (kept as raw JSON in `extra`) as an object; null or
// non-object members count as absent, like Go's nil pointer.
std::optional<boost::json::object> extra_source(const api::Extra& extra, std::string_view key) {
  for (auto [k, raw] : extra.fields) {
    if (k != key) continue;
    boost::system::error_code ec;
    auto v = boost::json::parse(raw, ec);
    if (ec || !v.is_object()) return std::nullopt;
    return std::move(v.as_object());
  }
  return std::nullopt;
}

std::string json_string(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return (v != nullptr && v->is_string()) ? std::string(v->as_string()) : std::string();
}

// EBS volume id from the in-tree form: "vol-…", "aws://<zone>/vol-…" or "aws:///vol-…".
std::optional<std::string> ebs_volume_id(const std::string& id) {
  constexpr std::string_view kScheme = "aws://";
  if (!id.starts_with(kScheme)) return id;  // a bare id is taken as is
  std::string_view rest = std::string_view(id).substr(kScheme.size());
  rest = rest.substr(0, rest.find_first_of("?#"));  // URL query and fragment are not part of the path
  auto slash = rest.find('/');
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (!path.starts_with("vol-") || path.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(path);
}

std::string ebs_error(const std::string& id) {
  return "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (" + id + ")";
}

// GCE PD handle of a PV: zonal or regional from the PV's zone label, else an unspecified zone.
std::optional<std::string> gce_pv_handle(const api::PersistentVolume& pv, const std::string& pd_name) {
  std::string zones_label;
  if (const auto* z = pv.metadata.labels.find("failure-domain.beta.kubernetes.io/zone"); z != nullptr) zones_label = *z;
  if (zones_label.empty()) {
    if (const auto* z = pv.metadata.labels.find("topology.kubernetes.io/zone"); z != nullptr) zones_label = *z;
  }
  std::vector<std::string_view> zones;
  for (std::string_view rest = zones_label;;) {
    auto sep = rest.find("__");
    zones.push_back(rest.substr(0, sep));
    if (sep == std::string_view::npos) break;
    rest.remove_prefix(sep + 2);
  }
  if (zones.size() == 1) {
    std::string zone = zones[0].empty() ? "UNSPECIFIED" : std::string(zones[0]);
    return "projects/UNSPECIFIED/zones/" + zone + "/disks/" + pd_name;
  }
  // Regional: every zone is <locale>-<region>-<zone> in the same region.
  std::string region;
  for (auto z : zones) {
    if (std::count(z.begin(), z.end(), '-') != 2) return std::nullopt;
    std::string r(z.substr(0, z.rfind('-')));
    if (!region.empty() && r != region) return std::nullopt;
    region = std::move(r);
  }
  return "projects/UNSPECIFIED/regions/" + region + "/disks/" + pd_name;
}

// The pod's migratable in-tree inline volume source, if any (upstream IsInlineMigratable).
const InTreePlugin* inline_plugin(const api::Volume& v) {
  if (v.awsElasticBlockStore) return &kInTreePlugins[0];
  if (v.gcePersistentDisk) return &kInTreePlugins[1];
  for (const auto& p : kInTreePlugins) {
    if (p.source == "awsElasticBlockStore" || p.source == "gcePersistentDisk") continue;
    for (auto [k, raw] : v.extra.fields) {
      if (k == p.source && raw != "null") return &p;
    }
  }
  return nullptr;
}

// Volumes this plugin may count: claims, generic ephemeral volumes and migratable inline ones.
bool has_limited_volumes(const api::Pod& pod) {
  for (const auto& v : pod.spec.volumes) {
    if (v.persistentVolumeClaim || v.ephemeral || inline_plugin(v) != nullptr) return true;
  }
  return false;
}

// Translated (driver, handle) of an inline in-tree volume of a counted plugin; an error status when
// it does not translate.
Status translate_inline(const api::Volume& v, const InTreePlugin& p, std::string& handle) {
  if (p.source == "awsElasticBlockStore") {
    auto id = ebs_volume_id(v.awsElasticBlockStore->volumeID);
    if (!id) {
      return Status::error("converting volume(" + v.name + ") from inline to csi: " +
                           ebs_error(v.awsElasticBlockStore->volumeID));
    }
    handle = std::move(*id);
  } else if (p.source == "gcePersistentDisk") {
    handle = "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/" + v.gcePersistentDisk->pdName;
  } else {
    auto src = extra_source(v.extra, p.source);
    handle = src ? json_string(*src, p.source == "azureDisk" ? "diskURI" : "volumeID") : std::string();
  }
  return {};
}

// Translated handle of a PV with an in-tree source of a counted plugin; empty when it has none or
// it does not translate (such a PV is not counted).
std::string translate_pv(const api::PersistentVolume& pv, const InTreePlugin*& plugin) {
  plugin = nullptr;
  const auto& spec = pv.spec;
  if (spec.awsElasticBlockStore) {
    plugin = &kInTreePlugins[0];
    return ebs_volume_id(spec.awsElasticBlockStore->volumeID).value_or("");
  }
  if (spec.gcePersistentDisk) {
    plugin = &kInTreePlugins[1];
    return gce_pv_handle(pv, spec.gcePersistentDisk->pdName).value_or("");
  }
  for (const auto& p : kInTreePlugins) {
    if (p.source == "awsElasticBlockStore" || p.source == "gcePersistentDisk") continue;
    auto src = extra_source(spec.extra, p.source);
    if (!src) continue;
    plugin = &p;
    if (p.migration == Migration::Never) return {};
    return json_string(*src, p.source == "azureDisk" ? "diskURI" : "volumeID");
  }
  return {};
}

// The pod's new volumes grouped by driver, with the node allocatable key of each driver.
struct DriverVolumes {
  std::string driver;
  std::string limitKey;  // attachable-volumes-csi-<driver>
  std::vector<std::string> uniqueNames;
};

struct PreFilterState final : framework::StateData {
  std::vector<CSILimits::VolumeRef> volumes;  // node independent; migration is checked per node
  std::shared_ptr<framework::StateData> clone() const override { return std::make_shared<PreFilterState>(*this); }
  bool read_after_scheduling() const override { return false; }  // Filter/Score only
};

// The volumes of `refs` that count on a node with `csi_node`, or the first failure that applies
// there (errors of existing pods are internal errors, as upstream).
Status counted_on_node(const std::vector<CSILimits::VolumeRef>& refs, const api::CSINode* csi_node, bool new_pod,
                       std::vector<const CSILimits::VolumeRef*>& out) {
  for (const auto& r : refs) {
    if (!r.inTreePlugin.empty() && !migration_on(csi_node, r.inTreePlugin)) continue;
    if (!r.error.is_success()) return new_pod ? r.error : Status::error(r.error.message());
    out.push_back(&r);
  }
  return {};
}

}  // namespace

CSILimits::CSILimits(framework::Handle& handle) : handle_(handle) {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) randomVolumeIDPrefix_.push_back(kHex[rd() % 16]);
}

void CSILimits::attachable_volumes(const api::Pod& pod, bool new_pod, std::vector<VolumeRef>& out) const {
  const auto& lister = handle_.lister();
  auto add = [&](std::string_view driver, const std::string& handle, std::string_view plugin) {
    VolumeRef r;
    r.driver = std::string(driver);
    r.uniqueName = r.driver + "/" + handle;
    r.inTreePlugin = std::string(plugin);
    out.push_back(std::move(r));
  };
  auto fail = [&](Status s) {
    VolumeRef r;
    r.error = std::move(s);
    out.push_back(std::move(r));
  };
  for (const auto& v : pod.spec.volumes) {
    bool ephemeral = false;
    auto claim = volumebinding::volume_claim_name(pod, v, &ephemeral);
    if (!claim) {
      // Inline volume: only a migratable in-tree one counts, against its CSI driver.
      const InTreePlugin* p = inline_plugin(v);
      if (p == nullptr || p->migration == Migration::Never) continue;
      std::string handle;
      auto st = translate_inline(v, *p, handle);
      if (!st.is_success()) {
        VolumeRef r;
        r.inTreePlugin = std::string(p->plugin);
        r.error = std::move(st);
        out.push_back(std::move(r));
        continue;
      }
      add(p->driver, handle, p->plugin);
      continue;
    }
    if (claim->empty()) return fail(Status::error("PersistentVolumeClaim had no name"));
    auto pvc = lister.get_pvc(pod.metadata.namespace_, *claim);
    if (!pvc) {
      // A new pod cannot run without it; an existing pod's stale claim is simply not counted.
      if (new_pod) {
        return fail(Status::unresolvable("looking up PVC " + pod.metadata.namespace_ + "/" + *claim + ": " +
                                         volumebinding::pvc_not_found(*claim)));
      }
      continue;
    }
    if (ephemeral) {
      auto err = volumebinding::ephemeral_volume_owner_error(pod, *pvc);
      if (!err.empty()) return fail(Status::error(std::move(err)));
    }
    std::shared_ptr<const api::PersistentVolume> pv;
    if (!pvc->spec.volumeName.empty()) pv = lister.get_pv(pvc->spec.volumeName);
    if (pv) {
      if (pv->spec.csi) {
        if (pv->spec.csi->driver.empty() || pv->spec.csi->volumeHandle.empty()) continue;
        add(pv->spec.csi->driver, pv->spec.csi->volumeHandle, {});
        continue;
      }
      // An in-tree PV counts, translated, where its plugin is migrated.
      const InTreePlugin* p = nullptr;
      std::string handle = translate_pv(*pv, p);
      if (p == nullptr || handle.empty()) continue;
      add(p->driver, handle, p->plugin);
      continue;
    }
    // Not bound (or PV gone): count it against the class's provisioner under a unique handle.
    const std::string sc_name = volumebinding::pvc_storage_class(*pvc);
    if (sc_name.empty()) continue;
    auto sc = lister.get_storage_class(sc_name);
    if (!sc || sc->provisioner.empty()) continue;
    const std::string handle = randomVolumeIDPrefix_ + "-" + pvc->metadata.namespace_ + "/" + pvc->metadata.name;
    if (const InTreePlugin* p = plugin_by_name(sc->provisioner)) {
      // An in-tree provisioner stands for the CSI driver it migrates to.
      if (p->migration == Migration::Never) continue;
      add(p->driver, handle, p->plugin);
      continue;
    }
    add(sc->provisioner, handle, {});
  }
}

Status CSILimits::pre_filter(framework::CycleState& state, const api::Pod& pod,
                             const std::vector<framework::NodeInfoPtr>&, framework::PreFilterResult&) {
  if (!has_limited_volumes(pod)) return Status::skip();
  auto s = std::make_shared<PreFilterState>();
  attachable_volumes(pod, /*new_pod=*/true, s->volumes);
  state.write(std::string(kPreFilterStateKey), std::move(s));
  return {};
}

Status CSILimits::filter(const framework::CycleState& state, const api::Pod& pod, const framework::NodeInfo& node_info) {
  if (pod.spec.volumes.empty()) return {};
  const auto* s = state.read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return Status::error("error reading \"PreFilterNodeVolumeLimits\" from cycleState: not found");
  const api::Node* node = node_info.node();
  if (node == nullptr) return Status::error("node not found");
  // Without a CSINode no in-tree volume is migrated and limits come from the node only.
  auto csi_node = handle_.lister().get_csi_node(node->metadata.name);

  std::vector<const VolumeRef*> counted;
  if (auto st = counted_on_node(s->volumes, csi_node.get(), /*new_pod=*/true, counted); !st.is_success()) return st;
  std::vector<DriverVolumes> drivers;
  for (const VolumeRef* v : counted) {
    auto it = std::find_if(drivers.begin(), drivers.end(), [&](const DriverVolumes& d) { return d.driver == v->driver; });
    if (it == drivers.end()) {
      drivers.push_back(DriverVolumes{v->driver, std::string(kCSIAttachLimitPrefix) + v->driver, {}});
      it = drivers.end() - 1;
    }
    // The same volume used twice by the pod counts once.
    if (std::find(it->uniqueNames.begin(), it->uniqueNames.end(), v->uniqueName) == it->uniqueNames.end()) {
      it->uniqueNames.push_back(v->uniqueName);
    }
  }
  if (drivers.empty()) return {};

  // Limit per driver the pod uses: CSINode allocatable count wins over the node's allocatable.
  std::vector<std::optional<std::int64_t>> limits(drivers.size());
  bool any_limit = false;
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    if (const auto* v = node_info.allocatable.scalarResources.find(drivers[i].limitKey)) limits[i] = *v;
    if (csi_node) {
      for (const auto& d : csi_node->spec.drivers) {
        if (d.name == drivers[i].driver && d.allocatable && d.allocatable->count) limits[i] = *d.allocatable->count;
      }
    }
    any_limit = any_limit || limits[i].has_value();
  }
  if (!any_limit) return {};

  // Unique volumes already attached, per driver of interest, by the same rules on this node.
  std::vector<std::vector<std::string>> attached(drivers.size());
  std::vector<VolumeRef> vols;
  for (const auto& existing : node_info.pods) {
    vols.clear();
    counted.clear();
    attachable_volumes(*existing->pod, /*new_pod=*/false, vols);
    if (auto st = counted_on_node(vols, csi_node.get(), /*new_pod=*/false, counted); !st.is_success()) return st;
    for (const VolumeRef* v : counted) {
      for (std::size_t i = 0; i < drivers.size(); ++i) {
        if (drivers[i].driver != v->driver) continue;
        auto& a = attached[i];
        if (std::find(a.begin(), a.end(), v->uniqueName) == a.end()) a.push_back(v->uniqueName);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < drivers.size(); ++i) {
    if (!limits[i]) continue;
    std::int64_t new_count = 0;
    for (const auto& u : drivers[i].uniqueNames) {
      // A volume already attached to the node is not new.
      if (std::find(attached[i].begin(), attached[i].end(), u) == attached[i].end()) ++new_count;
    }
    if (new_count == 0) continue;
    if (static_cast<std::int64_t>(attached[i].size()) + new_count > *limits[i]) {
      return Status(framework::Code::Unschedulable, kFixedErrReasonMaxVolumeCountExceeded);
    }
  }
  return {};
}

std::vector<ClusterEventWithHint> CSILimits::events_to_register() const {
  ClusterEventWithHint csi_node;
  csi_node.event = ClusterEvent{framework::EventResource::CSINode, framework::kAdd, {}};
  ClusterEventWithHint pod_deleted;
  pod_deleted.event = ClusterEvent{framework::EventResource::Pod, framework::kDelete, {}};
  pod_deleted.hint = [](const api::Pod&, const std::shared_ptr<const void>& oldObj, const std::shared_ptr<const void>&) {
    const auto* deleted = static_cast<const api::Pod*>(oldObj.get());
    if (deleted == nullptr || deleted->spec.nodeName.empty()) return QueueingHint::Skip;
    return has_limited_volumes(*deleted) ? QueueingHint::Queue : QueueingHint::Skip;
  };
  ClusterEventWithHint pvc_added;
  pvc_added.event = ClusterEvent{framework::EventResource::PersistentVolumeClaim, framework::kAdd, {}};
  return {std::move(csi_node), std::move(pod_deleted), std::move(pvc_added)};
}

util::Result<std::shared_ptr<framework::Plugin>> make_node_volume_limits(const framework::PluginArgs&,
                                                                         framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<CSILimits>(handle));
}

void CSILimits::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  framework::sign_volumes(pod, sig);
}

}  // namespace ksched::scheduler::plugins::nodevolumelimits
