#!/usr/bin/python3
"""python3-kubernetes against `ksched apiserver`: list, create, watch from a resourceVersion,
binding, 409 on a stale update, 410 on an expired resourceVersion, label selectors, pagination,
RuntimeClass through NodeV1Api, the write pipeline (canonical values, defaults, admission,
validation) through models, raw YAML and patches, and v1.35's wire behaviour (/version, pod-level
resources, generation, graceful deletion events).
Usage: apiserver_python.py <path to ksched>"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

HISTORY = 20


def start(ksched, tmp):
    tokens = os.path.join(tmp, "tokens.csv")
    with open(tokens, "w") as f:
        f.write('py-token,bob,2001,"dev"\n')
    kubeconfig = os.path.join(tmp, "kubeconfig")
    log = open(os.path.join(tmp, "server.log"), "w")
    proc = subprocess.Popen([ksched, "apiserver", "--listen", "127.0.0.1:0", "--kubeconfig-out", kubeconfig,
                             "--tls", "--token-file", tokens, "--nodes", "2", "--watch-history", str(HISTORY)],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 10
    while time.time() < deadline:
        if os.path.exists(kubeconfig) and os.path.getsize(kubeconfig) > 0:
            return proc, kubeconfig
        if proc.poll() is not None:
            raise SystemExit("apiserver exited early")
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("apiserver did not write its kubeconfig")


def message(e):
    body = e.body.decode() if isinstance(e.body, bytes) else (e.body or "")
    try:
        return json.loads(body).get("message", "")
    except ValueError:
        return body


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def pod(name, labels=None):
    return client.V1Pod(metadata=client.V1ObjectMeta(name=name, labels=labels or {}),
                        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1.36")]))


def runtime_classes():
    """node.k8s.io/v1 RuntimeClass through NodeV1Api: create, read, list (with a label selector),
    watch, AlreadyExists, delete and NotFound."""
    node = client.NodeV1Api()
    start_rv = node.list_runtime_class().metadata.resource_version
    rc = client.V1RuntimeClass(
        metadata=client.V1ObjectMeta(name="gvisor", labels={"sandbox": "true"}),
        handler="runsc",
        overhead=client.V1Overhead(pod_fixed={"cpu": "250m", "memory": "120Mi"}),
        scheduling=client.V1Scheduling(
            node_selector={"runtime": "gvisor"},
            tolerations=[client.V1Toleration(key="sandbox", operator="Equal", value="gvisor", effect="NoSchedule")]))
    created = node.create_runtime_class(rc)
    check(created.handler == "runsc" and created.metadata.uid and created.metadata.namespace is None,
          "NodeV1Api.create_runtime_class (cluster-scoped)")
    got = node.read_runtime_class("gvisor")
    check(got.overhead.pod_fixed == {"cpu": "250m", "memory": "120Mi"}, "read_runtime_class: overhead.podFixed")
    check(got.scheduling.node_selector == {"runtime": "gvisor"}, "read_runtime_class: scheduling.nodeSelector")
    tol = got.scheduling.tolerations[0]
    check((tol.key, tol.operator, tol.value, tol.effect) == ("sandbox", "Equal", "gvisor", "NoSchedule"),
          "read_runtime_class: scheduling.tolerations")
    node.create_runtime_class(client.V1RuntimeClass(metadata=client.V1ObjectMeta(name="kata"), handler="kata-fc"))
    listed = node.list_runtime_class()
    check(listed.kind == "RuntimeClassList" and [(r.metadata.name, r.handler) for r in listed.items] ==
          [("gvisor", "runsc"), ("kata", "kata-fc")], "list_runtime_class")
    check([r.metadata.name for r in node.list_runtime_class(label_selector="sandbox=true").items] == ["gvisor"],
          "list_runtime_class with a label selector")
    w = watch.Watch()
    seen = []
    for ev in w.stream(node.list_runtime_class, resource_version=start_rv, timeout_seconds=5):
        seen.append((ev["type"], ev["object"].metadata.name))
        if len(seen) == 2:
            w.stop()
    check(seen == [("ADDED", "gvisor"), ("ADDED", "kata")], "watch runtime classes from a resourceVersion")
    try:
        node.create_runtime_class(rc)
        check(False, "duplicate runtime class must fail")
    except ApiException as e:
        check(e.status == 409 and message(e) == 'runtimeclasses.node.k8s.io "gvisor" already exists',
              "create_runtime_class twice: 409 AlreadyExists")
    node.delete_runtime_class("gvisor")
    try:
        node.read_runtime_class("gvisor")
        check(False, "deleted runtime class must be gone")
    except ApiException as e:
        check(e.status == 404 and message(e) == 'runtimeclasses.node.k8s.io "gvisor" not found',
              "delete_runtime_class, then read: 404")
    node.delete_runtime_class("kata")
    check(node.list_runtime_class().items == [], "every runtime class deleted")


def write_pipeline():
    """Every encoding the client can send (JSON models, raw YAML, patches) goes through the server's
    write pipeline: canonical quantities, defaults, admission and validation as upstream."""
    v1 = client.CoreV1Api()
    sched = client.SchedulingV1Api()
    api = v1.api_client
    res = client.V1ResourceRequirements(limits={"cpu": "0.5", "memory": "1024Mi"})
    p = client.V1Pod(metadata=client.V1ObjectMeta(name="wp-guaranteed"),
                     spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx", resources=res)]))
    created = v1.create_namespaced_pod("default", p)
    req = created.spec.containers[0].resources.requests
    check(req == {"cpu": "500m", "memory": "1Gi"}, "requests defaulted from limits, in canonical form")
    check(created.status.qos_class == "Guaranteed", "QoS class from defaulted requests")
    check(v1.read_namespaced_pod("wp-guaranteed", "default").spec.containers[0].resources.limits["memory"] == "1Gi",
          "canonical limits read back from storage")

    # A raw YAML body: plain 0.25 is a number, stored as a canonical quantity.
    body = ("apiVersion: v1\nkind: Pod\nmetadata: {name: wp-yaml}\nspec:\n  containers:\n  - name: c\n"
            "    image: nginx\n    resources: {requests: {cpu: 0.25}}\n")
    resp = api.call_api("/api/v1/namespaces/default/pods", "POST", body=body,
                        header_params={"Content-Type": "application/yaml", "Accept": "application/json"},
                        auth_settings=["BearerToken"], _preload_content=False)
    got = json.loads(resp[0].data)
    check(resp[1] == 201 and got["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "250m",
          "YAML body: number quantity stored as 250m")

    try:
        bad = client.V1Pod(metadata=client.V1ObjectMeta(name="wp-bad"), spec=client.V1PodSpec(containers=[
            client.V1Container(name="c", image="nginx", resources=client.V1ResourceRequirements(requests={"cpu": "lots"}))]))
        v1.create_namespaced_pod("default", bad)
        check(False, "an invalid quantity must be refused")
    except ApiException as e:
        check(e.status == 400 and message(e) == 'Pod in version "v1" cannot be handled as a Pod: quantities must match '
              "the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", "invalid quantity: 400 BadRequest")

    try:
        v1.patch_namespaced_pod("wp-guaranteed", "default", {"spec": {"schedulerName": "other"}})
        check(False, "a pod spec change must be refused")
    except ApiException as e:
        check(e.status == 422 and message(e).startswith(
            'Pod "wp-guaranteed" is invalid: spec: Forbidden: pod updates may not change fields other than'),
            "immutable pod spec: 422")
    patched = v1.patch_namespaced_pod("wp-guaranteed", "default",
                                      {"spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}})
    check(patched.spec.containers[0].image == "nginx:1.27", "image update allowed")
    fresh = v1.read_namespaced_pod("wp-guaranteed", "default")
    fresh.spec.containers.append(client.V1Container(name="extra", image="nginx"))
    try:
        v1.replace_namespaced_pod("wp-guaranteed", "default", fresh)
        check(False, "adding a container must be refused")
    except ApiException as e:
        check(e.status == 422 and "spec.containers: Forbidden: pod updates may not add or remove containers" in message(e),
              "container added on update: 422")

    pc = client.V1PriorityClass(metadata=client.V1ObjectMeta(name="wp-never"), value=1000, preemption_policy="Never")
    made = sched.create_priority_class(pc)
    check(made.preemption_policy == "Never" and made.metadata.generation == 1, "priority class created with generation 1")
    np = client.V1Pod(metadata=client.V1ObjectMeta(name="wp-never"),
                      spec=client.V1PodSpec(priority_class_name="wp-never",
                                            containers=[client.V1Container(name="c", image="nginx")]))
    got = v1.create_namespaced_pod("default", np)
    check((got.spec.priority, got.spec.preemption_policy) == (1000, "Never"), "priority admission copies the class")
    np.metadata.name = "wp-raw"
    np.spec.priority = 7
    try:
        v1.create_namespaced_pod("default", np)
        check(False, "a raw priority must be refused")
    except ApiException as e:
        check(e.status == 403 and "the integer value of priority (7) must not be provided in pod spec" in message(e),
              "raw priority with a class: 403")

    node = client.V1Node(metadata=client.V1ObjectMeta(name="wp-node"),
                         status=client.V1NodeStatus(capacity={"pods": 110, "cpu": 1.5}))
    n = v1.create_node(node)
    check(n.status.allocatable == {"pods": "110", "cpu": "1500m"}, "node capacity numbers canonical, allocatable defaulted")
    check(n.status.daemon_endpoints.kubelet_endpoint.port == 0 and n.status.node_info.kubelet_version == "",
          "node zero-value status structs")
    v1.delete_node("wp-node")
    for name in ("wp-guaranteed", "wp-yaml", "wp-never"):
        v1.delete_namespaced_pod(name, "default")
    sched.delete_priority_class("wp-never")


def raw(api, method, path, body=None, content_type="application/json"):
    """A request outside the models: `body` a dict (the client serialises it), the answer parsed."""
    resp = api.call_api(path, method, body=body, header_params={"Content-Type": content_type, "Accept": "application/json"},
                        auth_settings=["BearerToken"], _preload_content=False)
    return resp[1], json.loads(resp[0].data)


def v135_wire():
    """What kube-apiserver v1.35 stores and returns: /version, a pod with pod-level resources (a
    field this client's models predate, so sent and read as raw JSON), the defaults upstream
    fills, metadata.generation, and the watch events of a graceful deletion."""
    v1 = client.CoreV1Api()
    api = v1.api_client
    info = client.VersionApi().get_code()
    check((info.major, info.minor) == ("1", "35") and info.git_version.startswith("v1.35."), "/version: v1.35")
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "plr"},
            "spec": {"resources": {"limits": {"cpu": "1", "memory": "512Mi"}},
                     "containers": [{"name": "c", "image": "nginx:1.27", "resources": {"requests": {"cpu": "250m"}}}]}}
    status, created = raw(api, "POST", "/api/v1/namespaces/default/pods", body)
    check(status == 201, "pod with pod-level resources created")
    status, got = raw(api, "GET", "/api/v1/namespaces/default/pods/plr")
    spec = got["spec"]
    check(spec["resources"] == {"limits": {"cpu": "1", "memory": "512Mi"}, "requests": {"cpu": "250m", "memory": "512Mi"}},
          "pod-level resources round-trip, requests defaulted (containers' cpu, the limit's memory)")
    check(got["status"] == {"phase": "Pending", "qosClass": "Burstable"}, "status reset with the pod-level QoS class")
    check(got["metadata"]["generation"] == 1, "metadata.generation 1 on create")
    c = spec["containers"][0]
    check((c["imagePullPolicy"], c["terminationMessagePath"], c["terminationMessagePolicy"]) ==
          ("IfNotPresent", "/dev/termination-log", "File"), "container defaults")
    check((spec["dnsPolicy"], spec["restartPolicy"], spec["schedulerName"], spec["securityContext"],
           spec["terminationGracePeriodSeconds"], spec["enableServiceLinks"]) ==
          ("ClusterFirst", "Always", "default-scheduler", {}, 30, True), "pod spec defaults")
    typed = v1.read_namespaced_pod("plr", "default")
    check(typed.spec.containers[0].resources.requests == {"cpu": "250m"}, "the typed client reads it too")
    # Graceful deletion of a bound pod: MODIFIED (deletionTimestamp, grace 30, generation 2), then
    # the kubelet's delete with grace 0: MODIFIED (grace 0), DELETED.
    v1.create_namespaced_binding("default", client.V1Binding(
        metadata=client.V1ObjectMeta(name="plr"), target=client.V1ObjectReference(kind="Node", name="node-0")),
        _preload_content=False)
    rv = v1.list_namespaced_pod("default").metadata.resource_version
    status, deleting = raw(api, "DELETE", "/api/v1/namespaces/default/pods/plr")
    check(status == 200 and deleting["metadata"]["deletionGracePeriodSeconds"] == 30 and
          deleting["metadata"]["generation"] == 2, "graceful delete: grace 30, generation bumped")
    raw(api, "DELETE", "/api/v1/namespaces/default/pods/plr", {"gracePeriodSeconds": 0})
    w = watch.Watch()
    seen = []
    for ev in w.stream(v1.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=5,
                       field_selector="metadata.name=plr"):
        seen.append((ev["type"], ev["object"].metadata.deletion_grace_period_seconds))
        if ev["type"] == "DELETED":
            w.stop()
    check(seen == [("MODIFIED", 30), ("MODIFIED", 0), ("DELETED", 0)], "graceful deletion events: %s" % seen)


def refused_writes():
    """Issue #38: bodies upstream's server refuses are refused here too and nothing of them is
    stored, so listing the namespace (which decodes every pod into the client's models) works."""
    v1 = client.CoreV1Api()
    api = v1.api_client
    before = len(v1.list_namespaced_pod("default").items)
    container = {"name": "c", "image": "nginx"}
    bodies = {
        "runasuser": {"securityContext": {"runAsUser": "str"}, "containers": [container]},
        "links": {"enableServiceLinks": "str", "containers": [container]},
        "gates": {"readinessGates": "str", "containers": [container]},
        "emptydir": {"volumes": [{"name": "v", "emptyDir": "str"}], "containers": [container]},
        "port": {"containers": [dict(container, livenessProbe={"httpGet": {"port": True}})]},
        "cpu": {"containers": [dict(container, resources={"requests": {"cpu": "-1000"}})]},
        "memory": {"containers": [dict(container, resources={"limits": {"memory": "-1Gi"}})]},
        "deadline": {"activeDeadlineSeconds": 2147483648, "containers": [container]},
        "containerport": {"containers": [dict(container, ports=[{"containerPort": 0}])]},
    }
    for name, spec in bodies.items():
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "refused-" + name}, "spec": spec}
        try:
            api.call_api("/api/v1/namespaces/default/pods", "POST", body=body,
                         header_params={"Content-Type": "application/json", "Accept": "application/json"},
                         auth_settings=["BearerToken"], _preload_content=False)
            check(False, "refused-%s must be refused" % name)
        except ApiException as e:
            check(e.status in (400, 422), "refused: %s (%d)" % (name, e.status))
    for kind_meta in ({"apiVersion": "v2", "kind": "Pod"}, {"apiVersion": "v1", "kind": "123"}):
        body = dict(kind_meta, metadata={"name": "refused-kind"}, spec={"containers": [container]})
        try:
            api.call_api("/api/v1/namespaces/default/pods", "POST", body=body,
                         header_params={"Content-Type": "application/json", "Accept": "application/json"},
                         auth_settings=["BearerToken"], _preload_content=False)
            check(False, "%s must be refused" % kind_meta)
        except ApiException as e:
            check(e.status == 400 and "is registered for version" in message(e), "refused: %s" % kind_meta)
    pods = v1.list_namespaced_pod("default").items
    check(len(pods) == before and not any(p.metadata.name.startswith("refused-") for p in pods),
          "nothing refused was stored; list_namespaced_pod decodes the namespace")


