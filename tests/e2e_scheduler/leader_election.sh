#!/usr/bin/env bash
# Two kube-scheduler replicas with leader election: one leads; SIGKILL it mid-workload; the other
# takes over within the lease duration; every pod is bound exactly once and none is lost.
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED" --nodes 20
LEASE=(--leader-elect=true --leader-elect-lease-duration=4s --leader-elect-renew-deadline=3s
       --leader-elect-retry-period=500ms --leader-elect-resource-name=e2e-scheduler)
# system:kube-scheduler may use the lease named kube-scheduler only: another name needs a grant, as
# upstream's RBAC asks of whoever sets --leader-elect-resource-name.
k -n kube-system create role e2e-scheduler-lease --verb=get,update --resource=leases --resource-name=e2e-scheduler >/dev/null ||
  fail "create the lease role"
k -n kube-system create rolebinding e2e-scheduler-lease --role=e2e-scheduler-lease --user=system:kube-scheduler >/dev/null ||
  fail "bind the lease role"
start_scheduler a "${LEASE[@]}"; PID_A=$LAST_PID
start_scheduler b "${LEASE[@]}"; PID_B=$LAST_PID

holder() { k -n kube-system get lease e2e-scheduler -o jsonpath='{.spec.holderIdentity}'; }
has_holder() { [[ -n $(holder) && $(holder) != *rror* ]]; }
wait_until 30 "a leader" has_holder
# Which process leads: the one that logged the acquisition.
if grep -q "successfully acquired lease" "$E2E_DIR/a.log"; then LEADER=$PID_A; FOLLOWER_LOG=b.log; else LEADER=$PID_B; FOLLOWER_LOG=a.log; fi
grep -q "successfully acquired lease" "$E2E_DIR/$FOLLOWER_LOG" && fail "both replicas claim the lease"
FIRST=$(holder)

printf "apiVersion: v1\nkind: Namespace\nmetadata: {name: le}\n" | k apply -f - >/dev/null
make_pods() {  # make_pods <from> <to>
  local f="$E2E_DIR/pods-$1.yaml"; : > "$f"
  for i in $(seq "$1" "$2"); do
    printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p%s, namespace: le}\nspec:\n  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: 100m}}}]\n---\n' "$i" >> "$f"
  done
  k apply -f "$f" >/dev/null
}
count_bound() { k -n le get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c . || true; }

make_pods 1 60
first_batch() { (( $(count_bound) >= 30 )); }
wait_until 60 "first batch bound" first_batch
kill -KILL "$LEADER"
KILLED_AT=$SECONDS
make_pods 61 120
new_leader() { local h; h=$(holder); [[ -n "$h" && "$h" != "$FIRST" ]]; }
wait_until 20 "takeover by the other replica" new_leader
TAKEOVER=$((SECONDS - KILLED_AT))
(( TAKEOVER <= 4 + 3 )) || fail "takeover took ${TAKEOVER}s (lease 4s, plus one retry period and polling)"
all_bound() { [[ $(count_bound) == 120 ]]; }
wait_until 90 "all 120 pods bound" all_bound

# Exactly once: one Scheduled event per pod, and no pod left with a binding error.
scheduled=$(k -n le get events.events.k8s.io -o jsonpath='{range .items[*]}{.reason}|{.regarding.name}{"\n"}{end}' | { grep '^Scheduled|' || true; } | sort | uniq -c)
n_scheduled=$(grep -c . <<<"$scheduled" || true)
expect_eq "$n_scheduled" "120" "pods with a Scheduled event"
dupes=$(awk '$1 > 1' <<<"$scheduled")
[[ -z "$dupes" ]] || fail "pods bound more than once: $dupes"
n_pods=$(k -n le get pods --no-headers | wc -l)
expect_eq "$n_pods" "120" "no pod lost"
echo "e2e leader election: OK (takeover in ${TAKEOVER}s)"
