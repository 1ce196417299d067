// The ResourceClaim controller against the embedded API server (upstream:
// pkg/controller/resourceclaim): claims made from templates, their names, owners and annotations,
// the pod's resourceClaimStatuses, reservations and what happens when pods go.
#include <gtest/gtest.h>

#include "api/events.h"
#include "api/resource.h"
#include "api/resource_claims.h"
#include "client/resources_dra.h"
#include "client/resources_scheduling.h"
#include "controllers/resourceclaim/resource_claim.h"
#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
namespace rv1 = api::resourcev1;
using controllers::ResourceClaimController;

namespace {

rv1::ResourceClaimTemplate gpu_template(const std::string& name) {
  rv1::ResourceClaimTemplate t;
  t.metadata.name = name;
  t.metadata.namespace_ = "default";
  t.spec.metadata.labels.set("team", "ml");
  t.spec.metadata.annotations.set("note", "from-template");
  rv1::DeviceRequest r;
  r.name = "gpu";
  r.exactly = rv1::ExactDeviceRequest{};
  r.exactly->deviceClassName = "gpu.ksched.dev";
  t.spec.spec.devices.requests.push_back(r);
  return t;
}

api::Pod claim_pod(const std::string& name, const std::string& pod_claim, const std::string& tmpl,
                   bool by_template = true) {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  api::Container c;
  c.name = "app";
  c.image = "busybox";
  p.spec.containers.push_back(c);
  api::PodResourceClaim pc;
  pc.name = pod_claim;
  if (by_template)
    pc.resourceClaimTemplateName = tmpl;
  else
    pc.resourceClaimName = tmpl;
  p.spec.resourceClaims = std::vector<api::PodResourceClaim>{pc};
  return p;
}

// The claim recorded in the pod's status for `pod_claim`, "" while there is none.
std::string recorded(const api::Pod& p, std::string_view pod_claim) {
  if (!p.status.resourceClaimStatuses) return "";
  for (const auto& s : *p.status.resourceClaimStatuses)
    if (s.name == pod_claim && s.resourceClaimName) return *s.resourceClaimName;
  return "";
}

}  // namespace

class ResourceClaimTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_controllers({"resourceclaim-controller"});
  }
  std::vector<rv1::ResourceClaim> claims() {
    auto l = c()->list<rv1::ResourceClaim>("default");
    EXPECT_TRUE(l.ok());
    return l ? l->items : std::vector<rv1::ResourceClaim>{};
  }
  // Waits until the pod's status names its claim; returns the claim's name.
  std::string wait_recorded(const std::string& pod, const std::string& pod_claim) {
    std::string name;
    EXPECT_TRUE(eventually([&] {
      auto p = c()->get<api::Pod>("default", pod);
      name = p ? recorded(*p, pod_claim) : "";
      return !name.empty();
    }));
    return name;
  }
};

// Upstream's handleClaim: generateName "<pod>-<pod claim>-", the pod as controller
// (blockOwnerDeletion), the template's labels and annotations plus resource.kubernetes.io/
// pod-claim-name, the template's spec; then the pod's status.resourceClaimStatuses.
TEST_F(ResourceClaimTest, MakesThePodsClaimFromTheTemplate) {
  ASSERT_TRUE(c()->create(gpu_template("gpu-template")).ok());
  auto pod = c()->create(claim_pod("trainer", "gpu", "gpu-template"));
  ASSERT_TRUE(pod.ok()) << pod.error().to_string();
  std::string name = wait_recorded("trainer", "gpu");
  EXPECT_EQ(name.substr(0, 12), "trainer-gpu-");
  EXPECT_EQ(name.size(), 17u) << name;  // 5 random characters
  auto claim = c()->get<rv1::ResourceClaim>("default", name);
  ASSERT_TRUE(claim.ok()) << claim.error().to_string();
  ASSERT_EQ(claim->metadata.ownerReferences.size(), 1u);
  const auto& owner = claim->metadata.ownerReferences[0];
  EXPECT_EQ(owner.apiVersion, "v1");
  EXPECT_EQ(owner.kind, "Pod");
  EXPECT_EQ(owner.name, "trainer");
  EXPECT_EQ(owner.uid, pod->metadata.uid);
  EXPECT_TRUE(owner.controller.value_or(false));
  EXPECT_TRUE(owner.blockOwnerDeletion.value_or(false));
  EXPECT_EQ(claim->metadata.annotations.get(api::kPodClaimNameAnnotation), "gpu");
  EXPECT_EQ(claim->metadata.annotations.get("note"), "from-template");
  EXPECT_EQ(claim->metadata.labels.get("team"), "ml");
  ASSERT_EQ(claim->spec.devices.requests.size(), 1u);
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->deviceClassName, "gpu.ksched.dev");
  EXPECT_EQ(claim->spec.devices.requests[0].exactly->count, 1);  // the server's default
  // One claim, however often the pod is synced again.
  ASSERT_TRUE(c()->patch<api::Pod>("default", "trainer", client::PatchType::Merge, R"({"metadata":{"labels":{"x":"y"}}})").ok());
  ASSERT_TRUE(eventually([&] { return c()->get<api::Pod>("default", "trainer")->metadata.labels.get("x") == "y"; }));
  EXPECT_EQ(claims().size(), 1u);
}

