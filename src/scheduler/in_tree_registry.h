// The in-tree plugin registry (upstream framework/plugins/registry.go NewInTreeRegistry): every
// default plugin's factory under its upstream name. All of them are always built; the table is in
// in_tree_registry.cpp.
#pragma once

#include "scheduler/framework/registry.h"

namespace ksched::scheduler {

framework::Registry new_in_tree_registry();

}  // namespace ksched::scheduler
