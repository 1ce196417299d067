#!/usr/bin/env python3
"""Writes the message tables of src/api/protobuf_schema.cpp from a k8s.io/api checkout.

The tables say, per message, each field's protobuf number, JSON name, value type and how Go's
encoding/json renders it when absent (see the table syntax in protobuf_schema.cpp). They are read
here from the Go types of k8s.io/api and k8s.io/apimachinery (struct fields with their `json` and
`protobuf` tags), starting from the root kinds below and following every message they reach.

    scripts/protobuf_schema_tables.py --staging DIR --newer API_DIR > tables.txt

DIR holds k8s.io/api and k8s.io/apimachinery (a vendor/k8s.io directory, or kubernetes' staging/src/k8s.io)
at v1.35. API_DIR is a k8s.io/api checkout of a later release (kubernetes/api master, v1.37
development): the packages of NEWER_PACKAGES are read from it, and the fields of ADOPTED_FIELDS are
added from it to v1.35's messages.
The output replaces the generated part of kTables; the messages written by hand there (runtime's
Unknown and TypeMeta, WatchEvent) are not generated.
"""
import argparse
import os
import re
import sys

# (package dir under k8s.io, short name used in Go qualifiers)
PACKAGES = {
    "core": "api/core/v1",
    "apps": "api/apps/v1",
    "batch": "api/batch/v1",
    "policy": "api/policy/v1",
    "scheduling": "api/scheduling/v1",
    "node": "api/node/v1",
    "storage": "api/storage/v1",
    "coordination": "api/coordination/v1",
    "events": "api/events/v1",
    "rbac": "api/rbac/v1",
    "networking": "api/networking/v1",
    "dra": "api/resource/v1",
    # DeviceTaintRule, served as v1beta2 (v1.36); v1.35's k8s.io/api has it only in v1alpha3, with the
    # same fields and protobuf numbers.
    "drataint": "api/resource/v1alpha3",
    "meta": "apimachinery/pkg/apis/meta/v1",
    # Workload (v1.35, GenericWorkload), still served at v1alpha1.
    "schedalpha": "api/scheduling/v1alpha1",
}
# Packages read from --newer (paths under that k8s.io/api checkout).
NEWER_PACKAGES = {
    # Workload and PodGroup of v1.37 (KEP-5832); v1.35's v1beta1 has only PriorityClass.
    "schedbeta": "scheduling/v1beta1",
    # CompositePodGroup of v1.37 (KEP-6012, alpha), served at v1alpha3 only.
    "schedalpha3": "scheduling/v1alpha3",
    # For ADOPTED_FIELDS only (its PodSchedulingGroup); v1.35's core messages stay v1.35's.
    "corenew": "core/v1",
    # For ADOPTED_FIELDS only (JobSpec.scheduling, v1.37, gate WorkloadWithJob) and the
    # scheduling/v1alpha3 building blocks it is made of.
    "batchnew": "batch/v1",
}
# Fields of a later release appended to a v1.35 message: (package, Go struct, newer package, Go field).
# The pod's spec.schedulingGroup (43) replaced v1.35's workloadRef (42, reserved upstream); ksched
# serves both.
# A Job's spec.scheduling (17, v1.37) is added the same way.
ADOPTED_FIELDS = [("core", "PodSpec", "corenew", "SchedulingGroup"), ("batch", "JobSpec", "batchnew", "Scheduling")]
# Go import aliases in those files -> package key.
QUALIFIERS = {"v1": "core", "corev1": "core", "apiv1": "core", "metav1": "meta", "apps": "apps", "batchv1": "batch",
              "schedulingv1alpha3": "schedalpha3"}

