#include "scheduler/apidispatcher/dispatcher.h"

#include <chrono>

#include "scheduler/apidispatcher/pod_calls.h"
#include "scheduler/framework/interface.h"
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

namespace {

// Bindings of different pods go out together (ClusterClient::bind_all: one pipelined write); each
// is still its own call with its own result. Upstream sends each in its own goroutine.
bool batch_bindings(CallType t) { return t == CallType::PodBinding; }
constexpr std::size_t kMaxBatch = 64;

}  // namespace

void Dispatcher::work() {
  util::set_thread_name("api-dispatch");
  std::vector<framework::ClusterClient::Binding> bindings;
  std::vector<framework::Status> results;
  for (;;) {
    std::vector<CallQueue::Popped> batch = queue_.pop_batch(kMaxBatch, &batch_bindings);
    if (batch.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    results.clear();
    if (batch.size() == 1) {
      results.push_back(batch.front().call->execute(client_));
    } else {
      bindings.clear();
      for (const auto& p : batch) {
        const auto& b = static_cast<const PodBindingCall&>(*p.call);
        bindings.push_back({&b.target(), &b.node_name()});
      }
      results = client_.bind_all(bindings);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      framework::Status& st = results[i];
      if (observer_.executed) observer_.executed(batch[i].call->type(), st.is_success(), seconds);
      queue_.finalize(batch[i], st.is_success() ? CallResult{} : CallResult{CallResult::Kind::Failed, std::move(st)});
    }
  }
}

void Dispatcher::close() {
  queue_.close();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

}  // namespace ksched::scheduler::apidispatcher
