// ImageLocality: favours nodes that already have the pod's container images, scaled by how widely
// each image is spread across the cluster (so one node holding a rare image does not attract
// everything).
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "scheduler/framework/interface.h"

namespace ksched::scheduler::plugins::imagelocality {

inline constexpr std::string_view kName = "ImageLocality";
inline constexpr std::int64_t kMB = 1024 * 1024;
inline constexpr std::int64_t kMinThreshold = 23 * kMB;
inline constexpr std::int64_t kMaxContainerThreshold = 1000 * kMB;

// Appends ":latest" when the name has no tag (no ':' after the last '/'), as the node status lists
// images with their tags.
std::string normalized_image_name(std::string_view name);

// 100·(clamp(sum, 23MiB, 1000MiB·containers) − 23MiB) / (max − 23MiB).
std::int64_t calculate_priority(std::int64_t sum_scores, int num_containers);

class ImageLocality final : public framework::SignPlugin,
                            public framework::ScorePlugin {
 public:
  explicit ImageLocality(framework::Handle& handle) : handle_(handle) {}
  std::string_view name() const override { return kName; }
  void sign_pod(const api::Pod& pod, framework::PodSignature& sig) const override;
  // Σ over init + regular containers of size·nodesWithImage/totalNodes for images on this node.
  framework::Status score(const framework::CycleState& state, const api::Pod& pod,
                          const framework::NodeInfo& node_info, std::int64_t& score) override;

 private:
  framework::Handle& handle_;
};

util::Result<std::shared_ptr<framework::Plugin>> make_image_locality(const framework::PluginArgs& args,
                                                                     framework::Handle& handle);

}  // namespace ksched::scheduler::plugins::imagelocality
