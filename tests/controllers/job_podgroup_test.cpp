// The Job controller's Workload and PodGroup (gate WorkloadWithJob), after upstream v1.36's
// pkg/controller/job/job_scheduling_manager_test.go: each test names the upstream test it mirrors.
// The ensure tests run against the embedded API server (GenericWorkload on), where upstream uses
// a fake clientset.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "client/resources_scheduling.h"
#include "controllers/features.h"
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

// TestIsGangSchedulingEligible.
TEST(JobScheduling, IsGangSchedulingEligible) {
  auto job = [](std::optional<int> parallelism, std::optional<int> completions, std::optional<std::string> mode) {
    Job j;
    j.spec.parallelism = parallelism;
    j.spec.completions = completions;
    j.spec.completionMode = std::move(mode);
    return j;
  };
  EXPECT_TRUE(controllers::gang_scheduling_eligible(job(4, 4, "Indexed"))) << "indexed, parallelism=completions>1";
  EXPECT_FALSE(controllers::gang_scheduling_eligible(job(std::nullopt, 4, "Indexed"))) << "parallelism nil";
  EXPECT_FALSE(controllers::gang_scheduling_eligible(job(1, 1, "Indexed"))) << "parallelism=1";
  EXPECT_FALSE(controllers::gang_scheduling_eligible(job(4, 4, "NonIndexed"))) << "non-indexed";
  EXPECT_FALSE(controllers::gang_scheduling_eligible(job(4, std::nullopt, "Indexed"))) << "completions nil";
  EXPECT_FALSE(controllers::gang_scheduling_eligible(job(4, 8, "Indexed"))) << "completions != parallelism";
  EXPECT_FALSE(controllers::gang_scheduling_eligible(job(4, 4, std::nullopt))) << "completionMode nil";
  auto opted_out = job(4, 4, "Indexed");
  api::PodSchedulingGroup g;
  g.podGroupName = "existing-pg";
  opted_out.spec.template_.spec.schedulingGroup = g;
  EXPECT_FALSE(controllers::gang_scheduling_eligible(opted_out)) << "schedulingGroup already set (opt-out)";
}

// TestBuildPodGroupTemplates (v1.36: a gang-shaped Job without spec.scheduling), on the v1beta1
// Workload: one template.
TEST(JobScheduling, BuildPodGroupTemplates) {
  for (auto [name, parallelism] : {std::pair<std::string, int>{"my-training-job", 8}, {"small-job", 2}}) {
    Job j = gang_job(name, parallelism);
    j.metadata.uid = name + "-uid";
    auto w = controllers::workload_for_job(j);
    EXPECT_EQ(std::string_view(w.apiVersion), "scheduling.k8s.io/v1beta1");
    ASSERT_EQ(w.spec.podGroupTemplates.size(), 1u);
    EXPECT_EQ(w.spec.podGroupTemplates[0].name, name + "-worker-0");
    ASSERT_TRUE(w.spec.podGroupTemplates[0].schedulingPolicy.gang);
    EXPECT_FALSE(w.spec.podGroupTemplates[0].schedulingPolicy.basic);
    EXPECT_EQ(w.spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, parallelism);
    ASSERT_TRUE(w.spec.controllerRef);
    EXPECT_EQ(w.spec.controllerRef->apiGroup, "batch");
    EXPECT_EQ(w.spec.controllerRef->kind, "Job");
    EXPECT_EQ(w.spec.controllerRef->name, name);
  }
}

// TestShouldManageWorkloadForJob, for Jobs with spec.scheduling (a Job without it is managed when
// gang-shaped: IsGangSchedulingEligible above).
TEST(JobScheduling, ShouldManageWorkloadForJob) {
  Job standalone = scheduled_job("j", 4, std::nullopt);
  standalone.spec.completionMode = "NonIndexed";
  standalone.spec.completions.reset();
  EXPECT_TRUE(controllers::manages_workload(standalone)) << "standalone Job with spec.scheduling: managed";
  Job single = standalone;
  single.spec.parallelism = 1;
  single.spec.scheduling->schedulingPolicy.emplace().basic.emplace();
  EXPECT_TRUE(controllers::manages_workload(single)) << "basic single-pod Job: still managed";
  Job byo = standalone;
  api::PodSchedulingGroup g;
  g.podGroupName = "existing-pg";
  byo.spec.template_.spec.schedulingGroup = g;
  EXPECT_FALSE(controllers::manages_workload(byo)) << "BYO PodGroup via the template's schedulingGroup";
  for (auto [api_version, kind] : {std::pair{"jobset.x-k8s.io/v1alpha2", "JobSet"}, {"batch/v1", "CronJob"}}) {
    Job owned = standalone;
    api::OwnerReference ref;
    ref.apiVersion = api_version;
    ref.kind = kind;
    ref.name = "parent";
    ref.controller = true;
    owned.metadata.ownerReferences = std::vector<api::OwnerReference>{ref};
    EXPECT_FALSE(controllers::manages_workload(owned)) << kind << "-owned Job: its parent owns the workload";
  }
  Job plain = gang_job("plain", 4);
  plain.spec.completionMode = "NonIndexed";
  EXPECT_FALSE(controllers::manages_workload(plain)) << "no spec.scheduling and not gang-shaped: v1.36's rule";
}