// A pod naming a template that does not exist gets no claim until the template appears; the
// sync's error is upstream's and it is retried with backoff.
TEST_F(ResourceClaimTest, MissingTemplateIsRetriedUntilItExists) {
  manager->stop();  // this test reads the controller's events
  manager.reset();
  controllers::ControllerManagerOptions o;
  o.controllers = {"resourceclaim-controller"};
  o.workers["resourceclaim-controller"] = 2;
  auto m = controllers::ControllerManager::start(new_client(), o);
  ASSERT_TRUE(m.ok()) << m.error();
  manager = std::move(*m);
  ASSERT_TRUE(c()->create(claim_pod("waiting", "gpu", "later")).ok());
  std::string note;
  ASSERT_TRUE(eventually([&] {
    auto events = c()->list<api::eventsv1::Event>("default");
    if (events)
      for (const auto& e : events->items)
        if (e.reason == "FailedResourceClaimCreation" && e.regarding.name == "waiting") note = e.note;
    return !note.empty();
  }));
  EXPECT_EQ(note, "PodResourceClaim gpu: resource claim template \"later\": resourceclaimtemplate.resource.k8s.io "
                  "\"later\" not found");
  EXPECT_TRUE(claims().empty());
  ASSERT_TRUE(c()->create(gpu_template("later")).ok());
  std::string name = wait_recorded("waiting", "gpu");
  EXPECT_EQ(name.substr(0, 12), "waiting-gpu-");
}

// A claim the controller made before, whose name never reached the pod's status (a failed status
// write), is found by its owner and annotation: no second claim (upstream's findPodResourceClaim).
TEST_F(ResourceClaimTest, ReusesTheClaimItMadeBefore) {
  manager->stop();  // make the pod and its orphaned claim while the controller is away
  manager.reset();
  ASSERT_TRUE(c()->create(gpu_template("gpu-template")).ok());
  auto pod = c()->create(claim_pod("resumed", "gpu", "gpu-template"));
  ASSERT_TRUE(pod.ok());
  rv1::ResourceClaim made;
  made.metadata.name = "resumed-gpu-old01";
  made.metadata.namespace_ = "default";
  made.metadata.annotations.set(std::string(api::kPodClaimNameAnnotation), "gpu");
  api::OwnerReference owner;
  owner.apiVersion = "v1";
  owner.kind = "Pod";
  owner.name = "resumed";
  owner.uid = pod->metadata.uid;
  owner.controller = true;
  made.metadata.ownerReferences = std::vector<api::OwnerReference>{owner};
  made.spec = gpu_template("x").spec.spec;
  ASSERT_TRUE(c()->create(made).ok());
  start_controllers({"resourceclaim-controller"});
  EXPECT_EQ(wait_recorded("resumed", "gpu"), "resumed-gpu-old01");
  EXPECT_EQ(claims().size(), 1u);
}

