#!/usr/bin/env bash
# A gang submitted with kubectl as a user would on v1.37 (issue #44): on `ksched up --feature-gates
# GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true`, an Indexed Job of 16 pods whose
# spec.scheduling asks for a gang without minCount gets from the Job controller a Workload
# (scheduling.k8s.io/v1beta1, one pod group template "<job>-pgt-0", gang of minCount 16 =
# parallelism) and a PodGroup (v1beta1) made from it, both owned by the Job; its 16 pods carry
# spec.schedulingGroup.podGroupName and are bound. A Job without spec.scheduling (NonIndexed) gets
# a basic Workload and PodGroup, and its pods join that group (upstream's universal
# representation, kubernetes/kubernetes PR #140188). Deleting a Job removes its own objects
# (garbage collector). WorkloadWithJob without GenericWorkload is refused before anything starts.
# What this asserts of scheduling is that the pods are bound: whether the scheduler places them as
# a gang through schedulingGroup is the scheduler's part.
# One local cluster on a loopback port, in memory.
# usage: up_job_podgroup.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-up-job-podgroup.XXXXXX)
UP_PID=""
source "$(dirname "$0")/up_lib.sh"
fail() {
  echo "FAIL: $*" >&2
  tail -30 "$DIR/up.log" >&2 || true
  k -n gangs get jobs,pods -o wide >&2 || true
  k -n gangs get workloads,podgroups -o yaml >&2 || true
  exit 1
}

# ---- the gate needs GenericWorkload, as upstream's dependency check says
out=$("$KSCHED" up --ephemeral --listen 127.0.0.1:0 --ui-listen "" --scheduler-secure-port -1 --kubeconfig-out "$DIR/k0" \
  --feature-gates WorkloadWithJob=true 2>&1) && fail "WorkloadWithJob without GenericWorkload was accepted"
expect_contains "$out" "WorkloadWithJob is enabled, but depends on features that are disabled: [GenericWorkload]" \
  "WorkloadWithJob needs GenericWorkload"

# ---- four simulated nodes of 4 CPUs, the controllers, the three gates
cd "$DIR"
up_gang_cluster 4 GenericWorkload=true,GangScheduling=true,WorkloadWithJob=true '*'
k create namespace gangs >/dev/null

job_yaml() {  # job_yaml <name> <completionMode> <parallelism> [gang]
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: gangs}
spec:
  completionMode: $2
  completions: $3
  parallelism: $3
YAML
  [[ "${4:-}" == gang ]] && printf '  scheduling:\n    schedulingPolicy:\n      gang: {}\n'
  cat <<YAML
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: busybox
        command: [sleep, "3600"]
        resources: {requests: {cpu: 500m}}
YAML
}
out=$(job_yaml train Indexed 16 gang | k create -f -)
expect_contains "$out" "job.batch/train created" "kubectl create an Indexed Job of 16 asking for a gang"

# The Workload: named after the Job, owned by it, one gang group of minCount = parallelism.
wl_name() { kq -n gangs get workloads -o jsonpath='{.items[0].metadata.name}'; }
has_wl() { [[ -n "$(wl_name)" ]]; }
until_ok 30 has_wl || fail "no Workload for the Job"
WL=$(wl_name)
expect_contains "$WL" "train-" "the Workload is named after the Job"
expect_eq "$(kq -n gangs get workload "$WL" -o jsonpath='{.spec.controllerRef.apiGroup}/{.spec.controllerRef.kind}/{.spec.controllerRef.name}')" \
  "batch/Job/train" "Workload controllerRef names the Job"
# Written at v1beta1 (podGroupTemplates); still read at v1alpha1 (podGroups) by conversion.
expect_eq "$(kq -n gangs get workloads.v1alpha1.scheduling.k8s.io "$WL" -o jsonpath='{.spec.podGroups[0].name}={.spec.podGroups[0].policy.gang.minCount}')" \
  "train-pgt-0=16" "Workload read at v1alpha1: one gang pod group, minCount 16"
expect_eq "$(kq -n gangs get workload "$WL" -o jsonpath='{.spec.podGroupTemplates[0].name}={.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount}')" \
  "train-pgt-0=16" "Workload: one gang pod group, minCount 16"
expect_eq "$(kq -n gangs get workload "$WL" -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller}')" \
  "Job/train/true" "the Job controls the Workload"