// TestGenerateWorkload: the template made from spec.scheduling, and the PodGroup made from the
// template (podGroupSpecFromTemplate) carrying the same policy, constraints, mode and claims.
TEST(JobScheduling, GenerateWorkload) {
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
    EXPECT_TRUE(p.spec.schedulingPolicy.basic);
    EXPECT_FALSE(p.spec.schedulingPolicy.gang);
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
    EXPECT_EQ(t.name, "full-worker-0");
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
    // The claims, as the wire shows them (resourceClaims is not typed in api::schedulingv1beta1).
    auto wire = boost::json::parse(api::encode(w)).as_object();
    EXPECT_EQ(wire["spec"].as_object().at("podGroupTemplates").as_array().at(0).as_object().at("resourceClaims"),
              boost::json::parse(R"([{"name":"gpu","resourceClaimName":"my-claim"}])"));

    w.metadata.uid = "wl-uid";
    auto p = controllers::pod_group_for(j, w);
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

// ---------------------------------------------------------------- against the API server

class JobWorkloadTest : public ControllersTest {
 protected:
  void SetUp() override {
    server_feature_gates.GenericWorkload = true;
    server_feature_gates.WorkloadWithJob = true;  // the server keeps a Job's spec.scheduling
    ControllersTest::SetUp();
  }
  // The Job as the server stored it (uid set), defaulted as the controller sees it.
  Job created(const Job& j) {
    auto r = c()->create(j);
    EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string());
    return r ? *r : j;
  }
  client::Result<std::optional<std::string>> ensure(const Job& j, bool has_pods) {
    return controllers::ensure_workload_and_pod_group(*c(), j, has_pods, recorder, api::ObjectReference{});
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

// TestEnsureWorkloadAndPodGroup_NotEligible.
TEST_F(JobWorkloadTest, EnsureNotEligible) {
  Job j = created(gang_job("single", 1));
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(*r);
  EXPECT_EQ(workload_count(), 0u);
  EXPECT_EQ(pod_group_count(), 0u);
}

// TestEnsureWorkloadAndPodGroup_CreatesObjects.
TEST_F(JobWorkloadTest, EnsureCreatesObjects) {
  Job j = created(gang_job("test-job", 4));
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(*r);
  auto w = get_workload(controllers::workload_name_for_job(j));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  ASSERT_TRUE(w->spec.controllerRef);
  EXPECT_EQ(w->spec.controllerRef->name, "test-job");
  ASSERT_EQ(w->spec.podGroupTemplates.size(), 1u);
  ASSERT_TRUE(w->spec.podGroupTemplates[0].schedulingPolicy.gang);
  EXPECT_EQ(w->spec.podGroupTemplates[0].schedulingPolicy.gang->minCount, 4);
  ASSERT_EQ(w->metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(w->metadata.ownerReferences[0].kind, "Job");
  EXPECT_EQ(w->metadata.ownerReferences[0].name, "test-job");
  EXPECT_EQ(w->metadata.ownerReferences[0].uid, std::string(j.metadata.uid));
  EXPECT_EQ(w->metadata.ownerReferences[0].controller, std::optional<bool>(true));

  const std::string pg_name = controllers::pod_group_name_for(std::string(w->metadata.name), "test-job-worker-0");
  EXPECT_EQ(**r, pg_name);
  auto p = pod_group(pg_name);
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->spec.workloadRef);
  EXPECT_EQ(p->spec.workloadRef->workloadName, std::string(w->metadata.name));
  EXPECT_EQ(p->spec.workloadRef->templateName, "test-job-worker-0");
  ASSERT_TRUE(p->spec.schedulingPolicy.gang);
  EXPECT_EQ(p->spec.schedulingPolicy.gang->minCount, 4);
  ASSERT_EQ(p->metadata.ownerReferences.size(), 2u);
  EXPECT_EQ(p->metadata.ownerReferences[0].kind, "Job");
  EXPECT_EQ(p->metadata.ownerReferences[0].controller, std::optional<bool>(true));
  EXPECT_EQ(p->metadata.ownerReferences[1].kind, "Workload");
  EXPECT_EQ(p->metadata.ownerReferences[1].apiVersion, "scheduling.k8s.io/v1beta1");
  EXPECT_EQ(p->metadata.ownerReferences[1].uid, std::string(w->metadata.uid));
  EXPECT_FALSE(p->metadata.ownerReferences[1].controller.value_or(false));

  // A second call finds both by name and creates nothing more.
  auto again = ensure(j, true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, std::optional<std::string>(pg_name));
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);
}

// TestEnsureWorkloadAndPodGroup with spec.scheduling: a gang of minCount 3 for a Job of 4 (not
// gang-shaped without the field: NonIndexed, no completions) and an all-at-once disruption mode,
// carried into the Workload's template and the PodGroup.
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

// syncGangMinCount (upstream's elastic scaling): a running gang Job whose minCount changed has it
// passed on to its Workload's template and its PodGroup, whatever its pods' state; nothing else
// changes, and an unchanged minCount writes nothing.
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

// TestEnsureWorkloadAndPodGroup_SkipsWhenHasPods: no objects are made late.
TEST_F(JobWorkloadTest, EnsureSkipsWhenHasPods) {
  Job j = created(gang_job("test-job", 4));
  auto r = ensure(j, true);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_EQ(workload_count(), 0u);
  EXPECT_EQ(pod_group_count(), 0u);
}

// TestEnsureWorkloadAndPodGroup_DiscoversExistingObjects, and a Workload that exists without its
// PodGroup once the Job has pods: the pods join no group.
TEST_F(JobWorkloadTest, EnsureDiscoversExistingObjects) {
  Job j = created(gang_job("test-job", 4));
  auto w = create_workload(controllers::workload_for_job(j));
  ASSERT_TRUE(w.ok()) << w.error().to_string();
  auto late = ensure(j, true);
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(*late) << "Workload found, PodGroup missing, pods exist: no group";
  EXPECT_EQ(pod_group_count(), 0u);

  auto body = c()->create(client::ResourceRef::of(kPodGroups, "default"), api::encode(controllers::pod_group_for(j, *w)));
  ASSERT_TRUE(body.ok()) << body.error().to_string();
  auto r = ensure(j, true);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(*r);
  EXPECT_EQ(**r, controllers::pod_group_name_for(std::string(w->metadata.name), "test-job-worker-0"));
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);
}

