#!/usr/bin/env bash
# Dynamic Resource Allocation in `ksched up`, driven by kubectl as a user would: the simulated
# drivers' ResourceSlices of every node (`--dra-devices`, and a node template's annotation), a
# DeviceClass, a ResourceClaimTemplate and a Deployment whose pods reference it; the
# ResourceClaim controller makes one claim per pod (upstream's name, owner and annotation) and
# records it in the pod's status; deleting the pods removes their claims; bad input is refused
# with upstream's messages. Then python3-kubernetes reads and writes the same objects
# (up_dra_python.py). One local cluster on a loopback port, in memory.
# usage: up_dra.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/ksched-up-dra.XXXXXX)
UP_PID=""
source "$(dirname "$0")/up_lib.sh"
count_lines() { kq "$@" --no-headers | grep -c . || true; }
count_is() { local want=$1; shift; [[ "$(count_lines "$@")" == "$want" ]]; }

# A bad --dra-devices is refused before anything starts.
out=$("$KSCHED" up --ephemeral --dra-devices "gpu.ksched.dev=many" 2>&1) && fail "a bad --dra-devices was accepted"
expect_contains "$out" 'Error: --dra-devices "gpu.ksched.dev=many": the device count must be a whole number from 0 to 1024' \
  "--dra-devices errors name the spec"

cd "$DIR"
"$KSCHED" up --listen 127.0.0.1:0 --nodes 3 --ephemeral --ui-listen "" --kubeconfig-out "$DIR/kubeconfig" \
  --scheduler-secure-port -1 --dra-devices "gpu.ksched.dev=4,model=A100,memory=40Gi;nic.ksched.dev=2,partitions=2" \
  > "$DIR/up.log" 2>&1 &
UP_PID=$!
until_ok 30 grep -q "Local cluster is up" "$DIR/up.log" || fail "ksched up did not come up"
export KUBECONFIG=$DIR/kubeconfig

# ---- every node's devices, as the drivers publish them
# gpu: one slice of 4 devices; nic (partitionable): a slice of counter sets and one of devices.
until_ok 30 count_is 9 get resourceslices || fail "9 ResourceSlices (3 nodes x (1 gpu + 2 nic)): $(k get resourceslices)"
out=$(k get resourceslices)
expect_contains "$out" "NAME" "kubectl get resourceslices has a header"
expect_contains "$(echo "$out" | head -1)" "NODE     DRIVER" "the NODE and DRIVER columns"
expect_contains "$out" "node-0-gpu.ksched.dev-0   node-0   gpu.ksched.dev   node-0" "node-0's GPU slice"
expect_eq "$(kq get resourceslices --field-selector spec.nodeName=node-1 -o name | wc -l)" "3" "field selector spec.nodeName"
expect_eq "$(kq get resourceslices --field-selector spec.driver=gpu.ksched.dev -o name | wc -l)" "3" "field selector spec.driver"
gpus=$(kq get resourceslice node-2-gpu.ksched.dev-0 -o jsonpath='{range .spec.devices[*]}{.name}={.attributes.model.string}/{.capacity.memory.value};{end}')
expect_eq "$gpus" "gpu-0=A100/40Gi;gpu-1=A100/40Gi;gpu-2=A100/40Gi;gpu-3=A100/40Gi;" "node-2's four A100 GPUs with 40Gi each"
expect_eq "$(kq get resourceslice node-0-nic.ksched.dev-0 -o jsonpath='{.spec.sharedCounters[*].name}')" \
  "nic-0-counters nic-1-counters" "the NICs' shared counters"
expect_eq "$(kq get resourceslice node-0-nic.ksched.dev-1 -o jsonpath='{.spec.devices[*].name}')" \
  "nic-0 nic-0-part-0 nic-0-part-1 nic-1 nic-1-part-0 nic-1-part-1" "whole NICs and their partitions"
expect_eq "$(kq get resourceslice node-0-nic.ksched.dev-1 -o jsonpath='{.spec.pool.resourceSliceCount}')" "2" \
  "the NIC pool spans two slices"
expect_eq "$(kq get resourceslice node-1-gpu.ksched.dev-0 -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}')" \
  "Node/node-1" "slices are owned by their Node"

# A driver republishes what someone else changed, at a higher pool generation.
k patch resourceslice node-0-gpu.ksched.dev-0 --type=merge -p '{"spec":{"devices":[{"name":"gpu-0"}]}}' >/dev/null
republished() {
  [[ "$(kq get resourceslice node-0-gpu.ksched.dev-0 -o jsonpath='{.spec.devices[*].name}')" == "gpu-0 gpu-1 gpu-2 gpu-3" ]] &&
    [[ "$(kq get resourceslice node-0-gpu.ksched.dev-0 -o jsonpath='{.spec.pool.generation}')" == "2" ]]
}
until_ok 30 republished || fail "the slice was not republished: $(k get resourceslice node-0-gpu.ksched.dev-0 -o yaml)"
ok "an edited slice is republished at generation 2"
k delete resourceslice node-1-nic.ksched.dev-0 >/dev/null
until_ok 30 count_is 9 get resourceslices || fail "a deleted slice comes back"
ok "a deleted slice comes back"

# ---- a DeviceClass, a template and a Deployment whose pods use it
cat > "$DIR/dra.yaml" <<'EOF'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.ksched.dev
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.ksched.dev"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
spec:
  metadata:
    labels:
      claimed-by: trainer
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.ksched.dev
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  replicas: 3
  selector:
    matchLabels:
      app: trainer
  template:
    metadata:
      labels:
        app: trainer
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: one-gpu
      containers:
      - name: train
        image: busybox
        resources:
          claims:
          - name: gpu
