#include "scheduler/framework/registry.h"

namespace ksched::scheduler::framework {

util::Result<void> Registry::add(const std::string& name, PluginFactory factory) {
  if (factories_.count(name)) return util::make_error("a plugin named " + name + " already exists");
  factories_.emplace(name, std::move(factory));
  return {};
}

}  // namespace ksched::scheduler::framework
