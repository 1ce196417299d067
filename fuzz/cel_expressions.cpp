// Fuzz the CEL layer end to end: any text either fails to compile with a message, or compiles
// (parse, type check, cost estimate, plan) and evaluates over a device to a value or an error
// with a message, within the cost limit, and the same way twice.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/quantity.h"
#include "cel/cel.h"
#include "cel/program.h"
#include "cel/runtime.h"

namespace {

using namespace ksched::cel;

struct FuzzDevice {
  ksched::api::Quantity memory = ksched::api::Quantity::must("40Gi");
  ksched::api::Quantity lanes = ksched::api::Quantity::must("16");
  DeviceAttribute attrs[6];
  DeviceCapacity caps[2];
  Device device;
  FuzzDevice() {
    attrs[0] = {"model", DeviceAttribute::Kind::String, false, 0, "A100"};
    attrs[1] = {"cores", DeviceAttribute::Kind::Int, false, 6912, {}};
    attrs[2] = {"mig", DeviceAttribute::Kind::Bool, true, 0, {}};
    attrs[3] = {"driverVersion", DeviceAttribute::Kind::Version, false, 0, "535.104.5"};
    attrs[4] = {"pcie.example.com/generation", DeviceAttribute::Kind::Int, false, 4, {}};
    attrs[5] = {"bad", DeviceAttribute::Kind::Version, false, 0, "1.02"};
    caps[0] = {"memory", &memory};
    caps[1] = {"pcie.example.com/lanes", &lanes};
    device.driver = "gpu.example.com";
    device.attributes = attrs;
    device.capacity = caps;
  }
};

// The outcome as text: the value (formatted), or the error message.
std::string outcome(const Plan& plan, const Device& device, Arena& arena) {
  arena.reset();
  Evaluator ev(plan, &device, arena, plan.cost_limit);
  Value v = ev.run();
  if (v.is_error() && v.err->message.empty()) std::abort();
  if (ev.cost() > plan.cost_limit + 1000000) std::abort();  // the limit stops evaluation promptly
  StrBuf b(arena);
  b << Evaluator::type_name(v) << ' ';
  ev.format(b, v);
  return std::string(b.view());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const FuzzDevice fuzz_device;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  CompileOptions options;
  options.stored_expression = true;
  options.cost_limit = 20000;  // keeps each input fast; the limit's handling is what is exercised
  auto plan = build_plan(in, options, false);
  if (!plan.ok()) {
    if (plan.error().detail.empty()) std::abort();
    return 0;
  }
  Arena arena;
  std::string first = outcome(**plan, fuzz_device.device, arena);
  std::string second = outcome(**plan, fuzz_device.device, arena);
  if (first != second) std::abort();
  // The public entry point agrees on whether the expression is a selector.
  auto program = compile(in, options);
  if (program.ok()) {
    auto r = program->evaluate(fuzz_device.device);
    if (!r.ok() && r.error().message.empty()) std::abort();
  } else if (program.error().detail.empty()) {
    std::abort();
  }
  return 0;
}
