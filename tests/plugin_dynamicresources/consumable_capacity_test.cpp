// DynamicResources with DRAConsumableCapacity on (the gate mapped to dra::Features): pods share a
// multi-allocatable device through Filter and Reserve, and the in-flight shares of reserved pods
// bound what the next pod may take (upstream v1.35 dynamicresources.go with GatherAllocatedState).
#include "scheduler/plugins/dynamicresources/dynamicresources.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/yaml_json.h"
#include "scheduler/config/features.h"
#include "scheduler_testing/fakes.h"

namespace ksched::scheduler::plugins::dynamicresources {
namespace {

namespace fw = framework;
namespace resourceapi = api::resourcev1;

template <class T>
std::shared_ptr<const T> decode_yaml(std::string_view yaml) {
  auto json = api::yaml_text_to_json(yaml);
  EXPECT_TRUE(json.ok()) << json.error();
  auto o = api::decode<T>(api::to_json_text(*json));
  EXPECT_TRUE(o.ok()) << o.error() << "\n" << yaml;
  return std::make_shared<const T>(o.ok() ? std::move(*o) : T{});
}

std::shared_ptr<const api::Node> make_node(const std::string& name) {
  auto n = std::make_shared<api::Node>();
  n->metadata.name = name;
  return n;
}

class SharedDeviceHandle : public testing::FakeHandle {
 public:
  dra::Manager* dra_manager() const override { return &manager; }
  mutable dra::Manager manager;
};

config::Features with_consumable_capacity() {
  config::Features f = config::features();
  f.draConsumableCapacity = true;
  return f;
}

// "consumable capacity" through the plugin: four pods of 10Gi share a 40Gi device, each
// reservation a share with its own shareID; the fifth pod does not fit until one is unreserved.
TEST(DynamicResourcesConsumableCapacity, PodsShareADeviceUpToItsCapacity) {
  config::ScopedFeatures gates(with_consumable_capacity());
  SharedDeviceHandle handle;
  handle.set_snapshot(std::vector<fw::PodPtr>{}, {make_node("node-1")});
  DynamicResources plugin(handle, config::DynamicResourcesArgs{});
  handle.manager.on_class_add(decode_yaml<resourceapi::DeviceClass>(
      "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec:\n"
      "  selectors: [{cel: {expression: 'device.driver == \"gpu.example.com\"'}}]\n"));
  handle.manager.on_slice_add(decode_yaml<resourceapi::ResourceSlice>(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: node-1-gpu}\nspec:\n"
      "  driver: gpu.example.com\n  pool: {name: node-1, generation: 1, resourceSliceCount: 1}\n  nodeName: "
      "node-1\n"
      "  devices:\n  - name: gpu-0\n    allowMultipleAllocations: true\n    capacity:\n      memory:\n"
      "        value: 40Gi\n        requestPolicy: {default: 10Gi, validRange: {min: 10Gi, step: 10Gi}}\n"));
  std::vector<std::shared_ptr<const api::Pod>> pods;
  for (int i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i);
    handle.manager.on_claim_add(decode_yaml<resourceapi::ResourceClaim>(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c" + n +
        ", namespace: default, uid: uid-c" + n +
        ", resourceVersion: '1'}\nspec:\n  devices:\n    requests:\n"
        "    - name: r\n      exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 1, "
        "capacity: {requests: {memory: 10Gi}}}\n"));
    pods.push_back(decode_yaml<api::Pod>("apiVersion: v1\nkind: Pod\nmetadata: {name: p" + n +
                                         ", namespace: default, uid: uid-p" + n +
                                         "}\nspec:\n  containers: [{name: c, image: i}]\n  resourceClaims:\n"
                                         "  - {name: gpu, resourceClaimName: c" +
                                         n + "}\n"));
  }
  const fw::NodeInfo& node = *handle.snapshot().get("node-1");
  std::vector<std::unique_ptr<fw::CycleState>> states;
  for (int i = 0; i < 4; ++i) {
    auto& s = *states.emplace_back(std::make_unique<fw::CycleState>());
    fw::PreFilterResult r;
    ASSERT_TRUE(plugin.pre_filter(s, *pods[i], handle.snapshot().list(), r).is_success());
    ASSERT_TRUE(plugin.filter(s, *pods[i], node).is_success()) << "pod " << i;
    ASSERT_TRUE(plugin.reserve(s, *pods[i], "node-1").is_success());
  }
  // The in-flight claims each hold one share of gpu-0.
  auto in_use = handle.manager.allocated_devices();
  const dra::SharedDevices* shared = in_use->shared_in_pool("gpu.example.com", "node-1");
  ASSERT_NE(shared, nullptr);
  EXPECT_TRUE(shared->only_shared.contains("gpu-0"));
  EXPECT_EQ(shared->consumed_by("gpu-0")->find("memory")->to_string(), "40Gi");

  fw::CycleState s4;
  fw::PreFilterResult r4;
  ASSERT_TRUE(plugin.pre_filter(s4, *pods[4], handle.snapshot().list(), r4).is_success());
  EXPECT_EQ(plugin.filter(s4, *pods[4], node).message(), "cannot allocate all claims");

  plugin.unreserve(*states[0], *pods[0], "node-1");
  fw::CycleState s4b;
  fw::PreFilterResult r4b;
  ASSERT_TRUE(plugin.pre_filter(s4b, *pods[4], handle.snapshot().list(), r4b).is_success());
  EXPECT_TRUE(plugin.filter(s4b, *pods[4], node).is_success());
}

}  // namespace
}  // namespace ksched::scheduler::plugins::dynamicresources
