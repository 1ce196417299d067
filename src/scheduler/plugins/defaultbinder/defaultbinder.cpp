#include "scheduler/plugins/defaultbinder/defaultbinder.h"

namespace ksched::scheduler::plugins::defaultbinder {

framework::Status DefaultBinder::bind(framework::CycleState&, const api::Pod& pod, const std::string& node_name) {
  return bound_through_client(handle_.client().bind(pod, node_name));
}

framework::Status DefaultBinder::bound_through_client(framework::Status s) const {
  if (s.is_success()) return s;
  if (s.is_error()) return s;
  // The client reports API failures; the binder never asks for a retry elsewhere.
  return framework::Status::error(s.message());
}

util::Result<std::shared_ptr<framework::Plugin>> make_default_binder(const framework::PluginArgs&,
                                                                     framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<DefaultBinder>(handle));
}

}  // namespace ksched::scheduler::plugins::defaultbinder
