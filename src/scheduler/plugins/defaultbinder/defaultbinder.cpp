#include "scheduler/plugins/defaultbinder/defaultbinder.h"

#include <vector>

namespace ksched::scheduler::plugins::defaultbinder {

namespace {

// The client reports API failures; the binder never asks for a retry elsewhere.
framework::Status as_bind_status(framework::Status s) {
  if (s.is_success() || s.is_error()) return s;
  return framework::Status::error(s.message());
}

}  // namespace

framework::Status DefaultBinder::bind(framework::CycleState&, const api::Pod& pod, const std::string& node_name) {
  return as_bind_status(handle_.client().bind(pod, node_name));
}

void DefaultBinder::bind_all(std::span<const framework::BindItem> items, std::span<framework::Status> out) {
  if (items.size() == 1) {
    out[0] = bind(*items[0].state, *items[0].pod, *items[0].node_name);
    return;
  }
  std::vector<framework::ClusterClient::Binding> bindings;
  bindings.reserve(items.size());
  for (const auto& it : items) bindings.push_back({it.pod, it.node_name});
  std::vector<framework::Status> answers = handle_.client().bind_all(bindings);
  for (std::size_t i = 0; i < items.size(); ++i) {
    out[i] = i < answers.size() ? as_bind_status(std::move(answers[i]))
                                : framework::Status::error("the client answered fewer bindings than it was given");
  }
}

util::Result<std::shared_ptr<framework::Plugin>> make_default_binder(const framework::PluginArgs&,
                                                                     framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<DefaultBinder>(handle));
}

}  // namespace ksched::scheduler::plugins::defaultbinder