# Root kinds: "apiVersion/Kind" -> (package, Go type). Lists are added for the kinds marked True.
ROOTS = [
    ("v1", "core", "Namespace", True), ("v1", "core", "ConfigMap", False), ("v1", "core", "Secret", False),
    ("v1", "core", "ServiceAccount", False), ("v1", "core", "Service", True),
    ("v1", "core", "ResourceQuota", False), ("v1", "core", "Binding", False), ("v1", "core", "Pod", True),
    ("v1", "core", "Node", True), ("v1", "core", "Event", True), ("v1", "core", "ReplicationController", True),
    ("v1", "core", "PersistentVolume", True), ("v1", "core", "PersistentVolumeClaim", True),
    ("apps/v1", "apps", "Deployment", True), ("apps/v1", "apps", "ReplicaSet", True),
    ("apps/v1", "apps", "StatefulSet", True), ("apps/v1", "apps", "DaemonSet", True),
    ("batch/v1", "batch", "Job", False), ("batch/v1", "batch", "CronJob", False),
    ("policy/v1", "policy", "PodDisruptionBudget", True), ("policy/v1", "policy", "Eviction", False),
    ("scheduling.k8s.io/v1", "scheduling", "PriorityClass", True),
    ("node.k8s.io/v1", "node", "RuntimeClass", False),
    ("storage.k8s.io/v1", "storage", "StorageClass", True), ("storage.k8s.io/v1", "storage", "CSINode", True),
    ("storage.k8s.io/v1", "storage", "CSIDriver", True),
    ("storage.k8s.io/v1", "storage", "CSIStorageCapacity", True),
    ("coordination.k8s.io/v1", "coordination", "Lease", False),
    ("events.k8s.io/v1", "events", "Event", True),
    ("rbac.authorization.k8s.io/v1", "rbac", "Role", False),
    ("rbac.authorization.k8s.io/v1", "rbac", "ClusterRole", False),
    ("rbac.authorization.k8s.io/v1", "rbac", "RoleBinding", False),
    ("rbac.authorization.k8s.io/v1", "rbac", "ClusterRoleBinding", False),
    ("networking.k8s.io/v1", "networking", "Ingress", False),
    ("resource.k8s.io/v1", "dra", "DeviceClass", True), ("resource.k8s.io/v1", "dra", "ResourceClaim", True),
    ("resource.k8s.io/v1", "dra", "ResourceClaimTemplate", True),
    ("resource.k8s.io/v1", "dra", "ResourceSlice", True),
    ("resource.k8s.io/v1beta2", "drataint", "DeviceTaintRule", True),
    ("scheduling.k8s.io/v1alpha1", "schedalpha", "Workload", True),
    ("scheduling.k8s.io/v1beta1", "schedbeta", "Workload", True),
    ("scheduling.k8s.io/v1beta1", "schedbeta", "PodGroup", True),
    ("scheduling.k8s.io/v1alpha3", "schedalpha3", "CompositePodGroup", True),
    ("*", "meta", "Status", False), ("*", "meta", "DeleteOptions", False),
]

# Table names where two packages use one Go name (core's and events.k8s.io's Event).
RENAMES = {
    ("core", "Event"): "CoreEvent", ("core", "EventList"): "CoreEventList", ("core", "EventSeries"): "CoreEventSeries",
    ("events", "Event"): "EventsEvent", ("events", "EventList"): "EventsEventList",
    ("events", "EventSeries"): "EventsEventSeries",
    ("dra", "ResourceClaim"): "DRAResourceClaim", ("dra", "ResourceClaimList"): "DRAResourceClaimList",
    ("drataint", "DeviceTaint"): "V1beta2DeviceTaint",
    # scheduling.k8s.io: v1alpha1's Workload messages by version; v1beta1's where core has the name.
    **{("schedalpha", n): "V1alpha1" + n for n in (
        "Workload", "WorkloadList", "WorkloadSpec", "PodGroup", "PodGroupPolicy", "BasicSchedulingPolicy",
        "GangSchedulingPolicy", "TypedLocalObjectReference")},
    ("schedbeta", "TypedLocalObjectReference"): "V1beta1TypedLocalObjectReference",
    ("schedbeta", "WorkloadReference"): "V1beta1WorkloadReference",
    # v1alpha3's CompositePodGroup messages by version (v1beta1 has the same names).
    **{("schedalpha3", n): "V1alpha3" + n for n in (
        "CompositePodGroup", "CompositePodGroupList", "CompositePodGroupSpec", "CompositePodGroupStatus",
        "WorkloadReference", "CompositePodGroupSchedulingPolicy", "CompositeBasicSchedulingPolicy",
        "CompositeGangSchedulingPolicy", "CompositePodGroupSchedulingConstraints", "TopologyConstraint",
        "CompositeDisruptionMode", "SingleCompositeDisruptionMode", "AllCompositeDisruptionMode")},
}
# Go types with a value kind of their own in the tables.
SPECIAL = {
    ("meta", "Time"): "Time", ("meta", "MicroTime"): "MicroTime", ("meta", "FieldsV1"): "Raw",
    ("resource", "Quantity"): "Quantity", ("intstr", "IntOrString"): "IntOrString", ("runtime", "RawExtension"): "Raw",
}
BASIC = {"string": "s", "int32": "i32", "int64": "i64", "bool": "bool", "types.UID": "s"}

FIELD_RE = re.compile(r"^\t(?:(\w+)\s+)?([\w.*\[\]]+(?:\[[\w.]+\][\w.*\[\]]+)?)\s+`([^`]*)`")


def parse_package(path):
    structs, named = {}, {}
    for name in sorted(os.listdir(path)):
        if not name.endswith(".go") or name.startswith("zz_") or name.endswith("_test.go") or "generated" in name:
            continue
        lines = open(os.path.join(path, name)).read().split("\n")
        i = 0
        while i < len(lines):
            m = re.match(r"^type (\w+) struct \{", lines[i])
            if m:
                fields = []
                i += 1
                while lines[i] != "}":
                    fm = FIELD_RE.match(lines[i])
                    if fm:
                        fields.append(fm.groups())
                    i += 1
                structs[m.group(1)] = fields
            else:
                m = re.match(r"^type (\w+) (\S.*)$", lines[i])
                if m and not m.group(2).startswith(("struct", "interface", "=")):
                    named[m.group(1)] = m.group(2).strip()
            i += 1
    return structs, named


