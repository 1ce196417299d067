// The kubelet stand-in's simulated DRA drivers: the --dra-devices syntax and its errors, the
// slices a node's pool is published as (valid for the API server, partitionable devices and
// their counters), republishing at a higher generation, a node template's annotation, and pods
// that start only once their claims are allocated and reserved for them.
#include <memory>
#include <gtest/gtest.h>

#include "api/resource.h"
#include "client/resources_dra.h"
#include "net_testing/net_fixture.h"
#include "nodesim/dra_driver.h"
#include "nodesim/simulator.h"

using namespace ksched;
using ksched::testing::eventually;
namespace rv1 = api::resourcev1;

TEST(DraDevicesSpec, ParsesDriversAndTheirOptions) {
  auto d = nodesim::parse_dra_devices("gpu.ksched.dev=8,model=A100,memory=40Gi,slices=2; nic.ksched.dev=2,partitions=4");
  ASSERT_TRUE(d.ok()) << d.error();
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0].driver, "gpu.ksched.dev");
  EXPECT_EQ((*d)[0].devices, 8);
  EXPECT_EQ((*d)[0].model, "A100");
  EXPECT_EQ((*d)[0].memory, "40Gi");
  EXPECT_EQ((*d)[0].slices, 2);
  EXPECT_EQ((*d)[1].partitions, 4);
  EXPECT_TRUE(nodesim::parse_dra_devices("")->empty());
  auto attached = nodesim::parse_dra_devices("gpu.ksched.dev=2,bindingConditions=Attached");
  ASSERT_TRUE(attached.ok()) << attached.error();
  EXPECT_EQ((*attached)[0].binding_condition, "Attached");
  EXPECT_EQ((*attached)[0].attach_failures, 0);
  auto failing = nodesim::parse_dra_devices("gpu.ksched.dev=1,attachFailures=3,bindingConditions=Attached");
  ASSERT_TRUE(failing.ok()) << failing.error();  // in any order
  EXPECT_EQ((*failing)[0].attach_failures, 3);
  EXPECT_EQ((*nodesim::parse_dra_devices("gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=0"))[0].attach_failures, 0);
}

TEST(DraDevicesSpec, ErrorsNameTheSpec) {
  auto err = [](std::string_view s) { return nodesim::parse_dra_devices(s).error(); };
  EXPECT_EQ(err("gpu.ksched.dev=x"),
            "--dra-devices \"gpu.ksched.dev=x\": the device count must be a whole number from 0 to 1024");
  EXPECT_EQ(err("GPU=1"),
            "--dra-devices \"GPU=1\": the driver name must be a DNS subdomain of at most 63 characters, such as gpu.ksched.dev");
  EXPECT_EQ(err("gpu.ksched.dev=1,colour=red"),
            "--dra-devices \"gpu.ksched.dev=1,colour=red\": unknown key \"colour\" (known: model, memory, slices, partitions, "
            "bindingConditions, attachFailures)");
  EXPECT_EQ(err("gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=-1"),
            "--dra-devices \"gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=-1\": attachFailures must be a whole "
            "number from 0 to 1000000");
  EXPECT_EQ(err("gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=all"),
            "--dra-devices \"gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=all\": attachFailures must be a whole "
            "number from 0 to 1000000");
  EXPECT_EQ(err("gpu.ksched.dev=1,attachFailures=2"),
            "--dra-devices \"gpu.ksched.dev=1,attachFailures=2\": attachFailures needs bindingConditions: only devices with "
            "binding conditions are attached");
  EXPECT_EQ(err("gpu.ksched.dev=1,bindingConditions=at tached"),
            "--dra-devices \"gpu.ksched.dev=1,bindingConditions=at tached\": bindingConditions must be a condition type such "
            "as Attached (letters, digits, '-', '_', '.'; at most 56 characters)");
  EXPECT_EQ(err("gpu.ksched.dev=1,memory=-1"), "--dra-devices \"gpu.ksched.dev=1,memory=-1\": memory must be a positive quantity such as 40Gi");
  EXPECT_EQ(err("gpu.ksched.dev"), "--dra-devices \"gpu.ksched.dev\": expected key=value, got \"gpu.ksched.dev\"");
  EXPECT_EQ(err("a.dev=1;a.dev=2"), "--dra-devices: driver a.dev is given twice");
}