EOF
out=$(k apply -f "$DIR/dra.yaml")
expect_contains "$out" "deviceclass.resource.k8s.io/gpu.ksched.dev created" "apply the DeviceClass"
expect_contains "$out" "resourceclaimtemplate.resource.k8s.io/one-gpu created" "apply the template"
expect_contains "$out" "deployment.apps/trainer created" "apply the Deployment"
expect_eq "$(kq get resourceclaimtemplate one-gpu -o jsonpath='{.spec.spec.devices.requests[0].exactly.allocationMode}/{.spec.spec.devices.requests[0].exactly.count}')" \
  "ExactCount/1" "the template's request defaults"
until_ok 60 count_is 3 get resourceclaims || fail "3 claims, one per pod: $(k get resourceclaims; k get pods)"
ok "one claim per pod"
out=$(k get resourceclaims)
expect_contains "$(echo "$out" | head -1)" "STATE" "the claims' STATE column"
# The scheduler allocates each pod's claim and reserves it for the pod (DynamicResources).
allocated_reserved() { [[ "$(kq get resourceclaims --no-headers | grep -c 'allocated,reserved')" == 3 ]]; }
until_ok 60 allocated_reserved || fail "3 claims allocated and reserved: $(k get resourceclaims)"
ok "the scheduler allocated and reserved every claim"
# Named <pod>-<pod claim>-<5 random>, owned by the pod, annotated with the pod claim's name.
for pod in $(kq get pods -l app=trainer -o jsonpath='{.items[*].metadata.name}'); do
  claim=""
  until_ok 30 bash -c "[[ -n \$($KUBECTL --kubeconfig $DIR/kubeconfig get pod $pod -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}') ]]" ||
    fail "pod $pod records its claim"
  claim=$(kq get pod "$pod" -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}')
  [[ "$claim" =~ ^$pod-gpu-[a-z0-9]{5}$ ]] || fail "claim of $pod named <pod>-gpu-<5 random>: $claim"
  owner=$(kq get resourceclaim "$claim" -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}')
  [[ "$owner" == "Pod/$pod/true" ]] || fail "claim $claim owned by pod $pod: $owner"
  ann=$(kq get resourceclaim "$claim" -o jsonpath='{.metadata.annotations.resource\.kubernetes\.io/pod-claim-name}')
  [[ "$ann" == "gpu" ]] || fail "claim $claim's pod-claim-name annotation: $ann"
  lbl=$(kq get resourceclaim "$claim" -o jsonpath='{.metadata.labels.claimed-by}')
  [[ "$lbl" == "trainer" ]] || fail "claim $claim has the template's labels: $lbl"
done
ok "claims named <pod>-gpu-xxxxx, owned by their pods, annotated and labelled"

# ---- bad input: upstream's 422s, nothing stored
out=$(k create -f - <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: broken
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.ksched.dev
        allocationMode: All
        count: 2
EOF
) && fail "a claim with count and allocationMode All was accepted"
expect_contains "$out" 'spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is '"'"'All'"'"'' \
  "count with allocationMode All is refused"
out=$(k create -f - <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: nowhere
spec:
  driver: gpu.ksched.dev
  pool:
    name: nowhere
    resourceSliceCount: 1
EOF
) && fail "a slice without node selection was accepted"
expect_contains "$out" 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required' \
  "a slice must say where its devices are"
expect_eq "$(kq get resourceclaim broken -o name)" "" "nothing stored for the refused claim"
# A selector is compiled when written: the CEL compiler's message, nothing stored.
out=$(k create -f - <<'EOF'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: not-bool
spec:
  selectors:
  - cel:
      expression: device.driver
EOF
) && fail "a selector that is not a boolean was accepted"
expect_contains "$out" 'spec.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate to bool or the unknown type, not string' \
  "a selector that does not compile is refused with the compiler's message"
expect_eq "$(kq get deviceclass not-bool -o name)" "" "nothing stored for the refused class"
# A claim naming a DeviceClass that does not exist is accepted, as upstream: allocation reports it.
out=$(k create -f - <<'EOF'
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: no-such-class
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: no-such-class
EOF
)
expect_contains "$out" "resourceclaim.resource.k8s.io/no-such-class created" "a claim of an unknown class is stored"
# A pod whose template is missing gets no claim and an event saying why.
k run orphan --image=busybox --restart=Never --overrides='{"spec":{"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"missing"}]}}' >/dev/null
until_ok 30 bash -c "$KUBECTL --kubeconfig $DIR/kubeconfig get events --field-selector involvedObject.name=orphan 2>/dev/null | grep -q FailedResourceClaimCreation" ||
  fail "the missing template's event: $(k get events)"
expect_contains "$(k get events --field-selector involvedObject.name=orphan)" \
  'PodResourceClaim gpu: resource claim template "missing": resourceclaimtemplate.resource.k8s.io "missing" not found' \
  "FailedResourceClaimCreation names the missing template"

# ---- python3-kubernetes reads and writes the same objects
/usr/bin/python3 "$HERE/up_dra_python.py" "$DIR/kubeconfig" || fail "python3-kubernetes"

# ---- deleting the pods removes their claims
k delete deployment trainer >/dev/null
until_ok 60 count_is 0 get pods -l app=trainer || fail "the trainer pods are gone"
until_ok 60 bash -c "[[ -z \$($KUBECTL --kubeconfig $DIR/kubeconfig get resourceclaims -o name | grep trainer-gpu) ]]" ||
  fail "their claims are gone: $(k get resourceclaims)"
ok "deleting the pods removes their claims"
k delete pod orphan --wait=false >/dev/null
echo "PASS"