def tag(tags, key):
    m = re.search(key + r':"([^"]*)"', tags)
    return m.group(1) if m else None


class Gen:
    def __init__(self, staging, newer):
        self.pkgs = {k: parse_package(os.path.join(staging, v)) for k, v in PACKAGES.items()}
        self.pkgs.update({k: parse_package(os.path.join(newer, v)) for k, v in NEWER_PACKAGES.items()})
        self.out = {}  # table name -> lines
        self.order = []
        self.pending = []
        self.names = {}  # table name -> (pkg, go name)

    def table_name(self, pkg, go):
        name = RENAMES.get((pkg, go), go)
        if self.names.setdefault(name, (pkg, go)) != (pkg, go):
            sys.exit(f"name clash: {name} is {self.names[name]} and {(pkg, go)}; add a RENAMES entry")
        return name

    def qualify(self, pkg, t):
        if "." in t:
            q, n = t.split(".", 1)
            return QUALIFIERS.get(q, q), n
        return pkg, t

    # Returns (type text, is_struct) for a base (non-pointer, non-slice, non-map) Go type.
    def value_type(self, pkg, t):
        if t in BASIC:
            return BASIC[t], False
        qp, n = self.qualify(pkg, t)
        if (qp, n) in SPECIAL:
            return SPECIAL[(qp, n)], True
        if qp not in self.pkgs:
            sys.exit(f"type {t} from an unknown package")
        structs, named = self.pkgs[qp]
        if n in named:
            under = named[n]
            if under in BASIC:
                return BASIC[under], False
            return self.shape(qp, under)
        if n not in structs:
            sys.exit(f"unknown type {qp}.{n}")
        self.pending.append((qp, n))
        return self.table_name(qp, n), True

    # Full type text (with [] / map:) for a Go type expression; is_struct for single values only.
    def shape(self, pkg, t):
        if t == "[]byte":
            return "b", False
        if t.startswith("[]"):
            inner, _ = self.value_type(pkg, t[2:])
            if inner.startswith(("[]", "map:")):
                sys.exit(f"nested repeated type {t}")
            return "[]" + inner, False
        m = re.match(r"map\[([\w.]+)\](.+)", t)
        if m:
            inner = self.shape(pkg, m.group(2))[0]
            return "map:" + inner, False
        return self.value_type(pkg, t)

    def message(self, pkg, go):
        name = self.table_name(pkg, go)
        if name in self.out:
            return
        self.out[name] = None
        lines = []
        fields = [(pkg, f) for f in self.pkgs[pkg][0][go]]
        for base_pkg, base_go, newer_pkg, newer_field in ADOPTED_FIELDS:
            if (base_pkg, base_go) == (pkg, go):
                fields += [(newer_pkg, f) for f in self.pkgs[newer_pkg][0][go] if f[0] == newer_field]
        for pkg, (fname, gotype, tags) in fields:
            pb = tag(tags, "protobuf")
            js = tag(tags, "json")
            if not pb or pb == "-":
                continue
            number = pb.split(",")[1]
            parts = (js or "").split(",")
            jname = parts[0]
            inline = "inline" in parts[1:]
            omit = "omitempty" in parts[1:]
            if not fname:  # embedded struct
                fname = gotype.lstrip("*").split(".")[-1]
                if not js:
                    inline = True
            if jname == "-":
                continue
            if not jname and not inline:
                jname = fname
            pointer = gotype.startswith("*")
            text, is_struct = self.shape(pkg, gotype.lstrip("*"))
            if inline:
                suffix = "~"
                jname = fname[0].lower() + fname[1:]
            elif pointer:
                suffix = "?" if omit else "?!"
            elif is_struct:
                suffix = ""  # always rendered
            else:
                suffix = "" if omit else "!"
            lines.append(f"  {number} {jname} {text}{suffix}")
        self.out[name] = lines
        self.order.append(name)

    def run(self):
        kinds = []
        for api_version, pkg, go, with_list in ROOTS:
            for g in [go] + ([go + "List"] if with_list else []):
                name = self.table_name(pkg, g)
                kind = g
                kinds.append((f"{api_version}/{kind}", name))
                self.pending.append((pkg, g))
                while self.pending:
                    self.message(*self.pending.pop(0))
        return kinds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--staging", required=True, help="directory holding api/ and apimachinery/ of k8s.io")
    ap.add_argument("--newer", required=True, help="a k8s.io/api checkout of a later release (NEWER_PACKAGES)")
    args = ap.parse_args()
    g = Gen(args.staging, args.newer)
    kinds = g.run()
    for name in g.order:
        print(name)
        for line in g.out[name]:
            print(line)
    print("--- kinds")
    for gvk, name in kinds:
        print(f'    {{"{gvk}", "{name}"}},')


if __name__ == "__main__":
    main()
