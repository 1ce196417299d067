#include "scheduler/framework/status.h"

#include <mutex>
#include <set>

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

const std::string Status::kNoPlugin;
const std::vector<std::string> Status::kNoReasons;

std::string Status::message() const {
  const auto& rs = reasons();
  if (rs.size() == 1) return rs.front();
  std::string out;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (i) out += ", ";
    out += rs[i];
  }
  return out;
}

const std::string& intern_plugin_name(std::string_view name) {
  // Never destroyed: statuses may name plugins during static destruction. Looked up once per
  // plugin per framework and on rare paths, so a plain ordered set does.
  static auto* names = new std::set<std::string, std::less<>>();
  static std::mutex mu;
  std::lock_guard l(mu);
  auto it = names->find(name);
  if (it == names->end()) it = names->emplace(name).first;
  return *it;
}

}  // namespace ksched::scheduler::framework
