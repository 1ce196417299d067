#!/usr/bin/env bash
# The manifests in deploy/ are accepted by an API server (applied with kubectl to ksched apiserver),
# and the ConfigMap's KubeSchedulerConfiguration is one kube-scheduler accepts.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
start_apiserver "$KSCHED"
for f in rbac config deployment; do
  out=$(k apply -f "$ROOT/deploy/$f.yaml")
  [[ "$out" == *created* || "$out" == *configured* ]] || fail "kubectl apply deploy/$f.yaml: $out"
done
out=$(k -n kube-system get deployment ksched -o jsonpath='{.spec.template.spec.containers[0].readinessProbe.httpGet.path}')
expect_eq "$out" "/readyz" "readiness probe path"
k -n kube-system get configmap ksched-config -o jsonpath='{.data.ksched-config\.yaml}' > "$E2E_DIR/ksched-config.yaml"
out=$(timeout 20 "$KUBE_SCHEDULER" --config "$E2E_DIR/ksched-config.yaml" --write-config-to "$E2E_DIR/effective.yaml" 2>&1) \
  || fail "kube-scheduler rejects the deployed configuration: $out"
grep -q "schedulerName: ksched" "$E2E_DIR/effective.yaml" || fail "profile ksched missing from effective config"
echo "e2e deploy: OK"
