// The in-tree plugin registry (upstream framework/plugins/registry.go): every default plugin's
// factory under its upstream name.
#pragma once
#include <string>
#include <vector>

#include "scheduler/framework/registry.h"

namespace ksched::scheduler {

framework::Registry new_in_tree_registry();

// Default (v1.32) plugin names whose implementation is not built into this binary. A profile
// enabling one of them fails framework creation with the runtime's "not found" error.
std::vector<std::string> missing_in_tree_plugins();

}  // namespace ksched::scheduler
