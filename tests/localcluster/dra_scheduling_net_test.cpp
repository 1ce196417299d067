// The scheduler places pods with ResourceClaims (DynamicResources) in a local cluster: the embedded
// API server, the ResourceClaim controller making each pod's claim from a template, the simulated
// GPU drivers publishing 2 devices on each of 2 nodes, and the scheduler. 5 pods for 4 devices: 4
// are bound with a device each, never one device twice; the 5th stays Pending with upstream's
// message; deleting a bound pod frees its device (the controller deallocates the claim) and the
// 5th is bound.
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <set>

#include "api/resource.h"
#include "client/resources_dra.h"
#include "client/resources_scheduling.h"
#include "client/rest.h"
#include "localcluster/local_cluster.h"
#include "net_testing/net_fixture.h"
#include "scheduler/app/app.h"

namespace {

using namespace std::chrono_literals;
namespace rv1 = ksched::api::resourcev1;
using ksched::testing::eventually;

rv1::DeviceClass gpu_class() {
  rv1::DeviceClass c;
  c.metadata.name = "gpu.ksched.dev";
  rv1::DeviceSelector s;
  s.cel = rv1::CELDeviceSelector{};
  s.cel->expression = "device.driver == \"gpu.ksched.dev\"";
  c.spec.selectors.push_back(s);
  return c;
}

rv1::ResourceClaimTemplate one_gpu() {
  rv1::ResourceClaimTemplate t;
  t.metadata.name = "one-gpu";
  t.metadata.namespace_ = "default";
  rv1::DeviceRequest r;
  r.name = "gpu";
  r.exactly = rv1::ExactDeviceRequest{};
  r.exactly->deviceClassName = "gpu.ksched.dev";
  r.exactly->allocationMode = "ExactCount";
  r.exactly->count = 1;
  t.spec.spec.devices.requests.push_back(r);
  return t;
}

ksched::api::Pod gpu_pod(const std::string& name) {
  ksched::api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  ksched::api::Container c;
  c.name = "app";
  c.image = "busybox";
  p.spec.containers.push_back(c);
  ksched::api::PodResourceClaim pc;
  pc.name = "gpu";
  pc.resourceClaimTemplateName = "one-gpu";
  p.spec.resourceClaims = std::vector<ksched::api::PodResourceClaim>{pc};
  return p;
}

// The GPU class and the one-GPU claim template made in `c`, and every driver's slice published
// (one per node), so that no pod is tried against a partial cluster.
void make_gpu_class_and_wait_for_slices(ksched::client::RestClient& c, std::size_t nodes) {
  ASSERT_TRUE(c.create(gpu_class()).ok());
  ASSERT_TRUE(c.create(one_gpu()).ok());
  ASSERT_TRUE(eventually([&] {
    auto l = c.list<rv1::ResourceSlice>("");
    return l.ok() && l->items.size() == nodes;
  }));
}

TEST(DraScheduling, DevicesAreAllocatedOnceAndTheLastPodWaitsForAFreeOne) {
  ksched::localcluster::LocalClusterOptions o;
  o.nodes = 2;
  o.dra_devices = "gpu.ksched.dev=2";
  o.scheduler_secure_port = -1;
  auto cluster = ksched::localcluster::LocalCluster::start(o);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  auto c = (*cluster)->client();
  make_gpu_class_and_wait_for_slices(*c, 2);
  if (HasFatalFailure()) return;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c->create(gpu_pod("gpu-" + std::to_string(i))).ok());

  auto bound = [&] {
    std::map<std::string, std::string> out;  // pod -> node
    auto l = c->list<ksched::api::Pod>("default");
    if (l.ok()) {
      for (const auto& p : l->items)
        if (!p.spec.nodeName.empty()) out[std::string(p.metadata.name.view())] = p.spec.nodeName;
    }
    return out;
  };
  // What each pod and claim looks like, for a failure's message.
  auto state = [&] {
    std::string out;
    if (auto l = c->list<ksched::api::Pod>("default"); l.ok()) {
      for (const auto& p : l->items) {
        out += std::string(p.metadata.name.view()) + " node=" + p.spec.nodeName;
        for (const auto& cond : p.status.conditions) out += " " + cond.type + ":" + std::string(cond.message.view());
        out += "\n";
      }
    }
    if (auto l = c->list<rv1::ResourceClaim>("default"); l.ok()) {
      for (const auto& cl : l->items) {
        out += std::string(cl.metadata.name.view()) + (cl.status.allocation ? " allocated" : " pending") +
               " reservedFor=" + std::to_string(cl.status.reservedFor.size()) + "\n";
      }
    }
    return out;
  };
  ASSERT_TRUE(eventually([&] { return bound().size() == 4; })) << state();

