#!/usr/bin/env bash
# Gang scheduling on `ksched up --feature-gates GenericWorkload=true,GangScheduling=true`, driven by
# kubectl as a user would (issue #44): a gang of 16 that fits is bound whole; a gang of 16 whose
# minimum cannot fit stays entirely Pending with upstream's message, and is bound whole once nodes
# are added (Node objects created with kubectl, which the kubelet stand-in then runs). An unknown
# gate is refused before anything starts, with upstream's message; `ksched explain` on a pending
# member says its group's state and the member that blocks the group. One local cluster on a loopback port, in memory.
# usage: gang_up.sh <ksched> <kube-scheduler (unused)> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${3:?}
DIR=$(mktemp -d /tmp/ksched-gang-up.XXXXXX)
UP_PID=""
source "$(dirname "$0")/../e2e/up_lib.sh"
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$DIR/up.log" >&2 || true
  k get nodes >&2 || true
  k -n gangs get pods -o wide >&2 || true
  exit 1
}

# ---- bad gates are refused before anything starts, in upstream's words
out=$("$KSCHED" up --ephemeral --feature-gates GangScheduling=true,NoSuchGate=true 2>&1) && fail "an unknown gate was accepted"
expect_contains "$out" 'Error: invalid argument "GangScheduling=true,NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate' \
  "an unknown gate is upstream's 'unrecognized feature gate'"
out=$("$KSCHED" up --ephemeral --feature-gates GangScheduling=maybe 2>&1) && fail "a non-boolean gate value was accepted"
expect_contains "$out" 'invalid value of GangScheduling=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax' \
  "a gate value that is not a boolean"
out=$("$KSCHED" up --ephemeral --listen 127.0.0.1:0 --ui-listen "" --scheduler-secure-port -1 --kubeconfig-out "$DIR/k0" \
  --feature-gates GangScheduling=true 2>&1) && fail "GangScheduling without GenericWorkload was accepted"
expect_contains "$out" "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]" \
  "GangScheduling needs GenericWorkload"

# ---- three simulated nodes of 4 CPUs
cd "$DIR"
up_gang_cluster 3
k create namespace gangs >/dev/null

# gang <name> <size> <minCount> <cpu per member>: a Workload and its members, as YAML.
source "$(dirname "$0")/gang_yaml.sh"
source "$(dirname "$0")/gang_lib.sh"
gang() { gang_yaml gangs "$@"; }

# ---- 16 x 500m on 12 CPUs: bound whole
gang fits 16 16 500m | k apply -f - >/dev/null
fits_running() { [[ $(running_count gangs fits) == 16 ]]; }
until_ok 30 fits_running || fail "gang 'fits' not bound and running whole: $(bound_count gangs fits) bound"
ok "a gang of 16 that fits is bound whole (and running)"

# ---- 16 x 500m on the 4 CPUs left: 8 members fit, the 9th does not, the group cannot reach 16
gang big 16 16 500m | k apply -f - >/dev/null
all_rejected() { [[ $(rejected_count gangs big) == 16 ]]; }
until_ok 30 all_rejected || fail "the 16 members of 'big' were not all marked Unschedulable"
msgs=$(scheduled_messages gangs big)
expect_eq "$msgs" "minCount (16) cannot be satisfied: 8 scheduled, 7 remaining, No preemption victims found for incoming preemptor" \
  "every member of 'big' has upstream's message (with workload-aware preemption's reason appended)"
expect_eq "$(bound_count gangs big)" "0" "no member of 'big' is bound"
expect_eq "$(kq -n gangs get pods -o jsonpath='{.items[*].status.nominatedNodeName}' | tr -d ' ')" "" "no member is nominated"

# ---- ksched explain on a pending member says the group's state
out=$("$KSCHED" explain big-3 -n gangs --kubeconfig "$DIR/kubeconfig" --feature-gates GenericWorkload=true,GangScheduling=true 2>&1) ||
  fail "ksched explain big-3: $out"
expect_contains "$out" "Group:    Workload big, pod group workers (gang, minCount 16): 16 members exist, 0 bound, 0 assumed" \
  "ksched explain gives a member's group state"
expect_contains "$out" "placed all or nothing: this pod is bound only in a cycle that places at least 16 pending members" \
  "ksched explain says the member waits for its group"
# ... and tries the group as the pod-group cycle would: 8 members fit, big-8 (the 9th) blocks it.
expect_contains "$out" "Gang placement (the pod-group cycle tried now, nothing kept): 8 of 16 pending members placed, minCount 16: the group stays pending
  minCount (16) cannot be satisfied: 8 scheduled, 7 remaining" \
  "ksched explain tries the gang's placement and gives PlacementFeasible's verdict"
expect_contains "$out" "  Blocking member: gangs/big-8, the first that fits nowhere with the 8 placed before it
    0/3 nodes are available: 3 Insufficient cpu.
    NodeResourcesFit: Insufficient cpu  (3 nodes)" \
  "ksched explain names the member that blocks the gang, with its nodes' reasons"
echo "$out" | sed -n '/^Gang placement/,$p' >&2
expect_eq "$(bound_count gangs big)" "0" "explain's dry run bound nothing"
out=$("$KSCHED" explain fits-0 -n gangs --kubeconfig "$DIR/kubeconfig" --feature-gates GenericWorkload=true,GangScheduling=true -o json 2>&1)
expect_contains "$out" '"podGroup":{"workload":"fits","podGroup":"workers","policy":"gang","minCount":16,"members":16,"bound":16,"assumed":0}' \
  "ksched explain -o json: a bound gang's state"

# ---- two more nodes, made with kubectl as simulated nodes: room for the whole gang
add_simulated_nodes 2 extra-0 extra-1
big_running() { [[ $(running_count gangs big) == 16 ]]; }
until_ok 30 big_running || fail "gang 'big' not bound whole once nodes were added: $(bound_count gangs big) bound"
ok "once nodes are added, the gang of 16 is bound whole (and running)"
on_extra=$(kq -n gangs get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c '^extra-' || true)
expect_eq "$on_extra" "8" "8 members on the two added nodes (2 CPUs each)"
echo "PASS: gang_up"