def run(kubeconfig):
    config.load_kube_config(config_file=kubeconfig)
    v1 = client.CoreV1Api()

    nodes = v1.list_node()
    check(sorted(n.metadata.name for n in nodes.items) == ["node-0", "node-1"], "list simulated nodes")
    check(nodes.items[0].metadata.labels.get("type") == "simulated", "simulated node label")
    check(nodes.items[0].status.allocatable["cpu"] == "32", "node allocatable from built-in template")
    ns_names = {n.metadata.name for n in v1.list_namespace().items}
    check({"default", "kube-system", "kube-public", "kube-node-lease"} <= ns_names, "bootstrap namespaces")

    start_rv = v1.list_namespaced_pod("default").metadata.resource_version
    created = v1.create_namespaced_pod("default", pod("p0", {"app": "a"}))
    check(created.spec.scheduler_name == "default-scheduler", "pod defaulting: schedulerName")
    check(created.status.phase == "Pending", "pod status reset to Pending")
    check(created.metadata.uid and created.metadata.resource_version, "uid and resourceVersion assigned")

    # watch from the list's resourceVersion sees the create
    w = watch.Watch()
    seen = []
    for ev in w.stream(v1.list_namespaced_pod, "default", resource_version=start_rv, timeout_seconds=5):
        seen.append((ev["type"], ev["object"].metadata.name))
        w.stop()
    check(seen == [("ADDED", "p0")], "watch from resourceVersion delivers ADDED")

    # binding (POST .../bindings) sets nodeName and the PodScheduled condition; a second one conflicts
    binding = client.V1Binding(metadata=client.V1ObjectMeta(name="p0"),
                               target=client.V1ObjectReference(kind="Node", name="node-1"))
    resp = v1.create_namespaced_binding("default", binding, _preload_content=False)
    check(resp.status == 201, "binding answers 201")
    bound = v1.read_namespaced_pod("p0", "default")
    check(bound.spec.node_name == "node-1", "binding set spec.nodeName")
    cond = [c for c in bound.status.conditions if c.type == "PodScheduled"]
    check(cond and cond[0].status == "True", "PodScheduled=True")
    try:
        v1.create_namespaced_binding("default", binding, _preload_content=False)
        check(False, "second binding must fail")
    except ApiException as e:
        check(e.status == 409 and 'already assigned to node "node-1"' in message(e), "second binding: 409 already assigned")

    # optimistic concurrency: an update with a stale resourceVersion is a 409 Conflict
    stale = created
    stale.metadata.labels["x"] = "1"
    try:
        v1.replace_namespaced_pod("p0", "default", stale)
        check(False, "stale update must fail")
    except ApiException as e:
        check(e.status == 409 and "the object has been modified" in message(e), "stale update: 409 Conflict")
    fresh = v1.read_namespaced_pod("p0", "default")
    fresh.metadata.labels["x"] = "1"
    updated = v1.replace_namespaced_pod("p0", "default", fresh)
    check(int(updated.metadata.resource_version) > int(fresh.metadata.resource_version), "update bumps resourceVersion")

    # label selectors and pagination (continue tokens)
    for i in range(1, 8):
        v1.create_namespaced_pod("default", pod("p%d" % i, {"app": "b" if i % 2 else "a"}))
    names = [p.metadata.name for p in v1.list_namespaced_pod("default", label_selector="app=a").items]
    check(names == ["p0", "p2", "p4", "p6"], "label selector app=a")
    page = v1.list_namespaced_pod("default", limit=3)
    collected = [p.metadata.name for p in page.items]
    v1.create_namespaced_pod("default", pod("p9"))  # a write between pages does not change the snapshot
    while page.metadata._continue:
        page = v1.list_namespaced_pod("default", limit=3, _continue=page.metadata._continue)
        collected += [p.metadata.name for p in page.items]
    check(collected == ["p%d" % i for i in range(8)], "pagination is a consistent snapshot")

    # 410: after more than --watch-history writes, an old resourceVersion is expired
    for i in range(HISTORY + 5):
        v1.patch_namespaced_pod("p1", "default", {"metadata": {"annotations": {"n": str(i)}}})
    try:
        for _ in w.stream(v1.list_namespaced_pod, "default", resource_version=start_rv, timeout_seconds=5):
            pass
        check(False, "expired watch must fail")
    except ApiException as e:
        check(e.status == 410 and "too old resource version" in str(e.reason), "watch from expired RV: 410 Expired")
    try:
        v1.list_namespaced_pod("default", resource_version=start_rv, resource_version_match="Exact")
        check(False, "expired exact list must fail")
    except ApiException as e:
        check(e.status == 410, "list at expired exact RV: 410")

    # unbound pods are deleted at once; 404 afterwards
    v1.delete_namespaced_pod("p2", "default")
    try:
        v1.read_namespaced_pod("p2", "default")
        check(False, "deleted pod must be gone")
    except ApiException as e:
        check(e.status == 404, "deleted pod: 404")

    runtime_classes()
    write_pipeline()
    v135_wire()
    refused_writes()

    # token-file user authenticates, is authorized by RBAC (403 until a binding allows it); unknown
    # tokens get 401
    cfg = client.Configuration.get_default_copy()
    cfg.api_key = {"authorization": "Bearer py-token"}
    try:
        client.CoreV1Api(client.ApiClient(cfg)).list_namespace()
        check(False, "a user without a binding must be refused")
    except ApiException as e:
        check(e.status == 403, "no binding: 403")
        check(json.loads(e.body)["message"] == 'namespaces is forbidden: User "bob" cannot list resource "namespaces" '
              'in API group "" at the cluster scope', "upstream's Forbidden message: " + e.body)
    client.RbacAuthorizationV1Api().create_cluster_role_binding(client.V1ClusterRoleBinding(
        metadata=client.V1ObjectMeta(name="bob-view"),
        role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="ClusterRole", name="view"),
        subjects=[client.V1Subject(kind="Group", name="dev", api_group="rbac.authorization.k8s.io")]))
    check(len(client.CoreV1Api(client.ApiClient(cfg)).list_namespace().items) >= 4, "token-file user can list once bound")
    cfg.api_key = {"authorization": "Bearer nope"}
    try:
        client.CoreV1Api(client.ApiClient(cfg)).list_namespace()
        check(False, "unknown token must fail")
    except ApiException as e:
        check(e.status == 401, "unknown token: 401")


def main():
    ksched = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="ksched-e2e-py.")
    proc = None
    try:
        proc, kubeconfig = start(ksched, tmp)
        run(kubeconfig)
        print("PASS: python e2e")
    finally:
        if proc:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
