// The Job controller's Workload and PodGroup (gate WorkloadWithJob), after upstream's
// pkg/controller/job/job_scheduling_manager_test.go as of kubernetes/kubernetes PR #140188 (v1.37
// development): each test names the upstream test, and the case, it mirrors. The ensure tests run
// against the embedded API server (GenericWorkload on), where upstream uses a fake clientset.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "client/resources_scheduling.h"
#include "controllers/features.h"
#include "controllers/informers.h"
#include "controllers/job/job_controller.h"
#include "controllers/job/job_scheduling.h"
#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::Job;
namespace wl = api::schedulingv1beta1;
namespace pg = api::schedulingv1beta1;

namespace {

constexpr client::ResourceInfo kPodGroups{"scheduling.k8s.io", "v1beta1", "podgroups", "PodGroup", true};
constexpr client::ResourceInfo kWorkloads{"scheduling.k8s.io", "v1beta1", "workloads", "Workload", true};

// newGangSchedulingJob: Indexed, completions == parallelism.
Job gang_job(const std::string& name, int parallelism) {
  Job j;
  j.apiVersion = "batch/v1";
  j.kind = "Job";
  j.metadata.name = name;
  j.metadata.namespace_ = "default";
  j.spec.parallelism = parallelism;
  j.spec.completions = parallelism;
  j.spec.completionMode = "Indexed";
  j.spec.template_ = pod_template(name, "busybox");
  j.spec.template_.spec.restartPolicy = "Never";
  j.spec.template_.spec.containers[0].command = std::vector<std::string>{"sh", "-c", "sleep 600"};
  return j;
}

// newGangSchedulingJob of v1.37: spec.scheduling with a gang of `min_count` (nullopt: no minCount).
Job scheduled_job(const std::string& name, int parallelism, std::optional<int> min_count) {
  Job j = gang_job(name, parallelism);
  j.metadata.uid = name + "-uid";
  auto& gang = j.spec.scheduling.emplace().schedulingPolicy.emplace().gang.emplace();
  if (min_count) gang.minCount = *min_count;
  return j;
}

}  // namespace

// ---------------------------------------------------------------- pure functions

namespace {
api::OwnerReference controller_owner(const std::string& api_version, const std::string& kind, const std::string& name) {
  api::OwnerReference ref;
  ref.apiVersion = api_version;
  ref.kind = kind;
  ref.name = name;
  ref.uid = name + "-uid";
  ref.controller = true;
  return ref;
}
}  // namespace

// TestShouldManageWorkloadForJob, every case but "feature gate disabled" (the controller asks
// only with the gate on: JobWorkloadTest.GateOffMakesNoObjects).
TEST(JobScheduling, ShouldManageWorkloadForJob) {
  auto job = [](int parallelism) {
    Job j;
    j.spec.parallelism = parallelism;
    return j;
  };
  EXPECT_TRUE(controllers::manages_workload(job(4))) << "gate enabled, standalone Job -> managed (Universal Representation)";
  EXPECT_EQ(controllers::workload_management(job(4)), controllers::WorkloadManagement::kBoth);
  EXPECT_TRUE(controllers::manages_workload(job(1))) << "gate enabled, basic single-pod Job -> still managed";
  Job byo = job(4);
  api::PodSchedulingGroup g;
  g.podGroupName = "existing-pg";
  byo.spec.template_.spec.schedulingGroup = g;
  EXPECT_FALSE(controllers::manages_workload(byo)) << "BYO PodGroup via pod template schedulingGroup -> not managed";
  Job parent_owned = job(4);
  parent_owned.metadata.ownerReferences =
      std::vector<api::OwnerReference>{controller_owner("jobset.x-k8s.io/v1alpha2", "JobSet", "js")};
  EXPECT_FALSE(controllers::manages_workload(parent_owned))
      << "parent-owned Workload without delegation annotation -> not managed";
  Job delegated = parent_owned;
  delegated.metadata.annotations.set(std::string(controllers::kGroupTemplateNameAnnotation), "workers");
  EXPECT_TRUE(controllers::manages_workload(delegated))
      << "parent-owned Workload with delegation annotation -> managed (delegated PodGroup)";
  EXPECT_EQ(controllers::workload_management(delegated), controllers::WorkloadManagement::kPodGroupOnly);
  Job cron_owned = job(4);
  cron_owned.metadata.ownerReferences = std::vector<api::OwnerReference>{controller_owner("batch/v1", "CronJob", "cj")};
  EXPECT_FALSE(controllers::manages_workload(cron_owned)) << "CronJob-owned Job is treated as parent-owned (not managed)";
  // Not an upstream case: an owner that is not the controller leaves the Job a root.
  Job plain_owner = job(4);
  auto ref = controller_owner("v1", "ConfigMap", "cm");
  ref.controller = false;
  plain_owner.metadata.ownerReferences = std::vector<api::OwnerReference>{ref};
  EXPECT_EQ(controllers::workload_management(plain_owner), controllers::WorkloadManagement::kBoth);
}

// isNewJob, as TestEnsureWorkloadAndPodGroup's "skips creation when ..." cases exercise it.
TEST(JobScheduling, IsNewJob) {
  Job j = gang_job("j", 4);
  EXPECT_TRUE(controllers::is_new_job(j, false));
  EXPECT_FALSE(controllers::is_new_job(j, true)) << "skips creation when Job has pods but no Workload";
  Job started = j;
  started.status.startTime = api::Time{};
  EXPECT_FALSE(controllers::is_new_job(started, false)) << "skips creation when Job has StartTime set";
  Job succeeded = j;
  succeeded.status.succeeded = 1;
  EXPECT_FALSE(controllers::is_new_job(succeeded, false)) << "skips creation when Job has succeeded pods";
  Job failed = j;
  failed.status.failed = 1;
  EXPECT_FALSE(controllers::is_new_job(failed, false)) << "skips creation when Job has failed pods";
  Job was_suspended = j;
  auto& cond = was_suspended.status.conditions.emplace_back();
  cond.type = "Suspended";
  cond.status = "True";
  EXPECT_FALSE(controllers::is_new_job(was_suspended, false))
      << "skips creating Workload/PodGroup when Job was previously suspended";
}