TEST(DraSlices, APoolOfPartitionableDevicesAndItsCounters) {
  nodesim::DraDriverSpec d;
  d.driver = "gpu.ksched.dev";
  d.devices = 3;
  d.memory = "80Gi";
  d.partitions = 4;
  auto slices = nodesim::dra_slices(d, "node-7", "uid-7", 5);
  ASSERT_EQ(slices.size(), 2u);  // the counter sets, then 3 x (1 + 4) = 15 devices
  for (const auto& s : slices) {
    EXPECT_EQ(s.spec.pool.name, "node-7");
    EXPECT_EQ(s.spec.pool.generation, 5);
    EXPECT_EQ(s.spec.pool.resourceSliceCount, 2);
    EXPECT_EQ(*s.spec.nodeName, "node-7");
    EXPECT_EQ(s.metadata.ownerReferences[0].kind, "Node");
  }
  EXPECT_EQ(slices[0].metadata.name, "node-7-gpu.ksched.dev-0");
  ASSERT_EQ(slices[0].spec.sharedCounters.size(), 3u);
  EXPECT_TRUE(slices[0].spec.devices.empty());
  EXPECT_EQ(slices[0].spec.sharedCounters[1].name, "gpu-1-counters");
  EXPECT_EQ(slices[0].spec.sharedCounters[1].counters.find("memory")->value.to_string(), "80Gi");
  const auto& devs = slices[1].spec.devices;
  ASSERT_EQ(devs.size(), 15u);
  EXPECT_EQ(devs[0].name, "gpu-0");
  EXPECT_EQ(devs[1].name, "gpu-0-part-0");
  EXPECT_EQ(devs[1].capacity.find("memory")->value.to_string(), "20Gi");
  EXPECT_EQ(devs[1].consumesCounters[0].counterSet, "gpu-0-counters");
  EXPECT_EQ(devs[1].attributes.find("partition")->int_, 0);
  EXPECT_EQ(*devs[5].attributes.find("model")->string, "ksched-sim");
  // 200 plain devices need two slices of at most 128.
  d.partitions = 0;
  d.devices = 200;
  auto big = nodesim::dra_slices(d, "n", "u", 1);
  ASSERT_EQ(big.size(), 2u);
  EXPECT_EQ(big[0].spec.devices.size() + big[1].spec.devices.size(), 200u);
}

// A claim in "default" asking for one device of class gpu.ksched.dev (request "gpu").
static rv1::ResourceClaim one_gpu_claim(const std::string& name) {
  rv1::ResourceClaim claim;
  claim.metadata.name = name;
  claim.metadata.namespace_ = "default";
  rv1::DeviceRequest r;
  r.name = "gpu";
  r.exactly = rv1::ExactDeviceRequest{};
  r.exactly->deviceClassName = "gpu.ksched.dev";
  claim.spec.devices.requests.push_back(r);
  return claim;
}

class DraNodesimNet : public ksched::testing::ServerTest {
 protected:
  // One simulated node sim-0 and a simulator running the drivers of `spec` on it.
  std::unique_ptr<nodesim::Simulator> start_on_one_node(const std::string& spec) {
    c = new_client();
    api::Node n = ksched::testing::bare_node("sim-0");
    n.metadata.labels.set("type", "simulated");
    EXPECT_TRUE(c->create(n).ok());
    nodesim::Options o;
    o.dra_drivers = *nodesim::parse_dra_devices(spec);
    auto sim = std::make_unique<nodesim::Simulator>(new_client(), o);
    sim->start();
    return sim;
  }
  std::vector<rv1::ResourceSlice> slices(const std::string& node) {
    client::ListOptions o;
    o.fieldSelector = "spec.nodeName=" + node;
    auto l = c->list<rv1::ResourceSlice>("", o);
    EXPECT_TRUE(l.ok());
    return l ? l->items : std::vector<rv1::ResourceSlice>{};
  }
  std::shared_ptr<client::RestClient> c;
};

