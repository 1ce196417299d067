// Internal: building a plan from expression text, shared by compile() and by tests and tools
// that need values other than bool (they run an Evaluator over the plan themselves).
#pragma once
#include <memory>
#include <string_view>

#include "cel/cel.h"
#include "cel/runtime.h"

namespace ksched::cel {

// Parses, checks and plans `expression`. With `require_bool` the result must be bool or dynamic
// (DRA's rule); without, any result type is accepted.
util::Result<std::shared_ptr<Plan>, CompileError> build_plan(std::string_view expression,
                                                              const CompileOptions& options, bool require_bool);

}  // namespace ksched::cel