// TestGenerateWorkload: the template made from spec.scheduling, and the PodGroup made from the
// template (podGroupSpecFromTemplate) carrying the same policy, constraints, mode and claims.
TEST(JobScheduling, GenerateWorkload) {
  {
    // "nil scheduling defaults to Basic": also a gang-shaped Job (v1.36 made it a gang).
    Job j = gang_job("basic-default", 4);
    j.metadata.uid = "basic-default-uid";
    j.spec.template_.spec.priorityClassName = "high";
    auto w = controllers::workload_for_job(j);
    EXPECT_EQ(std::string_view(w.apiVersion), "scheduling.k8s.io/v1beta1");
    ASSERT_EQ(w.spec.podGroupTemplates.size(), 1u);
    const auto& t = w.spec.podGroupTemplates[0];
    EXPECT_EQ(t.name, "basic-default-pgt-0");
    EXPECT_TRUE(t.schedulingPolicy.basic);
    EXPECT_FALSE(t.schedulingPolicy.gang);
    EXPECT_EQ(t.priorityClassName, "high") << "WorkloadItemForJob: the pod template's priority class";
    ASSERT_TRUE(w.spec.controllerRef);
    EXPECT_EQ(w.spec.controllerRef->apiGroup, "batch");
    EXPECT_EQ(w.spec.controllerRef->kind, "Job");
    EXPECT_EQ(w.spec.controllerRef->name, "basic-default");
    ASSERT_EQ(w.metadata.ownerReferences.size(), 1u);
    EXPECT_EQ(w.metadata.ownerReferences[0].uid, "basic-default-uid");
    auto p = controllers::pod_group_for(j, w);
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->spec.schedulingPolicy.basic);
    EXPECT_EQ(p->spec.priorityClassName, "high");
  }
  {
    Job j = scheduled_job("basic-nil-policy", 4, std::nullopt);
    j.spec.scheduling->schedulingPolicy.reset();
    auto w = controllers::workload_for_job(j);
    ASSERT_EQ(w.spec.podGroupTemplates.size(), 1u);
    EXPECT_TRUE(w.spec.podGroupTemplates[0].schedulingPolicy.basic) << "scheduling set but policy nil: basic";
    EXPECT_FALSE(w.spec.podGroupTemplates[0].schedulingPolicy.gang);
  }
  {
    Job j = scheduled_job("basic-explicit", 4, std::nullopt);
    j.spec.scheduling->schedulingPolicy.emplace().basic.emplace();
    auto w = controllers::workload_for_job(j);
    EXPECT_TRUE(w.spec.podGroupTemplates[0].schedulingPolicy.basic) << "explicit basic policy";
    auto p = controllers::pod_group_for(j, w);
    ASSERT_TRUE(p);
    EXPECT_TRUE(p->spec.schedulingPolicy.basic);
    EXPECT_FALSE(p->spec.schedulingPolicy.gang);
  }
  {
    auto w = controllers::workload_for_job(scheduled_job("gang", 4, 3));
    ASSERT_TRUE(w.spec.podGroupTemplates[0].schedulingPolicy.gang);
    EXPECT_EQ(w.spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 3) << "gang with explicit minCount";
  }
  {
    auto w = controllers::workload_for_job(scheduled_job("gang-zero", 4, std::nullopt));
    ASSERT_TRUE(w.spec.podGroupTemplates[0].schedulingPolicy.gang);
    EXPECT_EQ(w.spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 4) << "no minCount: parallelism";
    Job suspended = scheduled_job("gang-suspended", 4, std::nullopt);
    suspended.spec.parallelism = 0;
    EXPECT_EQ(controllers::workload_for_job(suspended).spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 1)
        << "defaultMinCountForJob: parallelism clamped to at least 1";
  }
  {
    Job j = scheduled_job("full", 4, 4);
    auto& s = *j.spec.scheduling;
    s.schedulingConstraints.emplace().topology.emplace_back().key = "topology.kubernetes.io/zone";
    s.disruptionMode.emplace().all.emplace();
    auto& claim = s.resourceClaims.emplace_back();
    claim.name = "gpu";
    claim.resourceClaimName = "my-claim";
    auto w = controllers::workload_for_job(j);
    const auto& t = w.spec.podGroupTemplates[0];
    EXPECT_EQ(t.name, "full-pgt-0");
    ASSERT_TRUE(t.schedulingPolicy.gang);
    EXPECT_EQ(t.schedulingPolicy.gang->minCount, 4);
    ASSERT_TRUE(t.schedulingConstraints);
    ASSERT_EQ(t.schedulingConstraints->topology.size(), 1u);
    EXPECT_EQ(t.schedulingConstraints->topology[0].key, "topology.kubernetes.io/zone");
    ASSERT_TRUE(t.disruptionMode);
    EXPECT_TRUE(t.disruptionMode->all);
    EXPECT_FALSE(t.disruptionMode->single);
    ASSERT_TRUE(w.spec.controllerRef);
    EXPECT_EQ(w.spec.controllerRef->name, "full");
    // The claims, typed and as the wire shows them.
    ASSERT_EQ(t.resourceClaims.size(), 1u);
    EXPECT_EQ(t.resourceClaims[0].resourceClaimName, std::optional<std::string>("my-claim"));
    auto wire = boost::json::parse(api::encode(w)).as_object();
    EXPECT_EQ(wire["spec"].as_object().at("podGroupTemplates").as_array().at(0).as_object().at("resourceClaims"),
              boost::json::parse(R"([{"name":"gpu","resourceClaimName":"my-claim"}])"));

    w.metadata.uid = "wl-uid";
    auto made = controllers::pod_group_for(j, w);
    ASSERT_TRUE(made);
    const auto& p = *made;
    EXPECT_EQ(std::string_view(p.apiVersion), "scheduling.k8s.io/v1beta1");
    ASSERT_TRUE(p.spec.schedulingPolicy.gang);
    EXPECT_EQ(p.spec.schedulingPolicy.gang->minCount, 4);
    ASSERT_TRUE(p.spec.schedulingConstraints);
    EXPECT_EQ(p.spec.schedulingConstraints->topology.at(0).key, "topology.kubernetes.io/zone");
    ASSERT_TRUE(p.spec.disruptionMode);
    EXPECT_TRUE(p.spec.disruptionMode->all);
    auto pg_wire = boost::json::parse(api::encode(p)).as_object();
    EXPECT_EQ(pg_wire["spec"].as_object().at("resourceClaims"), boost::json::parse(R"([{"name":"gpu","resourceClaimName":"my-claim"}])"));
    ASSERT_EQ(p.metadata.ownerReferences.size(), 2u);
    EXPECT_EQ(p.metadata.ownerReferences[1].apiVersion, "scheduling.k8s.io/v1beta1");
    EXPECT_EQ(p.metadata.ownerReferences[1].uid, "wl-uid");
  }
}

// The Job type's spec.scheduling on the wire: decoded into its blocks and written back as sent.
TEST(JobScheduling, SpecSchedulingRoundTrips) {
  const std::string in =
      R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"parallelism":4,"template":{},)"
      R"("scheduling":{"schedulingPolicy":{"gang":{"minCount":3}},"schedulingConstraints":{"topology":[{"key":"zone"}]},)"
      R"("disruptionMode":{"single":{}},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]}}})";
  auto j = api::decode<Job>(in);
  ASSERT_TRUE(j.ok()) << j.error();
  ASSERT_TRUE(j->spec.scheduling);
  const auto& s = *j->spec.scheduling;
  ASSERT_TRUE(s.schedulingPolicy && s.schedulingPolicy->gang);
  EXPECT_EQ(s.schedulingPolicy->gang->minCount, std::optional<std::int32_t>(3));
  ASSERT_TRUE(s.schedulingConstraints);
  EXPECT_EQ(s.schedulingConstraints->topology.at(0).key, "zone");
  ASSERT_TRUE(s.disruptionMode);
  EXPECT_TRUE(s.disruptionMode->single);
  ASSERT_EQ(s.resourceClaims.size(), 1u);
  EXPECT_EQ(s.resourceClaims[0].resourceClaimTemplateName, std::optional<std::string>("t"));
  EXPECT_EQ(boost::json::parse(api::encode(*j)).as_object()["spec"].as_object().at("scheduling"),
            boost::json::parse(in).as_object()["spec"].as_object().at("scheduling"));
}

