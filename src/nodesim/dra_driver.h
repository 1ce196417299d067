// Simulated DRA drivers of the kubelet stand-in: what a node's driver publishes as ResourceSlices.
//
// A driver spec names the driver and its devices per node:
//   gpu.ksched.dev=8                         8 devices gpu-0..gpu-7 on every node
//   gpu.ksched.dev=8,model=A100,memory=40Gi  their model attribute and memory capacity
//   gpu.ksched.dev=16,slices=2               the node's pool spread over 2 slices
//   gpu.ksched.dev=2,partitions=4            partitionable: each GPU is offered whole (gpu-0) and
//                                            as 4 partitions (gpu-0-part-0..3) drawing on one
//                                            set of shared counters (gpu-0-counters)
//   gpu.ksched.dev=2,bindingConditions=Attached
//                                            devices that must be attached before a pod binds
//                                            (DRADeviceBindingConditions): each device lists the
//                                            binding condition Attached and the failure condition
//                                            AttachedFailed; once the scheduler allocates one on
//                                            this node, the simulator sets Attached=True in the
//                                            claim's status.devices, as a real driver's controller
//                                            does after attaching, so PreBind stops waiting
//   gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=2
//                                            a simulated attach failure: the first 2 attaches of
//                                            this driver's devices on each node fail, and the
//                                            simulator sets AttachedFailed=True instead (later
//                                            ones succeed); deterministic, counted per node. Only
//                                            with bindingConditions. A node's annotation can give
//                                            one node failures and leave the others alone.
// Several specs are separated by ';'. `ksched up --dra-devices` and a node template's annotation
// nodesim.ksched.io/dra-devices (which replaces the flag's specs on that node) choose them.
//
// Each device carries the attributes index (int), model (string), uuid (string, stable per node
// and device) and driverVersion (version 1.0.0), and the capacity memory; partitions carry the
// partition attribute (int) too. A node's pool is named after the node, every slice is owned by
// the Node (deleted with it), and a pool is published at one generation: when its content must
// change (a changed spec, a slice someone edited or deleted, a generation gone backwards) every
// slice is written again at a higher generation, as upstream's resourceslice controller does.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource.h"
#include "util/result.h"

namespace ksched::nodesim {

inline constexpr std::string_view kDraDevicesAnnotation = "nodesim.ksched.io/dra-devices";

struct DraDriverSpec {
  std::string driver;           // a DNS subdomain, e.g. gpu.ksched.dev
  int devices = 8;              // physical devices per node
  std::string model = "ksched-sim";
  std::string memory = "80Gi";  // capacity `memory` of a whole device
  int slices = 1;               // at least this many slices hold the devices
  int partitions = 0;           // >0: partitionable devices (see above)
  std::string binding_condition;  // non-empty: the devices' binding condition (see above)
  int attach_failures = 0;        // the first this many attaches on each node fail (see above)
  bool operator==(const DraDriverSpec&) const = default;
};

// The failure condition published beside a binding condition.
std::string binding_failure_condition(std::string_view binding_condition);

// Parses "driver=N[,key=value...][;...]" (keys: model, memory, slices, partitions,
// bindingConditions, attachFailures). Errors name the
// offending part: `--dra-devices "gpu=x": the device count must be a whole number from 0 to 1024`.
util::Result<std::vector<DraDriverSpec>> parse_dra_devices(std::string_view text);

// The slices of `node`'s pool for `d` at `generation`, named "<node>-<driver>-<i>", in order.
std::vector<api::resourcev1::ResourceSlice> dra_slices(const DraDriverSpec& d, std::string_view node,
                                                      std::string_view node_uid, std::int64_t generation);

}  // namespace ksched::nodesim
