#include "scheduler/plugins/imagelocality/imagelocality.h"

namespace ksched::scheduler::plugins::imagelocality {

namespace {

constexpr std::string_view kDefaultTag = ":latest";

bool has_tag(std::string_view name) {
  const auto colon = name.rfind(':');
  const auto slash = name.rfind('/');
  if (colon == std::string_view::npos) return false;
  return slash == std::string_view::npos || colon > slash;
}

// Looks up the normalized name without allocating per call: untagged names are completed in a
// per-thread buffer (Score runs concurrently for different nodes).
const framework::ImageStateSummary* find_image(const framework::NodeInfo& ni, std::string_view image) {
  if (has_tag(image)) return ni.imageStates.find(image);
  thread_local std::string buf;
  buf.assign(image);
  buf.append(kDefaultTag);
  return ni.imageStates.find(buf);
}

std::int64_t scaled_image_score(const framework::ImageStateSummary& st, std::size_t total_nodes) {
  const double spread = static_cast<double>(st.numNodes) / static_cast<double>(total_nodes);
  return static_cast<std::int64_t>(static_cast<double>(st.size) * spread);
}

}  // namespace

std::string normalized_image_name(std::string_view name) {
  std::string out(name);
  if (!has_tag(name)) out.append(kDefaultTag);
  return out;
}

std::int64_t calculate_priority(std::int64_t sum_scores, int num_containers) {
  const std::int64_t max_threshold = kMaxContainerThreshold * num_containers;
  if (sum_scores < kMinThreshold) {
    sum_scores = kMinThreshold;
  } else if (sum_scores > max_threshold) {
    sum_scores = max_threshold;
  }
  if (max_threshold == kMinThreshold) return 0;  // unreachable with ≥1 container; guards /0
  return framework::kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

framework::Status ImageLocality::score(const framework::CycleState&, const api::Pod& pod,
                                       const framework::NodeInfo& node_info, std::int64_t& score) {
  const std::size_t total = handle_.snapshot_node_infos().list().size();
  std::int64_t sum = 0;
  if (total > 0) {
    for (const auto* list : {&pod.spec.initContainers, &pod.spec.containers}) {
      for (const auto& c : *list) {
        if (const auto* st = find_image(node_info, c.image)) sum += scaled_image_score(*st, total);
      }
    }
  }
  const int containers = static_cast<int>(pod.spec.initContainers.size() + pod.spec.containers.size());
  score = containers == 0 ? 0 : calculate_priority(sum, containers);
  return {};
}

util::Result<std::shared_ptr<framework::Plugin>> make_image_locality(const framework::PluginArgs&,
                                                                     framework::Handle& handle) {
  return std::shared_ptr<framework::Plugin>(std::make_shared<ImageLocality>(handle));
}

void ImageLocality::sign_pod(const api::Pod& pod, framework::PodSignature& sig) const {
  std::string images;
  for (const auto* list : {&pod.spec.initContainers, &pod.spec.containers}) {
    for (const auto& c : *list) {
      images.append(c.image);
      images.push_back('\n');
    }
  }
  sig.add(kName, images);
}

}  // namespace ksched::scheduler::plugins::imagelocality
