#!/usr/bin/env bash
# `ksched up`'s live web page in a real browser: headless Chromium (Debian's package) driven over
# the DevTools protocol by cdp_page.py, in one page session:
#   - nodes show their labels, taints and absolute resources (a pod's requests summed on its node);
#   - a pending pod shows the scheduler's message, exactly as the API server has it;
#   - pods created after the page loaded appear without a reload (the page is not reloaded, gets one
#     snapshot only and never fetches /api/cluster: the deltas come over its one event stream);
#   - search by label, taint and pod name filters the node table; the node and explanation panels
#     open, update and close (button and Esc);
#   - DRA: each node lists its simulated GPUs; a pod's claim allocated after the load shows, live,
#     which device it holds on which node;
#   - pod groups (GangScheduling on): a gang bound whole and one short of its minimum, with their
#     bound and pending members, and a PodGroup (spec.schedulingGroup) gang bound whole.
# With SCREENSHOT=path also writes a screenshot of the page there.
# usage: up_web_page.sh <ksched> <kubectl> <chromium>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}; CHROMIUM=${3:?}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d /tmp/ksched-ui.XXXXXX)
UP_PID=""
cleanup() {
  if [[ -n "$UP_PID" ]]; then kill -TERM "$UP_PID" 2>/dev/null || true; wait "$UP_PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -20 "$DIR/up.log" >&2 || true; exit 1; }
k() { timeout 30 "$KUBECTL" --kubeconfig "$DIR/kubeconfig" --request-timeout=20s "$@" 2>&1; }
pod_json() {  # pod_json <name> <cpu> [memory]: a pause pod asking for that much
  echo "{\"spec\":{\"containers\":[{\"name\":\"$1\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"$2\"${3:+,\"memory\":\"$3\"}}}}]}}"
}

cd "$DIR"
"$KSCHED" up --listen 127.0.0.1:0 --nodes 3 --ui-listen 127.0.0.1:0 --kubeconfig-out "$DIR/kubeconfig" \
  --scheduler-secure-port -1 --ephemeral --dra-devices "gpu.ksched.dev=2" \
  --feature-gates GenericWorkload=true,GangScheduling=true > "$DIR/up.log" 2>&1 &
UP_PID=$!
for _ in $(seq 1 100); do grep -q "web page:" "$DIR/up.log" && break; sleep 0.1; done
URL=$(awk '/web page:/ {print $3}' "$DIR/up.log")
[[ -n "$URL" ]] || fail "no web page address printed"
grep -q "export KUBECONFIG=$DIR/kubeconfig" "$DIR/up.log" || fail "the kubeconfig path printed is not absolute"

# node-2: a GPU node, tainted; web and db fit elsewhere, huge nowhere.
k label nodes node-2 accelerator=gpu >/dev/null
k taint nodes node-2 dedicated=gpu:NoSchedule >/dev/null
k run web --image=registry.k8s.io/pause:3.10 --overrides="$(pod_json web 4 8Gi)" >/dev/null
k run db --image=registry.k8s.io/pause:3.10 --overrides="$(pod_json db 8 32Gi)" >/dev/null
k run huge --image=registry.k8s.io/pause:3.10 --overrides="$(pod_json huge 500)" >/dev/null
for _ in $(seq 1 100); do
  [[ $(k get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .) == 2 ]] &&
    [[ $(k get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]] && break
  sleep 0.2
done
WEB_NODE=$(k get pod web -o jsonpath='{.spec.nodeName}')
[[ -n "$WEB_NODE" ]] || fail "web was not bound"
HUGE_WHY=$(k get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
[[ "$HUGE_WHY" == "0/3 nodes are available: "* ]] || fail "huge's message: $HUGE_WHY"

# In-page helpers (re-evaluated after each navigation).
HELPERS='window.T = {
  row: n => document.querySelector(`tr.node[data-name="${n}"]`),
  rowText: n => (T.row(n) || {}).textContent || "",
  rows: () => [...document.querySelectorAll("tr.node")].map(r => r.dataset.name).join(","),
  pending: p => document.querySelector(`tr.pending[data-pod="${p}"]`),
  shown: sel => { const e = document.querySelector(sel); return !!e && !e.hidden && !e.closest("[hidden]"); },
  group: g => { const r = document.querySelector(`tr.group[data-group="${g}"]`); return r ? [...r.cells].map(c => c.textContent).join("|") : ""; },
}; true'
LATE_CMD="timeout 30 $KUBECTL --kubeconfig $DIR/kubeconfig run late --image=registry.k8s.io/pause:3.10 --overrides='$(pod_json late 2 1Gi)'"
cat > "$DIR/dra.yaml" <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.ksched.dev}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.ksched.dev"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: one-gpu}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.ksched.dev}}]
---
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: one-gpu}]
  containers: [{name: train, image: registry.k8s.io/pause:3.10, resources: {claims: [{name: gpu}]}}]