// TestComputeWorkloadName.
TEST(JobScheduling, ComputeWorkloadName) {
  for (auto [name, uid] : {std::pair<std::string, std::string>{"my-job", "uid-123"}, {std::string(300, 'a'), "uid-long"}}) {
    Job j;
    j.metadata.name = name;
    j.metadata.uid = uid;
    auto n = controllers::workload_name_for_job(j);
    EXPECT_LE(n.size(), 253u);
    ASSERT_NE(n.rfind('-'), std::string::npos) << n;
    EXPECT_EQ(n.substr(0, std::min<std::size_t>(name.size(), 10)), name.substr(0, 10));
    EXPECT_EQ(n, controllers::workload_name_for_job(j)) << "deterministic";
    Job other = j;
    other.metadata.uid = "different-uid";
    EXPECT_NE(n, controllers::workload_name_for_job(other)) << "different UIDs, different names";
  }
}

// TestComputePodGroupName.
TEST(JobScheduling, ComputePodGroupName) {
  const std::vector<std::pair<std::string, std::string>> cases{{"my-workload", "my-template"},
                                                               {std::string(250, 'w'), "tpl"},
                                                               {"wl", std::string(250, 't')},
                                                               {std::string(200, 'w'), std::string(200, 't')}};
  for (const auto& [w, t] : cases) {
    auto n = controllers::pod_group_name_for(w, t);
    EXPECT_LE(n.size(), 253u) << n;
    EXPECT_GE(std::count(n.begin(), n.end(), '-'), 2) << n;
    EXPECT_EQ(n, controllers::pod_group_name_for(w, t)) << "deterministic";
    EXPECT_NE(n, controllers::pod_group_name_for(w, "other-template"));
  }
  EXPECT_EQ(controllers::pod_group_name_for("my-workload", "my-template").substr(0, 23), "my-workload-my-template");
}

// TestComputePodGroupName_Truncation.
TEST(JobScheduling, ComputePodGroupNameTruncation) {
  auto both = controllers::pod_group_name_for(std::string(200, 'w'), std::string(200, 't'));
  EXPECT_LE(both.size(), 253u);
  auto prefix = both.substr(0, both.rfind('-'));
  EXPECT_NE(prefix.find("www"), std::string::npos) << prefix;
  EXPECT_NE(prefix.find("ttt"), std::string::npos) << prefix;
  auto short_wl = controllers::pod_group_name_for("wl", std::string(200, 't'));
  EXPECT_EQ(short_wl.substr(0, 3), "wl-");
  EXPECT_LE(short_wl.size(), 253u);
}

// The gate's dependency, as upstream's feature gate dependency check words it; AllAlpha turns
// the alpha gates on.
TEST(ControllerFeatures, WorkloadWithJobDependsOnGenericWorkload) {
  auto f = controllers::controller_features({{"WorkloadWithJob", true}});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error(), "WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]");
  auto on = controllers::controller_features({{"WorkloadWithJob", true}, {"GenericWorkload", true}});
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->workload_with_job);
  auto off = controllers::controller_features({});
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->workload_with_job) << "alpha: off by default";
  auto all = controllers::controller_features({{"AllAlpha", true}});
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->workload_with_job && all->generic_workload);
}

// `ksched up --feature-gates`: the controllers' gates are taken out, the rest left in order for
// v1.35's parser; a bad value is upstream's ParseBool error quoting the whole flag.
TEST(ControllerFeatures, SplitControllerOnlyGates) {
  auto s = controllers::split_controller_only_gates("GenericWorkload=true, WorkloadWithJob = true ,GangScheduling=true");
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_EQ(s->rest, "GenericWorkload=true,GangScheduling=true");
  EXPECT_EQ(s->controller_only, (std::map<std::string, bool>{{"WorkloadWithJob", true}}));
  auto bad = controllers::split_controller_only_gates("WorkloadWithJob=maybe");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(),
            "invalid argument \"WorkloadWithJob=maybe\" for \"--feature-gates\" flag: invalid value of "
            "WorkloadWithJob=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
}

// TestCreatePodGroup: a root Job's PodGroup names its Workload as a second, non-controller
// owner; a delegated Job's does not (the parent owns that Workload alone). The template is the
// one named, or the first for an empty name; a name the Workload lacks gives none.
TEST(JobScheduling, CreatePodGroup) {
  Job j = scheduled_job("my-job", 4, 4);
  wl::Workload w;
  w.metadata.name = "root-workload";
  w.metadata.namespace_ = "default";
  w.metadata.uid = "wl-uid";
  auto& t = w.spec.podGroupTemplates.emplace_back();
  t.name = "my-job-pgt-0";
  t.schedulingPolicy.gang.emplace().minCount = 4;
  auto root = controllers::pod_group_for(j, w, "", true);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->metadata.name, controllers::pod_group_name_for("root-workload", "my-job-pgt-0"));
  ASSERT_EQ(root->metadata.ownerReferences.size(), 2u) << "root Job links the Workload as a non-controller owner";
  EXPECT_EQ(root->metadata.ownerReferences[0].controller, std::optional<bool>(true));
  EXPECT_FALSE(root->metadata.ownerReferences[1].controller.value_or(false));
  EXPECT_FALSE(root->metadata.ownerReferences[1].blockOwnerDeletion.value_or(false));

  w.metadata.name = "delegated-workload";
  auto& second = w.spec.podGroupTemplates.emplace_back();
  second.name = "workers";
  second.schedulingPolicy.basic.emplace();
  auto delegated = controllers::pod_group_for(j, w, "workers", false);
  ASSERT_TRUE(delegated);
  EXPECT_EQ(delegated->metadata.ownerReferences.size(), 1u) << "delegated Job does not link the parent-owned Workload";
  EXPECT_EQ(delegated->metadata.name, controllers::pod_group_name_for("delegated-workload", "workers"));
  ASSERT_TRUE(delegated->spec.workloadRef);
  EXPECT_EQ(delegated->spec.workloadRef->templateName, "workers");
  EXPECT_TRUE(delegated->spec.schedulingPolicy.basic);
  EXPECT_FALSE(controllers::pod_group_for(j, w, "missing", false)) << "getPodGroupTemplateByName: not found";
}

// ---------------------------------------------------------------- against the API server

