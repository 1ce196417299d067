// Why DynamicResources rejected a node, claim by claim and request by request. The plugin's own
// message is upstream's ("cannot allocate all claims"), which says nothing of the cause; this
// re-runs the real allocator on the node, one request at a time, to tell the causes apart: no device
// matches the class and selectors, the matching ones are in use, their taints are not tolerated,
// or each request fits alone but not all of them together (a constraint, or too few devices).
#pragma once
#include <string>

#include "api/types.h"
#include "scheduler/dra/manager.h"

namespace ksched::scheduler::explain {

// One line per claim the pod still needs allocated ("; " between them), e.g.
// "claim ml/train-gpu-x2k4q, request gpu (1 of class gpu): 2 match, 0 free (2 in use)".
// Empty when there is nothing to add (no claims, or all allocated already). Reads the manager's
// current state; the same numbers repeat on nodes alike, so explain's text groups such nodes.
std::string dra_rejection_detail(const dra::Manager& manager, const api::Pod& pod, const api::Node& node);

}  // namespace ksched::scheduler::explain
