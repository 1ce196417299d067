# Helpers for the kube-scheduler e2e suites: the API server from ../e2e/apiserver_lib.sh, plus
# kube-scheduler processes on free loopback ports, all stopped on exit.
KSCHED=${1:?usage: <suite>.sh <ksched> <kube-scheduler> <kubectl>}
KUBE_SCHEDULER=${2:?}
KUBECTL=${3:-kubectl}
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/apiserver_lib.sh"
export HOME="$E2E_DIR"
SCHED_PIDS=()

k() { timeout 30 "$KUBECTL" --request-timeout=20s "$@" 2>&1; }

stop_all() {
  for pid in "${SCHED_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  stop_apiserver
}
trap stop_all EXIT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_scheduler <name> [flags...]: sets LAST_PID and LAST_PORT; log in $E2E_DIR/<name>.log. The
# scheduler runs as system:kube-scheduler (apiserver_lib.sh), with upstream's RBAC for it.
start_scheduler() {
  local name=$1; shift
  LAST_PORT=$(free_port)
  "$KUBE_SCHEDULER" --kubeconfig "$SCHED_KUBECONFIG" --bind-address 127.0.0.1 --secure-port "$LAST_PORT" \
    --authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics,/configz "$@" > "$E2E_DIR/$name.log" 2>&1 &
  LAST_PID=$!
  SCHED_PIDS+=("$LAST_PID")
}

# get_url <port> <path>: HTTPS GET against a scheduler (self-signed serving certificate).
get_url() { /usr/bin/python3 - "$1" "$2" <<'PY'
import ssl, sys, urllib.request, urllib.error
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
try:
    with urllib.request.urlopen(f"https://127.0.0.1:{sys.argv[1]}{sys.argv[2]}", context=ctx, timeout=10) as r:
        print(r.status); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode())
except Exception as e:
    print(0); print(e)
PY
}

# wait_until <seconds> <description> <command...>: polls a condition, bounded.
wait_until() {
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  while (( SECONDS < end )); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  fail "timed out after ${secs}s waiting for: $what"
}

# On failure also show the schedulers' logs, every warning or error in them (a rare failure is
# otherwise undiagnosable once the temporary directory is gone), and what the server holds.
fail() {
  echo "FAIL: $*" >&2
  for f in "$E2E_DIR"/*.log; do
    echo "--- $(basename "$f")" >&2
    tail -15 "$f" >&2
    echo "--- $(basename "$f"): warnings and errors" >&2
    grep -E '^[WE][0-9]{4} ' "$f" | tail -20 >&2 || true
  done
  echo "--- nodes and pods on the server" >&2
  k get nodes >&2 || true
  k get pods -A -o wide >&2 || true
  exit 1
}
