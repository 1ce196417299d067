#!/usr/bin/env bash
# Device binding conditions (DRADeviceBindingConditions, KEP-5007) end to end in `ksched up`,
# driven by kubectl: the simulated driver publishes GPUs that must be attached before a pod may
# bind (`--dra-devices gpu.ksched.dev=1,bindingConditions=Attached`); the scheduler allocates a
# claim, copies the device's binding conditions into the allocation and waits in PreBind; the
# driver (the node simulator, as a real driver's controller would) sets Attached=True in the
# claim's status.devices; only then is the pod bound and started. One local cluster on a loopback
# port, in memory, with the gates on.
# usage: up_dra_binding.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-up-dra-binding.XXXXXX)
UP_PID=""
source "$(dirname "$0")/up_lib.sh"

cd "$DIR"
up_binding_gpu_cluster
export KUBECONFIG=$DIR/kubeconfig
expect_eq "$(kq get resourceslice node-0-gpu.ksched.dev-0 -o jsonpath='{.spec.devices[0].bindingConditions[*]}/{.spec.devices[0].bindingFailureConditions[*]}')" \
  "Attached/AttachedFailed" "the driver publishes the device's binding and failure conditions"

out=$(apply_gpu_trainer 2)
expect_contains "$out" "deployment.apps/trainer created" "apply the DeviceClass, the template and the Deployment"

running() { [[ "$(kq get pods -l app=trainer --no-headers | grep -c Running)" == 2 ]]; }
until_ok 90 running || fail "both pods Running: $(k get pods -o wide; k get resourceclaims -o yaml)"
ok "both pods bound and started once their devices were attached"
nodes=$(kq get pods -l app=trainer -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort | tr '\n' ' ')
expect_eq "$nodes" "node-0 node-1 " "one pod per node: one GPU each"

for claim in $(kq get resourceclaims -o jsonpath='{.items[*].metadata.name}'); do
  got=$(kq get resourceclaim "$claim" -o jsonpath='{.status.allocation.devices.results[0].bindingConditions[*]}/{.status.allocation.devices.results[0].bindingFailureConditions[*]}')
  expect_eq "$got" "Attached/AttachedFailed" "claim $claim: the allocation carries the device's conditions"
  [[ -n "$(kq get resourceclaim "$claim" -o jsonpath='{.status.allocation.allocationTimestamp}')" ]] ||
    fail "claim $claim: PreBind records the allocation time: $(k get resourceclaim "$claim" -o yaml)"
  ok "claim $claim: allocationTimestamp set"
  got=$(kq get resourceclaim "$claim" -o jsonpath='{.status.devices[0].device}:{.status.devices[0].conditions[0].type}={.status.devices[0].conditions[0].status}')
  expect_eq "$got" "gpu-0:Attached=True" "claim $claim: the driver set the binding condition"
  reserved=$(kq get resourceclaim "$claim" -o jsonpath='{.status.reservedFor[0].name}')
  [[ "$reserved" == trainer-* ]] || fail "claim $claim reserved for its pod: $reserved"
done
echo "PASS"
