#!/usr/bin/env bash
# One kube-scheduler against `ksched apiserver`: schedulable pods are bound with Scheduled events;
# an unschedulable pod gets upstream's FailedScheduling message and PodScheduled condition (also
# when its requests are pod-level ones);
# /metrics counts the attempts; /healthz and /readyz reflect state; SIGTERM exits 0.
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED"

start_scheduler sched --leader-elect=false -v=2
SCHED=$LAST_PID; PORT=$LAST_PORT
ready() { [[ $(get_url "$PORT" /readyz | head -1) == 200 ]]; }
wait_until 30 "scheduler readyz" ready
out=$(get_url "$PORT" /healthz)
expect_eq "$(head -1 <<<"$out")" "200" "/healthz status"
expect_contains "$out" "ok" "/healthz body"

out=$(k apply -f "$(dirname "$0")/three_nodes.yaml")
expect_contains "$out" "node/n3 created" "nodes created"

for i in 1 2 3 4 5; do
  k -n e2e run "p$i" --image=registry.k8s.io/pause:3.10 --restart=Never \
    --overrides='{"spec":{"containers":[{"name":"p","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}]}}' >/dev/null
done
k -n e2e run huge --image=registry.k8s.io/pause:3.10 --restart=Never \
  --overrides='{"spec":{"containers":[{"name":"p","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"16"}}}]}}' >/dev/null

bound() { [[ $(k -n e2e get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .) == 5 ]]; }
wait_until 60 "5 pods bound" bound
nodes=$(k -n e2e get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}')
[[ "$nodes" != *"=n3"* ]] || fail "a pod without toleration landed on the tainted node: $nodes"
cond=$(k -n e2e get pod p1 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}')
expect_eq "$cond" "True" "p1 PodScheduled condition"

