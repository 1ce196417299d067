#!/usr/bin/env bash
# `ksched up` behaves like a cluster, driven by kubectl as a user would: the README's example
# (a Deployment's pods bound and Running), scaling, a rolling update that `kubectl rollout status`
# follows to its end, cascading deletion, a Job run to completion, a DaemonSet on every node
# (and on a node added later), a StatefulSet's pods in order, and a namespace deleted with its
# content. One local cluster on a loopback port with its store in a temporary folder.
# usage: up_controllers.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-up-controllers.XXXXXX)
UP_PID=""
WATCH_PID=""
EXTRA_CLEANUP='if [[ -n "$WATCH_PID" ]]; then kill "$WATCH_PID" 2>/dev/null || true; wait "$WATCH_PID" 2>/dev/null || true; fi'
source "$(dirname "$0")/up_lib.sh"
count() { kq get pods "$@" --no-headers | grep -vc Terminating || true; }
count_is() { local want=$1; shift; [[ "$(count "$@")" == "$want" ]]; }
phase_count() {  # phase_count <phase> <selector> [kubectl flags...]: pods in that phase
  local phase=$1 sel=$2; shift 2
  kq get pods -l "$sel" "$@" -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c "^$phase$" || true
}
phase_is() { local want=$1; shift; [[ "$(phase_count "$@")" == "$want" ]]; }

cd "$DIR"
"$KSCHED" up --listen 127.0.0.1:0 --nodes 3 --ui-listen "" --kubeconfig-out "$DIR/kubeconfig" \
  --scheduler-secure-port -1 --data-dir "$DIR/store" > "$DIR/up.log" 2>&1 &
UP_PID=$!
until_ok 30 grep -q "Local cluster is up" "$DIR/up.log" || fail "ksched up did not come up"
expect_contains "$(cat "$DIR/up.log")" "controllers: deployment, replicaset" "ksched up runs the controllers"
export KUBECONFIG=$DIR/kubeconfig

# ---- the README's example, as written
out=$(k create deployment web --image=nginx --replicas=5 && k get pods -o wide)
expect_contains "$out" "deployment.apps/web created" "create deployment"
out=$(k rollout status deployment/web --timeout=60s) || fail "rollout status: $out"
expect_contains "$out" 'deployment "web" successfully rolled out' "rollout status"
until_ok 30 phase_is 5 Running app=web || fail "5 web pods Running"
out=$(k get pods -o wide -l app=web --no-headers)
expect_eq "$(echo "$out" | grep -c 'Running')" "5" "get pods -o wide: 5 Running"
echo "$out" | awk '{print $7}' | grep -q '^node-' || fail "pods bound to nodes: $out"
out=$(k get deployment web --no-headers)
expect_contains "$out" "5/5" "the Deployment's READY column"
expect_eq "$(k get rs -l app=web -o name | wc -l)" "1" "one ReplicaSet"
expect_contains "$(k get rs -l app=web)" "DESIRED   CURRENT   READY" "the ReplicaSet columns"

# ---- scale up and down
k scale deployment web --replicas=7 >/dev/null
until_ok 30 phase_is 7 Running app=web || fail "scaled up to 7"
k scale deployment web --replicas=2 >/dev/null
until_ok 30 count_is 2 -l app=web || fail "scaled down to 2"
k rollout status deployment/web --timeout=60s >/dev/null || fail "rollout status after scaling"

# ---- a rolling update `kubectl rollout status` follows to its end
k set image deployment/web nginx=nginx:1.27 >/dev/null
out=$(k rollout status deployment/web --timeout=60s) || fail "rollout status of the update: $out"
expect_contains "$out" 'deployment "web" successfully rolled out' "rollout status of the update"
until_ok 30 count_is 2 -l app=web || fail "2 pods after the update"
expect_eq "$(k get pods -l app=web -o jsonpath='{.items[*].spec.containers[0].image}')" "nginx:1.27 nginx:1.27" "new image"
out=$(k rollout history deployment/web)
expect_contains "$out" "1 " "rollout history revision 1"
expect_contains "$out" "2 " "rollout history revision 2"
expect_eq "$(k get rs -l app=web -o name | wc -l)" "2" "the old ReplicaSet kept as history"

