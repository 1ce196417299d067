// Wire shape of the scheduler's pods/status patch (apiserver-contract: PatchPodStatus).
#include <gtest/gtest.h>

#include "api/core.h"
#include "scheduler/cluster_client.h"

namespace ksched::scheduler {
namespace {

TEST(RestClusterClient, PodStatusPatchWithCondition) {
  api::PodCondition c;
  c.type = "PodScheduled";
  c.status = "False";
  c.reason = "Unschedulable";
  c.message = "0/3 nodes are available: 3 Insufficient cpu.";
  c.lastTransitionTime = api::Time{1736935445LL * 1000000000LL};  // 2025-01-15T10:04:05Z
  EXPECT_EQ(RestClusterClient::pod_status_patch(c, std::nullopt),
            R"({"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable",)"
            R"("message":"0/3 nodes are available: 3 Insufficient cpu.","lastProbeTime":null,)"
            R"("lastTransitionTime":"2025-01-15T10:04:05Z"}]}})");
}

TEST(RestClusterClient, PodStatusPatchNominatedNodeName) {
  EXPECT_EQ(RestClusterClient::pod_status_patch(std::nullopt, std::string("node-b")),
            R"({"status":{"nominatedNodeName":"node-b"}})");
  EXPECT_EQ(RestClusterClient::pod_status_patch(std::nullopt, std::string()), R"({"status":{"nominatedNodeName":null}})");
}

}  // namespace
}  // namespace ksched::scheduler
