// The Job controller against the embedded API server, pods run to completion by the kubelet
// stand-in (upstream: pkg/controller/job).
#include <gtest/gtest.h>

#include <set>

#include "controllers/job/job_controller.h"
#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;
using controllers::Job;

namespace {

Job make_job(const std::string& name, std::optional<int> completions, std::optional<int> parallelism,
             const std::vector<std::string>& command = {"sh", "-c", "sleep 0.2"}) {
  Job j;
  j.apiVersion = "batch/v1";
  j.kind = "Job";
  j.metadata.name = name;
  j.metadata.namespace_ = "default";
  j.spec.completions = completions;
  j.spec.parallelism = parallelism;
  j.spec.template_ = pod_template(name, "busybox");
  j.spec.template_.spec.restartPolicy = "Never";
  j.spec.template_.spec.containers[0].command = command;
  return j;
}

const controllers::JobCondition* condition(const Job& j, std::string_view type) {
  for (const auto& c : j.status.conditions)
    if (c.type == type) return &c;
  return nullptr;
}

}  // namespace

class JobTest : public ControllersTest {
 protected:
  void SetUp() override {
    ControllersTest::SetUp();
    start_nodes(2);
    start_binder();
    start_controllers({"job-controller"});
  }
  std::optional<Job> finished(const std::string& name, std::string_view type) {
    std::optional<Job> out;
    eventually([&] {
      auto j = c()->get<Job>("default", name);
      const auto* cond = j ? condition(*j, type) : nullptr;
      if (!cond || cond->status != "True") return false;
      out = *j;
      return true;
    });
    return out;
  }
  std::vector<api::Pod> job_pods(const std::string& name) { return pods("default", "batch.kubernetes.io/job-name=" + name); }
};

// Upstream: parallelism pods at a time until completions succeeded; the counts and the
// conditions SuccessCriteriaMet then Complete (reason CompletionsReached), completionTime; the
// pods carry the server's job-name/controller-uid labels and lose the tracking finalizer once
// counted.
TEST_F(JobTest, RunsParallelPodsToCompletions) {
  auto created = c()->create(make_job("pi", 4, 2));
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  auto j = finished("pi", "Complete");
  ASSERT_TRUE(j) << "the Job did not complete";
  EXPECT_EQ(j->status.succeeded, 4);
  EXPECT_EQ(j->status.failed, 0);
  EXPECT_EQ(j->status.active, 0);
  EXPECT_TRUE(j->status.completionTime.has_value());
  EXPECT_TRUE(j->status.startTime.has_value());
  const auto* scm = condition(*j, "SuccessCriteriaMet");
  ASSERT_NE(scm, nullptr);
  EXPECT_EQ(scm->reason, "CompletionsReached");
  const auto* done = condition(*j, "Complete");
  EXPECT_EQ(done->reason, "CompletionsReached");
  EXPECT_EQ(done->message, "Reached expected number of succeeded pods");
  EXPECT_TRUE(j->status.uncountedTerminatedPods->succeeded.empty());
  auto ps = job_pods("pi");
  EXPECT_EQ(ps.size(), 4u) << "exactly completions pods, none recreated";
  for (const auto& p : ps) {
    EXPECT_EQ(p.status.phase, "Succeeded");
    EXPECT_EQ(p.metadata.labels.get("batch.kubernetes.io/controller-uid"), std::string(created->metadata.uid));
    EXPECT_TRUE(has_owner(p.metadata, created->metadata.uid));
    EXPECT_TRUE(p.metadata.finalizers.empty()) << "the job-tracking finalizer is removed once counted";
  }
}

// Upstream's Indexed completion mode: one pod per index, the index in the
// batch.kubernetes.io/job-completion-index annotation and label, hostname <job>-<index>, the
// generateName "<job>-<index>-", and completedIndexes "0-2".
TEST_F(JobTest, IndexedJobGivesEachPodItsIndex) {
  auto j = make_job("idx", 3, 3);
  j.spec.completionMode = "Indexed";
  ASSERT_TRUE(c()->create(j).ok());
  auto done = finished("idx", "Complete");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status.completedIndexes, "0-2");
  EXPECT_EQ(done->status.succeeded, 3);
  std::set<std::string> indexes;
  for (const auto& p : job_pods("idx")) {
    std::string ix(p.metadata.annotations.get("batch.kubernetes.io/job-completion-index"));
    indexes.insert(ix);
    EXPECT_EQ(p.metadata.labels.get("batch.kubernetes.io/job-completion-index"), ix);
    EXPECT_EQ(std::string_view(p.metadata.name).substr(0, 5 + ix.size()), "idx-" + ix + "-");
    auto json = api::encode(p.spec);
    EXPECT_NE(json.find("\"hostname\":\"idx-" + ix + "\""), std::string::npos) << json;
    EXPECT_NE(json.find("JOB_COMPLETION_INDEX"), std::string::npos) << json;
  }
  EXPECT_EQ(indexes, (std::set<std::string>{"0", "1", "2"}));
}

// Upstream: more failed pods than backoffLimit fail the Job (FailureTarget, then Failed with
// BackoffLimitExceeded); with backoffLimit 0 the first failure does it and nothing is retried.
TEST_F(JobTest, FailsPastTheBackoffLimit) {
  auto j = make_job("bad", 1, 1, {"sh", "-c", "sleep 0.1; exit 3"});
  j.spec.backoffLimit = 0;
  ASSERT_TRUE(c()->create(j).ok());
  auto failed = finished("bad", "Failed");
  ASSERT_TRUE(failed) << "the Job did not fail";
  EXPECT_EQ(failed->status.failed, 1);
  EXPECT_EQ(failed->status.succeeded, 0);
  const auto* f = condition(*failed, "Failed");
  EXPECT_EQ(f->reason, "BackoffLimitExceeded");
  EXPECT_EQ(f->message, "Job has reached the specified backoff limit");
  ASSERT_NE(condition(*failed, "FailureTarget"), nullptr);
  EXPECT_FALSE(failed->status.completionTime.has_value());
  auto ps = job_pods("bad");
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].status.phase, "Failed");
  ASSERT_EQ(ps[0].status.containerStatuses.size(), 1u);
  ASSERT_TRUE(ps[0].status.containerStatuses[0].state.terminated.has_value());
  EXPECT_EQ(ps[0].status.containerStatuses[0].state.terminated->exitCode, 3);
}

// Without completions, the Job is done when one pod succeeded and none is left running.
TEST_F(JobTest, WorkQueueJobCompletesOnTheFirstSuccess) {
  ASSERT_TRUE(c()->create(make_job("queue", std::nullopt, 2)).ok());
  auto done = finished("queue", "Complete");
  ASSERT_TRUE(done);
  EXPECT_GE(done->status.succeeded, 1);
  EXPECT_EQ(done->status.active, 0);
}

// completedIndexes is written in upstream's interval form.
TEST(JobIndexes, IntervalsRoundTrip) {
  using controllers::format_index_intervals;
  using controllers::parse_index_intervals;
  EXPECT_EQ(format_index_intervals({{0, 0}, {2, 3}, {5, 9}}), "0,2,3,5-9");
  EXPECT_EQ(format_index_intervals(parse_index_intervals("1,3-5,7", 10)), "1,3-5,7");
  EXPECT_EQ(format_index_intervals(parse_index_intervals("0-20", 4)), "0-3") << "indexes past completions drop";
}