has_unschedulable_condition() {
  [[ $(k -n e2e get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]]
}
wait_until 30 "huge gets PodScheduled=False" has_unschedulable_condition
msg=$(k -n e2e get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
expect_eq "$msg" "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod." "FitError message"

events() { k -n e2e get events -o jsonpath='{range .items[*]}{.reason}|{.regarding.name}{.involvedObject.name}|{.note}{.message}{"\n"}{end}'; }
has_events() { [[ $(events | grep -c '^Scheduled|') == 5 ]] && events | grep -q '^FailedScheduling|huge|'; }
wait_until 30 "Scheduled and FailedScheduling events" has_events
ev=$(events)
expect_contains "$ev" "Scheduled|p1|Successfully assigned e2e/p1 to n" "Scheduled event text"
expect_contains "$ev" "FailedScheduling|huge|$msg" "FailedScheduling event text"
out=$(k -n e2e get events)
expect_contains "$out" "Successfully assigned e2e/p2" "kubectl get events shows Scheduled"

metrics=$(get_url "$PORT" /metrics)
expect_contains "$metrics" 'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 5' "scheduled attempts"
failed_events=$(events | grep -c '^FailedScheduling|huge|' || true)
unsched_attempts=$(grep '^scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"}' <<<"$metrics" | awk '{print $2}')
[[ -n "$unsched_attempts" && "$unsched_attempts" -ge 1 ]] || fail "unschedulable attempts missing: $unsched_attempts"
expect_contains "$metrics" "# TYPE scheduler_scheduling_attempt_duration_seconds histogram" "attempt duration histogram"
expect_contains "$metrics" 'scheduler_pending_pods{queue="unschedulable"} 1' "one pending unschedulable pod"
[[ "$metrics" != *scheduler_async_api_call* ]] || fail "async API-call metrics without SchedulerAsyncAPICalls"
out=$(get_url "$PORT" /configz)
expect_contains "$out" '"componentconfig"' "/configz"
out=$(get_url "$PORT" "/readyz?verbose")
expect_contains "$out" "[+]sched-handler-sync ok" "readyz verbose"

# A pod whose PriorityClass says preemptionPolicy: Never gets the policy from Priority admission and
# does not preempt, even where evicting lower-priority pods would make room.
k create priorityclass polite --value=1000 --preemption-policy=Never >/dev/null
k -n e2e run never --image=registry.k8s.io/pause:3.10 --restart=Never \
  --overrides='{"spec":{"priorityClassName":"polite","containers":[{"name":"p","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"3500m"}}}]}}' >/dev/null
expect_eq "$(k -n e2e get pod never -o jsonpath='{.spec.preemptionPolicy} {.spec.priority}')" "Never 1000" "policy copied from the class"
never_refused() {
  [[ $(k -n e2e get pod never -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}') == *"preemption: not eligible due to preemptionPolicy=Never."* ]]
}
wait_until 30 "never pod reported not eligible for preemption" never_refused
expect_eq "$(k -n e2e get pods -o name | grep -c '^pod/p[1-5]$')" "5" "no pod was preempted"
[[ -z $(k -n e2e get pod never -o jsonpath='{.status.nominatedNodeName}') ]] || fail "a Never pod was nominated"

# RuntimeClass overhead counts toward a pod's requests: 500m alone would fit, with the class's
# 3 CPU of overhead it does not.
cat > "$E2E_DIR/heavy-rt.yaml" <<'YAML'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: heavy-rt}
handler: runc
overhead: {podFixed: {cpu: "3"}}
YAML
k create -f "$E2E_DIR/heavy-rt.yaml" >/dev/null
k -n e2e run overhead --image=registry.k8s.io/pause:3.10 --restart=Never \
  --overrides='{"spec":{"runtimeClassName":"heavy-rt","containers":[{"name":"p","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"500m"}}}]}}' >/dev/null
expect_eq "$(k -n e2e get pod overhead -o jsonpath='{.spec.overhead.cpu}')" "3" "overhead copied from the runtime class"
overhead_refused() {
  [[ $(k -n e2e get pod overhead -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}') == *"2 Insufficient cpu"* ]]
}
wait_until 30 "overhead pod refused for Insufficient cpu" overhead_refused

# Pod-level resources (spec.resources, PodLevelResources, on by default): the pod level, not the
# containers' 100m, is what must fit. 6 CPU at pod level fits no node and gets upstream's message;
# 500m at pod level binds.
k -n e2e run plr-huge --image=registry.k8s.io/pause:3.10 --restart=Never \
  --overrides='{"spec":{"resources":{"requests":{"cpu":"6"}},"containers":[{"name":"p","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"100m"}}}]}}' >/dev/null
k -n e2e run plr-small --image=registry.k8s.io/pause:3.10 --restart=Never \
  --overrides='{"spec":{"resources":{"requests":{"cpu":"500m","memory":"256Mi"}},"containers":[{"name":"p","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"100m"}}}]}}' >/dev/null
plr_refused() {
  [[ $(k -n e2e get pod plr-huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]]
}
wait_until 30 "pod-level 6 CPU pod refused" plr_refused
expect_eq "$(k -n e2e get pod plr-huge -o jsonpath='{.status.phase} {.spec.nodeName}')" "Pending " "pod-level 6 CPU pod stays Pending"
expect_eq "$(k -n e2e get pod plr-huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')" \
  "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod." \
  "pod-level FitError message"
plr_bound() { [[ -n $(k -n e2e get pod plr-small -o jsonpath='{.spec.nodeName}') ]]; }
wait_until 30 "pod-level 500m pod bound" plr_bound

kill -TERM "$SCHED"
code=0; wait "$SCHED" || code=$?
expect_eq "$code" "0" "kube-scheduler exit code after SIGTERM"
grep -q "Received signal, shutting down" "$E2E_DIR/sched.log" || fail "no shutdown log line"
# Without --authentication-kubeconfig/--authorization-kubeconfig (and not in a pod) /metrics answers
# 403 to every token; upstream says why at start-up, and so do we.
grep -q "No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won't work." "$E2E_DIR/sched.log" ||
  fail "no start-up warning about the missing authorization kubeconfig"
grep -q "No authentication-kubeconfig provided in order to lookup client-ca-file" "$E2E_DIR/sched.log" ||
  fail "no start-up warning about the missing authentication kubeconfig"
# Delegated authentication/authorization of /metrics through the API server's TokenReview and
# SubjectAccessReview: 401 for an unknown token, 200 for the admin (system:masters), 403 for alice
# (token-file user without any RBAC binding).
get_url_token() { /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import ssl, sys, urllib.request, urllib.error
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
req = urllib.request.Request(f"https://127.0.0.1:{sys.argv[1]}{sys.argv[2]}")
if sys.argv[3]: req.add_header("Authorization", "Bearer " + sys.argv[3])
try:
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r: print(r.status)
except urllib.error.HTTPError as e: print(e.code)
except Exception as e: print(0)
PY
}
AUTH_PORT=$(free_port)
"$KUBE_SCHEDULER" --kubeconfig "$SCHED_KUBECONFIG" --bind-address 127.0.0.1 --secure-port "$AUTH_PORT" --leader-elect=false \
  --authentication-kubeconfig "$SCHED_KUBECONFIG" --authorization-kubeconfig "$SCHED_KUBECONFIG" \
  --authorization-always-allow-paths=/healthz,/readyz,/livez > "$E2E_DIR/sched-auth.log" 2>&1 &
SCHED_PIDS+=("$!")
auth_ready() { [[ $(get_url "$AUTH_PORT" /readyz | head -1) == 200 ]]; }
wait_until 30 "delegated-auth scheduler readyz" auth_ready
ADMIN_TOKEN=$(awk '/token:/ {print $2; exit}' "$KUBECONFIG")
# Without a token the caller is system:anonymous (anonymous auth is on by default upstream): 403.
expect_eq "$(get_url_token "$AUTH_PORT" /metrics "")" "403" "/metrics without a token (system:anonymous)"
expect_eq "$(get_url_token "$AUTH_PORT" /metrics not-a-token)" "401" "/metrics with an unknown token"
expect_eq "$(get_url_token "$AUTH_PORT" /metrics "$ADMIN_TOKEN")" "200" "/metrics with the admin token"
expect_eq "$(get_url_token "$AUTH_PORT" /metrics e2e-user-token)" "403" "/metrics as a user without a binding"

echo "e2e scheduling: OK (failed-scheduling events: $failed_events, unschedulable attempts: $unsched_attempts)"
