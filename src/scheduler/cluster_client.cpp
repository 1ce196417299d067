#include "scheduler/cluster_client.h"

#include <boost/json.hpp>

#include "api/core.h"
#include "api/helpers.h"
#include "api/volume.h"
#include "client/resources_dra.h"
#include "client/rest.h"
#include "util/log.h"

namespace ksched::scheduler {

namespace {

framework::Status from_api_error(const client::ApiError& e) { return framework::Status::error(e.to_string()); }

// Upstream PatchPodStatus retries on server errors and refused connections.
template <class Fn>
auto with_retries(Fn&& fn) {
  auto res = fn();
  for (int i = 0; i < 4 && !res.ok() && (client::is_server_error(res.error()) || client::is_transport(res.error())); ++i) {
    res = fn();
  }
  return res;
}

}  // namespace

RestClusterClient::RestClusterClient(std::shared_ptr<client::RestClient> client, EventSink events)
    : client_(std::move(client)), events_(std::move(events)) {}

framework::Status RestClusterClient::bind(const api::Pod& pod, const std::string& node_name) {
  auto r = client_->bind(pod.metadata.namespace_, pod.metadata.name, pod.metadata.uid, node_name);
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

std::vector<framework::Status> RestClusterClient::bind_all(const std::vector<Binding>& bindings) {
  std::vector<client::RestClient::BindingTarget> targets;
  targets.reserve(bindings.size());
  for (const auto& b : bindings) {
    targets.push_back({b.pod->metadata.namespace_, b.pod->metadata.name, b.pod->metadata.uid, *b.node_name});
  }
  auto answers = client_->bind_all(targets);
  std::vector<framework::Status> out;
  out.reserve(answers.size());
  for (auto& a : answers) out.push_back(a.ok() ? framework::Status() : from_api_error(a.error()));
  return out;
}

framework::Status RestClusterClient::delete_pod(const api::Pod& pod) {
  auto r = client_->remove<api::Pod>(pod.metadata.namespace_, pod.metadata.name);
  if (!r.ok() && !client::is_not_found(r.error())) return from_api_error(r.error());
  return {};
}

framework::Status RestClusterClient::update_pv(const api::PersistentVolume& pv) {
  auto r = client_->update(pv);
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

framework::Status RestClusterClient::update_pvc(const api::PersistentVolumeClaim& pvc) {
  auto r = client_->update(pvc);
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

namespace {

template <class R>
framework::ClusterClient::ClaimAnswer claim_answer(R&& r) {
  if (!r.ok()) return {nullptr, from_api_error(r.error()), client::is_conflict(r.error())};
  return {std::make_shared<const api::resourcev1::ResourceClaim>(std::move(*r)), {}, false};
}

}  // namespace

framework::ClusterClient::ClaimAnswer RestClusterClient::get_resource_claim(std::string_view ns, std::string_view name) {
  return claim_answer(client_->get<api::resourcev1::ResourceClaim>(ns, name));
}

framework::ClusterClient::ClaimAnswer RestClusterClient::update_resource_claim(const api::resourcev1::ResourceClaim& claim,
                                                                              bool status) {
  return claim_answer(status ? client_->update_status(claim) : client_->update(claim));
}

framework::ClusterClient::ClaimAnswer RestClusterClient::create_resource_claim(
    const api::resourcev1::ResourceClaim& claim) {
  return claim_answer(client_->create(claim));
}

framework::Status RestClusterClient::delete_resource_claim(std::string_view ns, std::string_view name) {
  auto r = client_->remove<api::resourcev1::ResourceClaim>(ns, name);
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

framework::Status RestClusterClient::patch_pod_extended_resource_claim_status(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  // requestMappings is an atomic list: the patch replaces it whole.
  boost::json::array mappings;
  for (const auto& m : status.requestMappings) {
    mappings.push_back(boost::json::object{
        {"containerName", m.containerName}, {"resourceName", m.resourceName}, {"requestName", m.requestName}});
  }
  const std::string body = boost::json::serialize(boost::json::object{
      {"status", boost::json::object{{"extendedResourceClaimStatus",
                                      boost::json::object{{"requestMappings", std::move(mappings)},
                                                          {"resourceClaimName", status.resourceClaimName}}}}}});
  client::ResourceRef ref{"", "v1", "pods", pod.metadata.namespace_, pod.metadata.name, "status"};
  auto r = with_retries([&] { return client_->patch(ref, client::PatchType::StrategicMerge, body); });
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

namespace {

// {"status":{"conditions":[condition]}}: one condition, merged by type.
std::string condition_status_patch(const api::Condition& condition) {
  boost::json::object c{{"type", condition.type}, {"status", condition.status}, {"reason", condition.reason},
                        {"message", condition.message}};
  if (condition.lastTransitionTime) c["lastTransitionTime"] = api::format_rfc3339(*condition.lastTransitionTime);
  return boost::json::serialize(
      boost::json::object{{"status", boost::json::object{{"conditions", boost::json::array{std::move(c)}}}}});
}

}  // namespace

framework::Status RestClusterClient::patch_pod_group_status(std::string_view ns, std::string_view name,
                                                            const api::Condition& condition) {
  const std::string body = condition_status_patch(condition);
  client::ResourceRef ref{"scheduling.k8s.io", "v1beta1", "podgroups", std::string(ns), std::string(name), "status"};
  auto r = with_retries([&] { return client_->patch(ref, client::PatchType::StrategicMerge, body); });
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

framework::Status RestClusterClient::patch_composite_pod_group_status(std::string_view ns, std::string_view name,
                                                                      const api::Condition& condition) {
  const std::string body = condition_status_patch(condition);
  client::ResourceRef ref{"scheduling.k8s.io", "v1alpha3", "compositepodgroups", std::string(ns), std::string(name),
                          "status"};
  auto r = with_retries([&] { return client_->patch(ref, client::PatchType::StrategicMerge, body); });
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

std::string RestClusterClient::pod_status_patch(const std::optional<api::PodCondition>& condition,
                                                const std::optional<std::string>& nominated_node_name) {
  boost::json::object status;
  if (condition) {
    boost::json::object c{{"type", condition->type}, {"status", condition->status}};
    if (!condition->reason.empty()) c["reason"] = condition->reason.view();
    if (!condition->message.empty()) c["message"] = condition->message.view();
    c["lastProbeTime"] = condition->lastProbeTime ? boost::json::value(api::format_rfc3339(*condition->lastProbeTime))
                                                  : boost::json::value(nullptr);
    if (condition->lastTransitionTime) c["lastTransitionTime"] = api::format_rfc3339(*condition->lastTransitionTime);
    status["conditions"] = boost::json::array{std::move(c)};
  }
  if (nominated_node_name) {
    // Clearing is a null in a merge patch.
    status["nominatedNodeName"] =
        nominated_node_name->empty() ? boost::json::value(nullptr) : boost::json::value(*nominated_node_name);
  }
  return boost::json::serialize(boost::json::object{{"status", std::move(status)}});
}

framework::Status RestClusterClient::patch_pod_status(const api::Pod& pod,
                                                      const std::optional<api::PodCondition>& condition,
                                                      const std::optional<std::string>& nominated_node_name) {
  if (!condition && !nominated_node_name) return {};
  std::string body = pod_status_patch(condition, nominated_node_name);
  client::ResourceRef ref{"", "v1", "pods", pod.metadata.namespace_, pod.metadata.name, "status"};
  auto r = with_retries([&] { return client_->patch(ref, client::PatchType::StrategicMerge, body); });
  if (!r.ok()) return from_api_error(r.error());
  return {};
}

void RestClusterClient::event(const api::Pod& regarding, const std::string& type, const std::string& reason,
                              const std::string& action, const std::string& note) {
  if (events_) {
    events_(regarding, type, reason, action, note);
    return;
  }
  log::V(2).info("Event occurred", {{"object", api::key_of(regarding)},
                                    {"type", type},
                                    {"reason", reason},
                                    {"action", action},
                                    {"note", note}});
}

}  // namespace ksched::scheduler
