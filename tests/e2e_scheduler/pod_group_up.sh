#!/usr/bin/env bash
# Gangs declared the v1.37 way on `ksched up --feature-gates GenericWorkload=true,GangScheduling=true`,
# driven by kubectl (issue #44, KEP-5832): a scheduling.k8s.io/v1beta1 PodGroup with
# schedulingPolicy gang{minCount: 16} and 16 pods naming it in spec.schedulingGroup.podGroupName is
# bound whole and its PodGroupInitiallyScheduled condition turns True (reason Scheduled); a gang
# whose minimum cannot fit stays entirely Pending with upstream's message, its PodGroup says
# False/Unschedulable with that message, and it is bound whole (condition True) once Nodes are
# added; `ksched explain` on a pending member gives the group's members. Then bin/kube-scheduler as
# a process of its own, with its default content type (protobuf), places a PodGroup gang whose pods
# name its profile: bound whole, the PodGroup's condition True; a gang that cannot reach its
# minimum binds no member, its PodGroup False/Unschedulable. One local cluster on a loopback
# port, in memory.
# usage: pod_group_up.sh <ksched> <kube-scheduler> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBE_SCHEDULER=${2:?}; KUBECTL=${3:?}
DIR=$(mktemp -d /tmp/ksched-pod-group-up.XXXXXX)
UP_PID=""
source "$(dirname "$0")/../e2e/up_lib.sh"
source "$(dirname "$0")/gang_lib.sh"
fail() { fail_with_pod_groups pgs "$*"; }

# pod_group <name> <size> <minCount> <cpu per member> [schedulerName]: a v1beta1 PodGroup and its
# members, as YAML.
pod_group() {
  printf 'apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: %s, namespace: pgs}\n' "$1"
  printf 'spec:\n  schedulingPolicy: {gang: {minCount: %s}}\n' "$3"
  for i in $(seq 0 $(($2 - 1))); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s, namespace: pgs}\nspec:\n' "$1" "$i"
    printf '  schedulingGroup: {podGroupName: %s}\n' "$1"
    if [[ -n "${5:-}" ]]; then printf '  schedulerName: %s\n' "$5"; fi
    printf '  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "%s"}}}]\n' "$4"
  done
}
# condition <PodGroup> <field>: its PodGroupInitiallyScheduled condition's status, reason or message.
condition() {
  kq -n pgs get podgroup "$1" -o jsonpath="{.status.conditions[?(@.type==\"PodGroupInitiallyScheduled\")].$2}"
}

# ---- three simulated nodes of 4 CPUs
cd "$DIR"
up_gang_cluster 3
k create namespace pgs >/dev/null

# ---- 16 x 500m on 12 CPUs: bound whole, the PodGroup marked scheduled
out=$(pod_group fits 16 16 500m | k apply -f -) || fail "kubectl apply: $out"
fits_running() { [[ $(running_count pgs fits) == 16 ]]; }
until_ok 30 fits_running || fail "gang 'fits' not bound and running whole: $(bound_count pgs fits) bound"
ok "a PodGroup gang of 16 that fits is bound whole (and running)"
fits_marked() { [[ $(condition fits status) == True ]]; }
until_ok 30 fits_marked || fail "PodGroup 'fits' has no PodGroupInitiallyScheduled=True: $(kq -n pgs get podgroup fits -o yaml)"
expect_eq "$(condition fits reason)" "Scheduled" "the PodGroup's PodGroupInitiallyScheduled condition is True, reason Scheduled"

# ---- 16 x 500m on the 4 CPUs left: 8 members fit, the 9th does not, the group cannot reach 16
pod_group big 16 16 500m | k apply -f - >/dev/null
all_rejected() { [[ $(rejected_count pgs big) == 16 ]]; }
until_ok 30 all_rejected || fail "the 16 members of 'big' were not all marked Unschedulable"
why="minCount (16) cannot be satisfied: 8 scheduled, 7 remaining, No preemption victims found for incoming preemptor"
expect_eq "$(scheduled_messages pgs big)" "$why" "every member of 'big' has upstream's message"
expect_eq "$(bound_count pgs big)" "0" "no member of 'big' is bound"
big_marked() { [[ $(condition big status) == False ]]; }
until_ok 30 big_marked || fail "PodGroup 'big' has no PodGroupInitiallyScheduled=False"
expect_eq "$(condition big reason)" "Unschedulable" "the PodGroup's condition is False, reason Unschedulable"
expect_eq "$(condition big message)" "$why" "the PodGroup's condition carries the group's message"

