#include "scheduler/apidispatcher/async_client.h"

#include <future>

#include "scheduler/apidispatcher/pod_calls.h"

namespace ksched::scheduler::apidispatcher {

namespace {

// Upstream APICache.WaitOnFinish: skipped or overwritten is a normal end of a call's life.
framework::Status outcome(const CallResult& r) { return r.unexpected() ? r.status : framework::Status(); }

}  // namespace

framework::Status AsyncClusterClient::bind(const api::Pod& pod, const std::string& node_name) {
  auto done = std::make_shared<std::promise<CallResult>>();
  auto answer = done->get_future();
  dispatcher_.add(std::make_shared<PodBindingCall>(pod, node_name), [done](const CallResult& r) { done->set_value(r); });
  return outcome(answer.get());
}

std::vector<framework::Status> AsyncClusterClient::bind_all(const std::vector<Binding>& bindings) {
  std::vector<std::future<CallResult>> answers;
  answers.reserve(bindings.size());
  for (const auto& b : bindings) {
    auto done = std::make_shared<std::promise<CallResult>>();
    answers.push_back(done->get_future());
    dispatcher_.add(std::make_shared<PodBindingCall>(*b.pod, *b.node_name),
                    [done](const CallResult& r) { done->set_value(r); });
  }
  std::vector<framework::Status> out;
  out.reserve(answers.size());
  for (auto& a : answers) out.push_back(outcome(a.get()));
  return out;
}

framework::Status AsyncClusterClient::patch_pod_status(const api::Pod& pod,
                                                       const std::optional<api::PodCondition>& condition,
                                                       const std::optional<std::string>& nominated_node_name) {
  if (!condition && !nominated_node_name) return {};
  auto refused = dispatcher_.add(std::make_shared<PodStatusPatchCall>(pod, condition, nominated_node_name));
  return refused ? outcome(*refused) : framework::Status();
}

}  // namespace ksched::scheduler::apidispatcher
