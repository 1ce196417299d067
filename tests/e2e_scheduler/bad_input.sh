#!/usr/bin/env bash
# Bad configuration, bad kubeconfig, bad flags and an unreachable server: a clear one-line error,
# exit code 1, no crash.
source "$(dirname "$0")/lib.sh"

run() { timeout 20 "$KUBE_SCHEDULER" "$@" 2>&1; }
expect_fail() {  # expect_fail <expected substring> <args...>
  local want=$1; shift
  local out code=0
  out=$(run "$@") || code=$?
  expect_eq "$code" "1" "exit code for: $*"
  expect_contains "$out" "$want" "error for: $*"
  [[ "$out" != *"Segmentation"* && "$out" != *"terminate called"* ]] || fail "crash for: $*"
  errors=$(grep -c '^Error:' <<<"$out")
  expect_eq "$errors" "1" "one error line for: $*"
}

expect_fail "unknown flag: --no-such-flag" --no-such-flag
expect_fail 'invalid argument "abc" for "--secure-port" flag' --secure-port=abc
expect_fail "open /nonexistent/config.yaml: no such file or directory" --config /nonexistent/config.yaml

printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: x\n  bogus: 1\n' > "$E2E_DIR/bad.yaml"
expect_fail 'strict decoding error: unknown field "profiles[0].bogus"' --config "$E2E_DIR/bad.yaml"
printf 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nparallelism: 0\n' > "$E2E_DIR/invalid.yaml"
expect_fail "parallelism" --config "$E2E_DIR/invalid.yaml"
printf 'apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n' > "$E2E_DIR/old.yaml"
expect_fail 'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3"' --config "$E2E_DIR/old.yaml"

printf 'this: is: not: yaml: [' > "$E2E_DIR/kc-bad"
expect_fail "kubeconfig" --kubeconfig "$E2E_DIR/kc-bad" --secure-port 0
expect_fail "kubeconfig" --kubeconfig /nonexistent/kubeconfig --secure-port 0

# A server nobody listens on: the scheduler must say so and exit 1, not hang or crash.
PORT=$(free_port)
cat > "$E2E_DIR/kc-unreachable" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:$PORT", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
YAML
expect_fail "127.0.0.1:$PORT" --kubeconfig "$E2E_DIR/kc-unreachable" --secure-port 0 --leader-elect=false

out=$(run --version); expect_contains "$out" "Kubernetes v1.35.4" "--version"
out=$(run --write-config-to "$E2E_DIR/written.yaml" --leader-elect=false) || fail "--write-config-to failed: $out"
grep -q "schedulerName: default-scheduler" "$E2E_DIR/written.yaml" || fail "written config lacks the default profile"
grep -q "leaderElect: false" "$E2E_DIR/written.yaml" || fail "written config ignores --leader-elect=false"
echo "e2e bad input: OK"
