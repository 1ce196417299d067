#!/usr/bin/env bash
# kubectl against `ksched apiserver --feature-gates=GenericWorkload=true`: the scheduling.k8s.io
# v1alpha1 Workload (v1.35) in discovery and explain, applied with a gang and a basic pod group,
# pods linked to it by spec.workloadRef, `kubectl get` columns, upstream's refusals; then a server at
# the default gates, which serves no Workload and drops the pod field. python3-kubernetes is not
# used: Debian's python3-kubernetes (v22) has no scheduling.k8s.io/v1alpha1 client, and its dynamic
# client would only repeat what kubectl shows here.
# Usage: apiserver_workload.sh <path to ksched> [kubectl]
KSCHED=${1:?usage: apiserver_workload.sh <ksched> [kubectl]}
KUBECTL=${2:-kubectl}
source "$(dirname "$0")/apiserver_lib.sh"
start_apiserver "$KSCHED" --feature-gates=GenericWorkload=true,GangScheduling=true
export HOME="$E2E_DIR"  # private discovery cache
k() { timeout 30 "$KUBECTL" --request-timeout=20s "$@" 2>&1; }

out=$(k api-resources --api-group=scheduling.k8s.io)
expect_contains "$out" "workloads" "api-resources lists workloads"
line=$(grep '^workloads ' <<<"$out")
[[ "$(awk '{print $2, $3, $4}' <<<"$line")" == "scheduling.k8s.io/v1alpha1 true Workload" ]] ||
  fail "workloads are namespaced v1alpha1 Workloads: $line"
out=$(k explain workloads.spec.podGroups.policy)
expect_contains "$out" "GROUP:      scheduling.k8s.io" "explain workloads group"
expect_contains "$out" "gang	<GangSchedulingPolicy>" "explain lists the gang policy"
out=$(k explain pods.spec.workloadRef)
expect_contains "$out" "podGroup	<string>" "explain pods.spec.workloadRef"

cat > "$E2E_DIR/workload.yaml" <<'EOF'
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: training
spec:
  controllerRef:
    apiGroup: batch
    kind: Job
    name: training
  podGroups:
  - name: workers
    policy:
      gang:
        minCount: 3
  - name: driver
    policy:
      basic: {}
EOF
out=$(k apply -f "$E2E_DIR/workload.yaml")
expect_eq "$out" "workload.scheduling.k8s.io/training created" "apply workload"
out=$(k apply -f "$E2E_DIR/workload.yaml")
expect_eq "$out" "workload.scheduling.k8s.io/training unchanged" "apply again"
for i in 0 1 2; do
  k create -f - <<EOF > /dev/null || fail "create worker-$i"
apiVersion: v1
kind: Pod
metadata:
  name: worker-$i
spec:
  workloadRef:
    name: training
    podGroup: workers
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
EOF
done
out=$(k get pods -o 'custom-columns=NAME:.metadata.name,WORKLOAD:.spec.workloadRef.name,GROUP:.spec.workloadRef.podGroup' --no-headers)
expect_contains "$out" "worker-2   training   workers" "pods carry their workloadRef"
out=$(k get workloads)
expect_contains "$out" "NAME       AGE" "get workloads columns"
expect_contains "$out" "training   " "get workloads row"
out=$(k get workloads training -o jsonpath='{.spec.podGroups[0].policy.gang.minCount}')
expect_eq "$out" "3" "minCount stored"

# Upstream's refusals.
out=$(k patch workload training --type=merge -p '{"spec":{"podGroups":[{"name":"workers","policy":{"gang":{"minCount":2}}}]}}' || true)
expect_contains "$out" 'The Workload "training" is invalid: podGroups: Invalid value:' "pod groups immutable"
expect_contains "$out" "field is immutable" "pod groups immutable message"
out=$(k create -f - <<'EOF'
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: bad
spec:
  podGroups:
  - name: a
    policy:
      basic: {}
      gang:
        minCount: 0
EOF
) || true
expect_contains "$out" 'The Workload "bad" is invalid: spec.podGroups[0].policy: Invalid value: "{`basic`, `gang`}": exactly one of `basic`, `gang` is required, but multiple fields are set' "union refused"
out=$(k create -f - <<'EOF'
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata:
  name: bad
spec:
  podGroups: []
EOF
) || true
expect_contains "$out" 'spec.podGroups: Required value: must have at least one item' "empty pod groups refused"
out=$(k patch pod worker-0 --type=merge -p '{"spec":{"workloadRef":{"podGroup":"driver"}}}' || true)
expect_contains "$out" "pod updates may not change fields other than" "workloadRef immutable"
# (kubectl create sends the manifest as written; kubectl run's --overrides goes through v1.32's
# typed Pod, which drops the field.)
linked_pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"workloadRef":%s,"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}' "$1" "$2"
}
out=$(linked_pod bad-ref '{"name":"training","podGroup":"Workers"}' | k create -f - || true)
expect_contains "$out" 'spec.workloadRef.podGroup: Invalid value: "Workers": a lowercase RFC 1123 label' "podGroup name refused"

# kube-scheduler may read Workloads (its bootstrap role under the gate).
# (SelfSubjectAccessReviews under the scheduler's own token, apiserver_lib.sh's SCHED_KUBECONFIG.)
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i list workloads.scheduling.k8s.io -A)
expect_eq "$out" "yes" "kube-scheduler lists workloads"
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i watch workloads.scheduling.k8s.io -A)
expect_eq "$out" "yes" "kube-scheduler watches workloads"
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i create workloads.scheduling.k8s.io -n default || true)
expect_eq "$out" "no" "kube-scheduler does not create workloads"

out=$(k delete workload training)
expect_eq "$out" 'workload.scheduling.k8s.io "training" deleted' "delete workload"

# At v1.35's defaults (GenericWorkload off) nothing of this is served.
stop_apiserver
E2E_DIR=$(mktemp -d /tmp/ksched-e2e.XXXXXX)
start_apiserver "$KSCHED"
export HOME="$E2E_DIR"
out=$(k api-resources --api-group=scheduling.k8s.io)
[[ "$out" != *workloads* ]] || fail "workloads listed with the gate off"
out=$( { k --kubeconfig "$SCHED_KUBECONFIG" auth can-i list workloads.scheduling.k8s.io -A || true; } | tail -1)  # after a warning
expect_eq "$out" "no" "kube-scheduler's role has no workloads rule with the gate off"
out=$(k get --raw /apis/scheduling.k8s.io/v1alpha1 || true)
expect_contains "$out" "NotFound" "v1alpha1 not served with the gate off"
out=$(linked_pod p '{"name":"training","podGroup":"workers"}' | k create -f - -o jsonpath='{.metadata.name}/{.spec.workloadRef}')
expect_eq "$out" "p/" "workloadRef dropped with the gate off"
echo "PASS apiserver_workload"
