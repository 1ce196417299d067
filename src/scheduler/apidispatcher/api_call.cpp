#include "scheduler/apidispatcher/api_call.h"

namespace ksched::scheduler::apidispatcher {

std::string_view call_type_name(CallType t) {
  switch (t) {
    case CallType::PodStatusPatch:
      return "pod_status_patch";
    case CallType::PodBinding:
      return "pod_binding";
  }
  return "unknown";
}

int relevance(CallType t) {
  switch (t) {
    case CallType::PodStatusPatch:
      return 1;
    case CallType::PodBinding:
      return 2;
  }
  return 0;
}

// Upstream wraps ErrCallSkipped / ErrCallOverwritten ("call skipped", "call overwritten").
CallResult CallResult::skipped(std::string why) {
  return {Kind::Skipped, framework::Status::error(std::move(why) + ": call skipped")};
}
CallResult CallResult::overwritten(std::string why) {
  return {Kind::Overwritten, framework::Status::error(std::move(why) + ": call overwritten")};
}

}  // namespace ksched::scheduler::apidispatcher
