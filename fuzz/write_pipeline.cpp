// Fuzz the write path from body to stored object: decode (JSON, YAML or protobuf) then the write
// pipeline (canonicalise, default, admit, validate). Every input ends in a clean Status error or
// in an object that, written again unchanged, passes and stays byte for byte the same.
//
// Input: byte 0 picks the resource, byte 1 the encoding, the rest is the body.
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "apiserver/body_codec.h"
#include "apiserver/resources.h"
#include "apiserver/storage.h"
#include "apiserver/write_pipeline.h"

namespace {

using namespace ksched::apiserver;
namespace json = boost::json;

constexpr std::pair<std::string_view, std::string_view> kResources[] = {
    {"", "pods"},          {"", "nodes"},     {"scheduling.k8s.io", "priorityclasses"},
    {"apps", "deployments"}, {"", "configmaps"}, {"batch", "cronjobs"},
    {"", "persistentvolumeclaims"}, {"", "limitranges"}, {"node.k8s.io", "runtimeclasses"}};
constexpr std::string_view kEncodings[] = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};

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
  return 0;
}
