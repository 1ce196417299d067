// Fuzz the write path from body to stored object: decode (JSON, YAML or protobuf) then the write
// pipeline (canonicalise, default, admit, validate). Every input ends in a clean Status error or
// in an object that, written again unchanged, passes and stays byte for byte the same.
//
// Input: byte 0 picks the resource, byte 1 the encoding, the rest is the body. A resource.k8s.io
// object is also updated from and to a fixed valid object of its kind (strategies' update rules).
#include <boost/json.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

#include "apiserver/write/body_codec.h"
#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"
#include "apiserver/write/write_pipeline.h"

namespace {

using namespace ksched::apiserver;
namespace json = boost::json;

constexpr std::pair<std::string_view, std::string_view> kResources[] = {
    {"", "pods"},          {"", "nodes"},     {"scheduling.k8s.io", "priorityclasses"},
    {"apps", "deployments"}, {"", "configmaps"}, {"batch", "cronjobs"},
    {"", "persistentvolumeclaims"}, {"", "limitranges"}, {"node.k8s.io", "runtimeclasses"},
    // resource.k8s.io (registry/resource/: strategies with CEL selectors); appended so the seeds'
    // first bytes keep their resource.
    {"resource.k8s.io", "deviceclasses"}, {"resource.k8s.io", "resourceclaims"},
    {"resource.k8s.io", "resourceclaimtemplates"}, {"resource.k8s.io", "resourceslices"}};
constexpr std::string_view kEncodings[] = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};

// A valid stored object of each resource.k8s.io kind: the other side of the input's updates.
constexpr std::pair<std::string_view, std::string_view> kBaselines[] = {
    {"deviceclasses",
     R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.ksched.dev"},
         "spec":{"selectors":[{"cel":{"expression":"device.driver == 'gpu.ksched.dev'"}}]}})"},
    {"resourceclaims",
     R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"default"},
         "spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.ksched.dev"}}]}},
         "status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.ksched.dev","pool":"node-0","device":"gpu-0"}]}},
                   "reservedFor":[{"resource":"pods","name":"p","uid":"6a1f0e0d-0000-4c1e-9d8e-000000000001"}]}})"},
    {"resourceclaimtemplates",
     R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"default"},
         "spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.ksched.dev"}}]}}}})"},
    {"resourceslices",
     R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"node-0-gpu"},
         "spec":{"driver":"gpu.ksched.dev","pool":{"name":"node-0","generation":1,"resourceSliceCount":1},"nodeName":"node-0",
                 "devices":[{"name":"gpu-0","attributes":{"index":{"int":0}},"capacity":{"memory":{"value":"80Gi"}}}]}})"}};

const json::object* baseline(const ResourceInfo& r, const Store& store) {
  static std::map<const ResourceInfo*, std::optional<json::object>> made;
  auto [it, fresh] = made.try_emplace(&r);
  if (!fresh) return it->second ? &*it->second : nullptr;
  if (r.group != "resource.k8s.io") return nullptr;
  for (const auto& [plural, text] : kBaselines) {
    if (plural != r.plural) continue;
    json::object o = json::parse(text).as_object();
    if (decode_object(DecodeRequest{r}, o) || run_write_pipeline(WriteRequest{r, WriteVerb::Create, "", "default"}, o, store)) {
      std::fprintf(stderr, "the %s baseline does not pass create\n", std::string(plural).c_str());
      std::abort();
    }
    it->second = std::move(o);
    return &*it->second;
  }
  return nullptr;
}

void check_status(const ApiError& e) {
  if (e.code < 400 || e.code > 499 || e.message.empty() || e.reason.empty()) std::abort();
  if (!json::parse(e.to_json()).is_object()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto& [group, plural] = kResources[data[0] % std::size(kResources)];
  const ResourceInfo* r = find_resource(group, "v1", plural);
  if (!r) return 0;  // not served by this build
  std::string_view content_type = kEncodings[data[1] % std::size(kEncodings)];
  std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);

  auto decoded = decode_body(content_type, body);
  if (auto* e = std::get_if<ApiError>(&decoded)) {
    check_status(*e);
    return 0;
  }
  json::object obj = std::move(std::get<json::object>(decoded));
  static Store store(16);
  if (auto e = decode_object(DecodeRequest{*r}, obj)) {
    check_status(*e);
    return 0;
  }
  if (auto e = run_write_pipeline(WriteRequest{*r, WriteVerb::Create, "", "default"}, obj, store)) {
    check_status(*e);
    return 0;
  }
  // Written again, the stored object passes unchanged: canonical values, defaults and admission
  // are idempotent.
  std::string stored = json::serialize(obj);
  json::object again = json::parse(stored).as_object();
  if (auto e = decode_object(DecodeRequest{*r, FieldValidation::Strict}, again)) {
    std::fprintf(stderr, "stored: %s\nrewrite undecodable: %s\n", stored.c_str(), e->message.c_str());
    std::abort();
  }
  if (auto e = run_write_pipeline(WriteRequest{*r, WriteVerb::Create, "", "default"}, again, store)) {
    std::fprintf(stderr, "stored: %s\nrewrite refused: %s\n", stored.c_str(), e->message.c_str());
    std::abort();
  }
  if (json::serialize(again) != stored) {
    std::fprintf(stderr, "stored:    %s\nrewritten: %s\n", stored.c_str(), json::serialize(again).c_str());
    std::abort();
  }
  // As an unchanged update it passes too, or is refused with a clean Status: update validation
  // is stricter than create's in places (upstream checks image whitespace only on update).
  json::object update = json::parse(stored).as_object();
  if (auto e = run_write_pipeline(WriteRequest{*r, WriteVerb::Update, "", "default", &obj}, update, store)) {
    check_status(*e);
  } else if (json::serialize(update) != stored) {
    std::fprintf(stderr, "stored:  %s\nupdated: %s\n", stored.c_str(), json::serialize(update).c_str());
    std::abort();
  }
  // Updates that change something, for the kinds with a baseline: from the baseline to this object
  // and back, through the main resource and its status subresource (immutable fields, status
  // transitions). Accepted or refused with a clean Status.
  if (const json::object* base = baseline(*r, store)) {
    for (std::string_view sub : {std::string_view(), std::string_view("status")}) {
      if (!sub.empty() && std::find(r->subresources.begin(), r->subresources.end(), sub) == r->subresources.end()) continue;
      json::object forward = json::parse(stored).as_object();
      if (auto e = run_write_pipeline(WriteRequest{*r, WriteVerb::Update, sub, "default", base}, forward, store)) check_status(*e);
      json::object back = *base;
      if (auto e = run_write_pipeline(WriteRequest{*r, WriteVerb::Update, sub, "default", &obj}, back, store)) check_status(*e);
    }
  }
  return 0;
}
