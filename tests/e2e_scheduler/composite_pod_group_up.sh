#!/usr/bin/env bash
# CompositePodGroups on `ksched up --feature-gates GenericWorkload=true,GangScheduling=true,CompositePodGroup=true`,
# driven by kubectl (issue #44, KEP-6012, v1.37 alpha): a scheduling.k8s.io/v1alpha3 CompositePodGroup
# `root` (gang of minGroupCount 2) over two v1beta1 PodGroup gangs of 4 (4 x 1 CPU each).
#  1. On 6 CPUs each gang alone would fit but both cannot: no member binds, every member is Pending
#     with the root's message, the composite's CompositePodGroupInitiallyScheduled is False/Unschedulable.
#  2. A Node added with kubectl makes room: all 8 members bind together, the composite's condition
#     turns True (reason Scheduled) and each PodGroup's PodGroupInitiallyScheduled is True.
#  3. A second tree whose root has priority 1000 needs 4 of the 8 busy CPUs: workload-aware
#     preemption for the whole tree evicts 4 of the first tree's pods (its root has no priority and
#     the default disruptionMode single), and the second tree binds whole.
# One local cluster on a loopback port, in memory.
# usage: composite_pod_group_up.sh <ksched> <kube-scheduler> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBE_SCHEDULER=${2:?}; KUBECTL=${3:?}
: "$KUBE_SCHEDULER"
DIR=$(mktemp -d /tmp/ksched-composite-up.XXXXXX)
UP_PID=""
source "$(dirname "$0")/../e2e/up_lib.sh"
source "$(dirname "$0")/gang_lib.sh"
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$DIR/up.log" >&2 || true
  k -n cpg get pods -o wide >&2 || true
  k -n cpg get podgroups,compositepodgroups -o yaml >&2 || true
  exit 1
}

# child <name> <size>: a v1beta1 PodGroup gang of <size> under `root` and its members (1 CPU each).
child() {
  printf -- '---\napiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: %s, namespace: cpg}\n' "$1"
  printf 'spec:\n  parentCompositePodGroupName: root\n  workloadRef: {workloadName: train, templateName: %s}\n' "$1"
  printf '  schedulingPolicy: {gang: {minCount: %s}}\n' "$2"
  for i in $(seq 0 $(($2 - 1))); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s, namespace: cpg}\nspec:\n' "$1" "$i"
    printf '  schedulingGroup: {podGroupName: %s}\n' "$1"
    printf '  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]\n'
  done
}
composite_condition() {
  kq -n cpg get compositepodgroup root -o jsonpath="{.status.conditions[?(@.type==\"CompositePodGroupInitiallyScheduled\")].$1}"
}
pod_group_condition() {
  kq -n cpg get podgroup "$1" -o jsonpath="{.status.conditions[?(@.type==\"PodGroupInitiallyScheduled\")].$2}"
}

# ---- one node of 4 CPUs from the template, one of 2 made with kubectl: 6 CPUs
cd "$DIR"
up_gang_cluster 1 GenericWorkload=true,GangScheduling=true,CompositePodGroup=true
add_simulated_nodes 2 small-0
k create namespace cpg >/dev/null
{
  printf 'apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: root, namespace: cpg}\n'
  printf 'spec:\n  workloadRef: {workloadName: train, templateName: root}\n  schedulingPolicy: {gang: {minGroupCount: 2}}\n'
  child a 4
  child b 4
} > tree.yaml
out=$(k apply -f tree.yaml) || fail "kubectl apply: $out"

# ---- 1. both gangs need 8 CPUs, there are 6: nothing binds
all_rejected() { [[ $(($(rejected_count cpg a) + $(rejected_count cpg b))) == 8 ]]; }
until_ok 30 all_rejected || fail "the 8 members were not all marked Unschedulable: a $(rejected_count cpg a), b $(rejected_count cpg b)"
expect_eq "$(($(bound_count cpg a) + $(bound_count cpg b)))" "0" "no member of the composite binds while both gangs cannot fit"
# The root's words, then the tree's workload-aware preemption's reason: nothing to evict.
why="minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, No preemption victims found for incoming preemptor"
expect_eq "$( (scheduled_messages cpg a; scheduled_messages cpg b) | sort -u)" "$why" "every member carries the root composite's message"
root_false() { [[ $(composite_condition status) == False ]]; }
until_ok 30 root_false || fail "CompositePodGroup root has no CompositePodGroupInitiallyScheduled=False"
expect_eq "$(composite_condition reason)" "Unschedulable" "the composite's condition is False, reason Unschedulable"
expect_eq "$(composite_condition message)" "$why" "the composite's condition carries the message"

# ---- 2. two more CPUs: the whole tree binds in one go
add_simulated_nodes 2 small-1
all_running() { [[ $(($(running_count cpg a) + $(running_count cpg b))) == 8 ]]; }
until_ok 30 all_running || fail "the composite did not bind whole: a $(bound_count cpg a), b $(bound_count cpg b)"
ok "once there is room, both gangs of the composite are bound (and running), 8 of 8"
root_true() { [[ $(composite_condition status) == True ]]; }
until_ok 30 root_true || fail "CompositePodGroup root did not turn CompositePodGroupInitiallyScheduled=True"
expect_eq "$(composite_condition reason)" "Scheduled" "the composite's condition turns True, reason Scheduled"
a_true() { [[ $(pod_group_condition a status) == True && $(pod_group_condition b status) == True ]]; }
until_ok 30 a_true || fail "the PodGroups' conditions did not turn True"
ok "each child PodGroup's PodGroupInitiallyScheduled is True"

# ---- 3. a tree of priority 1000 (its root's; the tree above has none) needs 4 of the 8 busy CPUs: the
#         tree preempts as one (workload-aware preemption for the root), then binds whole
{
  printf 'apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\nmetadata: {name: urgent, namespace: cpg}\n'
  printf 'spec:\n  workloadRef: {workloadName: serve, templateName: urgent}\n  schedulingPolicy: {gang: {minGroupCount: 1}}\n  priority: 1000\n'
  child u 4 | sed -e 's/parentCompositePodGroupName: root/parentCompositePodGroupName: urgent/' -e 's/workloadName: train/workloadName: serve/'
} > urgent.yaml
out=$(k apply -f urgent.yaml) || fail "kubectl apply: $out"
urgent_running() { [[ $(running_count cpg u) == 4 ]]; }
until_ok 60 urgent_running || fail "the urgent tree did not bind whole: $(bound_count cpg u) of 4"
ok "the tree of priority 1000 evicted lower pods and is bound whole, 4 of 4"
expect_eq "$(($(bound_count cpg a) + $(bound_count cpg b)))" "4" "exactly the 4 CPUs the tree needs were freed"
echo "PASS: composite_pod_group_up"
