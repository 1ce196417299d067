// batch/v1 Job spec.scheduling (v1.37, gate WorkloadWithJob) through Api::handle: kept only while
// the gate is on or the stored Job has it (pkg/api/job DropDisabledFields), validated with
// declarative validation's messages at the paths of k8s.io/api batch/v1 types.go's +k8s: tags and
// scheduling/v1alpha3's WorkloadPodGroup* blocks, immutable except schedulingPolicy.gang.minCount.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "api_harness.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

constexpr const char* kJobs = "/apis/batch/v1/namespaces/default/jobs";
constexpr const char* kMergePatch = "application/merge-patch+json";

// An Indexed Job of 4 with `scheduling` as its spec.scheduling ("" for none).
std::string job(std::string_view name, std::string_view scheduling) {
  std::string s = std::string(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":")") + std::string(name) +
                  R"("},"spec":{"parallelism":4,"completions":4,"completionMode":"Indexed",)";
  if (!scheduling.empty()) s += R"("scheduling":)" + std::string(scheduling) + ",";
  s += R"("template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}})";
  return s;
}

constexpr const char* kGang3 = R"({"schedulingPolicy":{"gang":{"minCount":3}}})";

class JobSchedulingApiTest : public ApiHarness {
 protected:
  void gate(bool on) {
    FeatureGates g;
    g.GenericWorkload = true;
    g.WorkloadWithJob = on;
    api_.set_feature_gates(g);
  }
  std::vector<std::string> causes(const Response& r) {
    std::vector<std::string> out;
    if (r.status != 422) {
      out.push_back("status " + std::to_string(r.status) + ": " + r.body);
      return out;
    }
    auto status = parse(r);
    for (const auto& c : status["details"].at("causes").as_array())
      out.push_back(std::string(c.at("field").as_string()) + ": " + std::string(c.at("message").as_string()));
    return out;
  }
  std::vector<std::string> create_causes(std::string_view scheduling) {
    return causes(call("POST", kJobs, job("j", scheduling)));
  }
  Response patch(std::string_view body) { return call("PATCH", std::string(kJobs) + "/j", std::string(body), kMergePatch); }
  json::value scheduling_of(const Response& r) {
    auto o = parse(r);
    const auto* s = o["spec"].as_object().if_contains("scheduling");
    return s ? *s : json::value();
  }
};

// DropDisabledFields: with the gate off a new Job loses the field; an update keeps what the
// stored Job has (here stored while the gate was on) and drops what it lacked.
TEST_F(JobSchedulingApiTest, GateOffDropsTheFieldUnlessTheStoredJobHasIt) {
  gate(false);
  auto r = call("POST", kJobs, job("dropped", kGang3));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(scheduling_of(r).is_null()) << r.body;
  auto u = call("PATCH", std::string(kJobs) + "/dropped", R"({"spec":{"scheduling":{"schedulingPolicy":{"basic":{}}}}})",
                kMergePatch);
  ASSERT_EQ(u.status, 200) << u.body;
  EXPECT_TRUE(scheduling_of(u).is_null()) << "dropped on update too, the stored Job has none";

  gate(true);
  r = call("POST", kJobs, job("j", kGang3));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(scheduling_of(r), json::parse(kGang3));
  gate(false);
  u = patch(R"({"spec":{"scheduling":{"schedulingPolicy":{"gang":{"minCount":4}}}}})");
  ASSERT_EQ(u.status, 200) << u.body;
  EXPECT_EQ(scheduling_of(u), json::parse(R"({"schedulingPolicy":{"gang":{"minCount":4}}})"))
      << "in use in the stored Job: kept, and its minCount may change";
}