# ---- ksched explain on a pending member (it lists pods as protobuf, spec.schedulingGroup included)
out=$("$KSCHED" explain big-3 -n pgs --kubeconfig "$DIR/kubeconfig" --feature-gates GenericWorkload=true,GangScheduling=true 2>&1) ||
  fail "ksched explain big-3: $out"
expect_contains "$out" "Group:    PodGroup big (gang, minCount 16): 16 members exist, 0 bound, 0 assumed" \
  "ksched explain gives the member's PodGroup and its 16 members"

# ---- two more nodes, made with kubectl: room for the whole gang
add_simulated_nodes 2 extra-0 extra-1
big_running() { [[ $(running_count pgs big) == 16 ]]; }
until_ok 30 big_running || fail "gang 'big' not bound whole once nodes were added: $(bound_count pgs big) bound"
ok "once nodes are added, the PodGroup gang of 16 is bound whole (and running)"
big_scheduled() { [[ $(condition big status) == True ]]; }
until_ok 30 big_scheduled || fail "PodGroup 'big' did not turn PodGroupInitiallyScheduled=True"
expect_eq "$(condition big reason)" "Scheduled" "the PodGroup's condition turns True, reason Scheduled"

# ---- bin/kube-scheduler, its own process, default content type (protobuf), profile 'external':
# a gang of 4 whose pods name that profile (the in-process scheduler leaves them alone) on a node
# of its own. Before spec.schedulingGroup had its protobuf field it saw plain pods: no gang, no
# PodGroup condition.
add_simulated_nodes 4 ext-0
cat > "$DIR/external.yaml" <<YAML
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: $DIR/kubeconfig}
leaderElection: {leaderElect: false}
profiles: [{schedulerName: external}]
YAML
"$KUBE_SCHEDULER" --config "$DIR/external.yaml" --secure-port 0 --feature-gates GangScheduling=true,GenericWorkload=true \
  > "$DIR/external.log" 2>&1 &
EXTERNAL_PID=$!
EXTRA_CLEANUP='kill -TERM $EXTERNAL_PID; wait $EXTERNAL_PID'
pod_group ext 4 4 500m external | k apply -f - >/dev/null
ext_running() { [[ $(running_count pgs ext) == 4 ]]; }
until_ok 30 ext_running || fail "kube-scheduler did not bind gang 'ext' whole: $(bound_count pgs ext) bound; $(tail -20 "$DIR/external.log")"
ok "bin/kube-scheduler (protobuf) binds a PodGroup gang of 4 whole"
ext_marked() { [[ $(condition ext status) == True ]]; }
until_ok 30 ext_marked || fail "kube-scheduler did not mark PodGroup 'ext' scheduled: $(kq -n pgs get podgroup ext -o yaml)"
expect_eq "$(condition ext reason)" "Scheduled" "kube-scheduler turns the PodGroup's condition True, reason Scheduled"
expect_eq "$(kq -n pgs get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | grep -c '^ext-[0-9]*=ext-0$')" \
  "4" "the gang is on the node only it fits on"
# 6 x 500m on the 2 CPUs left: one by one, 4 would bind; as a gang none does, and the PodGroup says so.
pod_group extbig 6 6 500m external | k apply -f - >/dev/null
extbig_rejected() { [[ $(rejected_count pgs extbig) == 6 ]]; }
until_ok 30 extbig_rejected || fail "kube-scheduler did not mark the 6 members of 'extbig' Unschedulable: $(bound_count pgs extbig) bound"
expect_eq "$(bound_count pgs extbig)" "0" "kube-scheduler binds no member of a gang that cannot reach its minimum"
extbig_marked() { [[ $(condition extbig status) == False ]]; }
until_ok 30 extbig_marked || fail "kube-scheduler did not mark PodGroup 'extbig' False"
expect_eq "$(condition extbig reason)" "Unschedulable" "kube-scheduler says the PodGroup is Unschedulable"
echo "PASS: pod_group_up"