# The PodGroup made from it.
pg_name() { kq -n gangs get podgroups -o jsonpath='{.items[0].metadata.name}'; }
has_pg() { [[ -n "$(pg_name)" ]]; }
until_ok 30 has_pg || fail "no PodGroup for the Job"
PG=$(pg_name)
expect_eq "$(kq -n gangs get podgroups -o name | wc -l | tr -d ' ')" "1" "one PodGroup"
expect_eq "$(kq -n gangs get podgroup "$PG" -o jsonpath='{.spec.workloadRef.workloadName}/{.spec.workloadRef.templateName}/{.spec.schedulingPolicy.gang.minCount}')" \
  "$WL/train-pgt-0/16" "PodGroup: workloadRef and gang minCount 16"
expect_eq "$(kq -n gangs get podgroup "$PG" -o jsonpath='{range .metadata.ownerReferences[*]}{.kind}:{.name};{end}')" \
  "Job:train;Workload:$WL;" "PodGroup owned by the Job (controller) and the Workload"

# The 16 pods carry the group and are bound (and run).
group_count() { kq -n gangs get pods -l batch.kubernetes.io/job-name=train -o jsonpath='{range .items[*]}{.spec.schedulingGroup.podGroupName}{"\n"}{end}' | grep -c "^$PG$" || true; }
bound_count() { kq -n gangs get pods -l batch.kubernetes.io/job-name=train -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c . || true; }
sixteen_bound() { [[ $(group_count) == 16 && $(bound_count) == 16 ]]; }
until_ok 60 sixteen_bound || fail "16 pods with the group, bound: $(group_count) with the group, $(bound_count) bound"
ok "all 16 pods carry spec.schedulingGroup.podGroupName=$PG and are bound"
active_16() { [[ "$(kq -n gangs get job train -o jsonpath='{.status.active}')" == 16 ]]; }
until_ok 30 active_16 || fail "the Job does not count 16 active pods"
ok "the Job counts 16 active pods"

# ---- a Job without spec.scheduling (NonIndexed): a basic Workload and PodGroup, its pods join it
job_yaml plain NonIndexed 2 | k create -f - >/dev/null
plain_wl() { kq -n gangs get workloads -o jsonpath='{range .items[?(@.spec.controllerRef.name=="plain")]}{.metadata.name}{end}'; }
has_plain_wl() { [[ -n "$(plain_wl)" ]]; }
until_ok 30 has_plain_wl || fail "no Workload for the Job without spec.scheduling"
PWL=$(plain_wl)
expect_eq "$(kq -n gangs get workload "$PWL" -o jsonpath='{.spec.podGroupTemplates[0].name} basic={.spec.podGroupTemplates[0].schedulingPolicy.basic}')" \
  "plain-pgt-0 basic={}" "a Job without spec.scheduling: a basic pod group template"
plain_pg() { kq -n gangs get podgroups -o jsonpath="{range .items[?(@.spec.workloadRef.workloadName==\"$PWL\")]}{.metadata.name}{end}"; }
has_plain_pg() { [[ -n "$(plain_pg)" ]]; }
until_ok 30 has_plain_pg || fail "no PodGroup for the Job without spec.scheduling"
PPG=$(plain_pg)
plain_pods() {
  [[ $(kq -n gangs get pods -l batch.kubernetes.io/job-name=plain -o jsonpath='{range .items[*]}{.spec.schedulingGroup.podGroupName}{"\n"}{end}' | grep -c "^$PPG$" || true) == 2 ]]
}
until_ok 30 plain_pods || fail "the plain Job's 2 pods with its PodGroup"
ok "the plain Job's 2 pods carry spec.schedulingGroup.podGroupName=$PPG"

# ---- deleting a Job removes its Workload and PodGroup, not the other Job's
k -n gangs delete job train >/dev/null
gone() { [[ "$(kq -n gangs get workloads,podgroups -o name | sort | tr '\n' ' ')" == "podgroup.scheduling.k8s.io/$PPG workload.scheduling.k8s.io/$PWL " ]]; }
until_ok 30 gone || fail "left after deleting the Job: $(kq -n gangs get workloads,podgroups -o name)"
ok "the Workload and PodGroup are removed with their Job; the other Job's stay"
echo "PASS"
