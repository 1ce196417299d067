#include "scheduler/plugins/nodedeclaredfeatures/nodedeclaredfeatures.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/features.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::plugins::nodedeclaredfeatures {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

// A pod as the API server stores it: restartPolicyRules is kept in the container's unmodelled
// members, which is where the plugin reads it.
api::Pod pod_with_rule(std::string_view action, bool init = false) {
  std::string c = R"({"name":"c","image":"pause","restartPolicy":"Never","restartPolicyRules":[{"action":")" +
                  std::string(action) + R"(","exitCodes":{"operator":"In","values":[42]}}]})";
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","uid":"p"},)"
                     R"("spec":{)" +
                     (init ? R"("initContainers":[)" + c + R"(],"containers":[{"name":"main","image":"pause"}])"
                           : R"("containers":[)" + c + "]") +
                     "}}";
  auto p = api::decode<api::Pod>(json);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error());
  return p.ok() ? *p : api::Pod{};
}

framework::NodeInfo node(std::vector<std::string> declared) {
  return framework::NodeInfo(MakeNode().Name("n").DeclaredFeatures(std::move(declared)).Ptr());
}

framework::Status run(NodeDeclaredFeatures& pl, const api::Pod& pod, const framework::NodeInfo& ni) {
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pre = pl.pre_filter(state, pod, {}, r);
  if (!pre.is_success()) return pre;
  return pl.filter(state, pod, ni);
}

TEST(NodeDeclaredFeatures, InfersRestartAllContainersFromContainersAndInitContainers) {
  EXPECT_EQ(infer_for_pod_scheduling(pod_with_rule("RestartAllContainers")),
            std::vector<std::string>{"RestartAllContainersOnContainerExits"});
  EXPECT_EQ(infer_for_pod_scheduling(pod_with_rule("RestartAllContainers", true)),
            std::vector<std::string>{"RestartAllContainersOnContainerExits"});
  EXPECT_TRUE(infer_for_pod_scheduling(pod_with_rule("Restart")).empty());
  EXPECT_TRUE(infer_for_pod_scheduling(MakePod().Name("plain").Container("pause").Obj()).empty());
}

TEST(NodeDeclaredFeatures, FilterMatchesTheNodesDeclaredFeatures) {
  NodeDeclaredFeatures pl(true);
  auto pod = pod_with_rule("RestartAllContainers");
  EXPECT_TRUE(run(pl, pod, node({"GuaranteedQoSPodCPUResize", "RestartAllContainersOnContainerExits"})).is_success());
  auto s = run(pl, pod, node({"GuaranteedQoSPodCPUResize"}));
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.message(), "node declared features check failed - unsatisfied requirements: "
                         "RestartAllContainersOnContainerExits");
  EXPECT_EQ(run(pl, pod, node({})).code(), Code::UnschedulableAndUnresolvable);
  // A pod that needs nothing is skipped at PreFilter: Filter never runs for it.
  EXPECT_EQ(run(pl, MakePod().Name("plain").Container("pause").Obj(), node({})).code(), Code::Skip);
}

TEST(NodeDeclaredFeatures, FilterWithoutPreFilterIsError) {
  NodeDeclaredFeatures pl(true);
  framework::CycleState state;
  auto s = pl.filter(state, pod_with_rule("RestartAllContainers"), node({}));
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
}

TEST(NodeDeclaredFeatures, DisabledDoesNothing) {
  NodeDeclaredFeatures pl(false);
  auto pod = pod_with_rule("RestartAllContainers");
  EXPECT_EQ(run(pl, pod, node({})).code(), Code::Skip);
  framework::CycleState state;
  EXPECT_TRUE(pl.filter(state, pod, node({})).is_success());
  EXPECT_TRUE(pl.events_to_register().empty());
}

TEST(NodeDeclaredFeatures, EventsAndHints) {
  NodeDeclaredFeatures pl(true);
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Node);
  EXPECT_EQ(events[0].event.actionType, framework::kAdd | framework::kUpdateNodeDeclaredFeature);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[1].event.actionType, framework::kUpdate);

  auto pod = pod_with_rule("RestartAllContainers");
  auto n = [](std::vector<std::string> f) { return std::make_shared<const api::Node>(MakeNode().Name("n").DeclaredFeatures(std::move(f)).Obj()); };
  const auto& node_hint = events[0].hint;
  EXPECT_EQ(node_hint(pod, nullptr, n({})), framework::QueueingHint::Queue);  // a new node
  EXPECT_EQ(node_hint(pod, n({"A"}), n({"A"})), framework::QueueingHint::Skip);
  EXPECT_EQ(node_hint(pod, n({"A"}), n({"A", "RestartAllContainersOnContainerExits"})), framework::QueueingHint::Queue);

  const auto& pod_hint = events[1].hint;
  auto plain = std::make_shared<const api::Pod>(MakePod().Name("p").UID("p").Container("pause").Obj());
  auto needing = std::make_shared<const api::Pod>(pod);
  auto other = std::make_shared<const api::Pod>(MakePod().Name("o").UID("o").Container("pause").Obj());
  EXPECT_EQ(pod_hint(pod, other, other), framework::QueueingHint::Skip);  // not the pod itself
  EXPECT_EQ(pod_hint(pod, needing, needing), framework::QueueingHint::Skip);  // same requirements
  EXPECT_EQ(pod_hint(pod, needing, plain), framework::QueueingHint::Queue);   // requirement dropped
}

TEST(NodeDeclaredFeatures, JoinsTheDefaultProfileOnlyWithItsGate) {
  auto has = [] {
    for (const auto& p : config::default_plugins().multiPoint.enabled) {
      if (p.name == kName) return true;
    }
    return false;
  };
  EXPECT_FALSE(has());  // alpha: off by default in v1.35
  config::ScopedFeatures on(config::Features{.nodeDeclaredFeatures = true});
  EXPECT_TRUE(has());
  EXPECT_EQ(config::default_plugins().multiPoint.enabled.back().name, kName);  // appended last
  testing::FakeHandle handle;
  auto made = make_node_declared_features({}, handle);
  ASSERT_TRUE(made.ok());
  auto* pl = dynamic_cast<NodeDeclaredFeatures*>(made.value().get());
  ASSERT_NE(pl, nullptr);
  EXPECT_EQ(pl->events_to_register().size(), 2u);  // built enabled
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodedeclaredfeatures
