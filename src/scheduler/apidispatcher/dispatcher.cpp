#include "scheduler/apidispatcher/dispatcher.h"

#include <chrono>

#include "util/thread.h"

namespace ksched::scheduler::apidispatcher {

Dispatcher::Dispatcher(framework::ClusterClient& client, int workers, Observer observer)
    : client_(client), observer_(std::move(observer)), queue_(observer_.pending) {
  if (workers < 1) workers = 1;
  workers_.reserve(static_cast<std::size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

Dispatcher::~Dispatcher() { close(); }

std::optional<CallResult> Dispatcher::add(std::shared_ptr<ApiCall> call, OnFinish on_finish) {
  return queue_.add(std::move(call), std::move(on_finish));
}

void Dispatcher::work() {
  util::set_thread_name("api-dispatch");
  while (auto popped = queue_.pop()) {
    const auto start = std::chrono::steady_clock::now();
    framework::Status st = popped.call->execute(client_);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (observer_.executed) observer_.executed(popped.call->type(), st.is_success(), seconds);
    queue_.finalize(popped, st.is_success() ? CallResult{} : CallResult{CallResult::Kind::Failed, std::move(st)});
  }
}

void Dispatcher::close() {
  queue_.close();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace ksched::scheduler::apidispatcher
