// Plugin registry: plugin name -> factory. The in-tree registry holds every default plugin;
// out-of-tree plugins can be merged in (upstream runtime.Registry).
#pragma once
#include <map>
#include <string>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::framework {

class Registry {
 public:
  // Fails when the name is already registered.
  util::Result<void> add(const std::string& name, PluginFactory factory);
  const PluginFactory* find(const std::string& name) const {
    auto it = factories_.find(name);
    return it == factories_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, PluginFactory>& all() const { return factories_; }

 private:
  std::map<std::string, PluginFactory> factories_;
};

}  // namespace ksched::scheduler::framework
