#!/usr/bin/env bash
# `ksched explain` against `ksched apiserver` with no scheduler running: it names the node the
# scheduler would choose and why, gives every Filter plugin's verdict per node (the tainted node's
# rejection in upstream's words), scores only feasible nodes, says for an unplaceable pod what the
# scheduler itself says (the FitError message), and binds nothing.
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED"

cat > "$E2E_DIR/cluster.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: busy, namespace: e2e}
spec:
  nodeName: n2
  containers: [{name: p, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "3", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: e2e}
spec:
  containers: [{name: p, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "500m", memory: 256Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: e2e}
spec:
  containers: [{name: p, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "16"}}}]
YAML
k apply -f "$(dirname "$0")/three_nodes.yaml" >/dev/null
out=$(k apply -f "$E2E_DIR/cluster.yaml")
expect_contains "$out" "pod/huge created" "cluster created"

out=$("$KSCHED" explain web -n e2e --kubeconfig "$KUBECONFIG" -o json 2>"$E2E_DIR/explain.log") ||
  fail "ksched explain web failed: $(cat "$E2E_DIR/explain.log")"
checks=$(/usr/bin/python3 - "$out" <<'PY'
import json, sys
e = json.loads(sys.argv[1])
nodes = {n["name"]: n for n in e["nodes"]}
print("pod", e["pod"])
print("chosen", e["chosen"], "runnerUp", e["runnerUp"], "feasible", e["feasible"], "nodes", len(nodes))
print("n3", nodes["n3"]["feasible"], nodes["n3"].get("rejected"))
print("n3 detail", nodes["n3"].get("detail"))
taint = [f for f in nodes["n3"]["filters"] if f["plugin"] == "TaintToleration"][0]
print("n3 TaintToleration", taint["code"], taint.get("reason"))
fit = [f for f in nodes["n2"]["filters"] if f["plugin"] == "NodeResourcesFit"][0]
print("n2 NodeResourcesFit", fit["code"])
print("n3 scored", "scores" in nodes["n3"])
s = {x["plugin"]: x for x in nodes["n1"]["scores"]}
la = s["NodeResourcesFit"]
print("n1 fit weighted", la["weighted"] == la["normalized"] * la["weight"], "total", nodes["n1"]["total"] == sum(x["weighted"] for x in s.values()))
print("n1 beats n2", nodes["n1"]["total"] > nodes["n2"]["total"])
PY
)
expect_contains "$checks" "pod e2e/web" "explained pod"
expect_contains "$checks" "chosen n1 runnerUp n2 feasible 2 nodes 3" "choice and runner-up"
expect_contains "$checks" "n3 False TaintToleration: node(s) had untolerated taint(s)" "tainted node's rejection"
expect_contains "$checks" "n3 TaintToleration UnschedulableAndUnresolvable node(s) had untolerated taint(s)" "TaintToleration verdict"
expect_contains "$checks" "n3 detail untolerated taint dedicated=infra:NoSchedule" "the taint named by explain"
expect_contains "$checks" "n2 NodeResourcesFit Success" "n2 fits the small pod"
expect_contains "$checks" "n3 scored False" "rejected nodes are not scored"
expect_contains "$checks" "n1 fit weighted True total True" "scores add up"
expect_contains "$checks" "n1 beats n2 True" "the emptier node wins"

text=$("$KSCHED" explain web -n e2e --kubeconfig "$KUBECONFIG" 2>>"$E2E_DIR/explain.log") || fail "text output failed"
expect_contains "$text" "Result:   would be placed on n1" "text result line"
expect_contains "$text" "  TaintToleration: node(s) had untolerated taint(s)  (1 node)" "text rejection group"
expect_contains "$text" "    n3: untolerated taint dedicated=infra:NoSchedule" "the taint in the text"

# kubectl's TYPE/NAME form, and one node's every verdict with --node.
text=$("$KSCHED" explain pod/huge -n e2e --kubeconfig "$KUBECONFIG" --node n2 2>>"$E2E_DIR/explain.log") ||
  fail "explain pod/huge --node n2 failed"
