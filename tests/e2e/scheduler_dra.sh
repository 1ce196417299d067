#!/usr/bin/env bash
# The scheduler places pods with ResourceClaims (DynamicResources) in `ksched up`, driven by kubectl:
# 2 nodes with 2 simulated GPUs each; a Deployment of 4 pods, one GPU each from a template, fills
# them (every claim allocated on its pod's node and reserved for it, no GPU twice); a fifth pod
# stays Pending with upstream's message (its PodScheduled condition and FailedScheduling event);
# scaling the Deployment down frees a GPU and the fifth pod is bound. One local cluster on a
# loopback port, in memory.
# usage: scheduler_dra.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-scheduler-dra.XXXXXX)
UP_PID=""
source "$(dirname "$0")/up_lib.sh"
bound_count() { kq get pods -l app=trainer -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c . || true; }
bound_is() { [[ "$(bound_count)" == "$1" ]]; }

cd "$DIR"
"$KSCHED" up --listen 127.0.0.1:0 --nodes 2 --ephemeral --ui-listen "" --kubeconfig-out "$DIR/kubeconfig" \
  --scheduler-secure-port -1 --dra-devices "gpu.ksched.dev=2" > "$DIR/up.log" 2>&1 &
UP_PID=$!
until_ok 30 grep -q "Local cluster is up" "$DIR/up.log" || fail "ksched up did not come up"
until_ok 30 bash -c "[[ \$($KUBECTL --kubeconfig $DIR/kubeconfig get resourceslices --no-headers 2>/dev/null | grep -c .) == 2 ]]" ||
  fail "2 GPU slices: $(k get resourceslices)"
ok "2 nodes publish 2 GPUs each"

out=$(apply_gpu_trainer 4) || fail "apply: $out"
until_ok 40 bound_is 4 || fail "4 pods bound: $(k get pods -o wide)"
running() { [[ "$(kq get pods -l app=trainer --field-selector status.phase=Running --no-headers | grep -c .)" == 4 ]]; }
until_ok 30 running || fail "4 pods Running: $(k get pods -o wide)"
ok "the Deployment's 4 pods are bound and Running"

# Each claim: allocated on its pod's node (the pool is the node's), reserved for that pod, a GPU
# nobody else has.
claims=$(kq get resourceclaims -o jsonpath='{range .items[*]}{.status.reservedFor[0].name}={.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}{"\n"}{end}')
expect_eq "$(echo "$claims" | grep -c .)" "4" "4 claims allocated and reserved"
expect_eq "$(echo "$claims" | cut -d= -f2 | sort -u | grep -c .)" "4" "no GPU given twice"
while IFS='=' read -r pod dev; do
  node=$(kq get pod "$pod" -o jsonpath='{.spec.nodeName}')
  [[ "${dev%%/*}" == "$node" ]] || fail "claim of $pod allocated on ${dev%%/*}, pod on $node"
done <<< "$claims"
ok "each claim's GPU is on its pod's node"

# A fifth pod finds no GPU left: Pending, with upstream's message.
cat > "$DIR/extra.yaml" <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: extra
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: train
    image: busybox
EOF
k apply -f "$DIR/extra.yaml" >/dev/null
want="0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
unschedulable() { [[ "$(kq get pod extra -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}')" == Unschedulable ]]; }
until_ok 30 unschedulable || fail "extra is not Unschedulable: $(k get pod extra -o yaml)"
expect_eq "$(kq get pod extra -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')" "$want" \
  "the fifth pod is Pending with upstream's message"
has_event() { k describe pod extra | grep -q "FailedScheduling"; }
until_ok 20 has_event || fail "no FailedScheduling event: $(k describe pod extra)"
expect_contains "$(k describe pod extra | tr -s ' \n' ' ')" "cannot allocate all claims" "kubectl describe shows the FailedScheduling event"

# Scaling down frees a GPU (the pod's claim goes with it): the fifth pod is bound.
k scale deployment trainer --replicas 3 >/dev/null
extra_bound() { [[ -n "$(kq get pod extra -o jsonpath='{.spec.nodeName}')" ]]; }
until_ok 40 extra_bound || fail "extra not bound after scaling down: $(k get pods -o wide; k get resourceclaims)"
ok "the fifth pod is bound once a GPU is free"
devs=$(kq get resourceclaims -o jsonpath='{range .items[*]}{.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}{"\n"}{end}' | grep -c . || true)
uniq=$(kq get resourceclaims -o jsonpath='{range .items[*]}{.status.allocation.devices.results[0].pool}/{.status.allocation.devices.results[0].device}{"\n"}{end}' | sort -u | grep -c . || true)
expect_eq "$devs/$uniq" "4/4" "4 claims on 4 distinct GPUs"
echo "e2e scheduler dra: OK"
