// What the embedded API server does for the controllers when a controller manager runs against it
// (apiserver::Options::controller_manager), checked with no controller running: upstream's
// registry behaviour the controllers depend on.
#include <gtest/gtest.h>

#include "controllers/metadata_informer.h"
#include "fixture.h"

using namespace ksched;
using namespace ksched::testing;

namespace {

client::ResourceRef configmaps(const std::string& name = {}) {
  return client::ResourceRef{.resource = "configmaps", .namespace_ = "default", .name = name};
}

std::string configmap(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})";
}

std::vector<std::string> finalizers(const api::ObjectMeta& m) { return {m.finalizers.begin(), m.finalizers.end()}; }

}  // namespace

class ApiServerSupportTest : public ControllersTest {};

// deletionFinalizersForGarbageCollection: Foreground adds foregroundDeletion, Orphan adds orphan
// (the object stays, being deleted), Background adds nothing (it goes); a batch/v1 Job deleted
// without a policy is orphaning by default.
TEST_F(ApiServerSupportTest, PropagationPolicyAddsTheCollectorsFinalizers) {
  for (const char* name : {"fg", "orphan", "bg"}) ASSERT_TRUE(c()->create(configmaps(), configmap(name)).ok());
  client::DeleteOptions d;
  d.propagationPolicy = "Foreground";
  ASSERT_TRUE(c()->remove(configmaps("fg"), d).ok());
  d.propagationPolicy = "Orphan";
  ASSERT_TRUE(c()->remove(configmaps("orphan"), d).ok());
  d.propagationPolicy = "Background";
  ASSERT_TRUE(c()->remove(configmaps("bg"), d).ok());

  auto meta = [&](const std::string& name) {
    auto body = c()->get(configmaps(name));
    EXPECT_TRUE(body.ok()) << name;
    return body ? informer::ObjectCodec<controllers::ObjectMetadata>::decode(*body)->metadata : api::ObjectMeta{};
  };
  auto fg = meta("fg");
  EXPECT_TRUE(fg.deletionTimestamp.has_value());
  EXPECT_EQ(finalizers(fg), std::vector<std::string>{"foregroundDeletion"});
  EXPECT_EQ(finalizers(meta("orphan")), std::vector<std::string>{"orphan"});
  EXPECT_FALSE(c()->get(configmaps("bg")).ok());

  controllers::Job job;
  job.apiVersion = "batch/v1";
  job.kind = "Job";
  job.metadata.name = "j";
  job.metadata.namespace_ = "default";
  job.spec.template_ = pod_template("j", "busybox");
  job.spec.template_.spec.restartPolicy = "Never";
  ASSERT_TRUE(c()->create(job).ok());
  ASSERT_TRUE(c()->remove<controllers::Job>("default", "j").ok());
  auto j = c()->get<controllers::Job>("default", "j");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(finalizers(j->metadata), std::vector<std::string>{"orphan"});
}

// Upstream's job strategy and defaults: the selector on the Job's UID, the pods' labels, and
// SetDefaults_Job.
TEST_F(ApiServerSupportTest, JobsGetTheirSelectorLabelsAndDefaults) {
  controllers::Job job;
  job.apiVersion = "batch/v1";
  job.kind = "Job";
  job.metadata.name = "pi";
  job.metadata.namespace_ = "default";
  job.spec.template_ = pod_template("pi", "perl");
  job.spec.template_.spec.restartPolicy = "Never";
  auto j = c()->create(job);
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  std::string uid(j->metadata.uid);
  EXPECT_EQ(j->spec.selector->matchLabels.get("batch.kubernetes.io/controller-uid"), uid);
  const auto& labels = j->spec.template_.metadata.labels;
  EXPECT_EQ(labels.get("batch.kubernetes.io/controller-uid"), uid);
  EXPECT_EQ(labels.get("controller-uid"), uid);
  EXPECT_EQ(labels.get("batch.kubernetes.io/job-name"), "pi");
  EXPECT_EQ(labels.get("job-name"), "pi");
  EXPECT_EQ(j->spec.completions.value_or(0), 1);
  EXPECT_EQ(j->spec.parallelism.value_or(0), 1);
  EXPECT_EQ(j->spec.backoffLimit.value_or(0), 6);
  EXPECT_EQ(j->spec.completionMode.value_or(""), "NonIndexed");
  EXPECT_EQ(j->spec.podReplacementPolicy.value_or(""), "TerminatingOrFailed");
}

