# Shared helpers for the API server e2e scripts: start one server on a free port, stop it on exit.
# Usage: source apiserver_lib.sh; start_apiserver <ksched> [extra flags...] (E2E_EXTRA_TOKENS: more
# token-file lines)
set -euo pipefail

E2E_DIR=$(mktemp -d /tmp/ksched-e2e.XXXXXX)
SERVER_PID=""

stop_apiserver() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$E2E_DIR"
}
trap stop_apiserver EXIT

start_apiserver() {
  local bin=$1; shift
  # alice: a user without any RBAC binding; the scheduler's own identity (system:kube-scheduler,
  # bound by the bootstrap policy) for the kube-scheduler processes the suites start.
  printf 'e2e-user-token,alice,1001,"dev,qa"\ne2e-scheduler-token,system:kube-scheduler,kube-scheduler\n' \
    > "$E2E_DIR/tokens.csv"
  if [[ -n "${E2E_EXTRA_TOKENS:-}" ]]; then printf '%s\n' "$E2E_EXTRA_TOKENS" >> "$E2E_DIR/tokens.csv"; fi
  "$bin" apiserver --listen 127.0.0.1:0 --kubeconfig-out "$E2E_DIR/kubeconfig" --tls \
    --token-file "$E2E_DIR/tokens.csv" "$@" > "$E2E_DIR/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 100); do
    [[ -s "$E2E_DIR/kubeconfig" ]] && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$E2E_DIR/server.log"; echo "apiserver exited early"; exit 1; }
    sleep 0.1
  done
  [[ -s "$E2E_DIR/kubeconfig" ]] || { echo "no kubeconfig written"; exit 1; }
  export KUBECONFIG="$E2E_DIR/kubeconfig"
  SERVER_URL=$(awk '/server:/ {print $2}' "$KUBECONFIG")
  SCHED_KUBECONFIG="$E2E_DIR/scheduler.kubeconfig"
  sed 's/^\(    token: \).*/\1e2e-scheduler-token/' "$KUBECONFIG" > "$SCHED_KUBECONFIG"
}

fail() { echo "FAIL: $*" >&2; echo "--- server log" >&2; tail -20 "$E2E_DIR/server.log" >&2 || true; exit 1; }

# expect_contains <haystack> <needle> <what>
expect_contains() {
  if [[ "$1" != *"$2"* ]]; then
    printf 'got:\n%s\n' "$1" >&2
    fail "$3: expected output to contain '$2'"
  fi
}
expect_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$2', got '$1'"; }

# expect_api_resource <`kubectl api-resources` output> <name> <"APIVERSION NAMESPACED KIND"> <what>:
# the resource's row (a resource without short names) names that version, scope and kind.
expect_api_resource() {
  local line
  line=$(grep "^$2 " <<<"$1" || true)
  [[ "$(awk '{print $2, $3, $4}' <<<"$line")" == "$3" ]] || fail "$4: expected '$3', got '$line'"
}
