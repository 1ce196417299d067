#!/usr/bin/env bash
# Gang scheduling with kubectl (GenericWorkload on the server; GangScheduling and GenericWorkload on
# kube-scheduler): a gang that fits is bound whole; a gang whose minimum cannot fit stays entirely
# Pending with upstream's message, and is bound whole once room is freed.
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED" --feature-gates GenericWorkload=true

start_scheduler sched --leader-elect=false --feature-gates GangScheduling=true,GenericWorkload=true
PORT=$LAST_PORT
ready() { [[ $(get_url "$PORT" /readyz | head -1) == 200 ]]; }
wait_until 30 "scheduler readyz" ready
k apply -f "$(dirname "$0")/three_nodes.yaml" >/dev/null  # n1, n2: 4 CPUs each; n3 tainted

# gang <name> <size> <minCount> <cpu per member>: a Workload and its members, as YAML.
source "$(dirname "$0")/gang_yaml.sh"
gang() { gang_yaml e2e "$@"; }
bound_count() { k -n e2e get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | grep -c "^$1-[0-9]*=n" || true; }

gang fits 4 4 1 | k apply -f - >/dev/null
fits_bound() { [[ $(bound_count fits) == 4 ]]; }
wait_until 30 "gang 'fits' bound whole" fits_bound

# 4 x 2 CPUs on the 4 CPUs left: two members fit, the third does not, the group cannot reach 4.
gang big 4 4 2 | k apply -f - >/dev/null
big_rejected() {
  [[ $(k -n e2e get pod big-3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]]
}
wait_until 30 "gang 'big' rejected" big_rejected
for i in 0 1 2 3; do
  msg=$(k -n e2e get pod "big-$i" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
  # 'fits' has big's priority: workload-aware preemption finds no victim and says so.
  expect_eq "$msg" "minCount (4) cannot be satisfied: 2 scheduled, 1 remaining, No preemption victims found for incoming preemptor" \
    "big-$i PodScheduled message"
done
expect_eq "$(bound_count big)" "0" "no member of 'big' bound"

k -n e2e delete pod fits-0 fits-1 fits-2 fits-3 --grace-period=0 --force >/dev/null
big_bound() { [[ $(bound_count big) == 4 ]]; }
wait_until 30 "gang 'big' bound whole once room is freed" big_bound

# The pod-group cycle's metrics (upstream's, with GenericWorkload): one attempt per group cycle;
# workload-aware preemption's, tried when 'big' did not fit (ksched's evaluator answers "No preemption victims
# found" as UnschedulableAndUnresolvable).
metrics=$(get_url "$PORT" /metrics)
for want in 'scheduler_podgroup_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 2' \
            'scheduler_podgroup_schedule_attempts_total{profile="default-scheduler",result="unschedulable"}' \
            'scheduler_podgroup_scheduling_algorithm_duration_seconds_count' \
            'scheduler_workload_preemption_attempts_total{result="UnschedulableAndUnresolvable"}' \
            'scheduler_preemption_evaluation_duration_seconds_count{preemptor="podgroup",result="UnschedulableAndUnresolvable"}' \
            '# TYPE scheduler_preemption_pdb_violations_total counter'; do
  [[ "$metrics" == *"$want"* ]] || fail "kube-scheduler's /metrics lacks: $want"
done
echo "ok: the pod-group metrics"
echo "PASS: gang"
