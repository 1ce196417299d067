#!/usr/bin/env bash
# A Job's spec.scheduling (v1.37, gate WorkloadWithJob; issue #44) submitted with kubectl on
# `ksched up --feature-gates GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true`, two
# simulated nodes of 4 CPUs (two 1500m pods each):
# - `kubectl explain job.spec.scheduling` (and down to gang.minCount) reads the field from the
#   server's OpenAPI document;
# - a Job of parallelism 4 (NonIndexed; without the field it would get a basic group) with
#   schedulingPolicy.gang.minCount 3 and disruptionMode.all gets a Workload
#   (scheduling.k8s.io/v1beta1) whose template and a PodGroup both say gang minCount 3 and
#   disruption all; its 4 pods carry the group and are bound;
# - the field is immutable except gang.minCount (the API server's message through kubectl);
# - a second such Job (minCount 3, parallelism 3) while no node has room: none of its pods is
#   bound (all Unschedulable) until the first Job goes, then all 3 are bound: bound whole.
# One local cluster on a loopback port, in memory.
# usage: up_job_scheduling.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-up-job-scheduling.XXXXXX)
UP_PID=""
source "$(dirname "$0")/up_lib.sh"
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$DIR/up.log" >&2 || true
  k -n gangs get jobs,pods -o wide >&2 || true
  k -n gangs get workloads,podgroups -o yaml >&2 || true
  exit 1
}

cd "$DIR"
up_gang_cluster 2 GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true '*'
k create namespace gangs >/dev/null

# kubectl explain reads spec.scheduling from the OpenAPI v3 document of batch/v1.
out=$(k explain job.spec.scheduling)
expect_contains "$out" "JobSchedulingConfiguration" "kubectl explain job.spec.scheduling: its type"
for f in schedulingPolicy schedulingConstraints disruptionMode resourceClaims; do
  expect_contains "$out" "$f" "kubectl explain job.spec.scheduling lists $f"
done
out=$(k explain job.spec.scheduling.schedulingPolicy.gang)
expect_contains "$out" "minCount" "kubectl explain job.spec.scheduling.schedulingPolicy.gang lists minCount"

job_yaml() {  # job_yaml <name> <parallelism> <minCount>
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: gangs}
spec:
  parallelism: $2
  scheduling:
    schedulingPolicy:
      gang: {minCount: $3}
    disruptionMode:
      all: {}
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: busybox
        command: [sleep, "3600"]
        resources: {requests: {cpu: 1500m}}
YAML
}
out=$(job_yaml train 4 3 | k create -f -)
expect_contains "$out" "job.batch/train created" "kubectl create a Job of 4 with a gang of minCount 3"
expect_eq "$(kq -n gangs get job train -o jsonpath='{.spec.scheduling.schedulingPolicy.gang.minCount}')" "3" \
  "the server keeps spec.scheduling"

# The Workload (v1beta1): one template, gang minCount 3 (not parallelism), disruption all.
wl_name() { kq -n gangs get workloads -o jsonpath='{.items[0].metadata.name}'; }
has_wl() { [[ -n "$(wl_name)" ]]; }
until_ok 30 has_wl || fail "no Workload for the Job"
WL=$(wl_name)
expect_eq "$(kq -n gangs get workloads.v1beta1.scheduling.k8s.io "$WL" -o jsonpath='{.spec.controllerRef.kind}/{.spec.controllerRef.name} {.spec.podGroupTemplates[0].name}={.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount} all={.spec.podGroupTemplates[0].disruptionMode.all}')" \
  "Job/train train-pgt-0=3 all={}" "Workload template: gang minCount 3, disruption all"

# The PodGroup made from the template.
pg_name() { kq -n gangs get podgroups -o jsonpath='{.items[0].metadata.name}'; }
has_pg() { [[ -n "$(pg_name)" ]]; }
until_ok 30 has_pg || fail "no PodGroup for the Job"
PG=$(pg_name)
expect_eq "$(kq -n gangs get podgroup "$PG" -o jsonpath='{.spec.workloadRef.workloadName}/{.spec.workloadRef.templateName} {.spec.schedulingPolicy.gang.minCount} all={.spec.disruptionMode.all}')" \
  "$WL/train-pgt-0 3 all={}" "PodGroup: gang minCount 3, disruption all"

# Its 4 pods carry the group and are bound.
pods_of() { kq -n gangs get pods -l batch.kubernetes.io/job-name="$1" -o jsonpath="{range .items[*]}{$2}{\"\\n\"}{end}"; }
count_of() { pods_of "$1" "$2" | grep -c "${3:-.}" || true; }
four_bound() { [[ $(count_of train .spec.schedulingGroup.podGroupName "^$PG$") == 4 && $(count_of train .spec.nodeName) == 4 ]]; }
until_ok 60 four_bound || fail "4 pods with the group, bound: $(count_of train .spec.nodeName) bound"
ok "all 4 pods carry spec.schedulingGroup.podGroupName=$PG and are bound"

# Immutable but for gang.minCount, with the server's messages.
out=$(k -n gangs patch job train --type merge -p '{"spec":{"scheduling":{"disruptionMode":{"all":null,"single":{}}}}}') &&
  fail "disruptionMode changed: $out"
expect_contains "$out" "spec.scheduling.disruptionMode: Invalid value: null: field is immutable" "disruptionMode is immutable"
out=$(k -n gangs patch job train --type merge -p '{"spec":{"scheduling":null}}') && fail "spec.scheduling cleared: $out"
expect_contains "$out" "spec.scheduling: Invalid value: null: field cannot be cleared once set" "spec.scheduling stays set"
out=$(k -n gangs patch job train --type merge -p '{"spec":{"scheduling":{"schedulingPolicy":{"gang":{"minCount":0}}}}}') &&
  fail "minCount 0 accepted: $out"
expect_contains "$out" "spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1" \
  "minCount at least 1"
out=$(k -n gangs patch job train --type merge -p '{"spec":{"scheduling":{"schedulingPolicy":{"gang":{"minCount":4}}}}}')
expect_contains "$out" "job.batch/train patched" "gang.minCount may change"

# ---- bound whole: a gang of 3 with no room anywhere stays unbound, then binds all at once
job_yaml wait 3 3 | k create -f - >/dev/null
unschedulable() {
  [[ $(count_of wait '.status.conditions[?(@.type=="PodScheduled")].reason' '^Unschedulable$') == 3 ]]
}
until_ok 60 unschedulable || fail "the second gang's 3 pods are not all Unschedulable: $(k -n gangs get pods -o wide)"
expect_eq "$(count_of wait .spec.nodeName)" "0" "no room for 3: none of the gang's pods is bound"
k -n gangs delete job train >/dev/null
three_bound() { [[ $(count_of wait .spec.nodeName) == 3 ]]; }
until_ok 60 three_bound || fail "the gang of 3 after room was made: $(count_of wait .spec.nodeName) bound"
ok "room for 3: all 3 bound"
echo "PASS"
