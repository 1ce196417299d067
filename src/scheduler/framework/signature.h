// Pod scheduling signature (KEP-5598, opportunistic batching): what of a pod the enabled
// PreFilter/Filter/PreScore/Score plugins read. Two pods with equal signatures get the same filter
// verdicts and scores from every node, and placing one of them changes the verdicts and scores of
// the node it went to only. A plugin that cannot promise that for a pod marks it unsignable.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ksched::api {
struct Pod;
}

namespace ksched::scheduler::framework {

class PodSignature {
 public:
  // Appends one element (plugin-chosen name, value). Lengths are written so that no two
  // different element sequences give the same bytes.
  void add(std::string_view element, std::string_view value) {
    if (unsignable_) return;
    append_sized(element);
    append_sized(value);
  }
  void add(std::string_view element, std::int64_t value) {
    if (unsignable_) return;
    append_sized(element);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  // The pod cannot be batched (e.g. its placement depends on other pods).
  void set_unsignable() {
    unsignable_ = true;
    bytes_.clear();
  }
  bool signable() const { return !unsignable_; }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  void append_sized(std::string_view s) {
    const auto n = static_cast<std::uint32_t>(s.size());
    bytes_.append(reinterpret_cast<const char*>(&n), sizeof n);
    bytes_.append(s);
  }
  std::string bytes_;
  bool unsignable_ = false;
};

// Signature parts more than one plugin adds (each under the element name given).
void sign_tolerations(const api::Pod& pod, std::string_view element, PodSignature& sig);
// The pod's requests as NodeResourcesFit and BalancedAllocation compute them (with and without
// the scoring defaults for containers that request nothing).
void sign_requests(const api::Pod& pod, std::string_view element, PodSignature& sig);
// The volume plugins: a pod with any volume that is not node-local data (configMap, secret,
// emptyDir, downwardAPI, projected, hostPath, ...) is unsignable, since its placement depends on
// PersistentVolumes, claims and attach limits shared with other pods.
void sign_volumes(const api::Pod& pod, PodSignature& sig);

}  // namespace ksched::scheduler::framework
