#!/usr/bin/env bash
# `ksched up`'s web page in a real browser: headless Chromium loads it, the page's script fetches
# the cluster and a pod's explanation, and the DOM it builds is checked (--dump-dom after the
# page's fetches, --virtual-time-budget). With SCREENSHOT=path also writes a screenshot there.
# usage: up_web_page.sh <ksched> <kubectl> <chromium>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}; CHROMIUM=${3:?}
DIR=$(mktemp -d /tmp/ksched-ui.XXXXXX)
UP_PID=""
cleanup() {
  if [[ -n "$UP_PID" ]]; then kill -TERM "$UP_PID" 2>/dev/null || true; wait "$UP_PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -20 "$DIR/up.log" >&2 || true; exit 1; }
expect_contains() { [[ "$1" == *"$2"* ]] || fail "$3: expected to find '$2'"; }
k() { timeout 30 "$KUBECTL" --kubeconfig "$DIR/kubeconfig" --request-timeout=20s "$@" 2>&1; }
browser() {  # browser <url> [flags...], after the page's script ran (--dump-dom: print the DOM)
  local url=$1; shift
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$DIR/chromium" \
    --virtual-time-budget=10000 "$@" "$url" 2>>"$DIR/chromium.log"
}

cd "$DIR"
"$KSCHED" up --listen 127.0.0.1:0 --nodes 3 --ui-listen 127.0.0.1:0 --kubeconfig-out "$DIR/kubeconfig" \
  --scheduler-secure-port -1 > "$DIR/up.log" 2>&1 &
UP_PID=$!
for _ in $(seq 1 100); do grep -q "web page:" "$DIR/up.log" && break; sleep 0.1; done
URL=$(awk '/web page:/ {print $3}' "$DIR/up.log")
[[ -n "$URL" ]] || fail "no web page address printed"

k run web --image=registry.k8s.io/pause:3.10 \
  --overrides='{"spec":{"containers":[{"name":"web","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"4","memory":"8Gi"}}}]}}' >/dev/null
k run db --image=registry.k8s.io/pause:3.10 \
  --overrides='{"spec":{"containers":[{"name":"db","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"8","memory":"32Gi"}}}]}}' >/dev/null
k run huge --image=registry.k8s.io/pause:3.10 \
  --overrides='{"spec":{"containers":[{"name":"huge","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"500"}}}]}}' >/dev/null
for _ in $(seq 1 100); do
  [[ $(k get pods -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | grep -c .) == 2 ]] &&
    [[ $(k get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].reason}') == Unschedulable ]] && break
  sleep 0.2
done
WEB_NODE=$(k get pod web -o jsonpath='{.spec.nodeName}')
[[ -n "$WEB_NODE" ]] || fail "web was not bound"

dom=$(browser "$URL" --dump-dom) || fail "chromium failed: $(tail -5 "$DIR/chromium.log")"
for n in node-0 node-1 node-2; do expect_contains "$dom" "class=\"node\" data-name=\"$n\"" "node row $n"; done
expect_contains "$dom" ">default/web</a>" "web listed on its node"
expect_contains "$dom" "class=\"pending\"" "a pending row"
expect_contains "$dom" "0/3 nodes are available: 3 Insufficient cpu." "huge's reason, as the scheduler wrote it"

dom=$(browser "${URL}?pod=default/huge" --dump-dom)
expect_contains "$dom" 'data-pod="default/huge" data-chosen=""' "huge's explanation"
expect_contains "$dom" "rejected by NodeResourcesFit: Insufficient cpu" "per-node rejection"

dom=$(browser "${URL}?pod=default/db" --dump-dom)
expect_contains "$dom" 'data-pod="default/db"' "db's explanation"
expect_contains "$dom" '<table id="scores">' "score table"
expect_contains "$dom" "NodeResourcesBalancedAllocation" "a score plugin column"
expect_contains "$dom" "Bound to " "a bound pod is explained as if pending"

if [[ -n "${SCREENSHOT:-}" ]]; then
  browser "${URL}?pod=default/db" --window-size=1280,900 --screenshot="$SCREENSHOT" >/dev/null
fi
echo "PASS up web page"