  // Each bound pod's claim is allocated on its node and reserved for it; no device twice.
  auto check_claims = [&](std::size_t want) {
    auto claims = c->list<rv1::ResourceClaim>("default");
    ASSERT_TRUE(claims.ok());
    std::set<std::string> devices;
    std::size_t allocated = 0;
    for (const auto& cl : claims->items) {
      if (!cl.status.allocation) continue;
      ++allocated;
      ASSERT_EQ(cl.status.allocation->devices.results.size(), 1u);
      const auto& d = cl.status.allocation->devices.results[0];
      EXPECT_TRUE(devices.insert(std::string(d.pool.view()) + "/" + std::string(d.device.view())).second)
          << "device given twice: " << d.pool.view() << "/" << d.device.view();
      ASSERT_EQ(cl.status.reservedFor.size(), 1u);
      EXPECT_EQ(d.pool.view(), bound()[std::string(cl.status.reservedFor[0].name.view())]);
    }
    EXPECT_EQ(allocated, want);
  };
  check_claims(4);

  // The fifth: Pending, with upstream's message in its PodScheduled condition.
  std::string pending;
  for (int i = 0; i < 5; ++i) {
    if (!bound().contains("gpu-" + std::to_string(i))) pending = "gpu-" + std::to_string(i);
  }
  ASSERT_FALSE(pending.empty());
  std::string message;
  ASSERT_TRUE(eventually([&] {
    auto p = c->get<ksched::api::Pod>("default", pending);
    if (!p.ok()) return false;
    for (const auto& cond : p->status.conditions) {
      if (cond.type == "PodScheduled" && cond.reason == "Unschedulable") message = std::string(cond.message.view());
    }
    return !message.empty();
  })) << state();
  EXPECT_EQ(message,
            "0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are "
            "available: 2 Preemption is not helpful for scheduling.");

  // One bound pod goes: its claim is deleted with it, its device is free, the fifth is bound.
  const std::string victim = bound().begin()->first;
  ASSERT_TRUE(c->remove<ksched::api::Pod>("default", victim).ok());
  ASSERT_TRUE(eventually([&] {
    auto b = bound();
    return b.size() == 4 && b.contains(pending) && !b.contains(victim);
  })) << bound().size();
  ASSERT_TRUE(eventually([&] {
    auto claims = c->list<rv1::ResourceClaim>("default");
    return claims.ok() && claims->items.size() == 4;
  }));
  check_claims(4);
}