class JobWorkloadTest : public ControllersTest {
 protected:
  void SetUp() override {
    server_feature_gates.GenericWorkload = true;
    server_feature_gates.WorkloadWithJob = true;  // the server keeps a Job's spec.scheduling
    ControllersTest::SetUp();
    workload_cache.add_indexers({{controllers::kWorkloadByControllerRefIndex, controllers::workload_controller_ref_values}});
    pod_group_cache.add_indexers({{controllers::kPodGroupByWorkloadIndex, controllers::pod_group_workload_values}});
    objects = std::make_unique<controllers::SchedulingObjects>(workload_cache, pod_group_cache);
  }
  // The controller's informer caches: filled from the server by refresh_caches() (informers that
  // caught up), or left as they are (informers that lag).
  informer::Indexer<wl::Workload> workload_cache;
  informer::Indexer<pg::PodGroup> pod_group_cache;
  std::unique_ptr<controllers::SchedulingObjects> objects;
  void refresh_caches() {
    auto ws = c()->list(client::ResourceRef::of(kWorkloads, "default"));
    auto ps = c()->list(client::ResourceRef::of(kPodGroups, "default"));
    ASSERT_TRUE(ws.ok() && ps.ok());
    auto wl_list = api::decode<api::List<wl::Workload>>(*ws);
    auto pg_list = api::decode<api::List<pg::PodGroup>>(*ps);
    ASSERT_TRUE(wl_list.ok() && pg_list.ok());
    std::vector<informer::Ptr<wl::Workload>> w;
    for (auto& item : wl_list->items) w.push_back(std::make_shared<const wl::Workload>(std::move(item)));
    std::vector<informer::Ptr<pg::PodGroup>> p;
    for (auto& item : pg_list->items) p.push_back(std::make_shared<const pg::PodGroup>(std::move(item)));
    workload_cache.replace(std::move(w));
    pod_group_cache.replace(std::move(p));
  }
  // With caches that caught up: the PodGroup the pods join.
  client::Result<std::optional<std::string>> ensure(const Job& j, bool has_pods) {
    refresh_caches();
    auto r = decide(j, has_pods);
    if (!r) return r.error();
    return r->name;
  }
  // With the caches as they are.
  client::Result<controllers::JobPodGroup> decide(const Job& j, bool has_pods) {
    return controllers::ensure_workload_and_pod_group(*c(), *objects, j, controllers::is_new_job(j, has_pods), recorder,
                                                      api::ObjectReference{});
  }
  // The Job as the server stored it (uid set), defaulted as the controller sees it.
  Job created(const Job& j) {
    auto r = c()->create(j);
    EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string());
    return r ? *r : j;
  }
  client::Result<pg::PodGroup> create_pod_group(const pg::PodGroup& p) {
    return decoded<pg::PodGroup>(c()->create(client::ResourceRef::of(kPodGroups, "default"), api::encode(p)));
  }
  // makeWorkload: a Workload of `name` the Job controls, with the Job's one template.
  wl::Workload controlled_workload(const Job& j, const std::string& name) {
    auto w = controllers::workload_for_job(j);
    w.metadata.name = name;
    return w;
  }
  std::optional<pg::PodGroup> pod_group(const std::string& name) {
    auto body = c()->get(client::ResourceRef::of(kPodGroups, "default", name));
    if (!body) return std::nullopt;
    auto v = api::decode<pg::PodGroup>(*body);
    EXPECT_TRUE(v.ok());
    return v ? std::optional<pg::PodGroup>(*v) : std::nullopt;
  }
  std::size_t pod_group_count() {
    auto body = c()->list(client::ResourceRef::of(kPodGroups, "default"));
    EXPECT_TRUE(body.ok());
    if (!body) return 0;
    auto v = api::decode<api::List<pg::PodGroup>>(*body);
    EXPECT_TRUE(v.ok());
    return v ? v->items.size() : 0;
  }
  std::size_t workload_count() {
    auto body = c()->list(client::ResourceRef::of(kWorkloads, "default"));
    EXPECT_TRUE(body.ok());
    if (!body) return 0;
    auto v = api::decode<api::List<wl::Workload>>(*body);
    EXPECT_TRUE(v.ok());
    return v ? v->items.size() : 0;
  }
  client::Result<wl::Workload> get_workload(const std::string& name) {
    return decoded<wl::Workload>(c()->get(client::ResourceRef::of(kWorkloads, "default", name)));
  }
  client::Result<wl::Workload> create_workload(const wl::Workload& w) {
    return decoded<wl::Workload>(c()->create(client::ResourceRef::of(kWorkloads, "default"), api::encode(w)));
  }
  template <class T>
  static client::Result<T> decoded(client::Result<std::string> body) {
    if (!body) return body.error();
    auto v = api::decode<T>(*body);
    if (!v) {
      client::ApiError e;
      e.message = v.error();
      return e;
    }
    return std::move(*v);
  }
  controllers::Recorder recorder;
};

// TestEnsureWorkloadAndPodGroup "BYO PodGroup via pod template schedulingGroup": nothing made.
TEST_F(JobWorkloadTest, EnsureNotManaged) {
  Job spec = gang_job("byo", 4);
  api::PodSchedulingGroup g;
  g.podGroupName = "existing-pg";
  spec.spec.template_.spec.schedulingGroup = g;
  Job j = created(spec);
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(*r);
  EXPECT_EQ(workload_count(), 0u);
  EXPECT_EQ(pod_group_count(), 0u);
}

// TestEnsureWorkloadAndPodGroup "creates both Workload and PodGroup when no pods exist", with
// TestCreateWorkloadForJob's checks of the Workload.
TEST_F(JobWorkloadTest, EnsureCreatesObjects) {
  Job spec = scheduled_job("test-job", 4, 4);
  spec.metadata.uid = "";
  Job j = created(spec);
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(*r);
  auto w = get_workload(controllers::workload_name_for_job(j));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  ASSERT_TRUE(w->spec.controllerRef);
  EXPECT_EQ(w->spec.controllerRef->apiGroup, "batch");
  EXPECT_EQ(w->spec.controllerRef->kind, "Job");
  EXPECT_EQ(w->spec.controllerRef->name, "test-job");
  ASSERT_EQ(w->spec.podGroupTemplates.size(), 1u);
  EXPECT_EQ(w->spec.podGroupTemplates[0].name, "test-job-pgt-0");
  ASSERT_TRUE(w->spec.podGroupTemplates[0].schedulingPolicy.gang);
  EXPECT_EQ(w->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 4);
  ASSERT_EQ(w->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(w->metadata.ownerReferences[0].kind, "Job");
  EXPECT_EQ(w->metadata.ownerReferences[0].name, "test-job");
  EXPECT_EQ(w->metadata.ownerReferences[0].uid, std::string(j.metadata.uid));
  EXPECT_EQ(w->metadata.ownerReferences[0].controller, std::optional<bool>(true));

  const std::string pg_name = controllers::pod_group_name_for(std::string(w->metadata.name), "test-job-pgt-0");
  EXPECT_EQ(**r, pg_name);
  auto p = pod_group(pg_name);
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->spec.workloadRef);
  EXPECT_EQ(p->spec.workloadRef->workloadName, std::string(w->metadata.name));
  EXPECT_EQ(p->spec.workloadRef->templateName, "test-job-pgt-0");
  ASSERT_TRUE(p->spec.schedulingPolicy.gang);
  EXPECT_EQ(p->spec.schedulingPolicy.gang->minCount, 4);
  ASSERT_EQ(p->metadata.ownerReferences.size(), 2u);
  EXPECT_EQ(p->metadata.ownerReferences[0].kind, "Job");
  EXPECT_EQ(p->metadata.ownerReferences[0].controller, std::optional<bool>(true));
  EXPECT_EQ(p->metadata.ownerReferences[1].kind, "Workload");
  EXPECT_EQ(p->metadata.ownerReferences[1].apiVersion, "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(p->metadata.ownerReferences[1].uid, std::string(w->metadata.uid));
  EXPECT_FALSE(p->metadata.ownerReferences[1].controller.value_or(false));

  // "discovers existing objects even when pods exist": nothing more is created.
  auto again = ensure(j, true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, std::optional<std::string>(pg_name));
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);
}

