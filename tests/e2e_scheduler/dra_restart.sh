#!/usr/bin/env bash
# A kube-scheduler killed mid-run allocates no device twice (issue #43): `ksched apiserver` with the
# ResourceClaim controller, 4 nodes with 10 GPUs each (ResourceSlices applied with kubectl), 48 pods
# that each want one GPU from a template. The first scheduler runs at 50 requests/s (--kube-api-qps), so
# that it is SIGKILLed with allocations, reservations and bindings in flight; a second one finishes.
# Then: 40 pods bound, 8 Pending with upstream's message, 40 claims allocated on their pod's node and
# reserved for it, and no device in two claims.
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED" --controllers resourceclaim-controller

/usr/bin/python3 - > "$E2E_DIR/cluster.json" <<'PY'
import json
docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "e2e"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.ksched.dev"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "one-gpu", "namespace": "e2e"},
         "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}}]
for n in range(4):
    name = f"n{n}"
    docs.append({"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
                 "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                            "capacity": {"cpu": "64", "memory": "256Gi", "pods": "110"},
                            "conditions": [{"type": "Ready", "status": "True"}]}})
    docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{name}-gpus"},
                 "spec": {"driver": "gpu.ksched.dev", "nodeName": name,
                          "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                          "devices": [{"name": f"gpu-{i}"} for i in range(10)]}})
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
PY
/usr/bin/python3 - > "$E2E_DIR/pods.json" <<'PY'
import json
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": [{
    "apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"train-{i}", "namespace": "e2e"},
    "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
             "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                             "resources": {"claims": [{"name": "gpu"}]}}]}} for i in range(48)]}))
PY
out=$(k apply -f "$E2E_DIR/cluster.json")
expect_contains "$out" "resourceslice.resource.k8s.io/n3-gpus created" "nodes and slices applied"

start_scheduler slow --leader-elect=false --kube-api-qps 50 --kube-api-burst 1
SLOW=$LAST_PID
out=$(k apply -f "$E2E_DIR/pods.json")
expect_contains "$out" "pod/train-47 created" "48 pods created"
bound_count() { k -n e2e get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c . || true; }
some_bound() { (( $(bound_count) >= 6 )); }
wait_until 90 "the slow scheduler binds a few pods" some_bound
kill -KILL "$SLOW"
wait "$SLOW" 2>/dev/null || true
at_kill=$(bound_count)
echo "ok: scheduler killed with $at_kill of 48 pods bound"
(( at_kill < 40 )) || fail "the scheduler finished before it was killed ($at_kill bound): nothing was in flight"

start_scheduler fast --leader-elect=false
all_bound() { (( $(bound_count) == 40 )); }
wait_until 90 "40 pods bound after the restart" all_bound
unschedulable() {
  [[ $(k -n e2e get pods -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}' |
       grep -c '^Unschedulable$') == 8 ]]
}
wait_until 60 "8 pods Unschedulable" unschedulable

k -n e2e get pods -o json > "$E2E_DIR/pods-now.json"
k -n e2e get resourceclaims -o json > "$E2E_DIR/claims.json"
report=$(/usr/bin/python3 - "$E2E_DIR/pods-now.json" "$E2E_DIR/claims.json" <<'PY'
import json, sys
pods = {p["metadata"]["name"]: p for p in json.load(open(sys.argv[1]))["items"]}
claims = {c["metadata"]["name"]: c for c in json.load(open(sys.argv[2]))["items"]}
problems, held = [], {}
for name, p in pods.items():
    node = p["spec"].get("nodeName", "")
    st = {s["name"]: s.get("resourceClaimName") for s in p.get("status", {}).get("resourceClaimStatuses", [])}
    claim = claims.get(st.get("gpu") or "")
    if not node:
        msg = [c.get("message", "") for c in p["status"].get("conditions", []) if c["type"] == "PodScheduled"]
        if claim and claim.get("status", {}).get("allocation"):
            problems.append(f"{name}: pending but its claim is allocated")
        print("pending", name, msg[0] if msg else "")
        continue
    if not claim:
        problems.append(f"{name}: bound without a claim"); continue
    alloc = claim.get("status", {}).get("allocation")
    if not alloc:
        problems.append(f"{name}: bound, claim not allocated"); continue
    if [r["name"] for r in claim["status"].get("reservedFor", [])] != [name]:
        problems.append(f"{name}: claim reserved for {claim['status'].get('reservedFor')}")
    for r in alloc["devices"]["results"]:
        dev = (r["driver"], r["pool"], r["device"])
        if r["pool"] != node:
            problems.append(f"{name}: on {node} with a device of {r['pool']}")
        if dev in held:
            problems.append(f"device {dev} held by {held[dev]} and {name}")
        held[dev] = name
print("devices", len(held))
for p in problems:
    print("PROBLEM", p)
PY
)
[[ "$report" != *PROBLEM* ]] || fail "after the restart: $(grep PROBLEM <<<"$report")"
expect_contains "$report" "devices 40" "40 distinct devices held by 40 bound pods"
expect_contains "$report" "0/4 nodes are available: 4 cannot allocate all claims." "a pending pod's message is upstream's"
echo "PASS e2e.scheduler.dra_restart"
