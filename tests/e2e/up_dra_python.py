#!/usr/bin/python3
"""python3-kubernetes against `ksched up --dra-devices` (called by up_dra.sh with the cluster's
kubeconfig): the resource.k8s.io objects through the dynamic client (discovery of both versions)
and CustomObjectsApi: read the simulated drivers' ResourceSlices and the claims the controller
made, create and read back a ResourceClaim with its defaults, write its status, and get
upstream's 422 for a bad one. Debian's python3-kubernetes (v22) predates ResourceV1Api, so the
generic clients are the ones a user of it has.
Usage: up_dra_python.py <kubeconfig>"""
import json
import sys

from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def main():
    api = config.new_client_from_config(sys.argv[1])
    dyn = dynamic.DynamicClient(api)

    slices = dyn.resources.get(api_version="resource.k8s.io/v1", kind="ResourceSlice")
    items = slices.get().items
    check(len(items) == 9, "the dynamic client lists the 9 ResourceSlices")
    gpu = slices.get(name="node-0-gpu.ksched.dev-0")
    check(gpu.spec.driver == "gpu.ksched.dev" and gpu.spec.pool.name == "node-0", "a slice's driver and pool")
    check([d.name for d in gpu.spec.devices] == ["gpu-0", "gpu-1", "gpu-2", "gpu-3"], "its devices")
    check(gpu.spec.devices[0].attributes["model"]["string"] == "A100", "a device's model attribute")
    by_node = slices.get(field_selector="spec.nodeName=node-2").items
    check(len(by_node) == 3, "field selector spec.nodeName through the dynamic client")

    rules = dyn.resources.get(api_version="resource.k8s.io/v1beta2", kind="DeviceTaintRule")
    check(rules.get().items == [], "DeviceTaintRule is discovered in resource.k8s.io/v1beta2")

    claims = dyn.resources.get(api_version="resource.k8s.io/v1", kind="ResourceClaim")
    made = [c for c in claims.get(namespace="default").items if c.metadata.name.startswith("trainer-")]
    check(len(made) == 3, "the controller's three claims")
    check(all(c.metadata.ownerReferences[0].kind == "Pod" for c in made), "owned by pods")

    custom = client.CustomObjectsApi(api)
    body = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "py-claim"},
            "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu.ksched.dev",
                 "selectors": [{"cel": {"expression": "device.attributes[\"gpu.ksched.dev\"].model == \"A100\""}}]},
                {"name": "any", "deviceClassName": "gpu.ksched.dev", "allocationMode": "All"}]}]}}}
    created = custom.create_namespaced_custom_object("resource.k8s.io", "v1", "default", "resourceclaims", body)
    sub = created["spec"]["devices"]["requests"][0]["firstAvailable"]
    check(sub[0]["allocationMode"] == "ExactCount" and sub[0]["count"] == 1, "subrequest defaults")
    check("count" not in sub[1], "no count for allocationMode All")
    got = custom.get_namespaced_custom_object("resource.k8s.io", "v1", "default", "resourceclaims", "py-claim")
    check(got["metadata"]["uid"] == created["metadata"]["uid"], "read back")

    status = {"status": {"allocation": {"devices": {"results": [
        {"request": "gpu/big", "driver": "gpu.ksched.dev", "pool": "node-0", "device": "gpu-3"}]}}}}
    patched = custom.patch_namespaced_custom_object_status("resource.k8s.io", "v1", "default", "resourceclaims",
                                                            "py-claim", status)
    check(patched["status"]["allocation"]["devices"]["results"][0]["device"] == "gpu-3", "status write of an allocation")

    bad = dict(body, metadata={"name": "py-bad"})
    bad["spec"] = {"devices": {"requests": [{"name": "gpu"}]}}
    try:
        custom.create_namespaced_custom_object("resource.k8s.io", "v1", "default", "resourceclaims", bad)
        raise AssertionError("a request without exactly or firstAvailable was accepted")
    except ApiException as e:
        status = json.loads(e.body)
        check(e.status == 422, "422 for a bad claim")
        check(status["details"]["causes"][0]["field"] == "spec.devices.requests[0]", "the cause names the field")
        check(status["details"]["causes"][0]["message"] ==
              "Required value: exactly one of `exactly` or `firstAvailable` is required", "upstream's message")
    custom.delete_namespaced_custom_object("resource.k8s.io", "v1", "default", "resourceclaims", "py-claim")


if __name__ == "__main__":
    main()
