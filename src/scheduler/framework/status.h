// Status of a plugin call, with upstream's codes (pkg/scheduler/framework/interface.go).
// A default-constructed Status is Success (upstream's nil *Status).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace ksched::scheduler::framework {

enum class Code : int {
  Success = 0,
  Error = 1,
  Unschedulable = 2,
  UnschedulableAndUnresolvable = 3,
  Wait = 4,
  Skip = 5,
  Pending = 6,
};

const char* code_name(Code c);

class Status {
 public:
  Status() = default;
  explicit Status(Code code, std::vector<std::string> reasons = {}) : code_(code), reasons_(std::move(reasons)) {}
  Status(Code code, std::string reason) : code_(code) { reasons_.push_back(std::move(reason)); }

  static Status success() { return {}; }
  static Status error(std::string msg) { return Status(Code::Error, std::move(msg)); }
  static Status unschedulable(std::string reason) { return Status(Code::Unschedulable, std::move(reason)); }
  static Status unresolvable(std::string reason) {
    return Status(Code::UnschedulableAndUnresolvable, std::move(reason));
  }
  static Status skip() { return Status(Code::Skip); }

  Code code() const { return code_; }
  bool is_success() const { return code_ == Code::Success; }
  bool is_skip() const { return code_ == Code::Skip; }
  bool is_wait() const { return code_ == Code::Wait; }
  bool is_error() const { return code_ == Code::Error; }
  // Unschedulable, UnschedulableAndUnresolvable or Pending: the pod cannot go there now.
  bool is_rejected() const {
    return code_ == Code::Unschedulable || code_ == Code::UnschedulableAndUnresolvable || code_ == Code::Pending;
  }
  const std::vector<std::string>& reasons() const { return reasons_; }
  // Reasons joined by ", " (upstream Status.Message()).
  std::string message() const;
  // The plugin that returned this status (set by the framework runtime).
  const std::string& plugin() const { return plugin_; }
  Status& with_plugin(std::string p) {
    plugin_ = std::move(p);
    return *this;
  }
  void append_reason(std::string r) { reasons_.push_back(std::move(r)); }
  bool operator==(const Status& o) const { return code_ == o.code_ && reasons_ == o.reasons_; }

 private:
  Code code_ = Code::Success;
  std::vector<std::string> reasons_;
  std::string plugin_;
};

}  // namespace ksched::scheduler::framework
