#include "scheduler/framework/status.h"

namespace ksched::scheduler::framework {

const char* code_name(Code c) {
  switch (c) {
    case Code::Success: return "Success";
    case Code::Error: return "Error";
    case Code::Unschedulable: return "Unschedulable";
    case Code::UnschedulableAndUnresolvable: return "UnschedulableAndUnresolvable";
    case Code::Wait: return "Wait";
    case Code::Skip: return "Skip";
    case Code::Pending: return "Pending";
  }
  return "Unknown";
}

std::string Status::message() const {
  std::string out;
  for (std::size_t i = 0; i < reasons_.size(); ++i) {
    if (i) out += ", ";
    out += reasons_[i];
  }
  return out;
}

}  // namespace ksched::scheduler::framework
