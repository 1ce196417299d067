// Status of a plugin call, with upstream's codes (pkg/scheduler/framework/interface.go).
// A default-constructed Status is Success (upstream's nil *Status).
#pragma once
#include <memory>
#include <string>
#include <string_view>
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

// Reasons fixed for the program's life: a plugin declares its common rejections once (a static
// or namespace-scope object), and a Status made from them holds a pointer, so that rejecting one
// node of thousands allocates nothing and copying the verdict is a few words.
class FixedReasons {
 public:
  explicit FixedReasons(std::string reason) { list_.push_back(std::move(reason)); }
  explicit FixedReasons(std::vector<std::string> reasons) : list_(std::move(reasons)) {}
  FixedReasons(const FixedReasons&) = delete;
  FixedReasons& operator=(const FixedReasons&) = delete;
  const std::vector<std::string>& list() const { return list_; }

 private:
  std::vector<std::string> list_;
};

// A plugin's name interned for the program's life (the set of names is small and fixed by the
// registries), so that a Status names its plugin by pointer.
const std::string& intern_plugin_name(std::string_view name);

class Status {
 public:
  Status() = default;
  explicit Status(Code code, std::vector<std::string> reasons = {}) : code_(code) {
    if (!reasons.empty()) own_ = std::make_unique<std::vector<std::string>>(std::move(reasons));
  }
  Status(Code code, std::string reason)
      : code_(code), own_(std::make_unique<std::vector<std::string>>(1, std::move(reason))) {}
  Status(const Status& o) : code_(o.code_), fixed_(o.fixed_), plugin_(o.plugin_) {
    if (o.own_) own_ = std::make_unique<std::vector<std::string>>(*o.own_);
  }
  Status& operator=(const Status& o) {
    if (this != &o) *this = Status(o);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  // `reasons` must outlive every copy of this status: declare it static.
  Status(Code code, const FixedReasons& reasons) : code_(code), fixed_(&reasons.list()) {}
  Status(Code code, const FixedReasons&& reasons) = delete;

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
  const std::vector<std::string>& reasons() const {
    return fixed_ != nullptr ? *fixed_ : own_ ? *own_ : kNoReasons;
  }
  // Reasons joined by ", " (upstream Status.Message()).
  std::string message() const;
  // The plugin that returned this status (set by the framework runtime); the same object for
  // every status of one plugin, so its address identifies the plugin.
  const std::string& plugin() const { return *plugin_; }
  Status& with_plugin(std::string_view p) & {
    plugin_ = &intern_plugin_name(p);
    return *this;
  }
  Status&& with_plugin(std::string_view p) && { return std::move(with_plugin(p)); }
  // An interned name (intern_plugin_name's result) is taken as it is.
  Status& with_interned_plugin(const std::string& p) & {
    plugin_ = &p;
    return *this;
  }
  void append_reason(std::string r) {
    if (!own_) own_ = std::make_unique<std::vector<std::string>>(fixed_ != nullptr ? *fixed_ : kNoReasons);
    fixed_ = nullptr;
    own_->push_back(std::move(r));
  }
  bool operator==(const Status& o) const { return code_ == o.code_ && reasons() == o.reasons(); }

 private:
  static const std::string kNoPlugin;
  static const std::vector<std::string> kNoReasons;
  Code code_ = Code::Success;
  const std::vector<std::string>* fixed_ = nullptr;  // FixedReasons::list(), or own_ is used
  // Reasons of its own, behind a pointer: a Status is four words, so that returning, moving and
  // dropping the verdict of each plugin on each node is a few moves and a null test.
  std::unique_ptr<std::vector<std::string>> own_;
  const std::string* plugin_ = &kNoPlugin;
};

}  // namespace ksched::scheduler::framework