// syncPod: an allocated claim of a scheduled pod that does not reserve it yet gets the pod added
// to reservedFor; syncClaim: once the pod is gone, the reservation goes, the claim is deallocated
// (allocation cleared, delete-protection finalizer removed).
TEST_F(ResourceClaimTest, ReservesForScheduledPodsAndDeallocatesWhenTheyGo) {
  rv1::ResourceClaim shared;
  shared.metadata.name = "shared";
  shared.metadata.namespace_ = "default";
  shared.spec = gpu_template("x").spec.spec;
  ASSERT_TRUE(c()->create(shared).ok());
  // Allocated by "the scheduler": finalizer first, then the allocation.
  auto cur = c()->get<rv1::ResourceClaim>("default", "shared");
  cur->metadata.finalizers = std::vector<std::string>{std::string(rv1::kFinalizer)};
  cur = c()->update(*cur);
  ASSERT_TRUE(cur.ok()) << cur.error().to_string();
  rv1::AllocationResult a;
  rv1::DeviceRequestAllocationResult res;
  res.request = "gpu";
  res.driver = "gpu.ksched.dev";
  res.pool = "node-0";
  res.device = "gpu-0";
  a.devices.results.push_back(res);
  cur->status.allocation = a;
  cur = c()->update_status(*cur);
  ASSERT_TRUE(cur.ok()) << cur.error().to_string();

  add_node("node-0");
  auto pod = claim_pod("user", "gpu", "shared", false);
  pod.spec.nodeName = "node-0";
  auto created = c()->create(pod);
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  ASSERT_TRUE(eventually([&] {
    auto cl = c()->get<rv1::ResourceClaim>("default", "shared");
    return cl && cl->status.reservedFor.size() == 1 && cl->status.reservedFor[0].uid == created->metadata.uid;
  }));
  auto cl = c()->get<rv1::ResourceClaim>("default", "shared");
  EXPECT_EQ(cl->status.reservedFor[0].resource, "pods");
  EXPECT_EQ(cl->status.reservedFor[0].name, "user");

  client::DeleteOptions now;
  now.gracePeriodSeconds = 0;
  ASSERT_TRUE(c()->remove<api::Pod>("default", "user", now).ok());
  ASSERT_TRUE(eventually([&] {
    auto x = c()->get<rv1::ResourceClaim>("default", "shared");
    return x && x->status.reservedFor.empty() && !x->status.allocation && x->metadata.finalizers.empty();
  }));
  // A user's claim is not deleted with its user.
  EXPECT_TRUE(c()->get<rv1::ResourceClaim>("default", "shared").ok());
}

// A claim made for a pod that finished is deleted (upstream deletes generated claims of pods that
// will not run; the garbage collector would wait for the pod itself to go).
TEST_F(ResourceClaimTest, DeletesTheClaimOfAFinishedPod) {
  ASSERT_TRUE(c()->create(gpu_template("gpu-template")).ok());
  ASSERT_TRUE(c()->create(claim_pod("batch", "gpu", "gpu-template")).ok());
  std::string name = wait_recorded("batch", "gpu");
  ASSERT_TRUE(c()->get<rv1::ResourceClaim>("default", name).ok());
  ASSERT_TRUE(c()->patch<api::Pod>("default", "batch", client::PatchType::Merge, R"({"status":{"phase":"Succeeded"}})",
                                   "status")
                  .ok());
  ASSERT_TRUE(eventually([&] {
    auto cl = c()->get<rv1::ResourceClaim>("default", name);
    return !cl && client::is_not_found(cl.error());
  }));
}

// Upstream's generateName: "<pod>-<claim>-" up to 57 characters, else both parts shortened in
// proportion to their length.
TEST(ResourceClaimNames, GenerateNameKeepsBothPartsWhenShortened) {
  EXPECT_EQ(api::claim_generate_name("web-7d4b9c8f6-x2k4q", "gpu"), "web-7d4b9c8f6-x2k4q-gpu-");
  std::string pod(50, 'p'), claim(20, 'c');
  std::string name = api::claim_generate_name(pod, claim);
  // 72 characters become 50*57/72 = 39 of the pod's, "-", 20*57/72 = 15 of the claim's.
  EXPECT_EQ(name, std::string(39, 'p') + "-" + std::string(15, 'c'));
}

// ---------------------------------------------------------------- DRAWorkloadResourceClaims
// KEP-5729, against upstream's pkg/controller/resourceclaim/controller_test.go as of the v1.37
// development tree (kubernetes/kubernetes, the version with PodGroup cases; the index names no
// commit for it): "create for PodGroup", "update Pod status with PodGroup claim", "skip create for
// Pod with PodGroup after template exists", "add-reserved-podgroup", "clear-reserved-podgroup",
// "create ResourceClaim for grouped Pod with claim when DRAWorkloadResourceClaims feature is
// disabled".

