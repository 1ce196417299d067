#!/usr/bin/python3
"""Writes a synthetic cluster dump shaped like `kubectl get nodes,pods,pdb,pv,pvc,storageclasses,
csinodes,priorityclasses -A -o json` (a List of mixed kinds) and a pods file for `ksched simulate`.

usage: make_dump.py NODES BOUND_PODS NEW_PODS DUMP.json PODS.json
Nodes have 32 cpu / 128Gi / 110 pods across 3 zones; bound pods request 100m-1 cpu and are spread
round-robin; new pods are a mix of plain, zone-spread and low/high priority pods.
"""
import json, sys

def node(i):
    name = f"node-{i:05d}"
    zone = f"zone-{i % 3}"
    res = {"cpu": "32", "memory": "128Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "1",
                         "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone,
                                    "kubernetes.io/os": "linux"},
                         "managedFields": [{"manager": "kubelet", "operation": "Update", "apiVersion": "v1"}]},
            "spec": {},
            "status": {"capacity": res, "allocatable": res,
                       "conditions": [{"type": "Ready", "status": "True"}]}}

def pod(name, ns, node_name=None, cpu="100m", mem="128Mi", labels=None, priority_class=None, spread=False):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": ns, "labels": labels or {"app": "web"}},
         "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                  "resources": {"requests": {"cpu": cpu, "memory": mem}}}],
                  "schedulerName": "default-scheduler"},
         "status": {"phase": "Running" if node_name else "Pending"}}
    if node_name:
        p["metadata"]["uid"] = f"uid-{ns}-{name}"
        p["spec"]["nodeName"] = node_name
        p["spec"]["priority"] = 0
    if priority_class:
        p["spec"]["priorityClassName"] = priority_class
    if spread:
        p["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                  "whenUnsatisfiable": "DoNotSchedule",
                                                  "labelSelector": {"matchLabels": labels or {"app": "web"}}}]
    return p

def main():
    nodes, bound, new, dump_path, pods_path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    items = [node(i) for i in range(nodes)]
    for name, value in (("low", 100), ("high", 100000)):
        items.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                      "metadata": {"name": name}, "value": value})
    for j in range(bound):
        items.append(pod(f"existing-{j:06d}", f"ns-{j % 50}", node_name=f"node-{j % nodes:05d}",
                         cpu=("100m", "250m", "500m", "1")[j % 4], mem=("128Mi", "256Mi", "512Mi", "1Gi")[j % 4]))
    with open(dump_path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}, f)
    new_items = []
    for k in range(new):
        kind = k % 10
        if kind < 6:
            new_items.append(pod(f"new-{k:06d}", "sim", cpu="200m", mem="256Mi"))
        elif kind < 8:
            new_items.append(pod(f"spread-{k:06d}", "sim", cpu="100m", labels={"app": f"spread-{k % 20}"}, spread=True))
        elif kind == 8:
            new_items.append(pod(f"low-{k:06d}", "sim", cpu="300m", priority_class="low"))
        else:
            new_items.append(pod(f"high-{k:06d}", "sim", cpu="500m", priority_class="high"))
    with open(pods_path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": new_items}, f)

main()