// The CronJob's strategy shares DropDisabledFields: its job template's spec.scheduling goes too
// while the gate is off, and stays with it on.
TEST_F(JobSchedulingApiTest, GateOffDropsTheFieldFromACronJobsTemplate) {
  auto cron_job = [](std::string_view name) {
    return std::string(R"({"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":")") + std::string(name) +
           R"("},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"scheduling":{"schedulingPolicy":{"basic":{}}},)"
           R"("template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}})";
  };
  auto template_scheduling = [&](const Response& r) {
    auto o = parse(r);
    const auto* s = o["spec"].as_object()["jobTemplate"].as_object()["spec"].as_object().if_contains("scheduling");
    return s ? *s : json::value();
  };
  gate(false);
  auto off = call("POST", "/apis/batch/v1/namespaces/default/cronjobs", cron_job("off"));
  ASSERT_EQ(off.status, 201) << off.body;
  EXPECT_TRUE(template_scheduling(off).is_null()) << off.body;
  gate(true);
  auto on = call("POST", "/apis/batch/v1/namespaces/default/cronjobs", cron_job("on"));
  ASSERT_EQ(on.status, 201) << on.body;
  EXPECT_EQ(template_scheduling(on), json::parse(R"({"schedulingPolicy":{"basic":{}}})"));
}

// The blocks' rules on create (+k8s:union, +k8s:minimum=1, +k8s:maxItems, formats, listMapKey).
TEST_F(JobSchedulingApiTest, CreateRulesWithDeclarativeValidationMessages) {
  gate(true);
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{}})"),
            (std::vector<std::string>{"spec.scheduling.schedulingPolicy: Invalid value: \"\": must specify one of: "
                                      "`basic`, `gang`"}));
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"basic":{},"gang":{"minCount":2}}})"),
            (std::vector<std::string>{"spec.scheduling.schedulingPolicy: Invalid value: \"{`basic`, `gang`}\": must "
                                      "specify exactly one of: `basic`, `gang`"}));
  EXPECT_EQ(create_causes(R"({"schedulingPolicy":{"gang":{"minCount":0}}})"),
            (std::vector<std::string>{
                "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"}));
  EXPECT_EQ(create_causes(R"({"disruptionMode":{}})"),
            (std::vector<std::string>{
                "spec.scheduling.disruptionMode: Invalid value: \"\": must specify one of: `single`, `all`"}));
  EXPECT_EQ(create_causes(R"({"schedulingConstraints":{"topology":[{"key":"a"},{"key":"b"}]}})"),
            (std::vector<std::string>{"spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at "
                                      "most 1 item"}));
  EXPECT_EQ(create_causes(R"({"schedulingConstraints":{"topology":[{"key":""}]}})"),
            (std::vector<std::string>{"spec.scheduling.schedulingConstraints.topology[0].key: Required value"}));
  EXPECT_EQ(create_causes(R"({"resourceClaims":[{"name":"a","resourceClaimName":"c"},{"name":"b","resourceClaimName":"c"},
                               {"name":"c","resourceClaimName":"c"},{"name":"d","resourceClaimName":"c"},
                               {"name":"e","resourceClaimName":"c"}]})"),
            (std::vector<std::string>{"spec.scheduling.resourceClaims: Too many: 5: must have at most 4 items"}));
  EXPECT_EQ(create_causes(R"({"resourceClaims":[{"name":"gpu"}]})"),
            (std::vector<std::string>{"spec.scheduling.resourceClaims[0]: Invalid value: \"\": must specify one of: "
                                      "`resourceClaimName`, `resourceClaimTemplateName`"}));
  EXPECT_EQ(create_causes(R"({"resourceClaims":[{"name":"gpu","resourceClaimName":"c"},
                               {"name":"gpu","resourceClaimTemplateName":"t"}]})"),
            (std::vector<std::string>{"spec.scheduling.resourceClaims[1].name: Duplicate value: \"gpu\""}));
  auto bad_name = create_causes(R"({"resourceClaims":[{"name":"GPU","resourceClaimName":"c"}]})");
  ASSERT_EQ(bad_name.size(), 1u);
  EXPECT_EQ(bad_name[0].rfind("spec.scheduling.resourceClaims[0].name: Invalid value: \"GPU\": a lowercase RFC 1123 label", 0),
            0u)
      << bad_name[0];
  // Everything at once, valid; an empty configuration is valid too (the controller's default: basic).
  auto ok = call("POST", kJobs,
                 job("full", R"({"schedulingPolicy":{"gang":{}},"schedulingConstraints":{"topology":[{"key":"topology.kubernetes.io/zone"}]},
                                "disruptionMode":{"all":{}},"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]})"));
  EXPECT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(call("POST", kJobs, job("empty", "{}")).status, 201);
}