namespace {

namespace sched = api::schedulingv1beta1;

sched::PodGroup claim_group(const std::string& name, const std::string& claim, const std::string& tmpl) {
  sched::PodGroup g;
  g.metadata.name = name;
  g.metadata.namespace_ = "default";
  g.spec.schedulingPolicy.gang.emplace().minCount = 2;
  sched::PodGroupResourceClaim c;
  c.name = claim;
  c.resourceClaimTemplateName = tmpl;
  g.spec.resourceClaims.push_back(c);
  return g;
}

api::Pod member(const std::string& name, const std::string& group, const std::string& pod_claim,
                const std::string& tmpl) {
  api::Pod p = claim_pod(name, pod_claim, tmpl);
  p.spec.schedulingGroup.emplace().podGroupName = group;
  return p;
}

// The claim the PodGroup's status records for `claim`, "" while there is none.
std::string group_recorded(const sched::PodGroup& g, std::string_view claim) {
  for (const auto& s : g.status.resourceClaimStatuses)
    if (s.name == claim && s.resourceClaimName) return *s.resourceClaimName;
  return "";
}

}  // namespace

class PodGroupResourceClaimTest : public ResourceClaimTest {
 protected:
  void SetUp() override {
    server_feature_gates.GenericWorkload = true;
    server_feature_gates.DRAWorkloadResourceClaims = true;
    controller_feature_gates = {{"GenericWorkload", true}, {"DRAWorkloadResourceClaims", true}};
    ResourceClaimTest::SetUp();
  }
  std::string wait_group_recorded(const std::string& group, const std::string& claim) {
    std::string name;
    EXPECT_TRUE(eventually([&] {
      auto g = c()->get<sched::PodGroup>("default", group);
      name = g ? group_recorded(*g, claim) : "";
      return !name.empty();
    }));
    return name;
  }
};

