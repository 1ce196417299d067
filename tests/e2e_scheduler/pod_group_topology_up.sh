#!/usr/bin/env bash
# Topology-aware placement of a PodGroup gang (KEP-5732) on `ksched up --feature-gates
# GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true`, driven by kubectl:
# a PodGroup with schedulingConstraints.topology [{key: example.com/rack}] and a gang of 4 x 2 CPUs,
# on two racks of one 4-CPU node each (and ksched up's own unlabelled node), would fit across the
# racks but in neither: every member stays Pending with upstream's "0/2 placements are available"
# message and the PodGroup says False/Unschedulable with it. A second node in rack b makes room
# there: the gang is bound whole, every member in rack b. One local cluster on a loopback port.
# usage: pod_group_topology_up.sh <ksched> <kube-scheduler (unused)> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${3:?}
DIR=$(mktemp -d /tmp/ksched-pod-group-topology-up.XXXXXX)
UP_PID=""
source "$(dirname "$0")/../e2e/up_lib.sh"
source "$(dirname "$0")/gang_lib.sh"
fail() { fail_with_pod_groups tas "$*"; }
# rack_node <name> <rack>: a 4-CPU Node labelled example.com/rack=<rack>, which the kubelet stand-in runs.
rack_node() {
  printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n' "$1"
  printf '  labels: {type: simulated, kubernetes.io/hostname: %s, example.com/rack: %s}\n' "$1" "$2"
  printf 'status:\n  capacity: {cpu: "4", memory: 16Gi, pods: "110"}\n  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}\n'
}
condition() {
  kq -n tas get podgroup "$1" -o jsonpath="{.status.conditions[?(@.type==\"PodGroupInitiallyScheduled\")].$2}"
}

cd "$DIR"
up_gang_cluster 1 GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true
k create namespace tas >/dev/null
{ rack_node ra-0 rack-a; echo ---; rack_node rb-0 rack-b; } | k apply -f - >/dev/null

# ---- the PodGroup and its 4 members of 2 CPUs
{
  printf 'apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: train, namespace: tas}\n'
  printf 'spec:\n  schedulingPolicy: {gang: {minCount: 4}}\n'
  printf '  schedulingConstraints: {topology: [{key: example.com/rack}]}\n'
  for i in 0 1 2 3; do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: train-%s, namespace: tas}\nspec:\n' "$i"
    printf '  schedulingGroup: {podGroupName: train}\n'
    printf '  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2"}}}]\n'
  done
} > train.yaml
out=$(k apply -f train.yaml) || fail "kubectl apply: $out"
expect_eq "$(kq -n tas get podgroup train -o jsonpath='{.spec.schedulingConstraints.topology[0].key}')" "example.com/rack" \
  "the API server keeps the PodGroup's topology constraint with the gate on"

all_rejected() { [[ $(rejected_count tas train) == 4 ]]; }
until_ok 30 all_rejected || fail "the 4 members of 'train' were not all marked Unschedulable"
why="0/2 placements are available, first placement status: minCount (4) cannot be satisfied: 2 scheduled, 1 remaining"
expect_eq "$(scheduled_messages tas train)" "$why" "every member of a gang that fits only across racks has upstream's message"
expect_eq "$(bound_count tas train)" "0" "no member is bound"
marked() { [[ $(condition train status) == False ]]; }
until_ok 30 marked || fail "PodGroup 'train' has no PodGroupInitiallyScheduled=False"
expect_eq "$(condition train message)" "$why" "the PodGroup's condition carries the group's message"

# ---- a second node in rack b: the gang fits there, and only there
rack_node rb-1 rack-b | k apply -f - >/dev/null
running() { [[ $(running_count tas train) == 4 ]]; }
until_ok 30 running || fail "gang 'train' not bound whole once rack b grew: $(bound_count tas train) bound"
ok "the gang is bound whole (and running) once one rack can hold it"
nodes=$(kq -n tas get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | tr '\n' ' ')
expect_eq "$nodes" "rb-0 rb-1 " "every member is in rack b"
scheduled() { [[ $(condition train status) == True ]]; }
until_ok 30 scheduled || fail "PodGroup 'train' did not turn PodGroupInitiallyScheduled=True"

# ---- a second constraint is refused, as v1.36's validation (at most 1 item)
bad=$(printf 'apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: two, namespace: tas}\nspec:\n  schedulingPolicy: {gang: {minCount: 1}}\n  schedulingConstraints: {topology: [{key: a.io/x}, {key: a.io/y}]}\n' | k apply -f - || true)
expect_contains "$bad" "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item" \
  "a PodGroup with two topology constraints is refused with upstream's message"
echo "PASS: pod_group_topology_up"
