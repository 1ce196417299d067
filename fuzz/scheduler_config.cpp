// Fuzz the KubeSchedulerConfiguration reader (YAML or JSON, decoded strictly from the types'
// descriptions, then defaulted and validated): any input is either loaded or refused with a
// reason, and a loaded configuration can be written back (--write-config-to, /configz).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "scheduler/config/load.h"
#include "scheduler/config/write.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto decoded = ksched::scheduler::config::decode_config(in);
  if (!decoded.ok()) {
    if (decoded.error().empty()) std::abort();  // every refusal says why
    return 0;
  }
  if (ksched::scheduler::config::write_config(*decoded).empty()) std::abort();
  if (ksched::scheduler::config::write_config_json(*decoded).empty()) std::abort();
  auto loaded = ksched::scheduler::config::load_config(in);  // with validation
  if (!loaded.ok() && loaded.error().empty()) std::abort();
  return 0;
}
