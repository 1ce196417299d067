#!/usr/bin/env bash
# `ksched up` on its durable default: objects, bindings and the admin kubeconfig survive a restart
# on the same data directory; --ephemeral keeps nothing.
# usage: up_restart.sh <ksched> <kubectl>
set -euo pipefail
KSCHED=${1:?}; KUBECTL=${2:?}
DIR=$(mktemp -d /tmp/ksched-up-restart.XXXXXX)
UP_PID=""
stop_up() {
  if [[ -n "$UP_PID" ]]; then kill -TERM "$UP_PID" 2>/dev/null || true; wait "$UP_PID" 2>/dev/null || true; fi
  UP_PID=""
}
cleanup() { stop_up; rm -rf "$DIR"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -20 "$DIR/up.log" >&2 || true; exit 1; }
expect_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$2', got '$1'"; }
k() { timeout 30 "$KUBECTL" --kubeconfig "${KCFG:-$DIR/kubeconfig}" --request-timeout=20s "$@" 2>&1; }
up() {  # up [flags...]: starts `ksched up` in $DIR and waits until it says it is up
  : > "$DIR/up.log"
  (cd "$DIR" && exec "$KSCHED" up --listen 127.0.0.1:0 --nodes 3 --ui-listen "" --kubeconfig-out "$DIR/kubeconfig" \
    --scheduler-secure-port -1 "$@" >> "$DIR/up.log" 2>&1) &
  UP_PID=$!
  for _ in $(seq 1 150); do grep -q "Local cluster is up" "$DIR/up.log" && return 0; sleep 0.1; done
  fail "ksched up did not come up"
}

up
grep -q "store:       ./.ksched" "$DIR/up.log" || fail "the default store is ./.ksched"
k run web --image=registry.k8s.io/pause:3.10 >/dev/null
for _ in $(seq 1 100); do [[ -n $(k get pod web -o jsonpath='{.spec.nodeName}') ]] && break; sleep 0.2; done
NODE=$(k get pod web -o jsonpath='{.spec.nodeName}')
[[ -n "$NODE" ]] || fail "web was not bound"
UID1=$(k get pod web -o jsonpath='{.metadata.uid}')
cp "$DIR/kubeconfig" "$DIR/kubeconfig.before"
stop_up

up
expect_eq "$(k get pod web -o jsonpath='{.metadata.uid}')" "$UID1" "the same pod after a restart"
expect_eq "$(k get pod web -o jsonpath='{.spec.nodeName}')" "$NODE" "its binding after a restart"
expect_eq "$(k get nodes -o name | wc -l)" "3" "the nodes, not created twice"
# The kubeconfig handed out before still works (same CA and token), pointed at the new port.
NEW_SERVER=$(awk '/server:/ {print $2}' "$DIR/kubeconfig")
sed "s#server: .*#server: $NEW_SERVER#" "$DIR/kubeconfig.before" > "$DIR/kubeconfig.old"
expect_eq "$(KCFG=$DIR/kubeconfig.old k get pod web -o jsonpath='{.metadata.name}')" "web" "the old kubeconfig"
stop_up

up --ephemeral
grep -q "store:       in memory" "$DIR/up.log" || fail "--ephemeral says it keeps nothing"
expect_eq "$(k get pods -o name | wc -l)" "0" "--ephemeral starts empty"
stop_up
echo "PASS"
