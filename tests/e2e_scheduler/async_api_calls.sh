#!/usr/bin/env bash
# kube-scheduler with SchedulerAsyncAPICalls (beta, off by default in v1.35): bindings, the
# unschedulable pod's status, a preemptor's nomination all go through the dispatcher and reach
# the server as without it; its three metrics appear (and only with the gate: scheduling.sh).
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED"

start_scheduler sched --leader-elect=false --feature-gates SchedulerAsyncAPICalls=true
PORT=$LAST_PORT
ready() { [[ $(get_url "$PORT" /readyz | head -1) == 200 ]]; }
wait_until 30 "scheduler readyz" ready
k apply -f "$(dirname "$0")/three_nodes.yaml" >/dev/null  # n1, n2: 4 CPUs each; n3 tainted

run_pod() {  # run_pod <name> <cpu> [priorityClassName]
  local pc=""
  [[ -n "${3:-}" ]] && pc="\"priorityClassName\":\"$3\","
  k -n e2e run "$1" --image=registry.k8s.io/pause:3.10 --restart=Never \
    --overrides="{\"spec\":{$pc\"containers\":[{\"name\":\"p\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"$2\"}}}]}}" >/dev/null
}
for i in 1 2 3 4; do run_pod "p$i" 1500m; done
run_pod huge 16
bound() { [[ $(k -n e2e get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .) == 4 ]]; }
wait_until 60 "4 pods bound" bound
huge_rejected() {
  [[ $(k -n e2e get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]]
}
wait_until 30 "huge gets PodScheduled=False" huge_rejected
msg=$(k -n e2e get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
expect_eq "$msg" "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod." "FitError message"

# A higher-priority pod preempts one of them: nominated (a status patch through the dispatcher),
# then bound once its victim is gone.
k create priorityclass urgent --value=1000 >/dev/null
run_pod urgent 2 urgent
urgent_bound() { [[ -n $(k -n e2e get pod urgent -o jsonpath='{.spec.nodeName}') ]]; }
wait_until 60 "urgent bound after preemption" urgent_bound
expect_eq "$(k -n e2e get pods -o name | grep -c '^pod/p[1-4]$')" "3" "one victim evicted"

metrics=$(get_url "$PORT" /metrics)
ok_binds=$(grep '^scheduler_async_api_call_execution_total{call_type="pod_binding",result="success"}' <<<"$metrics" | awk '{print $2}')
expect_eq "$ok_binds" "5" "bindings executed by the dispatcher"
patches=$(grep '^scheduler_async_api_call_execution_total{call_type="pod_status_patch",result="success"}' <<<"$metrics" | awk '{print $2}')
[[ -n "$patches" && "$patches" -ge 2 ]] || fail "status patches through the dispatcher: '$patches' (want >= 2: huge's condition, urgent's nomination)"
expect_contains "$metrics" 'scheduler_pending_async_api_calls{call_type="pod_binding"} 0' "nothing left pending"
expect_contains "$metrics" "# TYPE scheduler_async_api_call_execution_duration_seconds histogram" "duration histogram"
echo "PASS: async_api_calls"