// Issue #43 (a), upstream PreBind's wait.PollUntilContextTimeout(ctx, ...): the binding cycle's
// context is cancelled when the scheduler stops, so a PreBind waiting for a device's binding
// condition ends then, not after bindingTimeout (600 s). Here the device needs Attached, which
// nobody sets (a node-less slice made by hand, offered to all nodes; the simulator runs no
// driver): the pod waits in PreBind with its claim allocated and reserved. Stopping the in-process scheduler (what `ksched
// up`'s Ctrl-C and kube-scheduler's SIGTERM do) returns promptly and the pod is not bound.
TEST(DraScheduling, StoppingTheSchedulerEndsAPreBindWaitingForABindingCondition) {
  ksched::localcluster::LocalClusterOptions o;
  o.nodes = 1;
  o.scheduler_secure_port = -1;
  o.feature_gates = {{"DRADeviceBindingConditions", true}, {"DRAResourceClaimDeviceStatus", true}};
  auto cluster = ksched::localcluster::LocalCluster::start(o);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  auto c = (*cluster)->client();
  ASSERT_TRUE(c->create(gpu_class()).ok());
  ASSERT_TRUE(c->create(one_gpu()).ok());
  rv1::ResourceSlice slice;
  slice.metadata.name = "shared-gpu";
  slice.spec.driver = "gpu.ksched.dev";
  slice.spec.pool.name = "shared";
  slice.spec.pool.generation = 1;
  slice.spec.pool.resourceSliceCount = 1;
  slice.spec.allNodes = true;
  rv1::Device dev;
  dev.name = "gpu-0";
  dev.bindsToNode = true;
  dev.bindingConditions = std::vector<std::string>{"Attached"};
  dev.bindingFailureConditions = std::vector<std::string>{"AttachedFailed"};
  slice.spec.devices.push_back(dev);
  auto created = c->create(slice);
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  ASSERT_TRUE(c->create(gpu_pod("waits")).ok());

  // PreBind wrote the allocation (with the device's condition) and the reservation, and waits.
  ASSERT_TRUE(eventually([&] {
    auto claims = c->list<rv1::ResourceClaim>("default");
    return claims.ok() && claims->items.size() == 1u && claims->items[0].status.allocation &&
           claims->items[0].status.reservedFor.size() == 1u;
  }));
  auto claims = c->list<rv1::ResourceClaim>("default");
  ASSERT_EQ(claims->items[0].status.allocation->devices.results.at(0).bindingConditions.vec(),
            std::vector<std::string>{"Attached"});

  auto* app = (*cluster)->scheduler_app();
  ASSERT_NE(app, nullptr);
  auto stopped = std::async(std::launch::async, [app] {
    app->request_stop();
    return app->wait();
  });
  // Bounded: without the stop reaching the wait this takes bindingTimeout (600 s).
  ASSERT_EQ(stopped.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(stopped.get(), 0);
  auto pod = c->get<ksched::api::Pod>("default", "waits");
  ASSERT_TRUE(pod.ok());
  EXPECT_TRUE(pod->spec.nodeName.empty()) << "bound to " << pod->spec.nodeName;
  // The failed binding was unreserved before stop returned (the allocation stays, as upstream's).
  auto after = c->list<rv1::ResourceClaim>("default");
  ASSERT_TRUE(after.ok() && after->items.size() == 1u);
  EXPECT_TRUE(after->items[0].status.reservedFor.empty());
  EXPECT_TRUE(after->items[0].status.allocation.has_value());
}

// DRAWorkloadResourceClaims (KEP-5729) end to end, with GenericWorkload and GangScheduling: a gang
// of 3 whose PodGroup names the template shares one claim, which the ResourceClaim controller
// makes for the PodGroup; 2 nodes with 1 GPU each, so the gang fits only by sharing, and it does:
// the pod-group cycle allocates the claim once, every member lands on the node of its one device,
// and the claim is reserved for the PodGroup.
TEST(DraScheduling, AGangSharesItsPodGroupsClaimOnOneNode) {
  ksched::localcluster::LocalClusterOptions o;
  o.nodes = 2;
  o.dra_devices = "gpu.ksched.dev=1";
  o.scheduler_secure_port = -1;
  o.feature_gates = {{"GenericWorkload", true}, {"GangScheduling", true}, {"DRAWorkloadResourceClaims", true}};
  auto cluster = ksched::localcluster::LocalCluster::start(o);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  auto c = (*cluster)->client();
  make_gpu_class_and_wait_for_slices(*c, 2);
  if (HasFatalFailure()) return;
  ksched::api::schedulingv1beta1::PodGroup group;
  group.metadata.name = "trainers";
  group.metadata.namespace_ = "default";
  group.spec.schedulingPolicy.gang.emplace().minCount = 3;
  auto& shared = group.spec.resourceClaims.emplace_back();
  shared.name = "gpu";
  shared.resourceClaimTemplateName = "one-gpu";
  auto made = c->create(group);
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  for (int i = 0; i < 3; ++i) {
    auto p = gpu_pod("trainer-" + std::to_string(i));
    p.spec.schedulingGroup.emplace().podGroupName = "trainers";
    ASSERT_TRUE(c->create(p).ok());
  }
  auto nodes = [&] {
    std::set<std::string> out;
    std::size_t n = 0;
    if (auto l = c->list<ksched::api::Pod>("default"); l.ok())
      for (const auto& p : l->items)
        if (!p.spec.nodeName.empty()) {
          out.insert(p.spec.nodeName);
          ++n;
        }
    return std::make_pair(n, out);
  };
  ASSERT_TRUE(eventually([&] { return nodes().first == 3; })) << nodes().first;
  EXPECT_EQ(nodes().second.size(), 1u);
  auto claims = c->list<rv1::ResourceClaim>("default");
  ASSERT_TRUE(claims.ok());
  ASSERT_EQ(claims->items.size(), 1u);
  const auto& claim = claims->items[0];
  EXPECT_EQ(claim.metadata.ownerReferences.at(0).kind, "PodGroup");
  ASSERT_TRUE(claim.status.allocation);
  ASSERT_EQ(claim.status.allocation->devices.results.size(), 1u);
  EXPECT_EQ(std::string(claim.status.allocation->devices.results[0].pool.view()), *nodes().second.begin());
  ASSERT_EQ(claim.status.reservedFor.size(), 1u);
  EXPECT_EQ(claim.status.reservedFor[0].resource, "podgroups");
  EXPECT_EQ(claim.status.reservedFor[0].name, "trainers");
  EXPECT_EQ(claim.status.reservedFor[0].uid, made->metadata.uid);
  // The kubelet stand-in prepares the group's claim for every member: all three run.
  auto running = [&] {
    std::size_t n = 0;
    if (auto l = c->list<ksched::api::Pod>("default"); l.ok())
      for (const auto& p : l->items) n += p.status.phase.view() == "Running" ? 1 : 0;
    return n;
  };
  EXPECT_TRUE(eventually([&] { return running() == 3; })) << running();
}

}  // namespace
