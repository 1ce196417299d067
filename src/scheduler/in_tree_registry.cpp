#include "scheduler/in_tree_registry.h"

#include <cstdlib>

#include "util/log.h"

// Plugins are separate libraries written in parallel; each is wired when its header exists.
#if __has_include("scheduler/plugins/prioritysort/prioritysort.h")
#include "scheduler/plugins/prioritysort/prioritysort.h"
#define KSCHED_HAS_PRIORITYSORT 1
#endif
#if __has_include("scheduler/plugins/schedulinggates/schedulinggates.h")
#include "scheduler/plugins/schedulinggates/schedulinggates.h"
#define KSCHED_HAS_SCHEDULINGGATES 1
#endif
#if __has_include("scheduler/plugins/nodeunschedulable/nodeunschedulable.h")
#include "scheduler/plugins/nodeunschedulable/nodeunschedulable.h"
#define KSCHED_HAS_NODEUNSCHEDULABLE 1
#endif
#if __has_include("scheduler/plugins/nodename/nodename.h")
#include "scheduler/plugins/nodename/nodename.h"
#define KSCHED_HAS_NODENAME 1
#endif
#if __has_include("scheduler/plugins/tainttoleration/tainttoleration.h")
#include "scheduler/plugins/tainttoleration/tainttoleration.h"
#define KSCHED_HAS_TAINTTOLERATION 1
#endif
#if __has_include("scheduler/plugins/nodeaffinity/nodeaffinity.h")
#include "scheduler/plugins/nodeaffinity/nodeaffinity.h"
#define KSCHED_HAS_NODEAFFINITY 1
#endif
#if __has_include("scheduler/plugins/nodeports/nodeports.h")
#include "scheduler/plugins/nodeports/nodeports.h"
#define KSCHED_HAS_NODEPORTS 1
#endif
#if __has_include("scheduler/plugins/noderesources/fit.h")
#include "scheduler/plugins/noderesources/fit.h"
#define KSCHED_HAS_NODERESOURCESFIT 1
#endif
#if __has_include("scheduler/plugins/noderesources/balanced_allocation.h")
#include "scheduler/plugins/noderesources/balanced_allocation.h"
#define KSCHED_HAS_BALANCEDALLOCATION 1
#endif
#if __has_include("scheduler/plugins/imagelocality/imagelocality.h")
#include "scheduler/plugins/imagelocality/imagelocality.h"
#define KSCHED_HAS_IMAGELOCALITY 1
#endif
#if __has_include("scheduler/plugins/podtopologyspread/podtopologyspread.h")
#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"
#define KSCHED_HAS_PODTOPOLOGYSPREAD 1
#endif
#if __has_include("scheduler/plugins/interpodaffinity/interpodaffinity.h")
#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"
#define KSCHED_HAS_INTERPODAFFINITY 1
#endif
#if __has_include("scheduler/plugins/volumerestrictions/volumerestrictions.h")
#include "scheduler/plugins/volumerestrictions/volumerestrictions.h"
#define KSCHED_HAS_VOLUMERESTRICTIONS 1
#endif
#if __has_include("scheduler/plugins/volumezone/volumezone.h")
#include "scheduler/plugins/volumezone/volumezone.h"
#define KSCHED_HAS_VOLUMEZONE 1
#endif
#if __has_include("scheduler/plugins/nodevolumelimits/nodevolumelimits.h")
#include "scheduler/plugins/nodevolumelimits/nodevolumelimits.h"
#define KSCHED_HAS_NODEVOLUMELIMITS 1
#endif
#if __has_include("scheduler/plugins/volumebinding/volumebinding.h")
#include "scheduler/plugins/volumebinding/volumebinding.h"
#define KSCHED_HAS_VOLUMEBINDING 1
#endif
#if __has_include("scheduler/plugins/defaultpreemption/defaultpreemption.h")
#include "scheduler/plugins/defaultpreemption/defaultpreemption.h"
#define KSCHED_HAS_DEFAULTPREEMPTION 1
#endif
#if __has_include("scheduler/plugins/defaultbinder/defaultbinder.h")
#include "scheduler/plugins/defaultbinder/defaultbinder.h"
#define KSCHED_HAS_DEFAULTBINDER 1
#endif

