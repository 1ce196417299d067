// DefaultBinder: binds through the API (POST pods/{name}/binding) via Handle::client().
#pragma once
#include <memory>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::defaultbinder {

inline constexpr std::string_view kName = "DefaultBinder";

class DefaultBinder final : public framework::BindPlugin {
 public:
  explicit DefaultBinder(framework::Handle& handle) : handle_(handle) {}
  std::string_view name() const override { return kName; }
  // Any client failure is returned as an Error status (upstream framework.AsStatus(err)).
  framework::Status bind(framework::CycleState& state, const api::Pod& pod, const std::string& node_name) override;
  // Several pods: one ClusterClient::bind_all (a pipelined write), answers read in order. One
  // pod alone goes through bind(), whose request shares a connection with other workers'.
  void bind_all(std::span<const framework::BindItem> items, std::span<framework::Status> out) override;
  bool binds_in_batches() const override { return true; }

 private:
  framework::Handle& handle_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_default_binder(const framework::PluginArgs& args,
                                                                     framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::defaultbinder
