// An API call the asynchronous dispatcher queues and executes (upstream v1.35
// k8s.io/kube-scheduler/framework api_dispatcher.go, SchedulerAsyncAPICalls, KEP-5229).
//
// Contract: a call is about one object (uid()); the dispatcher holds at most one call per object,
// so calls for one object run one after another, never concurrently. When a second call for the
// same object arrives, relevance decides: a less relevant one is skipped, a more relevant one of
// another type overwrites the queued one, one of the same type merges the older one's state into
// itself (merge) and replaces it. execute() runs on a dispatcher worker, without the queue's lock,
// possibly while sync() is called from an informer thread: implementations guard their own state.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "scheduler/framework/status.h"

namespace ksched::api {
struct Pod;
}
namespace ksched::scheduler::framework {
class ClusterClient;
}

namespace ksched::scheduler::apidispatcher {

// The call types the scheduler sends (upstream framework/api_calls/api_calls.go) and their
// relevance: a binding supersedes a pending status patch of the same pod.
enum class CallType : std::uint8_t { PodStatusPatch, PodBinding };
inline constexpr int kCallTypes = 2;
// The metric label ("pod_status_patch", "pod_binding").
std::string_view call_type_name(CallType t);
int relevance(CallType t);

// How a call's life ended. Skipped and Overwritten are expected outcomes (upstream
// ErrCallSkipped / ErrCallOverwritten), not failures: IsUnexpectedError is `unexpected()`.
struct CallResult {
  enum class Kind : std::uint8_t { Executed, Failed, Skipped, Overwritten, Closed };
  Kind kind = Kind::Executed;
  framework::Status status;  // the execution's error (Failed), or why it was not executed

  bool unexpected() const { return kind == Kind::Failed || kind == Kind::Closed; }
  static CallResult skipped(std::string why);
  static CallResult overwritten(std::string why);
};

// Receives a call's result exactly once (later results of the same call are dropped, as
// upstream's non-blocking send to a one-slot channel drops them). Runs on whichever thread
// decides the outcome, possibly under the dispatcher's lock: it must not call back into the
// dispatcher and must be quick (set a promise, count).
using OnFinish = std::function<void(const CallResult&)>;

class ApiCall {
 public:
  virtual ~ApiCall() = default;
  virtual CallType type() const = 0;
  virtual const std::string& uid() const = 0;
  // Performs the call through the client (a worker thread, without the dispatcher's lock).
  virtual framework::Status execute(framework::ClusterClient& client) = 0;
  // Takes what it needs from `older`, a call of the same type for the same object that this one
  // replaces (error: the types do not match). is_noop() is asked afterwards.
  virtual framework::Status merge(const ApiCall& older) = 0;
  // Refreshes the call's view of the object from an informer's copy (the object's newest state),
  // unless execution has started. Upstream's Sync also returns the object with the call applied;
  // v1.35 discards that object everywhere, so ksched does not build it.
  virtual void sync(const api::Pod& pod) = 0;
  // The call would change nothing: the dispatcher drops it unless one for the object is in flight.
  virtual bool is_noop() const = 0;
};

}  // namespace ksched::scheduler::apidispatcher
