#!/usr/bin/env bash
# kubectl against `ksched apiserver --feature-gates=GenericWorkload=true`: the scheduling.k8s.io
# Workload at v1alpha1 (v1.35) and v1beta1 (v1.37; kubectl's preferred version, both views of one
# stored object): discovery and explain, applied at v1alpha1 with a gang and a basic pod group,
# pods linked to it by spec.workloadRef, `kubectl get` columns, upstream's refusals, a v1beta1
# Workload applied and read back at v1alpha1 (get, patch, a watch over HTTP); then a server at
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
# v1beta1 is listed before v1alpha1, so kubectl's unqualified `workloads` are v1beta1's.
expect_api_resource "$out" workloads "scheduling.k8s.io/v1beta1 true Workload" "workloads are namespaced v1beta1 Workloads"
out=$(k explain workloads.spec.podGroups.policy --api-version=scheduling.k8s.io/v1alpha1)
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
out=$(k get workloads.v1alpha1.scheduling.k8s.io training -o jsonpath='{.spec.podGroups[0].policy.gang.minCount}')
expect_eq "$out" "3" "minCount stored"
# The same object at v1beta1: pod groups are templates, a policy is a schedulingPolicy.
out=$(k get workloads training -o jsonpath='{.apiVersion} {.spec.podGroupTemplates[0].name} {.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount} {.spec.controllerRef.kind}')
expect_eq "$out" "scheduling.k8s.io/v1beta1 workers 3 Job" "v1alpha1 Workload read at v1beta1"

# Upstream's refusals.
out=$(k patch workloads.v1alpha1.scheduling.k8s.io training --type=merge -p '{"spec":{"podGroups":[{"name":"workers","policy":{"gang":{"minCount":2}}}]}}' || true)
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

# A v1beta1 Workload (v1.37's shape), applied, then read and changed through v1alpha1 and v1beta1.
cat > "$E2E_DIR/workload-v1beta1.yaml" <<'EOF'
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: inference
spec:
  podGroupTemplates:
  - name: servers
    schedulingPolicy:
      gang:
        minCount: 2
    priority: 100
EOF
out=$(k apply -f "$E2E_DIR/workload-v1beta1.yaml")
expect_eq "$out" "workload.scheduling.k8s.io/inference created" "apply v1beta1 workload"
out=$(k apply -f "$E2E_DIR/workload-v1beta1.yaml")
expect_eq "$out" "workload.scheduling.k8s.io/inference unchanged" "apply v1beta1 again"
out=$(k get workloads.v1beta1.scheduling.k8s.io --no-headers -o custom-columns=NAME:.metadata.name)
expect_eq "$out" $'inference\ntraining' "get workloads.v1beta1 lists both"
out=$(k get workloads.v1alpha1.scheduling.k8s.io inference -o jsonpath='{.apiVersion} {.spec.podGroups[0].name} {.spec.podGroups[0].policy.gang.minCount}')
expect_eq "$out" "scheduling.k8s.io/v1alpha1 servers 2" "v1beta1 Workload read at v1alpha1"
out=$(k get workloads.v1alpha1.scheduling.k8s.io inference -o jsonpath='{.spec}')
[[ "$out" != *priority* ]] || fail "v1alpha1 has no template priority: $out"
# v1beta1 lets a gang's minCount change; v1alpha1 sees the new value.
out=$(k patch workloads.v1beta1.scheduling.k8s.io inference --type=merge -p '{"spec":{"podGroupTemplates":[{"name":"servers","schedulingPolicy":{"gang":{"minCount":4}},"priority":100}]}}')
expect_eq "$out" "workload.scheduling.k8s.io/inference patched" "minCount scaled at v1beta1"
out=$(k get workloads.v1alpha1.scheduling.k8s.io inference -o jsonpath='{.spec.podGroups[0].policy.gang.minCount}')
expect_eq "$out" "4" "scaled minCount at v1alpha1"
out=$(k patch workloads.v1beta1.scheduling.k8s.io inference --type=json -p '[{"op":"add","path":"/spec/podGroupTemplates/-","value":{"name":"extra","schedulingPolicy":{"basic":{}},"priority":100}}]' || true)
expect_contains "$out" 'The Workload "inference" is invalid: spec.podGroupTemplates[1]: Forbidden: cannot add new items' "no template added at v1beta1"
# A watch at v1alpha1 over HTTP (ended by the server after 1 s) sees the stored objects in v1alpha1.
out=$(k get --raw '/apis/scheduling.k8s.io/v1alpha1/namespaces/default/workloads?watch=1&timeoutSeconds=1')
expect_contains "$out" '"apiVersion":"scheduling.k8s.io/v1alpha1"' "v1alpha1 watch events"
expect_contains "$out" '"podGroups":[{"name":"servers","policy":{"gang":{"minCount":4}}}]' "v1alpha1 watch converts"
[[ "$out" != *'"spec":{"podGroupTemplates"'* ]] || fail "a v1alpha1 watch shows v1beta1 fields: $out"
out=$(k delete workloads.v1alpha1.scheduling.k8s.io inference)
expect_eq "$out" 'workload.scheduling.k8s.io "inference" deleted' "delete at v1alpha1"

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