// TestEnsureWorkloadAndPodGroup (universal representation): a Job that is no gang (NonIndexed,
// one pod, no spec.scheduling) gets a basic Workload and PodGroup.
TEST_F(JobWorkloadTest, EnsureCreatesBasicObjectsForAnyJob) {
  Job spec = gang_job("single", 1);
  spec.spec.completionMode = "NonIndexed";
  Job j = created(spec);
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(*r);
  auto w = get_workload(controllers::workload_name_for_job(j));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  ASSERT_EQ(w->spec.podGroupTemplates.size(), 1u);
  EXPECT_TRUE(w->spec.podGroupTemplates[0].schedulingPolicy.basic);
  EXPECT_FALSE(w->spec.podGroupTemplates[0].schedulingPolicy.gang);
  auto p = pod_group(**r);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->spec.schedulingPolicy.basic);
}

// TestEnsureWorkloadAndPodGroup with spec.scheduling: a gang of minCount 3 for a Job of 4 and an
// all-at-once disruption mode, carried into the Workload's template and the PodGroup.
TEST_F(JobWorkloadTest, EnsureCreatesObjectsFromSpecScheduling) {
  Job spec = scheduled_job("sched", 4, 3);
  spec.metadata.uid = "";
  spec.spec.completionMode = "NonIndexed";
  spec.spec.completions.reset();
  spec.spec.scheduling->disruptionMode.emplace().all.emplace();
  Job j = created(spec);
  ASSERT_TRUE(j.spec.scheduling) << "the server kept spec.scheduling";
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(*r);
  auto w = get_workload(controllers::workload_name_for_job(j));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  ASSERT_EQ(w->spec.podGroupTemplates.size(), 1u);
  const auto& t = w->spec.podGroupTemplates[0];
  ASSERT_TRUE(t.schedulingPolicy.gang);
  EXPECT_EQ(t.schedulingPolicy.gang->minCount, 3);
  ASSERT_TRUE(t.disruptionMode);
  EXPECT_TRUE(t.disruptionMode->all);
  auto p = pod_group(**r);
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->spec.schedulingPolicy.gang);
  EXPECT_EQ(p->spec.schedulingPolicy.gang->minCount, 3);
  ASSERT_TRUE(p->spec.disruptionMode);
  EXPECT_TRUE(p->spec.disruptionMode->all);
  EXPECT_FALSE(p->spec.disruptionMode->single);
}

// TestSyncGangMinCount "managed objects are resized to the Job's minCount" and "already at
// desired minCount is left unchanged": a running gang Job whose minCount changed has it passed on
// to its Workload's template and its PodGroup, whatever its pods' state.
TEST_F(JobWorkloadTest, ChangedGangMinCountIsPassedOnToTheWorkloadAndPodGroup) {
  Job spec = scheduled_job("elastic", 4, 3);
  spec.metadata.uid = "";
  spec.spec.completionMode = "NonIndexed";
  spec.spec.completions.reset();
  Job j = created(spec);
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(*r);
  const std::string workload_name = controllers::workload_name_for_job(j);
  auto before = get_workload(workload_name);
  ASSERT_TRUE(before.ok());

  ASSERT_TRUE(j.spec.scheduling && j.spec.scheduling->schedulingPolicy && j.spec.scheduling->schedulingPolicy->gang);
  j.spec.scheduling->schedulingPolicy->gang->minCount = 2;
  auto again = ensure(j, true);  // the Job's pods exist: the objects are resized anyway
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  ASSERT_TRUE(*again);
  EXPECT_EQ(**again, **r);
  auto w = get_workload(workload_name);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->spec.podGroupTemplates.at(0).schedulingPolicy.gang);
  EXPECT_EQ(w->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 2);
  EXPECT_EQ(w->spec.podGroupTemplates[0].name, before->spec.podGroupTemplates[0].name);
  auto p = pod_group(**again);
  ASSERT_TRUE(p && p->spec.schedulingPolicy.gang);
  EXPECT_EQ(p->spec.schedulingPolicy.gang->minCount, 2);

  // Unchanged: no write (the resourceVersions stay).
  const std::string w_rv(w->metadata.resourceVersion), p_rv(p->metadata.resourceVersion);
  ASSERT_TRUE(ensure(j, true).ok());
  EXPECT_EQ(std::string(get_workload(workload_name)->metadata.resourceVersion), w_rv);
  EXPECT_EQ(std::string(pod_group(**again)->metadata.resourceVersion), p_rv);
}

// TestEnsureWorkloadAndPodGroup "skips creation when Job has pods but no Workload", "... has
// StartTime set", "... has succeeded pods", "... has failed pods", "skips creating
// Workload/PodGroup when Job was previously suspended": a Job that started gets no objects late.
TEST_F(JobWorkloadTest, EnsureSkipsCreationForAStartedJob) {
  Job j = created(scheduled_job("test-job", 4, 4));
  std::vector<std::pair<std::string, Job>> started;
  started.emplace_back("has pods", j);
  Job with_start = j;
  with_start.status.startTime = api::Time{};
  started.emplace_back("StartTime set", with_start);
  Job with_succeeded = j;
  with_succeeded.status.succeeded = 1;
  started.emplace_back("succeeded pods", with_succeeded);
  Job with_failed = j;
  with_failed.status.failed = 1;
  started.emplace_back("failed pods", with_failed);
  Job was_suspended = j;
  auto& cond = was_suspended.status.conditions.emplace_back();
  cond.type = "Suspended";
  cond.status = "False";
  started.emplace_back("previously suspended", was_suspended);
  for (const auto& [name, job] : started) {
    auto r = ensure(job, name == "has pods");
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().to_string();
    EXPECT_FALSE(*r) << name;
  }
  EXPECT_EQ(workload_count(), 0u);
  EXPECT_EQ(pod_group_count(), 0u);
}

// TestEnsureWorkloadAndPodGroup "discovers existing Workload and PodGroup", and "workload found
// but no PodGroup creates one" (a Workload of another name the Job controls; only while the Job
// is new: once it has pods, no group).
TEST_F(JobWorkloadTest, EnsureDiscoversExistingObjects) {
  Job j = created(scheduled_job("test-job", 4, 4));
  auto w = create_workload(controlled_workload(j, "user-workload"));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  auto late = ensure(j, true);
  ASSERT_TRUE(late.ok()) << late.error().to_string();
  EXPECT_FALSE(*late) << "Workload found, PodGroup missing, pods exist: no group";
  EXPECT_EQ(pod_group_count(), 0u);

  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(*r) << "workload found but no PodGroup creates one";
  EXPECT_EQ(**r, controllers::pod_group_name_for("user-workload", "test-job-pgt-0"));
  auto found = ensure(j, true);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, *r) << "discovers existing Workload and PodGroup";
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);
}

