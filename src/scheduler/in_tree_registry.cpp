#include "scheduler/in_tree_registry.h"

#include <cstdlib>
#include <string_view>

#include "scheduler/plugins/defaultbinder/defaultbinder.h"
#include "scheduler/plugins/defaultpreemption/defaultpreemption.h"
#include "scheduler/plugins/dynamicresources/dynamicresources.h"
#include "scheduler/plugins/gangscheduling/gangscheduling.h"
#include "scheduler/plugins/imagelocality/imagelocality.h"
#include "scheduler/plugins/interpodaffinity/interpodaffinity.h"
#include "scheduler/plugins/nodeaffinity/nodeaffinity.h"
#include "scheduler/plugins/nodedeclaredfeatures/nodedeclaredfeatures.h"
#include "scheduler/plugins/nodename/nodename.h"
#include "scheduler/plugins/nodeports/nodeports.h"
#include "scheduler/plugins/noderesources/balanced_allocation.h"
#include "scheduler/plugins/noderesources/fit.h"
#include "scheduler/plugins/nodeunschedulable/nodeunschedulable.h"
#include "scheduler/plugins/nodevolumelimits/nodevolumelimits.h"
#include "scheduler/plugins/podgrouppodscount/podgrouppodscount.h"
#include "scheduler/plugins/podtopologyspread/podtopologyspread.h"
#include "scheduler/plugins/prioritysort/prioritysort.h"
#include "scheduler/plugins/schedulinggates/schedulinggates.h"
#include "scheduler/plugins/tainttoleration/tainttoleration.h"
#include "scheduler/plugins/topologyplacement/topologyplacement.h"
#include "scheduler/plugins/volumebinding/volumebinding.h"
#include "scheduler/plugins/volumerestrictions/volumerestrictions.h"
#include "scheduler/plugins/volumezone/volumezone.h"
#include "util/log.h"

namespace ksched::scheduler {

namespace {

namespace pl = plugins;

using Factory = util::Result<std::shared_ptr<framework::Plugin>>(const framework::PluginArgs&,
                                                                 framework::Handle&);

struct InTreePlugin {
  std::string_view name;
  Factory* factory;
};

// Plugin name -> factory, in upstream's NewInTreeRegistry order. A new in-tree plugin is one line
// here (see docs/architecture.md, "Adding a plugin").
constexpr InTreePlugin kInTreePlugins[] = {
    {pl::dynamicresources::kName, pl::dynamicresources::make_dynamic_resources},
    {pl::imagelocality::kName, pl::imagelocality::make_image_locality},
    {pl::tainttoleration::kName, pl::tainttoleration::make_taint_toleration},
    {pl::nodename::kName, pl::nodename::make_node_name},
    {pl::nodeports::kName, pl::nodeports::make_node_ports},
    {pl::nodeaffinity::kName, pl::nodeaffinity::make_node_affinity},
    {pl::nodedeclaredfeatures::kName, pl::nodedeclaredfeatures::make_node_declared_features},
    {pl::podtopologyspread::kName, pl::podtopologyspread::make_pod_topology_spread},
    {pl::nodeunschedulable::kName, pl::nodeunschedulable::make_node_unschedulable},
    {pl::noderesources::kFitName, pl::noderesources::make_node_resources_fit},
    {pl::noderesources::kBalancedAllocationName, pl::noderesources::make_node_resources_balanced_allocation},
    {pl::volumebinding::kName, pl::volumebinding::make_volume_binding},
    {pl::volumerestrictions::kName, pl::volumerestrictions::make_volume_restrictions},
    {pl::volumezone::kName, pl::volumezone::make_volume_zone},
    {pl::nodevolumelimits::kName, pl::nodevolumelimits::make_node_volume_limits},
    {pl::interpodaffinity::kName, pl::interpodaffinity::make_inter_pod_affinity},
    {pl::prioritysort::kName, pl::prioritysort::make_priority_sort},
    {pl::defaultbinder::kName, pl::defaultbinder::make_default_binder},
    {pl::defaultpreemption::kName, pl::defaultpreemption::make_default_preemption},
    {pl::schedulinggates::kName, pl::schedulinggates::make_scheduling_gates},
    {pl::gangscheduling::kName, pl::gangscheduling::make_gang_scheduling},
    {pl::topologyplacement::kName, pl::topologyplacement::make_topology_placement},
    {pl::podgrouppodscount::kName, pl::podgrouppodscount::make_pod_group_pods_count},
};

}  // namespace

framework::Registry new_in_tree_registry() {
  framework::Registry r;
  for (const auto& [name, factory] : kInTreePlugins) {
    auto res = r.add(std::string(name), factory);
    if (!res.ok()) {
      log::error("Registering in-tree plugin failed", {{"plugin", name}, {"err", res.error()}});
      std::abort();
    }
  }
  return r;
}

}  // namespace ksched::scheduler
