#!/usr/bin/env bash
# Extended resources backed by DRA (DRAExtendedResource, alpha and off in v1.35; issue #43): a
# DeviceClass maps example.com/gpu; node n0 has two GPUs in a ResourceSlice and does not advertise
# the resource, n1 advertises 4 in allocatable (a device plugin) and has no slice. With the gate on:
# a pod asking for 2 on n0 gets a claim the scheduler made (generateName, annotation, owner, two
# devices of n0, reserved for it) named in its status.extendedResourceClaimStatus; a pod asking for
# 2 on n1 gets no claim; a third asking for 1 on n0 stays Pending with upstream's message; the
# creation is counted in scheduler_resourceclaim_creates_total.
source "$(dirname "$0")/lib.sh"
start_apiserver "$KSCHED"

/usr/bin/python3 - > "$E2E_DIR/cluster.json" <<'PY'
import json
# Creating and deleting claims: upstream's bootstrap policy grants the scheduler this with the gate
# on; ksched's API server does not know the gate, so the suite grants it.
docs = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "e2e"}},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
         "metadata": {"name": "e2e-scheduler-claims"},
         "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["create", "delete"]}]},
        {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
         "metadata": {"name": "e2e-scheduler-claims"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "e2e-scheduler-claims"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "system:kube-scheduler"}]},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.ksched.dev"'}}],
                  "extendedResourceName": "example.com/gpu"}}]
for n, extra in (("n0", {}), ("n1", {"example.com/gpu": "4"})):
    res = {"cpu": "64", "memory": "256Gi", "pods": "110", **extra}
    docs.append({"apiVersion": "v1", "kind": "Node",
                 "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n}},
                 "status": {"allocatable": res, "capacity": res,
                            "conditions": [{"type": "Ready", "status": "True"}]}})
docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "n0-gpus"},
             "spec": {"driver": "gpu.ksched.dev", "nodeName": "n0",
                      "pool": {"name": "n0", "generation": 1, "resourceSliceCount": 1},
                      "devices": [{"name": f"gpu-{i}"} for i in range(2)]}})
print(json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))
PY
out=$(k apply -f "$E2E_DIR/cluster.json")
expect_contains "$out" "resourceslice.resource.k8s.io/n0-gpus created" "class, nodes and slice applied"

start_scheduler sched --leader-elect=false --feature-gates DRAExtendedResource=true
PORT=$LAST_PORT
ready() { [[ $(get_url "$PORT" /readyz | head -1) == 200 ]]; }
wait_until 30 "scheduler readyz" ready

run_pod() {  # run_pod <name> <node> <gpus>
  k -n e2e run "$1" --image=registry.k8s.io/pause:3.10 --restart=Never \
    --overrides="{\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"$2\"},\"containers\":[{\"name\":\"c\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"example.com/gpu\":\"$3\"},\"limits\":{\"example.com/gpu\":\"$3\"}}}]}}" >/dev/null
}
run_pod dra n0 2
node_of() { k -n e2e get pod "$1" -o jsonpath='{.spec.nodeName}'; }
dra_bound() { [[ $(node_of dra) == n0 ]]; }
wait_until 60 "pod dra bound to n0" dra_bound
run_pod native n1 2
native_bound() { [[ $(node_of native) == n1 ]]; }
wait_until 60 "pod native bound to n1" native_bound
run_pod third n0 1
third_rejected() {
  [[ $(k -n e2e get pod third -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]]
}
wait_until 60 "pod third Unschedulable" third_rejected

k -n e2e get pods -o json > "$E2E_DIR/pods.json"
k -n e2e get resourceclaims -o json > "$E2E_DIR/claims.json"
report=$(/usr/bin/python3 - "$E2E_DIR/pods.json" "$E2E_DIR/claims.json" <<'PY'
import json, sys
pods = {p["metadata"]["name"]: p for p in json.load(open(sys.argv[1]))["items"]}
claims = json.load(open(sys.argv[2]))["items"]
print("claims", len(claims))
for c in claims:
    m = c["metadata"]
    owner = [(o["kind"], o["name"], o.get("controller")) for o in m.get("ownerReferences", [])]
    print("claim", m["name"], m.get("generateName"), m.get("annotations", {}).get("resource.kubernetes.io/extended-resource-claim"), owner)
    req = c["spec"]["devices"]["requests"]
    print("requests", [(r["name"], r["exactly"]["deviceClassName"], r["exactly"].get("count")) for r in req])
    alloc = c.get("status", {}).get("allocation", {})
    print("devices", sorted((r["pool"], r["device"]) for r in alloc.get("devices", {}).get("results", [])))
    print("reservedFor", [r["name"] for r in c.get("status", {}).get("reservedFor", [])])
for name in ("dra", "native"):
    st = pods[name].get("status", {}).get("extendedResourceClaimStatus")
    print("status", name, json.dumps(st, sort_keys=True) if st else None)
msg = [c.get("message", "") for c in pods["third"]["status"].get("conditions", []) if c["type"] == "PodScheduled"]
print("third:", msg[0] if msg else "")
PY
)
echo "$report"
expect_contains "$report" "claims 1" "one claim: the DRA pod's"
expect_contains "$report" "claim dra-extended-resources-" "named from generateName"
expect_contains "$report" "dra-extended-resources- true [('Pod', 'dra', True)]" "annotation and controlling owner"
expect_contains "$report" "requests [('container-0-request-0', 'gpu', 2)]" "one request per container and resource"
expect_contains "$report" "devices [('n0', 'gpu-0'), ('n0', 'gpu-1')]" "two devices of n0 allocated"
expect_contains "$report" "reservedFor ['dra']" "reserved for the pod"
expect_contains "$report" '"requestMappings": [{"containerName": "c", "requestName": "container-0-request-0", "resourceName": "example.com/gpu"}]' "the pod's extendedResourceClaimStatus"
expect_contains "$report" "status native None" "the device-plugin pod has no claim"
expect_contains "$report" "third: 0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node affinity/selector." "Pending with upstream's message"

metrics=$(get_url "$PORT" /metrics)
expect_contains "$metrics" 'scheduler_resourceclaim_creates_total{status="success"} 1' "the creation is counted"
echo "PASS e2e.scheduler.dra_extended_resource"
