#include "scheduler/config/types.h"

namespace ksched::scheduler::config {

std::string_view extension_point_field(ExtensionPoint ep) {
  switch (ep) {
    case ExtensionPoint::PreEnqueue: return "preEnqueue";
    case ExtensionPoint::QueueSort: return "queueSort";
    case ExtensionPoint::PreFilter: return "preFilter";
    case ExtensionPoint::Filter: return "filter";
    case ExtensionPoint::PostFilter: return "postFilter";
    case ExtensionPoint::PreScore: return "preScore";
    case ExtensionPoint::Score: return "score";
    case ExtensionPoint::Reserve: return "reserve";
    case ExtensionPoint::Permit: return "permit";
    case ExtensionPoint::PreBind: return "preBind";
    case ExtensionPoint::Bind: return "bind";
    case ExtensionPoint::PostBind: return "postBind";
    case ExtensionPoint::PlacementGenerate: return "placementGenerate";
    case ExtensionPoint::PlacementScore: return "placementScore";
    case ExtensionPoint::MultiPoint: return "multiPoint";
  }
  return "";
}

std::string_view extension_point_plugin_type(ExtensionPoint ep) {
  switch (ep) {
    case ExtensionPoint::PreEnqueue: return "PreEnqueuePlugin";
    case ExtensionPoint::QueueSort: return "QueueSortPlugin";
    case ExtensionPoint::PreFilter: return "PreFilterPlugin";
    case ExtensionPoint::Filter: return "FilterPlugin";
    case ExtensionPoint::PostFilter: return "PostFilterPlugin";
    case ExtensionPoint::PreScore: return "PreScorePlugin";
    case ExtensionPoint::Score: return "ScorePlugin";
    case ExtensionPoint::Reserve: return "ReservePlugin";
    case ExtensionPoint::Permit: return "PermitPlugin";
    case ExtensionPoint::PreBind: return "PreBindPlugin";
    case ExtensionPoint::Bind: return "BindPlugin";
    case ExtensionPoint::PostBind: return "PostBindPlugin";
    case ExtensionPoint::PlacementGenerate: return "PlacementGeneratePlugin";
    case ExtensionPoint::PlacementScore: return "PlacementScorePlugin";
    case ExtensionPoint::MultiPoint: return "MultiPointPlugin";
  }
  return "";
}

PluginSet& Plugins::at(ExtensionPoint ep) {
  switch (ep) {
    case ExtensionPoint::PreEnqueue: return preEnqueue;
    case ExtensionPoint::QueueSort: return queueSort;
    case ExtensionPoint::PreFilter: return preFilter;
    case ExtensionPoint::Filter: return filter;
    case ExtensionPoint::PostFilter: return postFilter;
    case ExtensionPoint::PreScore: return preScore;
    case ExtensionPoint::Score: return score;
    case ExtensionPoint::Reserve: return reserve;
    case ExtensionPoint::Permit: return permit;
    case ExtensionPoint::PreBind: return preBind;
    case ExtensionPoint::Bind: return bind;
    case ExtensionPoint::PostBind: return postBind;
    case ExtensionPoint::PlacementGenerate: return placementGenerate;
    case ExtensionPoint::PlacementScore: return placementScore;
    case ExtensionPoint::MultiPoint: return multiPoint;
  }
  return multiPoint;
}

const PluginSet& Plugins::at(ExtensionPoint ep) const { return const_cast<Plugins*>(this)->at(ep); }

}  // namespace ksched::scheduler::config