expect_contains "$text" "  NodeResourcesFit: Insufficient cpu  (2 nodes)" "grouped cpu rejection"
expect_contains "$text" "n2: cpu: the pod requests 16, 3 of 4 in use" "the numbers of n2's shortfall"
expect_contains "$text" "Node n2: rejected by NodeResourcesFit: Insufficient cpu" "n2's own section"
if "$KSCHED" explain deployment/web -n e2e --kubeconfig "$KUBECONFIG" >/dev/null 2>"$E2E_DIR/err.txt"; then fail "explain of a deployment succeeded"; fi
expect_contains "$(cat "$E2E_DIR/err.txt")" 'explains pods, not "deployment"' "another type is named"
if "$KSCHED" explain web -n e2e --kubeconfig "$KUBECONFIG" --node nosuch >/dev/null 2>"$E2E_DIR/err.txt"; then fail "--node nosuch succeeded"; fi
expect_contains "$(cat "$E2E_DIR/err.txt")" 'node "nosuch" is not in the scheduler' "unknown --node"

out=$("$KSCHED" explain huge -n e2e --kubeconfig "$KUBECONFIG" -o json 2>>"$E2E_DIR/explain.log") || fail "explain huge failed"
summary=$(/usr/bin/python3 -c 'import json,sys; e=json.loads(sys.argv[1]); print(e["chosen"] or "-", e["feasible"], e["summary"])' "$out")
expect_eq "$summary" "- 0 0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu." "unschedulable summary"

if "$KSCHED" explain nosuch -n e2e --kubeconfig "$KUBECONFIG" >/dev/null 2>"$E2E_DIR/err.txt"; then fail "explain of a missing pod succeeded"; fi
expect_contains "$(cat "$E2E_DIR/err.txt")" "getting pod e2e/nosuch" "missing pod error"

expect_eq "$(k -n e2e get pod web -o jsonpath='{.spec.nodeName}')" "" "explain binds nothing"

# ksched simulate over what kubectl dumps of this cluster: offline, the same answers.
k get nodes,pods,pdb,pv,pvc,storageclasses,csinodes,priorityclasses -A -o json > "$E2E_DIR/dump.json" ||
  fail "kubectl dump failed: $(head -5 "$E2E_DIR/dump.json")"
cat > "$E2E_DIR/new-pods.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: sim-a, namespace: e2e}
spec:
  containers: [{name: p, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "3"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: sim-b, namespace: e2e}
spec:
  containers: [{name: p, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "2"}}}]
YAML
out=$("$KSCHED" simulate --cluster "$E2E_DIR/dump.json" --pods "$E2E_DIR/new-pods.yaml" -o json 2>"$E2E_DIR/simulate.log") ||
  fail "ksched simulate failed: $(cat "$E2E_DIR/simulate.log")"
sim=$(/usr/bin/python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print(r["nodes"], r["existingPods"], r["pendingPodsIgnored"], r["scheduled"])
for p in r["placements"]: print(p["pod"], p["node"] or "-", p.get("reason", "")[:44])
' "$out")
# n1 is empty (3 of 4 CPUs fit); then only n1's last CPU and n2's one remain: sim-b fits nowhere.
expect_contains "$sim" "3 1 2 1" "nodes, bound pods, unbound pods ignored, scheduled"
expect_contains "$sim" "e2e/sim-a n1" "sim-a placed on the empty node"
expect_contains "$sim" "e2e/sim-b - 0/3 nodes are available: 1 node(s) had un" "sim-b's reason"
expect_eq "$(k -n e2e get pods --no-headers | wc -l)" "3" "simulate created nothing on the server"

# A scheduler that keeps its last decisions explained serves them at /debug/explain.
start_scheduler sched --leader-elect=false --explain-cache-size=5 --authorization-always-allow-paths=/debug/explain
PORT=$LAST_PORT
bound() { [[ $(k -n e2e get pod web -o jsonpath='{.spec.nodeName}') == n1 ]]; }
wait_until 30 "web bound to n1" bound
has_decision() { get_url "$PORT" "/debug/explain" | grep -q '"pod":"e2e/web"'; }
wait_until 30 "web's decision at /debug/explain" has_decision
out=$(get_url "$PORT" "/debug/explain?pod=e2e/web")
expect_eq "$(head -1 <<<"$out")" "200" "/debug/explain?pod status"
one=$(/usr/bin/python3 -c 'import json,sys; e=json.loads(sys.argv[1]); print(e["node"], e["chosen"], e["feasible"], len(e["nodes"]))' "$(tail -n +2 <<<"$out")")
expect_eq "$one" "n1 n1 2 3" "kept decision: the cycle's node, the explained choice, feasible and node counts"
out=$(get_url "$PORT" "/debug/explain?pod=e2e/nosuch")
expect_eq "$(head -1 <<<"$out")" "404" "no decision for an unknown pod"
echo "PASS explain"
