#!/usr/bin/env bash
# Workload-aware preemption on `ksched up --feature-gates GenericWorkload=true,GangScheduling=true`,
# driven by kubectl (issue #44, KEP-5710): a low-priority gang of 16 fills the nodes; a high-priority
# gang of 16 is submitted; the scheduler evicts the low gang whole (every member gets upstream's
# DisruptionTarget condition and is deleted; none is left bound), nominates the high gang's members,
# and binds the high gang whole once the victims are gone. Then a gang of the same priority as what
# runs preempts nothing and stays Pending with upstream's reason. One local cluster on a loopback
# port, in memory.
# usage: gang_preemption.sh <ksched> <kube-scheduler (unused)> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${3:?}
DIR=$(mktemp -d /tmp/ksched-gang-preempt.XXXXXX)
UP_PID=""
SAMPLER_PID=""
EXTRA_CLEANUP='if [[ -n "$SAMPLER_PID" ]]; then kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null; fi'
source "$(dirname "$0")/../e2e/up_lib.sh"
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$DIR/up.log" >&2 || true
  k -n gangs get pods -o wide >&2 || true
  exit 1
}

# ---- two simulated nodes of 4 CPUs: 8 CPUs, room for 16 x 500m
cd "$DIR"
up_gang_cluster 2
k create namespace gangs >/dev/null
k create priorityclass low --value=10 >/dev/null
k create priorityclass high --value=1000 >/dev/null

# gang <name> <size> <minCount> <cpu per member> <priorityClassName>: a Workload and its members.
source "$(dirname "$0")/gang_yaml.sh"
gang() { gang_yaml gangs "$1" "$2" "$3" "$4" | sed "s/^  workloadRef:/  priorityClassName: $5\n  workloadRef:/"; }
bound_count() { kq -n gangs get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | grep -c "^$1-[0-9]*=." || true; }
running_count() { kq -n gangs get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}' | grep -c "^$1-[0-9]*=Running" || true; }
pod_count() { kq -n gangs get pods -o name | grep -c "^pod/$1-" || true; }

# ---- the low gang fills both nodes
gang low 16 16 500m low | k apply -f - >/dev/null
low_running() { [[ $(running_count low) == 16 ]]; }
until_ok 30 low_running || fail "gang 'low' not bound and running whole: $(bound_count low) bound"
ok "a low-priority gang of 16 fills the nodes (bound whole, running)"

# Samples how many of the high gang's members are bound, while the preemption runs: the high gang
# is placed in one cycle, so it is seen with 0 or 16, never in between (bindings are quick, so a
# sample between two bindings is possible but rare: reported, not asserted).
( while true; do echo "$(bound_count high)" >> "$DIR/high_samples"; sleep 0.1; done ) &
SAMPLER_PID=$!

# ---- the high gang: no room, so workload-aware preemption; the low gang goes whole
t0=$(date +%s%N)
gang high 16 16 500m high | k apply -f - >/dev/null
high_running() { [[ $(running_count high) == 16 ]]; }
until_ok 60 high_running || fail "gang 'high' not bound whole after preemption: $(bound_count high) bound"
ok "the high-priority gang of 16 is bound whole (and running) after preemption"
# Informational (polled every 0.2 s, so an upper bound): submission to all 16 Running.
echo "high gang: applied to 16 Running in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
kill "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=""
low_gone() { [[ $(pod_count low) == 0 ]]; }
until_ok 30 low_gone || fail "the low gang was not evicted whole: $(pod_count low) pods left, $(bound_count low) bound"
ok "the low gang was evicted whole: no member left (none left bound below minCount)"
events=$(kq -n gangs get events -o jsonpath='{range .items[?(@.reason=="Preempted")]}{.involvedObject.name}: {.message}{"\n"}{end}')
n=$(grep -c '^low-[0-9]*: Preempted by podgroup .* on node cluster$' <<< "$events" || true)
expect_eq "$n" "16" "each of the 16 low members has a Preempted event naming the podgroup"
nominated=$(kq -n gangs get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.nominatedNodeName}{"\n"}{end}' | grep -c '^high-[0-9]*=.' || true)
echo "high members still showing a nominatedNodeName once bound: $nominated of 16"
echo "samples of the high gang's bound count: $(sort -n "$DIR/high_samples" | uniq -c | tr -s ' ' | tr '\n' ';')"

# ---- a gang of the same priority as what runs: nothing to preempt, Pending with upstream's reason
gang peer 2 2 500m high | k apply -f - >/dev/null
peer_rejected() {
  local n
  n=$(kq -n gangs get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}' |
    grep -c '^peer-[0-9]*=Unschedulable' || true)
  [[ $n == 2 ]]
}
until_ok 30 peer_rejected || fail "the members of 'peer' were not marked Unschedulable"
msgs=$(kq -n gangs get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="PodScheduled")].message}{"\n"}{end}' |
  grep '^peer-' | cut -d= -f2- | sort -u)
expect_contains "$msgs" "No preemption victims found for incoming preemptor" "an equal-priority gang preempts nothing"
expect_eq "$(running_count high)" "16" "the high gang still runs whole"
echo "PASS: gang_preemption"
