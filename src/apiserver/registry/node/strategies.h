// node.k8s.io's strategy: v1 RuntimeClass (pkg/registry/node/runtimeclass/strategy.go): no status;
// the rules of runtimeclass.h, and on an update only what may not change beyond them (the handler).
#pragma once
#include <string_view>

#include "apiserver/registry/strategy.h"

namespace ksched::apiserver::registry::node {

// The strategy of a resource of the group at `version`, or null.
const Strategy* strategy(std::string_view version, std::string_view plural);

}  // namespace ksched::apiserver::registry::node