// SetDefaults_Deployment, and a DaemonSet's template generation: 1, then one more per template
// change only.
TEST_F(ApiServerSupportTest, WorkloadDefaultsAndTemplateGeneration) {
  controllers::Deployment d;
  d.apiVersion = "apps/v1";
  d.kind = "Deployment";
  d.metadata.name = "web";
  d.metadata.namespace_ = "default";
  d.spec.selector = app_selector("web");
  d.spec.template_ = pod_template("web");
  auto got = c()->create(d);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->spec.replicas.value_or(0), 1);
  EXPECT_EQ(got->spec.strategy.type, "RollingUpdate");
  EXPECT_EQ(got->spec.strategy.rollingUpdate->maxSurge->to_string(), "25%");
  EXPECT_EQ(got->spec.strategy.rollingUpdate->maxUnavailable->to_string(), "25%");
  EXPECT_EQ(got->spec.revisionHistoryLimit.value_or(0), 10);
  EXPECT_EQ(got->spec.progressDeadlineSeconds.value_or(0), 600);

  controllers::DaemonSet ds;
  ds.apiVersion = "apps/v1";
  ds.kind = "DaemonSet";
  ds.metadata.name = "agent";
  ds.metadata.namespace_ = "default";
  ds.spec.selector = app_selector("agent");
  ds.spec.template_ = pod_template("agent");
  auto created = c()->create(ds);
  ASSERT_TRUE(created.ok());
  const char* gen = "deprecated.daemonset.template.generation";
  EXPECT_EQ(created->metadata.annotations.get(gen), "1");
  EXPECT_EQ(created->spec.updateStrategy.type, "RollingUpdate");
  auto relabelled = c()->patch<controllers::DaemonSet>("default", "agent", client::PatchType::Merge,
                                                       R"({"metadata":{"labels":{"x":"y"}}})");
  ASSERT_TRUE(relabelled.ok());
  EXPECT_EQ(relabelled->metadata.annotations.get(gen), "1");
  auto changed = c()->patch<controllers::DaemonSet>(
      "default", "agent", client::PatchType::StrategicMerge,
      R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"fluentd:2"}]}}}})");
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(changed->metadata.annotations.get(gen), "2");
}

// A deleted namespace stays Terminating (its content is the namespace controller's to delete),
// refuses new content with upstream's message and NamespaceTerminating cause, and goes once its
// "kubernetes" finalizer is removed through namespaces/<name>/finalize.
TEST_F(ApiServerSupportTest, NamespacesWaitForFinalization) {
  api::Namespace ns;
  ns.apiVersion = "v1";
  ns.kind = "Namespace";
  ns.metadata.name = "team";
  ASSERT_TRUE(c()->create(ns).ok());
  ASSERT_TRUE(c()->create(client::ResourceRef{.resource = "configmaps", .namespace_ = "team"}, configmap("a")).ok());
  ASSERT_TRUE(c()->remove<api::Namespace>("", "team").ok());
  auto t = c()->get<api::Namespace>("", "team");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->status.phase, "Terminating");
  EXPECT_TRUE(t->metadata.deletionTimestamp.has_value());
  EXPECT_TRUE(c()->get(client::ResourceRef{.resource = "configmaps", .namespace_ = "team", .name = "a"}).ok())
      << "the content stays until the namespace controller deletes it";
  auto refused = c()->create(client::ResourceRef{.resource = "configmaps", .namespace_ = "team"}, configmap("b"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 403);
  EXPECT_EQ(refused.error().message, "unable to create new content in namespace team because it is being terminated");
  EXPECT_TRUE(client::has_status_cause(refused.error(), "NamespaceTerminating"));

  auto finalize = c()->update(client::ResourceRef{.resource = "namespaces", .name = "team", .subresource = "finalize"},
                              R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"},"spec":{"finalizers":[]}})");
  ASSERT_TRUE(finalize.ok()) << finalize.error().to_string();
  EXPECT_FALSE(c()->get<api::Namespace>("", "team").ok()) << "finalized: gone";
}
