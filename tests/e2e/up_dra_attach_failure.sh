#!/usr/bin/env bash
# Device binding conditions when the attach fails, and stopping the scheduler while PreBind waits
# (issue #43), in `ksched up`, driven by kubectl. Two nodes with one GPU each that must be attached
# before a pod binds (`--dra-devices gpu.ksched.dev=1,bindingConditions=Attached`); node-0's
# annotation adds attachFailures, so the simulated driver sets AttachedFailed=True on every attach
# there. node-1 is cordoned first, so the pod's first attempt goes to node-0: PreBind fails with
# upstream's "claim ... binding failed" (FailedScheduling event), the scheduler unreserves, its next
# Filter finds the claim unavailable and PostFilter deallocates it. node-1 is uncordoned: the pod
# ends Running on node-1 with node-1's GPU attached.
# Then a pod whose device nobody attaches (a node-less slice of a driver nobody runs) waits in
# PreBind; SIGTERM to `ksched up` must end it well before bindingTimeout (600 s): the wait ends on
# the scheduler's stop. One local cluster on a loopback port, in memory, with the gates on.
# usage: up_dra_attach_failure.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-up-dra-attach.XXXXXX)
UP_PID=""
source "$(dirname "$0")/up_lib.sh"

cd "$DIR"
up_binding_gpu_cluster
export KUBECONFIG=$DIR/kubeconfig
k annotate node node-0 "nodesim.ksched.io/dra-devices=gpu.ksched.dev=1,bindingConditions=Attached,attachFailures=1000000" >/dev/null ||
  fail "annotate node-0"
k cordon node-1 >/dev/null || fail "cordon node-1"
ok "node-0's GPU fails to attach; node-1 cordoned"

out=$(apply_gpu_trainer 1)
expect_contains "$out" "deployment.apps/trainer created" "apply the DeviceClass, the template and the Deployment"

# The attach on node-0 fails: PreBind's error reaches the pod's FailedScheduling event.
failed_event() {
  kq get events --field-selector reason=FailedScheduling -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' |
    grep -q 'binding failed: reason=DeviceAttachFailed'
}
until_ok 60 failed_event || fail "a FailedScheduling event for the failed attach: $(k get events; k get resourceclaims -o yaml)"
msg=$(kq get events --field-selector reason=FailedScheduling -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' |
  grep 'binding failed' | head -1)
expect_contains "$msg" 'binding failed: reason=DeviceAttachFailed, message="the simulated driver failed to attach the device (attachFailures)"' \
  "the event carries upstream's binding-failed message"

k uncordon node-1 >/dev/null || fail "uncordon node-1"
running() { [[ "$(kq get pods -l app=trainer --field-selector status.phase=Running --no-headers | grep -c .)" == 1 ]]; }
until_ok 120 running || fail "the pod Running: $(k get pods -o wide; k get resourceclaims -o yaml)"
expect_eq "$(kq get pods -l app=trainer -o jsonpath='{.items[0].spec.nodeName}')" "node-1" "the pod runs on node-1"
claim=$(kq get resourceclaims -o jsonpath='{.items[0].metadata.name}')
got=$(kq get resourceclaim "$claim" -o jsonpath='{.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}')
expect_eq "$got" "node-1/gpu-0" "the claim's final allocation names node-1's GPU"
got=$(kq get resourceclaim "$claim" -o jsonpath='{.status.devices[0].pool}:{.status.devices[0].conditions[0].type}={.status.devices[0].conditions[0].status}')
expect_eq "$got" "node-1:Attached=True" "node-1's driver attached the GPU"

# Stopping while PreBind waits: a device nobody attaches.
cat > "$DIR/never.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: fabric.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "fabric.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: fabric
spec:
  driver: fabric.example.com
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: dev-0
    bindsToNode: true
    bindingConditions: [Attached]
    bindingFailureConditions: [AttachedFailed]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: fabric
spec:
  devices:
    requests:
    - name: dev
      exactly:
        deviceClassName: fabric.example.com
---
apiVersion: v1
kind: Pod
metadata:
  name: waits
spec:
  resourceClaims:
  - name: dev
    resourceClaimName: fabric
  containers:
  - name: app
    image: busybox
EOF
k apply -f "$DIR/never.yaml" >/dev/null || fail "apply the never-attached device: $(k apply -f "$DIR/never.yaml")"
waiting() { [[ "$(kq get resourceclaim fabric -o jsonpath='{.status.reservedFor[0].name}')" == waits ]]; }
until_ok 30 waiting || fail "the claim reserved for the waiting pod: $(k get resourceclaim fabric -o yaml)"
expect_eq "$(kq get pod waits -o jsonpath='{.spec.nodeName}')" "" "the pod waits in PreBind, unbound"

start=$SECONDS
kill -TERM "$UP_PID"
# Bounded: a wait that ignored the stop would hold the scheduler for bindingTimeout (600 s).
for _ in $(seq 1 300); do kill -0 "$UP_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$UP_PID" 2>/dev/null; then fail "ksched up still running 30 s after SIGTERM"; fi
rc=0; wait "$UP_PID" || rc=$?
UP_PID=""
ok "ksched up exited (status $rc) $((SECONDS - start)) s after SIGTERM with a pod waiting in PreBind"
grep -q 'context canceled' "$DIR/up.log" || fail "the scheduler's log names the cancelled wait"
ok "the waiting pod's PreBind ended with \"context canceled\""
echo "PASS"