// TestEnsureWorkloadAndPodGroup_UnsupportedStructure: a Workload of the Job's name with two pod
// groups: normal scheduling.
TEST_F(JobWorkloadTest, EnsureUnsupportedWorkloadStructure) {
  Job j = created(gang_job("test-job", 4));
  auto w = controllers::workload_for_job(j);
  auto second = w.spec.podGroupTemplates[0];
  second.name = "second";
  w.spec.podGroupTemplates.push_back(second);
  ASSERT_TRUE(create_workload(w).ok());
  auto r = ensure(j, false);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(*r);
  EXPECT_EQ(pod_group_count(), 0u);
}

// The controller end to end (upstream's TestSyncJob... with the gate): a gang Job's pods all carry
// the PodGroup; a Job that is not gang-shaped gets neither object; deleting the Job removes both
// (garbage collector, by ownerReferences).
TEST_F(JobWorkloadTest, GangJobPodsJoinThePodGroup) {
  controller_feature_gates = {{"GenericWorkload", true}, {"WorkloadWithJob", true}};
  start_nodes(2);
  start_binder();
  start_controllers({"job-controller", "garbage-collector-controller"});
  Job j = created(gang_job("gang", 6));
  Job plain = gang_job("plain2", 3);
  plain.spec.completionMode = "NonIndexed";
  created(plain);
  const std::string wl_name = controllers::workload_name_for_job(j);
  const std::string pg_name = controllers::pod_group_name_for(wl_name, "gang-worker-0");
  auto gang_pods = [&] { return pods("default", "batch.kubernetes.io/job-name=gang"); };
  ASSERT_TRUE(eventually([&] { return gang_pods().size() == 6; }));
  for (const auto& p : gang_pods()) {
    ASSERT_TRUE(p.spec.schedulingGroup) << p.metadata.name;
    EXPECT_EQ(p.spec.schedulingGroup->podGroupName, std::optional<std::string>(pg_name));
  }
  ASSERT_TRUE(pod_group(pg_name));
  ASSERT_TRUE(eventually([&] { return pods("default", "batch.kubernetes.io/job-name=plain2").size() == 3; }));
  for (const auto& p : pods("default", "batch.kubernetes.io/job-name=plain2")) EXPECT_FALSE(p.spec.schedulingGroup);
  EXPECT_EQ(workload_count(), 1u);
  EXPECT_EQ(pod_group_count(), 1u);
  ASSERT_TRUE(eventually([&] {
    auto ps = gang_pods();
    return ps.size() == 6 && std::all_of(ps.begin(), ps.end(), [](const api::Pod& p) { return !p.spec.nodeName.empty(); });
  }));

  client::DeleteOptions background;
  background.propagationPolicy = "Background";
  ASSERT_TRUE(c()->remove<Job>("default", "gang", background).ok());
  EXPECT_TRUE(eventually([&] { return workload_count() == 0 && pod_group_count() == 0; }))
      << "the Workload and PodGroup go with their Job";
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