TEST_F(DraNodesimNet, PublishesEveryNodesPoolAndRepublishesWhatOthersChange) {
  c = new_client();
  for (int i = 0; i < 3; ++i) {
    api::Node n = ksched::testing::bare_node("sim-" + std::to_string(i));
    n.metadata.labels.set("type", "simulated");
    if (i == 2) n.metadata.annotations.set(std::string(nodesim::kDraDevicesAnnotation), "nic.ksched.dev=1");
    ASSERT_TRUE(c->create(n).ok());
  }
  nodesim::Options o;
  o.dra_drivers = *nodesim::parse_dra_devices("gpu.ksched.dev=2,partitions=2");
  nodesim::Simulator sim(new_client(), o);
  sim.start();
  // Two slices (counters, devices) on sim-0 and sim-1; sim-2's annotation gives it one NIC instead.
  ASSERT_TRUE(eventually([&] { return slices("sim-0").size() == 2 && slices("sim-1").size() == 2 && slices("sim-2").size() == 1; }));
  auto nic = slices("sim-2");
  EXPECT_EQ(nic[0].spec.driver, "nic.ksched.dev");
  EXPECT_EQ(nic[0].spec.devices.size(), 1u);
  // Someone empties a slice: the driver writes the pool again at the next generation.
  auto gpu = c->get<rv1::ResourceSlice>("", "sim-0-gpu.ksched.dev-1");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ(gpu->spec.pool.generation, 1);
  gpu->spec.devices.resize(1);
  ASSERT_TRUE(c->update(*gpu).ok());
  ASSERT_TRUE(eventually([&] {
    auto s = c->get<rv1::ResourceSlice>("", "sim-0-gpu.ksched.dev-1");
    auto counters = c->get<rv1::ResourceSlice>("", "sim-0-gpu.ksched.dev-0");
    return s && counters && s->spec.devices.size() == 6 && s->spec.pool.generation == 2 && counters->spec.pool.generation == 2;
  }));
  // A pool generation that goes backwards is republished above the highest one seen.
  auto counters = c->get<rv1::ResourceSlice>("", "sim-1-gpu.ksched.dev-0");
  counters->spec.pool.generation = 0;
  ASSERT_TRUE(c->update(*counters).ok());
  ASSERT_TRUE(eventually([&] {
    auto a = c->get<rv1::ResourceSlice>("", "sim-1-gpu.ksched.dev-0");
    auto b = c->get<rv1::ResourceSlice>("", "sim-1-gpu.ksched.dev-1");
    return a && b && a->spec.pool.generation == 2 && b->spec.pool.generation == 2;
  }));
  // The annotation changes: the node's drivers change, the old slices go.
  ASSERT_TRUE(c->patch<api::Node>("", "sim-2", client::PatchType::Merge,
                                  R"({"metadata":{"annotations":{"nodesim.ksched.io/dra-devices":"gpu.ksched.dev=1"}}})")
                  .ok());
  // The annotation replaces the simulator's drivers: one plain GPU, one slice.
  ASSERT_TRUE(eventually([&] {
    auto s = slices("sim-2");
    return s.size() == 1 && s[0].spec.driver == "gpu.ksched.dev" && s[0].spec.devices.size() == 1;
  })) << slices("sim-2").size();
  // The counters move when a write's answer is handled, which may be after the server shows it.
  EXPECT_TRUE(eventually([&] { return sim.stats().slices_published >= 8u && sim.stats().slices_deleted >= 1u; }))
      << sim.stats().slices_published << " published, " << sim.stats().slices_deleted << " deleted";
}

// Devices with a binding condition (DRADeviceBindingConditions, KEP-5007): every device, whole or
// partition, lists the condition and its failure condition, as upstream's example driver publishes them.
TEST(DraSlices, BindingConditionsOnEveryDevice) {
  nodesim::DraDriverSpec d;
  d.driver = "gpu.ksched.dev";
  d.devices = 2;
  d.partitions = 2;
  d.binding_condition = "Attached";
  auto slices = nodesim::dra_slices(d, "node-1", "uid-1", 1);
  std::size_t devices = 0;
  for (const auto& s : slices)
    for (const auto& dev : s.spec.devices) {
      ++devices;
      EXPECT_EQ(dev.bindingConditions, std::vector<std::string>{"Attached"}) << dev.name;
      EXPECT_EQ(dev.bindingFailureConditions, std::vector<std::string>{"AttachedFailed"}) << dev.name;
    }
  EXPECT_EQ(devices, 6u);
  d.binding_condition.clear();
  for (const auto& s : nodesim::dra_slices(d, "node-1", "uid-1", 1))
    for (const auto& dev : s.spec.devices) EXPECT_TRUE(dev.bindingConditions.empty());
}