// "create for PodGroup": one claim for the group from its template (generateName
// "<podgroup>-<claim>-", the PodGroup as controller, the pod-claim-name annotation), recorded in
// status.resourceClaimStatuses; "update Pod status with PodGroup claim" / "skip create for Pod with
// PodGroup": members whose claim equals the group's record the group's claim and make none.
TEST_F(PodGroupResourceClaimTest, OneClaimPerPodGroupRecordedInItsStatusAndItsMembers) {
  ASSERT_TRUE(c()->create(gpu_template("gpu-template")).ok());
  auto group = c()->create(claim_group("trainers", "gpu", "gpu-template"));
  ASSERT_TRUE(group.ok()) << group.error().to_string();
  ASSERT_EQ(group->spec.resourceClaims.size(), 1u);  // kept: the server's gate is on
  std::string name = wait_group_recorded("trainers", "gpu");
  EXPECT_EQ(name.substr(0, 13), "trainers-gpu-") << name;
  auto claim = c()->get<rv1::ResourceClaim>("default", name);
  ASSERT_TRUE(claim.ok()) << claim.error().to_string();
  ASSERT_EQ(claim->metadata.ownerReferences.size(), 1u);
  const auto& owner = claim->metadata.ownerReferences[0];
  EXPECT_EQ(owner.apiVersion, "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(owner.kind, "PodGroup");
  EXPECT_EQ(owner.name, "trainers");
  EXPECT_EQ(owner.uid, group->metadata.uid);
  EXPECT_TRUE(owner.controller.value_or(false));
  EXPECT_TRUE(owner.blockOwnerDeletion.value_or(false));
  EXPECT_EQ(claim->metadata.annotations.get(api::kPodClaimNameAnnotation), "gpu");
  EXPECT_EQ(claim->metadata.labels.get("team"), "ml");

  ASSERT_TRUE(c()->create(member("trainer-0", "trainers", "gpu", "gpu-template")).ok());
  ASSERT_TRUE(c()->create(member("trainer-1", "trainers", "gpu", "gpu-template")).ok());
  EXPECT_EQ(wait_recorded("trainer-0", "gpu"), name);
  EXPECT_EQ(wait_recorded("trainer-1", "gpu"), name);
  // A member whose claim differs from the group's (another template) gets a claim of its own.
  ASSERT_TRUE(c()->create(member("loner", "trainers", "gpu", "other-template")).ok());
  ASSERT_TRUE(c()->create(gpu_template("other-template")).ok());
  EXPECT_EQ(wait_recorded("loner", "gpu").substr(0, 10), "loner-gpu-");
  EXPECT_EQ(claims().size(), 2u);
}

// "add-reserved-podgroup": a scheduled member's use of the group's allocated claim reserves it for
// the PodGroup, once however many members run; "clear-reserved-podgroup": when the PodGroup is
// gone its reservation goes and the claim is deallocated.
TEST_F(PodGroupResourceClaimTest, ReservedForThePodGroupUntilTheGroupGoes) {
  ASSERT_TRUE(c()->create(gpu_template("gpu-template")).ok());
  auto group = c()->create(claim_group("trainers", "gpu", "gpu-template"));
  ASSERT_TRUE(group.ok()) << group.error().to_string();
  std::string name = wait_group_recorded("trainers", "gpu");
  // Allocated by "the scheduler": finalizer, then the allocation.
  auto cur = c()->get<rv1::ResourceClaim>("default", name);
  ASSERT_TRUE(cur.ok());
  cur->metadata.finalizers = std::vector<std::string>{std::string(rv1::kFinalizer)};
  cur = c()->update(*cur);
  ASSERT_TRUE(cur.ok()) << cur.error().to_string();
  rv1::DeviceRequestAllocationResult res;
  res.request = "gpu";
  res.driver = "gpu.ksched.dev";
  res.pool = "node-0";
  res.device = "gpu-0";
  cur->status.allocation.emplace().devices.results.push_back(res);
  ASSERT_TRUE(c()->update_status(*cur).ok());

  add_node("node-0");
  for (const char* p : {"trainer-0", "trainer-1"}) {
    api::Pod m = member(p, "trainers", "gpu", "gpu-template");
    m.spec.nodeName = "node-0";
    ASSERT_TRUE(c()->create(m).ok());
    EXPECT_EQ(wait_recorded(p, "gpu"), name);
  }
  ASSERT_TRUE(eventually([&] {
    auto cl = c()->get<rv1::ResourceClaim>("default", name);
    return cl && !cl->status.reservedFor.empty();
  }));
  auto cl = c()->get<rv1::ResourceClaim>("default", name);
  ASSERT_EQ(cl->status.reservedFor.size(), 1u);
  EXPECT_EQ(cl->status.reservedFor[0].apiGroup, "scheduling.k8s.io");
  EXPECT_EQ(cl->status.reservedFor[0].resource, "podgroups");
  EXPECT_EQ(cl->status.reservedFor[0].name, "trainers");
  EXPECT_EQ(cl->status.reservedFor[0].uid, group->metadata.uid);

  // The members finishing does not release the group's claim; the group going does.
  ASSERT_TRUE(c()->patch<api::Pod>("default", "trainer-0", client::PatchType::Merge,
                                   R"({"status":{"phase":"Succeeded"}})", "status")
                  .ok());
  ASSERT_TRUE(c()->remove<sched::PodGroup>("default", "trainers").ok());
  ASSERT_TRUE(eventually([&] {
    auto x = c()->get<rv1::ResourceClaim>("default", name);
    return x && x->status.reservedFor.empty() && !x->status.allocation && x->metadata.finalizers.empty();
  }));
}

// "create ResourceClaim for grouped Pod with claim when DRAWorkloadResourceClaims feature is
// disabled": with the gate off the server drops the PodGroup's claims and a member's claim is its
// own, made from the template as for any pod.
class PodGroupResourceClaimGateOffTest : public ResourceClaimTest {
 protected:
  void SetUp() override {
    server_feature_gates.GenericWorkload = true;
    controller_feature_gates = {{"GenericWorkload", true}};
    ResourceClaimTest::SetUp();
  }
};

TEST_F(PodGroupResourceClaimGateOffTest, GroupClaimsAreDroppedAndMembersMakeTheirOwn) {
  ASSERT_TRUE(c()->create(gpu_template("gpu-template")).ok());
  auto group = c()->create(claim_group("trainers", "gpu", "gpu-template"));
  ASSERT_TRUE(group.ok()) << group.error().to_string();
  EXPECT_TRUE(group->spec.resourceClaims.empty());
  ASSERT_TRUE(c()->create(member("trainer-0", "trainers", "gpu", "gpu-template")).ok());
  EXPECT_EQ(wait_recorded("trainer-0", "gpu").substr(0, 14), "trainer-0-gpu-");
  ASSERT_EQ(claims().size(), 1u);
  EXPECT_EQ(claims()[0].metadata.ownerReferences.at(0).kind, "Pod");
}