// TestEnsureWorkloadAndPodGroup "BYO Workload (no controller ownerRef) is ignored; controller
// creates its own" and "BYO PodGroup (no controller ownerRef) is ignored; controller creates its
// own".
TEST_F(JobWorkloadTest, EnsureIgnoresObjectsTheJobDoesNotControl) {
  Job j = created(scheduled_job("test-job", 4, 4));
  auto byo = controlled_workload(j, "user-created-workload");
  byo.metadata.ownerReferences = std::vector<api::OwnerReference>{};
  ASSERT_TRUE(create_workload(byo).ok());
  auto external = controllers::pod_group_for(j, *get_workload("user-created-workload"));
  ASSERT_TRUE(external);
  external->metadata.name = "external-pg";
  external->metadata.ownerReferences = std::vector<api::OwnerReference>{};
  ASSERT_TRUE(create_pod_group(*external).ok());

  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const std::string own = controllers::workload_name_for_job(j);
  ASSERT_TRUE(get_workload(own).ok()) << "the controller made its own Workload";
  EXPECT_EQ(*r, std::optional<std::string>(controllers::pod_group_name_for(own, "test-job-pgt-0")));
  EXPECT_EQ(workload_count(), 2u);
  EXPECT_EQ(pod_group_count(), 2u);

  // A PodGroup that names the Job's own Workload but is not controlled by the Job: ignored too.
  Job k = created(scheduled_job("other-job", 4, 4));
  auto k_workload = create_workload(controllers::workload_for_job(k));
  ASSERT_TRUE(k_workload.ok()) << k_workload.error().to_string();
  auto foreign = controllers::pod_group_for(k, *k_workload);
  foreign->metadata.name = "external-pg-2";
  foreign->metadata.ownerReferences = std::vector<api::OwnerReference>{};
  ASSERT_TRUE(create_pod_group(*foreign).ok());
  auto rk = ensure(k, false);
  ASSERT_TRUE(rk.ok()) << rk.error().to_string();
  EXPECT_EQ(*rk, std::optional<std::string>(
                     controllers::pod_group_name_for(std::string(k_workload->metadata.name), "other-job-pgt-0")));
}

// TestEnsureWorkloadAndPodGroup "ambiguous Workloads fall back" and "ambiguous PodGroups fall
// back": normal scheduling, no error, nothing created.
TEST_F(JobWorkloadTest, EnsureAmbiguousObjectsFallBack) {
  Job j = created(scheduled_job("test-job", 4, 4));
  ASSERT_TRUE(create_workload(controlled_workload(j, "workload-1")).ok());
  ASSERT_TRUE(create_workload(controlled_workload(j, "workload-2")).ok());
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(*r);
  EXPECT_EQ(workload_count(), 2u);

  Job k = created(scheduled_job("other-job", 4, 4));
  auto w = create_workload(controllers::workload_for_job(k));
  ASSERT_TRUE(w.ok());
  for (const char* name : {"pg-1", "pg-2"}) {
    auto p = controllers::pod_group_for(k, *w);
    p->metadata.name = name;
    ASSERT_TRUE(create_pod_group(*p).ok());
  }
  auto rk = ensure(k, false);
  ASSERT_TRUE(rk.ok()) << rk.error().to_string();
  EXPECT_FALSE(*rk);
  EXPECT_EQ(pod_group_count(), 2u);
}

// TestEnsureWorkloadAndPodGroup "unsupported PodGroupTemplate count" (validateWorkloadStructure):
// a Workload the Job controls with two templates is an error, so the sync is retried.
TEST_F(JobWorkloadTest, EnsureUnsupportedWorkloadStructure) {
  Job j = created(scheduled_job("test-job", 4, 4));
  auto w = controllers::workload_for_job(j);
  auto second = w.spec.podGroupTemplates[0];
  second.name = "second";
  w.spec.podGroupTemplates.push_back(second);
  ASSERT_TRUE(create_workload(w).ok());
  auto r = ensure(j, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "workload default/" + std::string(w.metadata.name) + " for job default/test-job has 2 "
                               "PodGroupTemplates, want exactly 1");
  EXPECT_EQ(pod_group_count(), 0u);
}

// TestEnsureWorkloadAndPodGroup "Workload create error propagates" and "PodGroup create error
// propagates": here the server's AlreadyExists for an object of the computed name the Job does not
// control (upstream requeues on it too).
TEST_F(JobWorkloadTest, EnsureCreateErrorsPropagate) {
  Job j = created(scheduled_job("test-job", 4, 4));
  auto squatter = controllers::workload_for_job(j);
  squatter.metadata.ownerReferences = std::vector<api::OwnerReference>{};
  ASSERT_TRUE(create_workload(squatter).ok());
  auto r = ensure(j, false);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(client::is_already_exists(r.error())) << r.error().to_string();

  Job k = created(scheduled_job("other-job", 4, 4));
  auto w = create_workload(controlled_workload(k, "other-workload"));
  ASSERT_TRUE(w.ok());
  auto p = controllers::pod_group_for(k, *w);
  p->metadata.ownerReferences = std::vector<api::OwnerReference>{};
  ASSERT_TRUE(create_pod_group(*p).ok());
  auto rk = ensure(k, false);
  ASSERT_FALSE(rk.ok());
  EXPECT_TRUE(client::is_already_exists(rk.error())) << rk.error().to_string();
}

// The lookups read the informers' caches through their indexes (upstream's listWorkloadsForJob /
// listPodGroupsForWorkload over workloadByJobName / podGroupByWorkloadName), never the server: a
// Workload the server has but the cache does not is not found.
TEST_F(JobWorkloadTest, LookupsReadTheCachesNotTheServer) {
  Job j = created(scheduled_job("cached", 4, 4));
  ASSERT_TRUE(create_workload(controlled_workload(j, "user-workload")).ok());
  auto unseen = decide(j, true);  // a started Job: nothing is created
  ASSERT_TRUE(unseen.ok()) << unseen.error().to_string();
  EXPECT_FALSE(unseen->name) << "the Workload is on the server only";
  refresh_caches();
  auto seen = decide(j, false);
  ASSERT_TRUE(seen.ok()) << seen.error().to_string();
  EXPECT_EQ(seen->name, std::optional<std::string>(controllers::pod_group_name_for("user-workload", "cached-pgt-0")))
      << "found in the cache: its PodGroup is made";
  EXPECT_EQ(workload_count(), 1u);
}

// A cache that lags behind the controller's own creates (upstream's TestEnsureWorkloadAndPodGroup
// "simulateAlreadyExists" injects the object into the indexer on AlreadyExists). The names are
// deterministic, so nothing is made twice. ksched remembers what it created (SchedulingObjects)
// until the informer shows it, so the next sync uses it at once; without that memory (a
// restarted controller) the create fails with AlreadyExists and the sync is retried, as upstream.
TEST_F(JobWorkloadTest, ALaggingCacheMakesNoSecondObject) {
  Job j = created(scheduled_job("lagging", 4, 4));
  auto first = decide(j, false);
  ASSERT_TRUE(first.ok()) << first.error().to_string();
  ASSERT_TRUE(first->name);
  EXPECT_EQ(workload_cache.size(), 0u);
  EXPECT_EQ(objects->pending(), 2u) << "the Workload and the PodGroup, not in the caches yet";
  auto second = decide(j, false);  // still new: the first sync made no pods
  ASSERT_TRUE(second.ok()) << second.error().to_string();
  EXPECT_EQ(second->name, first->name);
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);

  // The informers catch up (their events): the caches answer from now on.
  refresh_caches();
  objects->workload_observed("default/" + controllers::workload_name_for_job(j));
  objects->pod_group_observed("default/" + *first->name);
  EXPECT_EQ(objects->pending(), 0u);
  auto third = decide(j, true);
  ASSERT_TRUE(third.ok()) << third.error().to_string();
  EXPECT_EQ(third->name, first->name);

  informer::Indexer<wl::Workload> empty_workloads;
  empty_workloads.add_indexers({{controllers::kWorkloadByControllerRefIndex, controllers::workload_controller_ref_values}});
  informer::Indexer<pg::PodGroup> empty_pod_groups;
  empty_pod_groups.add_indexers({{controllers::kPodGroupByWorkloadIndex, controllers::pod_group_workload_values}});
  controllers::SchedulingObjects forgetful(empty_workloads, empty_pod_groups);
  auto retried = controllers::ensure_workload_and_pod_group(*c(), forgetful, j, true, recorder, api::ObjectReference{});
  ASSERT_FALSE(retried.ok());
  EXPECT_TRUE(client::is_already_exists(retried.error())) << retried.error().to_string();
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);
}