// What a driver's controller does for a device with binding conditions once the scheduler has
// allocated it (before the pod is bound): it attaches the device and sets the condition True in
// the claim's status.devices, which is what the scheduler's PreBind waits for. Only devices of
// the simulator's own drivers that publish the condition are touched.
TEST_F(DraNodesimNet, SetsTheBindingConditionOfAnAllocatedDevice) {
  auto sim = start_on_one_node("gpu.ksched.dev=2,bindingConditions=Attached");
  ASSERT_TRUE(eventually([&] { return sim->synced(); }));

  auto make_claim = [&](const std::string& name, const std::string& driver, std::vector<std::string> conditions) {
    rv1::ResourceClaim claim = one_gpu_claim(name);
    auto created = c->create(claim);
    EXPECT_TRUE(created.ok());
    rv1::AllocationResult a;
    rv1::DeviceRequestAllocationResult res;
    res.request = "gpu";
    res.driver = driver;
    res.pool = "sim-0";
    res.device = "gpu-0";
    res.bindingConditions = std::move(conditions);
    if (!res.bindingConditions.empty()) res.bindingFailureConditions = std::vector<std::string>{"AttachedFailed"};
    a.devices.results.push_back(res);
    created->status.allocation = a;
    auto written = c->update_status(*created);
    EXPECT_TRUE(written.ok()) << (written ? "" : written.error().to_string());
  };
  make_claim("mine", "gpu.ksched.dev", {"Attached"});
  make_claim("other-driver", "nic.example.com", {"Attached"});
  make_claim("no-conditions", "gpu.ksched.dev", {});
  auto attached = [](const rv1::ResourceClaim& cl) {
    for (const auto& d : cl.status.devices)
      for (const auto& k : d.conditions)
        if (d.driver == "gpu.ksched.dev" && d.pool == "sim-0" && d.device == "gpu-0" && k.type == "Attached" &&
            k.status == "True")
          return true;
    return false;
  };
  ASSERT_TRUE(eventually([&] { return attached(*c->get<rv1::ResourceClaim>("default", "mine")); }));
  auto mine = c->get<rv1::ResourceClaim>("default", "mine");
  ASSERT_EQ(mine->status.devices.size(), 1u);
  EXPECT_EQ(mine->status.devices[0].conditions[0].reason, "DeviceAttached");
  EXPECT_TRUE(mine->status.devices[0].conditions[0].lastTransitionTime.has_value());
  EXPECT_TRUE(mine->status.allocation.has_value());  // the allocation is kept
  // A later change to the claim does not write again: the condition is already met.
  ASSERT_TRUE(eventually([&] { return sim->stats().binding_conditions_set == 1u; }));
  ASSERT_TRUE(c->patch<rv1::ResourceClaim>("default", "mine", client::PatchType::Merge,
                                           R"({"metadata":{"labels":{"touched":"yes"}}})")
                  .ok());
  // The other claims are never written by the simulator; "mine"'s label change is seen by then.
  ASSERT_TRUE(eventually([&] {
    auto m = c->get<rv1::ResourceClaim>("default", "mine");
    return m && m->metadata.labels.get("touched") == "yes";
  }));
  EXPECT_TRUE(c->get<rv1::ResourceClaim>("default", "other-driver")->status.devices.empty());
  EXPECT_TRUE(c->get<rv1::ResourceClaim>("default", "no-conditions")->status.devices.empty());
  EXPECT_EQ(sim->stats().binding_conditions_set, 1u);
}

