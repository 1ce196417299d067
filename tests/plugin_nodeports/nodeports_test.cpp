#include "scheduler/plugins/nodeports/nodeports.h"

#include <gtest/gtest.h>

#include "scheduler_testing/builders.h"

namespace ksched::scheduler::plugins::nodeports {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

api::ContainerPort port(std::int32_t p, std::string proto, std::string ip) {
  api::ContainerPort cp;
  cp.hostPort = p;
  cp.containerPort = p;
  cp.protocol = std::move(proto);
  cp.hostIP = std::move(ip);
  return cp;
}

// Node hosting one pod that uses `used`.
framework::NodeInfo node_with(std::vector<api::ContainerPort> used) {
  framework::NodeInfo ni(MakeNode().Name("n").Ptr());
  if (!used.empty()) ni.add_pod(MakePod().Name("existing").Node("n").ContainerPorts(std::move(used)).Info());
  return ni;
}

Code run(const api::Pod& pod, const framework::NodeInfo& ni, std::string* msg = nullptr) {
  NodePorts pl;
  framework::CycleState state;
  framework::PreFilterResult r;
  auto pre = pl.pre_filter(state, pod, {}, r);
  if (pre.is_skip()) return Code::Skip;
  auto s = pl.filter(state, pod, ni);
  if (msg) *msg = s.message();
  return s.code();
}

TEST(NodePorts, PreFilterSkipsWithoutHostPorts) {
  EXPECT_EQ(run(MakePod().Name("p").Obj(), node_with({})), Code::Skip);
  // containerPort without hostPort is not a host port.
  api::ContainerPort cp;
  cp.containerPort = 80;
  EXPECT_EQ(run(MakePod().Name("p").ContainerPorts({cp}).Obj(), node_with({})), Code::Skip);
}

TEST(NodePorts, Filter) {
  const auto U = Code::Unschedulable;
  struct Case {
    const char* name;
    std::vector<api::ContainerPort> want;
    std::vector<api::ContainerPort> used;
    Code code;
  };
  const Case cases[] = {
      {"free node", {port(8080, "TCP", "")}, {}, Code::Success},
      {"same port other protocol", {port(8080, "UDP", "")}, {port(8080, "TCP", "")}, Code::Success},
      {"same port same protocol", {port(8080, "TCP", "")}, {port(8080, "TCP", "")}, U},
      // "" protocol defaults to TCP and "" IP to 0.0.0.0 on both sides.
      {"defaults applied", {port(8080, "", "")}, {port(8080, "TCP", "0.0.0.0")}, U},
      {"different IPs", {port(8080, "TCP", "127.0.0.1")}, {port(8080, "TCP", "127.0.0.2")}, Code::Success},
      {"same IP", {port(8080, "TCP", "127.0.0.1")}, {port(8080, "TCP", "127.0.0.1")}, U},
      // Wanted 0.0.0.0 clashes with the port on any IP.
      {"wanted wildcard vs specific", {port(8080, "TCP", "0.0.0.0")}, {port(8080, "TCP", "127.0.0.1")}, U},
      // Wanted specific IP clashes with a wildcard user.
      {"wanted specific vs wildcard", {port(8080, "TCP", "127.0.0.1")}, {port(8080, "TCP", "")}, U},
      {"different port", {port(8081, "TCP", "")}, {port(8080, "TCP", "")}, Code::Success},
      {"second port clashes", {port(9000, "TCP", ""), port(8080, "UDP", "")}, {port(8080, "UDP", "")}, U},
  };
  for (const auto& c : cases) {
    std::string msg;
    EXPECT_EQ(run(MakePod().Name("p").ContainerPorts(c.want).Obj(), node_with(c.used), &msg), c.code) << c.name;
    if (c.code == U) {
      EXPECT_EQ(msg, "node(s) didn't have free ports for the requested pod ports") << c.name;
    }
  }
}

TEST(NodePorts, Events) {
  NodePorts pl;
  auto events = pl.events_to_register();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::Pod);
  EXPECT_EQ(events[0].event.actionType, framework::kDelete);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::Node);
  EXPECT_EQ(events[1].event.actionType, framework::kAdd);
  EXPECT_FALSE(events[1].hint);

  const auto pod = MakePod().Name("p").HostPort(8080).Obj();
  auto clash = MakePod().Name("q").Node("n").HostPort(8080).Ptr();
  auto other = MakePod().Name("q").Node("n").HostPort(9090).Ptr();
  auto unassigned = MakePod().Name("q").HostPort(8080).Ptr();
  EXPECT_EQ(events[0].hint(pod, clash, nullptr), framework::QueueingHint::Queue);
  EXPECT_EQ(events[0].hint(pod, other, nullptr), framework::QueueingHint::Skip);
  EXPECT_EQ(events[0].hint(pod, unassigned, nullptr), framework::QueueingHint::Skip);
}

}  // namespace
}  // namespace ksched::scheduler::plugins::nodeports