// A created object the informer never reports (created and deleted inside a watch gap) is
// forgotten after five minutes, as an expectation (ExpectationsTimeout).
TEST(SchedulingObjects, ACreatedObjectIsForgottenAfterTheTimeout) {
  informer::Indexer<wl::Workload> workloads;
  workloads.add_indexers({{controllers::kWorkloadByControllerRefIndex, controllers::workload_controller_ref_values}});
  informer::Indexer<pg::PodGroup> pod_groups;
  pod_groups.add_indexers({{controllers::kPodGroupByWorkloadIndex, controllers::pod_group_workload_values}});
  util::FakeClock clock;
  controllers::SchedulingObjects objects(workloads, pod_groups, clock);
  Job j = scheduled_job("j", 2, 2);
  j.metadata.namespace_ = "ns";
  auto w = controllers::workload_for_job(j);
  objects.created(std::make_shared<const wl::Workload>(w));
  EXPECT_EQ(objects.workloads_referencing("batch", "Job", "ns", "j").size(), 1u);
  EXPECT_TRUE(objects.workloads_referencing("batch", "Job", "other", "j").empty()) << "another namespace";
  EXPECT_TRUE(objects.workloads_referencing("batch", "Job", "ns", "k").empty()) << "another Job";
  // In the cache as well: one copy.
  workloads.add(std::make_shared<const wl::Workload>(w));
  EXPECT_EQ(objects.workloads_referencing("batch", "Job", "ns", "j").size(), 1u);
  workloads.remove("ns/" + std::string(w.metadata.name));
  clock.step(controllers::SchedulingObjects::kCreatedTimeout + std::chrono::seconds(1));
  EXPECT_TRUE(objects.workloads_referencing("batch", "Job", "ns", "j").empty());
}

// The index values (informers.h): a Workload under its whole spec.controllerRef, a PodGroup under
// its Workload, a delegated Job under its controller owner, and schema.ParseGroupVersion's group.
TEST(SchedulingIndexes, Values) {
  wl::Workload w;
  w.metadata.namespace_ = "ns";
  EXPECT_TRUE(controllers::workload_controller_ref_values(w).empty()) << "no controllerRef";
  auto& ref = w.spec.controllerRef.emplace();
  ref.apiGroup = "batch";
  ref.kind = "Job";
  ref.name = "j";
  EXPECT_EQ(controllers::workload_controller_ref_values(w), std::vector<std::string>{"batch/Job/ns/j"});
  pg::PodGroup p;
  p.metadata.namespace_ = "ns";
  EXPECT_TRUE(controllers::pod_group_workload_values(p).empty()) << "no workloadRef";
  p.spec.workloadRef.emplace().workloadName = "w";
  EXPECT_EQ(controllers::pod_group_workload_values(p), std::vector<std::string>{"ns/w"});
  EXPECT_EQ(controllers::api_group_of("v1"), std::optional<std::string_view>(""));
  EXPECT_EQ(controllers::api_group_of("jobset.x-k8s.io/v1alpha2"), std::optional<std::string_view>("jobset.x-k8s.io"));
  EXPECT_FALSE(controllers::api_group_of("a/b/c"));
  EXPECT_EQ(controllers::controller_ref_index_key("", "ConfigMap", "ns", "cm"), "/ConfigMap/ns/cm");
}

// getOrCreateDelegatedPodGroup and syncDelegatedPodGroupMinCount (upstream's test file at hand
// has no case for them; these follow the functions): a child Job whose parent (a JobSet) names
// one of its Workload's templates gets a PodGroup from that template, owned by the Job alone;
// none while the parent's Workload or the template is missing; a gang size the parent changes on
// its template reaches the PodGroup.
TEST_F(JobWorkloadTest, DelegatedPodGroupFromTheParentsWorkload) {
  Job spec = gang_job("child", 3);
  spec.metadata.ownerReferences =
      std::vector<api::OwnerReference>{controller_owner("jobset.x-k8s.io/v1alpha2", "JobSet", "js")};
  spec.metadata.annotations.set(std::string(controllers::kGroupTemplateNameAnnotation), "workers");
  Job j = created(spec);

  refresh_caches();
  auto r = decide(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->name) << "parent-owned Workload not found yet";
  EXPECT_TRUE(r->wait_for_parent) << "a new Job waits for it (upstream: \"will retry\")";
  auto started = decide(j, true);
  ASSERT_TRUE(started.ok()) << started.error().to_string();
  EXPECT_FALSE(started->name);
  EXPECT_FALSE(started->wait_for_parent) << "a Job with pods goes on without a group";
  EXPECT_EQ(pod_group_count(), 0u);

  wl::Workload parent;
  parent.apiVersion = "scheduling.k8s.io/v1beta1";
  parent.kind = "Workload";
  parent.metadata.name = "js-workload";
  parent.metadata.namespace_ = "default";
  wl::TypedLocalObjectReference ref;
  ref.apiGroup = "jobset.x-k8s.io";
  ref.kind = "JobSet";
  ref.name = "js";
  parent.spec.controllerRef = ref;
  auto& leaders = parent.spec.podGroupTemplates.emplace_back();
  leaders.name = "leaders";
  leaders.schedulingPolicy.basic.emplace();
  auto created_parent = create_workload(parent);
  ASSERT_TRUE(created_parent.ok()) << created_parent.error().to_string();

  refresh_caches();
  auto missing = decide(j, false);
  ASSERT_TRUE(missing.ok()) << missing.error().to_string();
  EXPECT_FALSE(missing->name) << "delegated PodGroupTemplate not found in parent Workload";
  EXPECT_TRUE(missing->wait_for_parent);
  EXPECT_EQ(pod_group_count(), 0u);

  // The parent's Workload gains the template (a new Workload: templates are immutable).
  ASSERT_TRUE(c()->remove(client::ResourceRef::of(kWorkloads, "default", "js-workload")).ok());
  auto& workers = parent.spec.podGroupTemplates.emplace_back();
  workers.name = "workers";
  workers.schedulingPolicy.gang.emplace().minCount = 3;
  created_parent = create_workload(parent);
  ASSERT_TRUE(created_parent.ok()) << created_parent.error().to_string();

  auto made = ensure(j, false);
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  ASSERT_TRUE(*made);
  EXPECT_EQ(**made, controllers::pod_group_name_for("js-workload", "workers"));
  EXPECT_EQ(workload_count(), 1u) << "no Workload of the child's own";
  auto p = pod_group(**made);
  ASSERT_TRUE(p);
  ASSERT_EQ(p->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(p->metadata.ownerReferences[0].kind, "Job");
  EXPECT_EQ(p->metadata.ownerReferences[0].uid, std::string(j.metadata.uid));
  ASSERT_TRUE(p->spec.workloadRef);
  EXPECT_EQ(p->spec.workloadRef->workloadName, "js-workload");
  EXPECT_EQ(p->spec.workloadRef->templateName, "workers");
  ASSERT_TRUE(p->spec.schedulingPolicy.gang);
  EXPECT_EQ(p->spec.schedulingPolicy.gang->minCount, 3);

  // The parent resizes its gang: the PodGroup follows, though the Job has pods by now.
  auto current = get_workload("js-workload");
  ASSERT_TRUE(current.ok());
  current->spec.podGroupTemplates[1].schedulingPolicy.gang->minCount = 2;
  auto updated = c()->update(client::ResourceRef::of(kWorkloads, "default", "js-workload"), api::encode(*current));
  ASSERT_TRUE(updated.ok()) << updated.error().to_string();
  auto resized = ensure(j, true);
  ASSERT_TRUE(resized.ok()) << resized.error().to_string();
  EXPECT_EQ(*resized, *made);
  auto after = pod_group(**made);
  ASSERT_TRUE(after && after->spec.schedulingPolicy.gang);
  EXPECT_EQ(after->spec.schedulingPolicy.gang->minCount, 2);
  EXPECT_EQ(pod_group_count(), 1u);
}

// The controller end to end (upstream's TestSyncJob... with the gate): a gang Job's pods all carry
// its PodGroup; a Job that is no gang gets a basic Workload and PodGroup and its pods join that;
// deleting a Job removes its objects (garbage collector, by ownerReferences).
TEST_F(JobWorkloadTest, GangJobPodsJoinThePodGroup) {
  controller_feature_gates = {{"GenericWorkload", true}, {"WorkloadWithJob", true}};
  start_nodes(2);
  start_binder();
  start_controllers({"job-controller", "garbage-collector-controller"});
  Job j = created(scheduled_job("gang", 6, std::nullopt));
  Job plain_spec = gang_job("plain2", 3);
  plain_spec.spec.completionMode = "NonIndexed";
  Job plain = created(plain_spec);
  const std::string wl_name = controllers::workload_name_for_job(j);
  const std::string pg_name = controllers::pod_group_name_for(wl_name, "gang-pgt-0");
  const std::string plain_pg =
      controllers::pod_group_name_for(controllers::workload_name_for_job(plain), "plain2-pgt-0");
  auto gang_pods = [&] { return pods("default", "batch.kubernetes.io/job-name=gang"); };
  ASSERT_TRUE(eventually([&] { return gang_pods().size() == 6; }));
  for (const auto& p : gang_pods()) {
    ASSERT_TRUE(p.spec.schedulingGroup) << p.metadata.name;
    EXPECT_EQ(p.spec.schedulingGroup->podGroupName, std::optional<std::string>(pg_name));
  }
  auto gang_group = pod_group(pg_name);
  ASSERT_TRUE(gang_group);
  ASSERT_TRUE(gang_group->spec.schedulingPolicy.gang);
  EXPECT_EQ(gang_group->spec.schedulingPolicy.gang->minCount, 6);
  ASSERT_TRUE(eventually([&] { return pods("default", "batch.kubernetes.io/job-name=plain2").size() == 3; }));
  for (const auto& p : pods("default", "batch.kubernetes.io/job-name=plain2")) {
    ASSERT_TRUE(p.spec.schedulingGroup) << p.metadata.name;
    EXPECT_EQ(p.spec.schedulingGroup->podGroupName, std::optional<std::string>(plain_pg));
  }
  auto basic_group = pod_group(plain_pg);
  ASSERT_TRUE(basic_group);
  EXPECT_TRUE(basic_group->spec.schedulingPolicy.basic);

  EXPECT_EQ(workload_count(), 2u);
  EXPECT_EQ(pod_group_count(), 2u);
  ASSERT_TRUE(eventually([&] {
    auto ps = gang_pods();
    return ps.size() == 6 && std::all_of(ps.begin(), ps.end(), [](const api::Pod& p) { return !p.spec.nodeName.empty(); });
  }));

  client::DeleteOptions background;
  background.propagationPolicy = "Background";
  ASSERT_TRUE(c()->remove<Job>("default", "gang", background).ok());
  EXPECT_TRUE(eventually([&] { return workload_count() == 1 && pod_group_count() == 1; }))
      << "the Workload and PodGroup go with their Job";
  EXPECT_TRUE(pod_group(plain_pg)) << "the other Job's stay";
}

// Gate off (its default): a gang-shaped Job runs as before, with no Workload or PodGroup.
TEST_F(JobWorkloadTest, GateOffMakesNoObjects) {
  start_nodes(1);
  start_binder();
  start_controllers({"job-controller"});
  created(gang_job("gang", 3));
  ASSERT_TRUE(eventually([&] { return pods("default", "batch.kubernetes.io/job-name=gang").size() == 3; }));
  for (const auto& p : pods("default", "batch.kubernetes.io/job-name=gang")) EXPECT_FALSE(p.spec.schedulingGroup);
  EXPECT_EQ(workload_count(), 0u);
  EXPECT_EQ(pod_group_count(), 0u);
}

// A delegated Job whose parent's Workload comes after it makes no pods meanwhile (a new Job's
// objects wait for the parent, as upstream's "will retry"); the Workload's event requeues it
// (the informers resync every 12 h: no periodic sync helps here), and its pods join the PodGroup
// made from the parent's template.
TEST_F(JobWorkloadTest, DelegatedJobProceedsWhenItsParentsWorkloadAppears) {
  controller_feature_gates = {{"GenericWorkload", true}, {"WorkloadWithJob", true}};
  start_controllers({"job-controller"});
  Job spec = gang_job("child", 2);
  spec.metadata.ownerReferences =
      std::vector<api::OwnerReference>{controller_owner("jobset.x-k8s.io/v1alpha2", "JobSet", "js")};
  spec.metadata.annotations.set(std::string(controllers::kGroupTemplateNameAnnotation), "workers");
  Job child = created(spec);
  // A witness that the controller got to the child: a root Job created after it has its pods.
  created(gang_job("root", 1));
  ASSERT_TRUE(eventually([&] { return pods("default", "batch.kubernetes.io/job-name=root").size() == 1; }));
  EXPECT_TRUE(pods("default", "batch.kubernetes.io/job-name=child").empty()) << "waiting for the parent's Workload";

  wl::Workload parent;
  parent.apiVersion = "scheduling.k8s.io/v1beta1";
  parent.kind = "Workload";
  parent.metadata.name = "js-workload";
  parent.metadata.namespace_ = "default";
  wl::TypedLocalObjectReference ref;
  ref.apiGroup = "jobset.x-k8s.io";
  ref.kind = "JobSet";
  ref.name = "js";
  parent.spec.controllerRef = ref;
  auto& workers = parent.spec.podGroupTemplates.emplace_back();
  workers.name = "workers";
  workers.schedulingPolicy.gang.emplace().minCount = 2;
  ASSERT_TRUE(create_workload(parent).ok());

  const std::string group = controllers::pod_group_name_for("js-workload", "workers");
  ASSERT_TRUE(eventually([&] { return pods("default", "batch.kubernetes.io/job-name=child").size() == 2; }));
  for (const auto& p : pods("default", "batch.kubernetes.io/job-name=child")) {
    ASSERT_TRUE(p.spec.schedulingGroup) << p.metadata.name;
    EXPECT_EQ(p.spec.schedulingGroup->podGroupName, std::optional<std::string>(group));
  }
  auto made = pod_group(group);
  ASSERT_TRUE(made);
  ASSERT_EQ(made->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(made->metadata.ownerReferences[0].uid, std::string(child.metadata.uid));
}
