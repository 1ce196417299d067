#!/usr/bin/env bash
# kubectl against `ksched apiserver --feature-gates=GenericWorkload=true`: the v1.37 workload API's
# PodGroup (scheduling.k8s.io/v1beta1, KEP-5832) beside v1.35's v1alpha1 Workload. api-resources and
# explain, a Workload + a PodGroup made from its template + pods joining the PodGroup through
# spec.schedulingGroup.podGroupName, applied from one YAML file; `kubectl get podgroups`, the
# defaulted disruptionMode, the status subresource, upstream's refusals (declarative validation's
# messages) and kube-scheduler's access; then the default gates, which serve none of it.
# Usage: apiserver_podgroup.sh <path to ksched> [kubectl]
KSCHED=${1:?usage: apiserver_podgroup.sh <ksched> [kubectl]}
KUBECTL=${2:-kubectl}
source "$(dirname "$0")/apiserver_lib.sh"
start_apiserver "$KSCHED" --feature-gates=GenericWorkload=true
export HOME="$E2E_DIR"  # private discovery cache
k() { timeout 30 "$KUBECTL" --request-timeout=20s "$@" 2>&1; }

out=$(k api-resources --api-group=scheduling.k8s.io)
expect_api_resource "$out" podgroups "scheduling.k8s.io/v1beta1 true PodGroup" "podgroups are namespaced v1beta1 PodGroups"
expect_api_resource "$out" workloads "scheduling.k8s.io/v1beta1 true Workload" "workloads at their preferred v1beta1"
out=$(k explain podgroups.spec.schedulingPolicy)
expect_contains "$out" "VERSION:    v1beta1" "explain podgroups version"
expect_contains "$out" "gang	<GangSchedulingPolicy>" "explain lists the gang policy"
out=$(k explain pods.spec.schedulingGroup)
expect_contains "$out" "podGroupName	<string>" "explain pods.spec.schedulingGroup"

cat > "$E2E_DIR/gang.yaml" <<'EOF'
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: trainer
spec:
  podGroups:
  - name: workers
    policy:
      gang:
        minCount: 2
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: trainer-0
spec:
  workloadRef:
    workloadName: trainer
    templateName: workers
  schedulingPolicy:
    gang:
      minCount: 2
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0-w0
spec:
  schedulingGroup:
    podGroupName: trainer-0
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer-0-w1
spec:
  schedulingGroup:
    podGroupName: trainer-0
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
EOF
out=$(k create -f "$E2E_DIR/gang.yaml")
expect_contains "$out" "workload.scheduling.k8s.io/trainer created" "create workload"
expect_contains "$out" "podgroup.scheduling.k8s.io/trainer-0 created" "create podgroup"
expect_contains "$out" "pod/trainer-0-w1 created" "create pods"
out=$(k get podgroups)
expect_contains "$out" "NAME        AGE" "get podgroups columns"
expect_contains "$out" "trainer-0   " "get podgroups row"
out=$(k get podgroup trainer-0 -o jsonpath='{.spec.schedulingPolicy.gang.minCount}/{.spec.disruptionMode}')
expect_eq "$out" '2/{"single":{}}' "minCount stored, disruptionMode defaulted"
out=$(k get pods -o 'custom-columns=NAME:.metadata.name,GROUP:.spec.schedulingGroup.podGroupName' --no-headers)
expect_contains "$out" "trainer-0-w1   trainer-0" "pods carry their schedulingGroup"

# minCount may change (workload scaling); the policy's kind may not.
out=$(k patch podgroup trainer-0 --type=merge -p '{"spec":{"schedulingPolicy":{"gang":{"minCount":3}}}}')
expect_eq "$out" "podgroup.scheduling.k8s.io/trainer-0 patched" "minCount mutable"
out=$(k patch podgroup trainer-0 --type=merge -p '{"spec":{"schedulingPolicy":{"gang":null,"basic":{}}}}' || true)
expect_contains "$out" 'The PodGroup "trainer-0" is invalid:' "policy kind refused"
expect_contains "$out" "spec.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set" "gang NoUnset message"
# The status subresource: the scheduler's condition; a spec write through it changes nothing else.
out=$(k patch podgroup trainer-0 --subresource=status --type=merge -p '{"spec":{"schedulingPolicy":{"gang":{"minCount":9}}},"status":{"conditions":[{"type":"PodGroupInitiallyScheduled","status":"True","reason":"Scheduled","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}')
expect_eq "$out" "podgroup.scheduling.k8s.io/trainer-0 patched" "status patch"
out=$(k get podgroup trainer-0 -o jsonpath='{.spec.schedulingPolicy.gang.minCount}/{.status.conditions[0].type}')
expect_eq "$out" "3/PodGroupInitiallyScheduled" "status written, spec kept"

out=$(k create -f - <<'EOF'
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: bad
spec:
  schedulingPolicy:
    basic: {}
    gang:
      minCount: 0
EOF
) || true
expect_contains "$out" 'The PodGroup "bad" is invalid: spec.schedulingPolicy: Invalid value: "{`basic`, `gang`}": must specify exactly one of: `basic`, `gang`' "union refused"
out=$(k create -f - <<'EOF'
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: bad
spec:
  schedulingPolicy:
    gang:
      minCount: -1
EOF
) || true
expect_contains "$out" 'spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1' "minCount refused"
out=$(k patch pod trainer-0-w0 --type=merge -p '{"spec":{"schedulingGroup":{"podGroupName":"other"}}}' || true)
expect_contains "$out" "pod updates may not change fields other than" "schedulingGroup immutable"
out=$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad"},"spec":{"schedulingGroup":{"podGroupName":"Bad_Name"},"containers":[{"name":"c","image":"i"}]}}' | k create -f - || true)
expect_contains "$out" 'spec.schedulingGroup.podGroupName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain' "podGroupName refused"

# kube-scheduler reads PodGroups and writes their status.
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i watch podgroups.scheduling.k8s.io -A)
expect_eq "$out" "yes" "kube-scheduler watches podgroups"
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i patch podgroups.scheduling.k8s.io --subresource=status -n default)
expect_eq "$out" "yes" "kube-scheduler patches podgroups/status"
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i update podgroups.scheduling.k8s.io -n default || true)
expect_eq "$out" "no" "kube-scheduler does not update a podgroup's spec"

out=$(k delete podgroup trainer-0)
expect_eq "$out" 'podgroup.scheduling.k8s.io "trainer-0" deleted' "delete podgroup"

# At the default gates (GenericWorkload off, as v1.37 still has it) none of it is served.
stop_apiserver
E2E_DIR=$(mktemp -d /tmp/ksched-e2e.XXXXXX)
start_apiserver "$KSCHED"
export HOME="$E2E_DIR"
out=$(k api-resources --api-group=scheduling.k8s.io)
[[ "$out" != *podgroups* ]] || fail "podgroups listed with the gate off"
out=$(k get --raw /apis/scheduling.k8s.io/v1beta1 || true)
expect_contains "$out" "NotFound" "v1beta1 not served with the gate off"
out=$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"schedulingGroup":{"podGroupName":"pg"},"containers":[{"name":"c","image":"i"}]}}' | k create -f - -o jsonpath='{.metadata.name}/{.spec.schedulingGroup}')
expect_eq "$out" "p/" "schedulingGroup dropped with the gate off"
echo "PASS apiserver_podgroup"
