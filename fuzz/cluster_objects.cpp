// Fuzz the cluster dump reader of `ksched simulate` (JSON Lists of mixed kinds, arrays, YAML
// documents): any input is either read or refused with a reason, and a refused input adds nothing.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "scheduler/simulate/cluster_objects.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ksched::scheduler::simulate::ClusterObjects out;
  auto r = ksched::scheduler::simulate::add_objects(in, out);
  if (!r.ok()) {
    if (r.error().empty()) std::abort();  // every refusal says why
    if (!out.nodes.empty() || !out.pods.empty() || !out.skippedKinds.empty()) std::abort();  // and keeps nothing
  }
  return 0;
}