namespace ksched::scheduler {

namespace {

void must_add(framework::Registry& r, std::string_view name, framework::PluginFactory f) {
  auto res = r.add(std::string(name), std::move(f));
  if (!res.ok()) {
    log::error("Registering in-tree plugin failed", {{"plugin", name}, {"err", res.error()}});
    std::abort();
  }
}

void fill(framework::Registry& r, std::vector<std::string>& missing) {
  (void)missing;  // empty when every plugin is built
  namespace pl = plugins;
#ifdef KSCHED_HAS_PRIORITYSORT
  must_add(r, pl::prioritysort::kName, pl::prioritysort::make_priority_sort);
#else
  missing.emplace_back("PrioritySort");
#endif
#ifdef KSCHED_HAS_SCHEDULINGGATES
  must_add(r, pl::schedulinggates::kName, pl::schedulinggates::make_scheduling_gates);
#else
  missing.emplace_back("SchedulingGates");
#endif
#ifdef KSCHED_HAS_NODEUNSCHEDULABLE
  must_add(r, pl::nodeunschedulable::kName, pl::nodeunschedulable::make_node_unschedulable);
#else
  missing.emplace_back("NodeUnschedulable");
#endif
#ifdef KSCHED_HAS_NODENAME
  must_add(r, pl::nodename::kName, pl::nodename::make_node_name);
#else
  missing.emplace_back("NodeName");
#endif
#ifdef KSCHED_HAS_TAINTTOLERATION
  must_add(r, pl::tainttoleration::kName, pl::tainttoleration::make_taint_toleration);
#else
  missing.emplace_back("TaintToleration");
#endif
#ifdef KSCHED_HAS_NODEAFFINITY
  must_add(r, pl::nodeaffinity::kName, pl::nodeaffinity::make_node_affinity);
#else
  missing.emplace_back("NodeAffinity");
#endif
#ifdef KSCHED_HAS_NODEPORTS
  must_add(r, pl::nodeports::kName, pl::nodeports::make_node_ports);
#else
  missing.emplace_back("NodePorts");
#endif
#ifdef KSCHED_HAS_NODERESOURCESFIT
  must_add(r, pl::noderesources::kFitName, pl::noderesources::make_node_resources_fit);
#else
  missing.emplace_back("NodeResourcesFit");
#endif
#ifdef KSCHED_HAS_BALANCEDALLOCATION
  must_add(r, pl::noderesources::kBalancedAllocationName, pl::noderesources::make_node_resources_balanced_allocation);
#else
  missing.emplace_back("NodeResourcesBalancedAllocation");
#endif
#ifdef KSCHED_HAS_IMAGELOCALITY
  must_add(r, pl::imagelocality::kName, pl::imagelocality::make_image_locality);
#else
  missing.emplace_back("ImageLocality");
#endif
#ifdef KSCHED_HAS_PODTOPOLOGYSPREAD
  must_add(r, pl::podtopologyspread::kName, pl::podtopologyspread::make_pod_topology_spread);
#else
  missing.emplace_back("PodTopologySpread");
#endif
#ifdef KSCHED_HAS_INTERPODAFFINITY
  must_add(r, pl::interpodaffinity::kName, pl::interpodaffinity::make_inter_pod_affinity);
#else
  missing.emplace_back("InterPodAffinity");
#endif
#ifdef KSCHED_HAS_VOLUMERESTRICTIONS
  must_add(r, pl::volumerestrictions::kName, pl::volumerestrictions::make_volume_restrictions);
#else
  missing.emplace_back("VolumeRestrictions");
#endif
#ifdef KSCHED_HAS_VOLUMEZONE
  must_add(r, pl::volumezone::kName, pl::volumezone::make_volume_zone);
#else
  missing.emplace_back("VolumeZone");
#endif
#ifdef KSCHED_HAS_NODEVOLUMELIMITS
  must_add(r, pl::nodevolumelimits::kName, pl::nodevolumelimits::make_node_volume_limits);
#else
  missing.emplace_back("NodeVolumeLimits");
#endif
#ifdef KSCHED_HAS_VOLUMEBINDING
  must_add(r, pl::volumebinding::kName, pl::volumebinding::make_volume_binding);
#else
  missing.emplace_back("VolumeBinding");
#endif
#ifdef KSCHED_HAS_DEFAULTPREEMPTION
  must_add(r, pl::defaultpreemption::kName, pl::defaultpreemption::make_default_preemption);
#else
  missing.emplace_back("DefaultPreemption");
#endif
#ifdef KSCHED_HAS_DEFAULTBINDER
  must_add(r, pl::defaultbinder::kName, pl::defaultbinder::make_default_binder);
#else
  missing.emplace_back("DefaultBinder");
#endif
}

}  // namespace

framework::Registry new_in_tree_registry() {
  framework::Registry r;
  std::vector<std::string> missing;
  fill(r, missing);
  return r;
}

std::vector<std::string> missing_in_tree_plugins() {
  framework::Registry r;
  std::vector<std::string> missing;
  fill(r, missing);
  return missing;
}

}  // namespace ksched::scheduler