YAML
DRA_CMD="timeout 30 $KUBECTL --kubeconfig $DIR/kubeconfig apply -f $DIR/dra.yaml"
gang_yaml() {  # gang_yaml <workload> <minCount> <members>
  printf 'apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: %s}\nspec:\n  podGroups: [{name: workers, policy: {gang: {minCount: %s}}}]\n' "$1" "$2"
  for i in $(seq 0 $(($3 - 1))); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s}\nspec:\n  workloadRef: {name: %s, podGroup: workers}\n  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]\n' "$1" "$i" "$1"
  done
}
pod_group_yaml() {  # pod_group_yaml <podGroup> <minCount> <members>: v1.37's PodGroup and spec.schedulingGroup
  printf 'apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: %s}\nspec:\n  schedulingPolicy: {gang: {minCount: %s}}\n' "$1" "$2"
  for i in $(seq 0 $(($3 - 1))); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s}\nspec:\n  schedulingGroup: {podGroupName: %s}\n  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "1"}}}]\n' "$1" "$i" "$1"
  done
}
{ gang_yaml train 2 2; echo ---; gang_yaml short 3 2; echo ---; pod_group_yaml pg 2 2; } > "$DIR/gangs.yaml"
GANG_CMD="timeout 30 $KUBECTL --kubeconfig $DIR/kubeconfig apply -f $DIR/gangs.yaml"
LATE_BIG_CMD="timeout 30 $KUBECTL --kubeconfig $DIR/kubeconfig run later-huge --image=registry.k8s.io/pause:3.10 --overrides='$(pod_json later-huge 900)'"

