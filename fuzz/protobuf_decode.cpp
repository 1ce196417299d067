// Fuzzes the protobuf decoders on arbitrary bytes: the request-body decoder (protobuf -> JSON, which
// must only ever emit a JSON object, and whose JSON must encode back without error), the client's
// typed decoder for pods, nodes, pod lists, ResourceSlices, ResourceClaims, Workloads (v1alpha1,
// v1beta1) and PodGroups, and the watch-event frame reader. Errors are fine; crashes, hangs and
// sanitizer reports are not.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/protobuf_codec.h"
#include "api/protobuf_json.h"
#include "api/resource.h"
#include "api/types.h"

namespace pb = ksched::api::protobuf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto result = pb::to_json(input, pb::UnknownFields::Reject);
  if (result.ok()) {
    boost::system::error_code ec;
    auto value = boost::json::parse(*result, ec);
    if (ec || !value.is_object()) std::abort();
    // What the decoder rendered is what the encoder takes (the server re-encodes stored objects).
    if (!pb::from_json(*result).ok()) std::abort();
  }
  ksched::api::DecodeOptions opts;
  opts.dropManagedFields = size % 2 == 0;
  (void)pb::decode<ksched::api::Pod>(input, opts);
  (void)pb::decode<ksched::api::Node>(input, opts);
  (void)pb::decode<ksched::api::List<ksched::api::Pod>>(input, opts);
  (void)pb::decode<ksched::api::resourcev1::ResourceSlice>(input, opts);
  (void)pb::decode<ksched::api::resourcev1::ResourceClaim>(input, opts);
  (void)pb::decode<ksched::api::schedulingv1alpha1::Workload>(input, opts);
  (void)pb::decode<ksched::api::schedulingv1beta1::Workload>(input, opts);
  (void)pb::decode<ksched::api::schedulingv1beta1::PodGroup>(input, opts);
  if (auto ev = pb::read_watch_event(input); ev.ok()) (void)pb::decode<ksched::api::Pod>(ev->object, opts);
  return 0;
}
