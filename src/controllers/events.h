// Events of a controller about the objects it controls (client-go's EventRecorder as the
// controllers use it); a recorder without a broadcaster records nothing.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "controllers/controller.h"

namespace ksched::controllers {

class Recorder {
 public:
  Recorder() = default;
  Recorder(events::EventBroadcaster* b, std::string component)
      : r_(b ? b->new_recorder(std::move(component)) : nullptr) {}
  template <class... Args>
  void eventf(const api::ObjectReference& regarding, std::string_view type, std::string_view reason,
              fmt::format_string<Args...> f, Args&&... args) {
    if (r_) r_->event(regarding, nullptr, type, reason, reason, fmt::format(f, std::forward<Args>(args)...));
  }

 private:
  std::shared_ptr<events::EventRecorder> r_;
};

}  // namespace ksched::controllers
