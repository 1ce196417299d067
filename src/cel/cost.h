// Worst-case cost estimate of a checked expression: cel-go's checker/cost.go over the DRA
// environment, with the Kubernetes library's call costs (apiserver/pkg/cel/library/cost.go), the
// sets extension's estimators and DRA's size estimator, which bounds what the `device` variable
// can hold (driver names of 63 characters, 32 attributes or capacities per device, domains of
// 63 and ids of 32 characters, attribute values of 64). The API server refuses a selector whose
// estimate exceeds the limit ("too complex, exceeds cost limit").
#pragma once
#include <cstdint>

#include "cel/checker.h"

namespace ksched::cel {

struct CostEstimate {
  std::uint64_t min = 0, max = 0;
};

CostEstimate estimate_cost(const CheckedAst& checked);

}  // namespace ksched::cel