# ---- delete cascades (background: the garbage collector takes the ReplicaSets and pods)
k delete deployment web >/dev/null
until_ok 30 count_is 0 -l app=web || fail "the Deployment's pods were not deleted"
until_ok 30 bash -c "[[ -z \"\$($KUBECTL --kubeconfig $DIR/kubeconfig get rs -l app=web -o name)\" ]]" ||
  fail "the Deployment's ReplicaSets were not deleted"

# ---- a Job runs to completion
k create job hello --image=busybox -- sh -c "sleep 1" >/dev/null
k wait --for=condition=complete job/hello --timeout=60s >/dev/null || fail "job hello did not complete: $(k get job hello -o yaml)"
expect_eq "$(phase_count Succeeded batch.kubernetes.io/job-name=hello)" "1" "the Job's pod Succeeded"
expect_contains "$(k get job hello -o jsonpath='{.status.succeeded}')" "1" "status.succeeded"
out=$(k get job hello --no-headers)
expect_contains "$out" "Complete" "the Job's STATUS column"
expect_contains "$out" "1/1" "the Job's COMPLETIONS column"

# ---- a DaemonSet: one pod per node, and on a node added later
cat > "$DIR/ds.yaml" <<'EOF'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: fluentd}]}
EOF
k apply -f "$DIR/ds.yaml" >/dev/null
out=$(k rollout status daemonset/agent --timeout=60s) || fail "rollout status ds: $out"
until_ok 30 phase_is 3 Running app=agent || fail "3 daemon pods Running"
expect_contains "$(k get ds agent)" "UP-TO-DATE" "the DaemonSet columns"
expect_eq "$(k get pods -l app=agent -o jsonpath='{.items[*].spec.nodeName}' | tr ' ' '\n' | sort -u | wc -l)" "3" \
  "one daemon pod per node"
cat > "$DIR/node.yaml" <<'EOF'
apiVersion: v1
kind: Node
metadata: {name: node-late, labels: {type: simulated}}
status:
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
EOF
k create -f "$DIR/node.yaml" >/dev/null
until_ok 30 phase_is 4 Running app=agent || fail "the added node got no daemon pod"
expect_contains "$(k get pods -l app=agent -o wide)" "node-late" "the daemon pod on the added node"
until_ok 20 bash -c "$KUBECTL --kubeconfig $DIR/kubeconfig get lease -n kube-node-lease node-late" ||
  fail "the added node has no Lease"

# ---- a StatefulSet's pods appear in order
k get pods -l app=db -w --no-headers -o custom-columns=NAME:.metadata.name > "$DIR/watch.txt" 2>/dev/null &
WATCH_PID=$!
until_ok 10 test -e "$DIR/watch.txt"
cat > "$DIR/sts.yaml" <<'EOF'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
EOF
k apply -f "$DIR/sts.yaml" >/dev/null
out=$(k rollout status statefulset/db --timeout=60s) || fail "rollout status sts: $out"
until_ok 10 bash -c "[[ \$(awk '!seen[\$1]++' $DIR/watch.txt | wc -l) -ge 3 ]]" || fail "the watch saw no 3 pods"
kill "$WATCH_PID" 2>/dev/null || true; wait "$WATCH_PID" 2>/dev/null || true; WATCH_PID=""
expect_eq "$(awk '!seen[$1]++' "$DIR/watch.txt" | tr '\n' ' ')" "db-0 db-1 db-2 " "StatefulSet pods created in order"
expect_contains "$(k get sts db --no-headers)" "3/3" "the StatefulSet's READY column"

# ---- deleting a namespace removes its objects
k create namespace team >/dev/null
k -n team create deployment api --image=nginx --replicas=2 >/dev/null
k -n team create configmap settings --from-literal=a=b >/dev/null
until_ok 30 phase_is 2 Running app=api -n team || fail "the team namespace's pods did not run"
out=$(k delete namespace team --timeout=60s) || fail "delete namespace: $out"
expect_contains "$out" 'namespace "team" deleted' "delete namespace"
out=$(k get namespace team 2>&1 || true)
expect_contains "$out" 'namespaces "team" not found' "the namespace is gone"
expect_eq "$(kq get pods,rs,deploy,cm -n team --no-headers | grep -vc 'kube-root-ca' || true)" "0" \
  "nothing left in the namespace"
echo "PASS: controllers e2e"
