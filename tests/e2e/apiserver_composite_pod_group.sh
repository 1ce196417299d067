#!/usr/bin/env bash
# kubectl against `ksched apiserver --feature-gates=GenericWorkload=true,CompositePodGroup=true`:
# CompositePodGroups (v1.37 alpha, KEP-6012). api-resources and explain of the v1alpha3 kind, a
# v1beta1 Workload with compositePodGroupTemplates, its root CompositePodGroup and a PodGroup
# naming it as parent applied from one YAML file, the defaulted disruptionMode, the status
# subresource, upstream's refusals and kube-scheduler's access; then GenericWorkload alone, which
# serves no CompositePodGroup and drops a PodGroup's parent.
# Usage: apiserver_composite_pod_group.sh <path to ksched> [kubectl]
KSCHED=${1:?usage: apiserver_composite_pod_group.sh <ksched> [kubectl]}
KUBECTL=${2:-kubectl}
source "$(dirname "$0")/apiserver_lib.sh"
start_apiserver "$KSCHED" --feature-gates=GenericWorkload=true,CompositePodGroup=true
export HOME="$E2E_DIR"  # private discovery cache
k() { timeout 30 "$KUBECTL" --request-timeout=20s "$@" 2>&1; }

out=$(k api-resources --api-group=scheduling.k8s.io)
expect_api_resource "$out" compositepodgroups "scheduling.k8s.io/v1alpha3 true CompositePodGroup" \
  "compositepodgroups are namespaced v1alpha3 CompositePodGroups"
out=$(k explain compositepodgroups.spec.schedulingPolicy.gang)
expect_contains "$out" "minGroupCount	<integer>" "explain the composite gang policy"
out=$(k explain workloads.spec.compositePodGroupTemplates)
expect_contains "$out" "podGroupTemplates	<[]PodGroupTemplate>" "explain a Workload's composite templates"

cat > "$E2E_DIR/tree.yaml" <<'EOF'
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: job
spec:
  compositePodGroupTemplates:
  - name: replica
    schedulingPolicy:
      gang:
        minGroupCount: 2
    podGroupTemplates:
    - name: leader
      schedulingPolicy:
        gang:
          minCount: 1
    - name: workers
      schedulingPolicy:
        gang:
          minCount: 4
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata:
  name: replica-0
spec:
  workloadRef:
    workloadName: job
    templateName: replica
  schedulingPolicy:
    gang:
      minGroupCount: 2
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata:
  name: replica-0-leader
spec:
  parentCompositePodGroupName: replica-0
  workloadRef:
    workloadName: job
    templateName: leader
  schedulingPolicy:
    gang:
      minCount: 1
EOF
out=$(k create -f "$E2E_DIR/tree.yaml")
expect_contains "$out" "workload.scheduling.k8s.io/job created" "create workload with composite templates"
expect_contains "$out" "compositepodgroup.scheduling.k8s.io/replica-0 created" "create compositepodgroup"
expect_contains "$out" "podgroup.scheduling.k8s.io/replica-0-leader created" "create child podgroup"
out=$(k get compositepodgroups)
expect_contains "$out" "replica-0   " "get compositepodgroups row"
out=$(k get compositepodgroup replica-0 -o jsonpath='{.spec.schedulingPolicy.gang.minGroupCount}/{.spec.disruptionMode}')
expect_eq "$out" '2/{"single":{}}' "minGroupCount stored, disruptionMode defaulted"
out=$(k get podgroup replica-0-leader -o jsonpath='{.spec.parentCompositePodGroupName}')
expect_eq "$out" "replica-0" "the PodGroup keeps its parent"
out=$(k get workload job -o jsonpath='{.spec.compositePodGroupTemplates[0].podGroupTemplates[1].name}')
expect_eq "$out" "workers" "the Workload keeps its template tree"

# The whole spec is immutable; the status subresource is the scheduler's.
out=$(k patch compositepodgroup replica-0 --type=merge -p '{"spec":{"schedulingPolicy":{"gang":{"minGroupCount":3}}}}' || true)
expect_contains "$out" "spec.schedulingPolicy: Invalid value: null: field is immutable" "policy immutable"
out=$(k patch compositepodgroup replica-0 --subresource=status --type=merge -p '{"status":{"conditions":[{"type":"CompositePodGroupInitiallyScheduled","status":"True","reason":"Scheduled","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}')
expect_eq "$out" "compositepodgroup.scheduling.k8s.io/replica-0 patched" "status patch"
out=$(k get compositepodgroup replica-0 -o jsonpath='{.status.conditions[0].type}')
expect_eq "$out" "CompositePodGroupInitiallyScheduled" "status written"

out=$(k create -f - <<'EOF'
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata:
  name: bad
spec:
  schedulingPolicy:
    gang:
      minGroupCount: -1
EOF
) || true
expect_contains "$out" 'The CompositePodGroup "bad" is invalid:' "invalid compositepodgroup refused"
expect_contains "$out" "spec.workloadRef: Required value" "workloadRef required"
expect_contains "$out" "spec.schedulingPolicy.gang.minGroupCount: Invalid value: -1: must be greater than or equal to 1" "minGroupCount refused"
out=$(k create -f - <<'EOF'
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: empty-composite
spec:
  compositePodGroupTemplates:
  - name: c
    schedulingPolicy:
      basic: {}
EOF
) || true
expect_contains "$out" 'spec.compositePodGroupTemplates[0]: Invalid value: "c": must have at least one child PodGroupTemplate or CompositePodGroupTemplate' "composite template without a child refused"

out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i watch compositepodgroups.scheduling.k8s.io -A)
expect_eq "$out" "yes" "kube-scheduler watches compositepodgroups"
out=$(k --kubeconfig "$SCHED_KUBECONFIG" auth can-i patch compositepodgroups.scheduling.k8s.io --subresource=status -n default)
expect_eq "$out" "yes" "kube-scheduler patches compositepodgroups/status"
out=$(k delete compositepodgroup replica-0)
expect_eq "$out" 'compositepodgroup.scheduling.k8s.io "replica-0" deleted' "delete compositepodgroup"

# GenericWorkload alone: no CompositePodGroup, a PodGroup's parent dropped, composite templates refused.
stop_apiserver
E2E_DIR=$(mktemp -d /tmp/ksched-e2e.XXXXXX)
start_apiserver "$KSCHED" --feature-gates=GenericWorkload=true
export HOME="$E2E_DIR"
out=$(k api-resources --api-group=scheduling.k8s.io)
[[ "$out" != *compositepodgroups* ]] || fail "compositepodgroups listed with the gate off"
out=$(k get --raw /apis/scheduling.k8s.io/v1alpha3 || true)
expect_contains "$out" "NotFound" "v1alpha3 not served with the gate off"
out=$(printf '{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":{"name":"pg"},"spec":{"parentCompositePodGroupName":"root","workloadRef":{"workloadName":"w","templateName":"t"},"schedulingPolicy":{"basic":{}}}}' | k create -f - -o jsonpath='{.metadata.name}/{.spec.parentCompositePodGroupName}')
expect_eq "$out" "pg/" "parentCompositePodGroupName dropped with the gate off"
out=$(printf '{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"Workload","metadata":{"name":"w"},"spec":{"compositePodGroupTemplates":[{"name":"c","schedulingPolicy":{"basic":{}},"podGroupTemplates":[{"name":"p","schedulingPolicy":{"basic":{}}}]}]}}' | k create -f - || true)
expect_contains "$out" "spec.compositePodGroupTemplates: Forbidden" "composite templates forbidden with the gate off"
echo "PASS apiserver_composite_pod_group"