// attachFailures: the first attach of the node's devices fails, so the simulator sets the failure
// condition AttachedFailed=True (which makes the scheduler's PreBind fail with "claim ... binding
// failed"); the next attach succeeds, and so does the failed claim's attach once the scheduler
// deallocated it and allocated it again (a new allocationTimestamp: a new attach).
TEST_F(DraNodesimNet, FailsTheFirstAttachesOfANodeWithAttachFailures) {
  auto sim = start_on_one_node("gpu.ksched.dev=2,bindingConditions=Attached,attachFailures=1");
  ASSERT_TRUE(eventually([&] { return sim->synced(); }));

  auto allocation = [](const std::string& device, std::int64_t at) {
    rv1::AllocationResult a;
    rv1::DeviceRequestAllocationResult res;
    res.request = "gpu";
    res.driver = "gpu.ksched.dev";
    res.pool = "sim-0";
    res.device = device;
    res.bindingConditions = std::vector<std::string>{"Attached"};
    res.bindingFailureConditions = std::vector<std::string>{"AttachedFailed"};
    a.devices.results.push_back(res);
    a.allocationTimestamp = api::Time{at};
    return a;
  };
  auto allocate = [&](const std::string& name, const std::string& device, std::int64_t at) {
    auto claim = c->get<rv1::ResourceClaim>("default", name);
    ASSERT_TRUE(claim.ok());
    claim->status.allocation = allocation(device, at);
    claim->status.devices.clear();
    auto written = c->update_status(*claim);
    ASSERT_TRUE(written.ok()) << written.error().to_string();
  };
  auto create = [&](const std::string& name) {
    rv1::ResourceClaim claim = one_gpu_claim(name);
    ASSERT_TRUE(c->create(claim).ok());
  };
  // The one condition the simulator set on the claim's device: "type=status/reason", or "".
  auto outcome = [&](const std::string& name) -> std::string {
    auto cl = c->get<rv1::ResourceClaim>("default", name);
    if (!cl.ok() || cl->status.devices.size() != 1 || cl->status.devices[0].conditions.size() != 1) return "";
    const auto& k = cl->status.devices[0].conditions[0];
    return k.type + "=" + k.status + "/" + k.reason;
  };

  create("first");
  allocate("first", "gpu-0", 1'000'000'000);
  ASSERT_TRUE(eventually([&] { return !outcome("first").empty(); }));
  EXPECT_EQ(outcome("first"), "AttachedFailed=True/DeviceAttachFailed");
  ASSERT_TRUE(eventually([&] { return sim->stats().attach_failures == 1u; }));

  create("second");
  allocate("second", "gpu-1", 2'000'000'000);
  ASSERT_TRUE(eventually([&] { return !outcome("second").empty(); }));
  EXPECT_EQ(outcome("second"), "Attached=True/DeviceAttached");

  // The scheduler's PostFilter deallocates "first" (allocation and devices' status cleared); its
  // next allocation, of the same device, is attached anew and now succeeds.
  auto failed = c->get<rv1::ResourceClaim>("default", "first");
  ASSERT_TRUE(failed.ok());
  failed->status.allocation.reset();
  failed->status.devices.clear();
  ASSERT_TRUE(c->update_status(*failed).ok());
  allocate("first", "gpu-0", 3'000'000'000);
  ASSERT_TRUE(eventually([&] { return outcome("first") == "Attached=True/DeviceAttached"; })) << outcome("first");
  ASSERT_TRUE(eventually([&] { return sim->stats().binding_conditions_set == 2u; }));
  EXPECT_EQ(sim->stats().attach_failures, 1u);
}

TEST_F(DraNodesimNet, PodsStartOnceTheirClaimsAreAllocatedAndReserved) {
  auto sim = start_on_one_node("gpu.ksched.dev=1");
  ASSERT_TRUE(eventually([&] { return sim->synced(); }));

  rv1::ResourceClaim claim = one_gpu_claim("gpu");
  ASSERT_TRUE(c->create(claim).ok());
  api::Pod pod = ksched::testing::pause_pod("default", "user");
  api::PodResourceClaim pc;
  pc.name = "gpu";
  pc.resourceClaimName = "gpu";
  pod.spec.resourceClaims = std::vector<api::PodResourceClaim>{pc};
  auto p = c->create(pod);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  ASSERT_TRUE(c->bind("default", "user", p->metadata.uid, "sim-0").ok());
  // Not allocated: the pod does not start. Another pod on the node does, so the node is served.
  auto other = c->create(ksched::testing::pause_pod("default", "other"));
  ASSERT_TRUE(c->bind("default", "other", other->metadata.uid, "sim-0").ok());
  ASSERT_TRUE(eventually([&] { return c->get<api::Pod>("default", "other")->status.phase == "Running"; }));
  EXPECT_EQ(c->get<api::Pod>("default", "user")->status.phase, "Pending");
  EXPECT_EQ(sim->stats().claims_prepared, 0u);
  // Allocated and reserved for the pod: it starts.
  auto cur = c->get<rv1::ResourceClaim>("default", "gpu");
  rv1::AllocationResult a;
  rv1::DeviceRequestAllocationResult res;
  res.request = "gpu";
  res.driver = "gpu.ksched.dev";
  res.pool = "sim-0";
  res.device = "gpu-0";
  a.devices.results.push_back(res);
  cur->status.allocation = a;
  rv1::ResourceClaimConsumerReference ref;
  ref.resource = "pods";
  ref.name = "user";
  ref.uid = p->metadata.uid;
  cur->status.reservedFor.push_back(ref);
  ASSERT_TRUE(c->update_status(*cur).ok());
  ASSERT_TRUE(eventually([&] { return c->get<api::Pod>("default", "user")->status.phase == "Running"; }));
  EXPECT_EQ(sim->stats().claims_prepared, 1u);
}