// Updates: the field neither set nor cleared (+k8s:update=NoSet/NoUnset), the policy's variant
// frozen, the other blocks immutable; gang.minCount may change.
TEST_F(JobSchedulingApiTest, OnlyGangMinCountMayChange) {
  gate(true);
  ASSERT_EQ(call("POST", kJobs, job("plain", "")).status, 201);
  EXPECT_EQ(causes(call("PATCH", std::string(kJobs) + "/plain", R"({"spec":{"scheduling":{}}})", kMergePatch)),
            (std::vector<std::string>{"spec.scheduling: Invalid value: null: field cannot be set once created"}));

  ASSERT_EQ(call("POST", kJobs, job("j", R"({"schedulingPolicy":{"gang":{"minCount":3}},"disruptionMode":{"single":{}}})"))
                .status,
            201);
  EXPECT_EQ(causes(patch(R"({"spec":{"scheduling":null}})")),
            (std::vector<std::string>{"spec.scheduling: Invalid value: null: field cannot be cleared once set"}));
  EXPECT_EQ(causes(patch(R"({"spec":{"scheduling":{"schedulingPolicy":null}}})")),
            (std::vector<std::string>{
                "spec.scheduling.schedulingPolicy: Invalid value: null: field cannot be cleared once set"}));
  EXPECT_EQ(causes(patch(R"({"spec":{"scheduling":{"schedulingPolicy":{"gang":null,"basic":{}}}}})")),
            (std::vector<std::string>{"spec.scheduling.schedulingPolicy.basic: Invalid value: null: field is immutable",
                                      "spec.scheduling.schedulingPolicy.gang: Invalid value: null: field is immutable"}));
  EXPECT_EQ(causes(patch(R"({"spec":{"scheduling":{"disruptionMode":{"single":null,"all":{}}}}})")),
            (std::vector<std::string>{"spec.scheduling.disruptionMode: Invalid value: null: field is immutable"}));
  EXPECT_EQ(causes(patch(R"({"spec":{"scheduling":{"resourceClaims":[{"name":"gpu","resourceClaimName":"c"}]}}})")),
            (std::vector<std::string>{"spec.scheduling.resourceClaims: Invalid value: null: field is immutable"}));
  auto scaled = patch(R"({"spec":{"scheduling":{"schedulingPolicy":{"gang":{"minCount":2}}}}})");
  ASSERT_EQ(scaled.status, 200) << scaled.body;
  EXPECT_EQ(scheduling_of(scaled).as_object().at("schedulingPolicy").as_object().at("gang").as_object().at("minCount"),
            2);
}

// The gate's dependency, as upstream's dependency check words it.
TEST(JobSchedulingGates, WorkloadWithJobDependsOnGenericWorkload) {
  auto g = FeatureGates::parse("WorkloadWithJob=true");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error(), "WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]");
  auto on = FeatureGates::parse("GenericWorkload=true,WorkloadWithJob=true");
  ASSERT_TRUE(on.ok()) << on.error();
  EXPECT_TRUE(on->WorkloadWithJob);
  EXPECT_FALSE(FeatureGates{}.WorkloadWithJob) << "alpha: off by default";
}

}  // namespace
}  // namespace ksched::apiserver