steps=(
  --open "$URL" --eval "$HELPERS"
  --wait 'document.body.dataset.live === "true" && T.rows() === "node-0,node-1,node-2"'
  # labels, taints, absolute resources (web: 4 CPUs and 8 GiB of 32 and 256), status
  --expect 'T.rowText("node-2").includes("accelerator=gpu") && T.rowText("node-2").includes("dedicated=gpu:NoSchedule")'
  --expect 'T.rowText("node-0").includes("kubernetes.io/os=linux") && T.rowText("node-0").includes("Ready")'
  --expect "T.rowText('$WEB_NODE').includes('4 / 32') && T.rowText('$WEB_NODE').includes('8 GiB / 256 GiB') && T.rowText('$WEB_NODE').includes('1 / 110')"
  --expect "T.pending('default/huge') && T.pending('default/huge').textContent.includes($(printf '%s' "$HUGE_WHY" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'))"
  --expect 'document.querySelector("#counts").textContent === "3 nodes, 3 pods, 1 pending"'
  # pods created after the load appear, without a reload
  --eval 'window.notReloaded = true'
  --sh "$LATE_CMD" --sh "$LATE_BIG_CMD"
  --wait 'T.pending("default/later-huge") !== null'
  --wait 'document.querySelector("#counts").textContent === "3 nodes, 5 pods, 2 pending"'
  --expect 'window.notReloaded === true && document.body.dataset.snapshots === "1" && Number(document.body.dataset.rev) > 0'
  --expect '!performance.getEntriesByType("resource").some(e => e.name.includes("/api/cluster"))'
  # search: by label (typed), by taint, by pod name; the pending list follows
  --eval 'document.querySelector("#search").focus()' --type 'accelerator=gpu'
  --wait 'T.rows() === "node-2" && kschedPage.visibleNodes().join() === "node-2"'
  --eval 'kschedPage.search("noschedule")' --wait 'T.rows() === "node-2"'
  --eval 'kschedPage.search("default/late")'
  --wait 'kschedPage.visibleNodes().length === 1 && T.rows() !== "node-2" && T.rowText(T.rows()).includes("default/late")'
  --eval 'kschedPage.search("later-huge")' --wait '!T.pending("default/huge") && T.pending("default/later-huge")'
  --eval 'kschedPage.search("")' --wait 'T.rows() === "node-0,node-1,node-2"'
  # a node's details: labels, taints, its pods with their requests; closed by its button
  --eval "T.row('$WEB_NODE').querySelector('button.link').click()"
  --wait "T.shown('#node-panel') && document.querySelector('#node-panel').dataset.node === '$WEB_NODE'"
  --expect "document.querySelector('tr.node-pod[data-pod=\"default/web\"]').textContent.includes('8 GiB')"
  --expect 'document.querySelector("#node-panel").textContent.includes("kubernetes.io/hostname=")'
  --eval 'document.querySelector("#node-panel .close").click()' --wait '!T.shown("#node-panel")'
  # explanations: a pod that fits nowhere, a bound one; Esc closes
  --open "${URL}?pod=default/huge" --eval "$HELPERS"
  --wait 'document.querySelector("#explanation").dataset.pod === "default/huge"'
  --expect 'document.querySelector("#explanation").dataset.chosen === ""'
  --expect 'document.querySelector("#explanation").textContent.includes("rejected by NodeResourcesFit: Insufficient cpu")'
  --expect 'document.querySelector("#explanation").textContent.includes("rejected by TaintToleration")'
  --key Escape --wait '!T.shown("#explanation") && !location.search.includes("pod=")'
  --open "${URL}?pod=default/db&node=node-2" --eval "$HELPERS"
  --wait 'document.querySelector("#explanation").dataset.pod === "default/db" && document.querySelector("#scores")'
  --expect 'document.querySelector("#scores").textContent.includes("NodeResourcesBalancedAllocation")'
  --expect 'document.querySelector("#explanation").textContent.includes("Bound to ")'
  --wait 'T.shown("#node-panel") && document.querySelector("#node-panel").textContent.includes("Taints (1)")'
  # DRA: two free GPUs per node; a claim allocated after the load shows its device and pod, live
  --eval 'document.querySelector("#node-panel .close").click()' --wait '!T.shown("#node-panel")'
  --expect 'T.rowText("node-0").includes("devices 0 / 2") && T.rowText("node-2").includes("devices 0 / 2")'
  --eval 'kschedPage.search("gpu.ksched.dev/node-1/gpu-1")' --wait 'T.rows() === "node-1"'
  --eval 'kschedPage.search("")' --wait 'T.rows() === "node-0,node-1,node-2"'
  --sh "$DRA_CMD"
  --wait '["node-0","node-1"].some(n => T.rowText(n).includes("devices 1 / 2"))'
  --eval 'T.row(["node-0","node-1"].find(n => T.rowText(n).includes("devices 1 / 2"))).querySelector("button.link").click()'
  --wait 'T.shown("#node-panel") && document.querySelector("#node-panel").textContent.includes("Devices (1 of 2 in use)")'
  --expect '[...document.querySelectorAll("#node-panel tr.node-device")].some(r => r.textContent.includes("default/one-gpu") && r.querySelector("a.pod") && r.querySelector("a.pod").textContent === "default/trainer")'
  # pod groups: none yet, so no section; then a gang that fits (bound whole) and one short of its minimum
  --expect '!T.shown("#groups-section")'
  --sh "$GANG_CMD"
  --wait 'T.shown("#groups-section") && document.querySelectorAll("tr.group").length === 3'
  --wait 'T.group("default/train/workers") === "default/train/workers|2|0|all bound"'
  --wait 'T.group("default/short/workers") === "default/short/workers|0|2|not tried yet"'
  --wait 'T.group("default/pg") === "default/pg|2|0|all bound"'
)
if [[ -n "${SCREENSHOT:-}" ]]; then steps+=(--screenshot "$SCREENSHOT"); fi
timeout 150 python3 "$HERE/cdp_page.py" "$CHROMIUM" "${steps[@]}" || fail "the page (see above)"
echo "PASS up web page"
