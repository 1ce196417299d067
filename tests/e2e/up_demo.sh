#!/usr/bin/env bash
# `ksched up --demo` as `make demo` runs it, with the default ports taken (another local cluster):
#   - --exit-when-done: completes on a free port, prints the summary README.md shows (its lines and
#     their arithmetic), leaves no kubeconfig and no kubectl hints behind;
#   - staying up: the API server and the web page on free ports, said so, the kubeconfig path
#     absolute and working;
#   - a kept cluster (`ksched up`) on a taken port: a clear error instead.
# usage: up_demo.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-demo.XXXXXX)
HOLD_PID=""; UP_PID=""
cleanup() {
  for p in $UP_PID $HOLD_PID; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; for f in "$DIR"/*.out; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }
line() { grep -E "$2" "$1" | head -1; }

# Take 6443 and 6480 (if someone else has one already, it is taken all the same).
python3 - "$DIR/held" <<'EOF' &
import socket, sys, time
held = []
for port in (6443, 6480):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        s.listen(1)
        held.append(s)
    except OSError:
        pass
open(sys.argv[1], "w").write("held")
time.sleep(600)
EOF
HOLD_PID=$!
for _ in $(seq 1 100); do [[ -f "$DIR/held" ]] && break; sleep 0.05; done
[[ -f "$DIR/held" ]] || fail "could not take the ports"

# ---- make demo: ksched up --demo --exit-when-done
mkdir "$DIR/once" && cd "$DIR/once"
timeout 150 "$KSCHED" up --demo --exit-when-done > "$DIR/once.out" 2> "$DIR/once.err" || fail "the demo failed ($?)"
OUT="$DIR/once.out"
head -1 "$OUT" | grep -qE '^ksched demo: 297 pods on 100 nodes, settled [0-9.]+ s after the first pod was created$' ||
  fail "summary header"
line "$OUT" '^  scheduling: ' | grep -qE '^  scheduling:    290 pods that fit at once, all bound [0-9.]+ s after the first of them was created: [0-9]+ pods/s$' ||
  fail "scheduling line"
line "$OUT" '^  preemption: ' | grep -qE '^  preemption:    demo/vip \(priority 10000\) evicted demo/filler-[0-3], bound on node-0 [0-9.]+ s after its creation \(victim gone after [0-9.]+ s; the rest is the scheduler.s retry backoff\)$' ||
  fail "preemption line"
# per node: the histogram covers the 100 nodes and the 294 pods bound (297 - 2 unschedulable - 1 victim)
hist=$(line "$OUT" '^  per node: ' | sed 's/.*histogram://')
read -r nodes pods < <(tr ' ' '\n' <<< "$hist" | awk -F: 'NF==2 {n += $2; p += $1 * $2} END {print n, p}')
[[ "$nodes" == 100 && "$pods" == 294 ]] || fail "histogram '$hist' sums to $nodes nodes, $pods pods"
grep -qx '  unschedulable: 2, they stay pending:' "$OUT" || fail "unschedulable count"
grep -q '^    demo/too-big (Unschedulable): 0/100 nodes are available: ' "$OUT" || fail "too-big's reason"
grep -q '^    demo/gpu-without-toleration (Unschedulable): 0/100 nodes are available: ' "$OUT" || fail "gpu-without-toleration's reason"
api=$(line "$OUT" '^  cluster: ')
[[ "$api" =~ ^\ \ cluster:\ \ \ \ \ \ \ API\ server\ https://127\.0\.0\.1:([0-9]+)\ \(127\.0\.0\.1:6443\ was\ taken\),\ in\ memory,\ stopped\ after\ this\ summary$ ]] ||
  fail "cluster line: $api"
[[ "${BASH_REMATCH[1]}" != 6443 ]] || fail "the demo says it used 6443"
[[ $(wc -l < "$OUT") == 8 ]] || fail "the summary is not 8 lines"
! grep -q "kubectl\|KUBECONFIG\|web page" "$OUT" || fail "hints for a cluster that is gone"
[[ ! -e kubeconfig ]] || fail "a kubeconfig was left behind"

# ---- ksched up --demo, staying up
mkdir "$DIR/stay" && cd "$DIR/stay"
"$KSCHED" up --demo > "$DIR/stay.out" 2> "$DIR/stay.err" &
UP_PID=$!
for _ in $(seq 1 600); do grep -q "Press Ctrl-C" "$DIR/stay.out" && break; kill -0 $UP_PID 2>/dev/null || break; sleep 0.1; done
grep -q "Press Ctrl-C" "$DIR/stay.out" || fail "the demo did not come up"
[[ $(line "$DIR/stay.out" '^  API server: ') =~ ^\ \ API\ server:\ \ https://127\.0\.0\.1:([0-9]+)\ \(127\.0\.0\.1:6443\ was\ taken\)$ ]] ||
  fail "API server line"
[[ $(line "$DIR/stay.out" '^  web page: ') =~ ^\ \ web\ page:\ \ \ \ (http://127\.0\.0\.1:[0-9]+/)\ \(127\.0\.0\.1:6480\ was\ taken\)$ ]] ||
  fail "web page line"
PAGE=${BASH_REMATCH[1]}
grep -qx "  export KUBECONFIG=$DIR/stay/kubeconfig" "$DIR/stay.out" || fail "kubeconfig path not absolute"
cd /  # the printed path works from anywhere
n=$(timeout 30 "$KUBECTL" --kubeconfig "$DIR/stay/kubeconfig" get pods -n demo --no-headers | wc -l)
[[ "$n" == 296 ]] || fail "kubectl sees $n demo pods, not 296"
curl -sf --max-time 10 -o "$DIR/page.html" "$PAGE" && grep -q "<title>ksched: local cluster</title>" "$DIR/page.html" ||
  fail "the web page is not served"
curl -sf --max-time 10 -o "$DIR/cluster.json" "${PAGE}api/cluster" && grep -q '"key":"demo/vip","cpu":8000' "$DIR/cluster.json" ||
  fail "the page's data lacks demo/vip"
kill -TERM $UP_PID; wait $UP_PID || fail "ksched up did not stop cleanly"
UP_PID=""

# ---- a kept cluster does not move: a clear error
cd "$DIR/stay"
if timeout 30 "$KSCHED" up --nodes 1 > "$DIR/kept.out" 2>&1; then fail "ksched up started on a taken port"; fi
grep -q "Error: 127.0.0.1:6443 is in use (another local cluster?); stop it, or give --listen 127.0.0.1:0 for any free port" \
  "$DIR/kept.out" || fail "the error for a taken port"
echo "PASS up demo"
