# Shared by the suites that drive one `ksched up` with kubectl. The suite sets DIR (its scratch
# directory), KUBECTL and UP_PID="" before sourcing; it may define EXTRA_CLEANUP (a command run
# first on exit) and redefine fail() for more diagnostics.
cleanup() {
  if [[ -n "${EXTRA_CLEANUP:-}" ]]; then eval "$EXTRA_CLEANUP" || true; fi
  if [[ -n "$UP_PID" ]]; then kill -TERM "$UP_PID" 2>/dev/null || true; wait "$UP_PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; tail -30 "$DIR/up.log" >&2 || true; exit 1; }
ok() { echo "ok: $*"; }
expect_eq() { [[ "$1" == "$2" ]] || fail "$3: expected '$2', got '$1'"; ok "$3"; }
expect_contains() { [[ "$1" == *"$2"* ]] || fail "$3: expected to find '$2' in: $1"; ok "$3"; }
k() { timeout 60 "$KUBECTL" --kubeconfig "$DIR/kubeconfig" --request-timeout=30s "$@" 2>&1; }
kq() { timeout 60 "$KUBECTL" --kubeconfig "$DIR/kubeconfig" --request-timeout=30s "$@" 2>/dev/null; }  # stdout only
until_ok() {  # until_ok <seconds> <command...>: retries every 0.2 s until it succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}
# up_gang_cluster <nodes> [gates] [controllers]: `ksched up` ($KSCHED) with that many simulated nodes
# of 4 CPUs and 32 GiB, in memory; gates default to GenericWorkload=true,GangScheduling=true and
# controllers to none (else ksched up's --controllers value, e.g. '*'); waits until it is up and
# sets UP_PID. The gang suites' cluster.
up_gang_cluster() {
  local gates=${2:-GenericWorkload=true,GangScheduling=true} controllers=(--no-controllers)
  [[ -n "${3:-}" ]] && controllers=(--controllers "$3")
  cat > "$DIR/node.yaml" <<'YAML'
apiVersion: v1
kind: Node
status:
  capacity: {cpu: "4", memory: 32Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 32Gi, pods: "110"}
YAML
  (cd "$DIR" && exec "$KSCHED" up --listen 127.0.0.1:0 --nodes "$1" --node-template "$DIR/node.yaml" --ephemeral \
    --ui-listen "" --kubeconfig-out "$DIR/kubeconfig" --scheduler-secure-port -1 "${controllers[@]}" \
    --feature-gates "$gates" > "$DIR/up.log" 2>&1) &
  UP_PID=$!
  until_ok 30 grep -q "Local cluster is up" "$DIR/up.log" || fail "ksched up did not come up"
}
# up_binding_gpu_cluster: `ksched up` with two nodes of one GPU each that must be attached before a
# pod binds (bindingConditions=Attached, the binding-condition gates on); waits for both slices.
up_binding_gpu_cluster() {
  (cd "$DIR" && exec "$KSCHED" up --listen 127.0.0.1:0 --nodes 2 --ephemeral --ui-listen "" --kubeconfig-out "$DIR/kubeconfig" \
    --scheduler-secure-port -1 --dra-devices "gpu.ksched.dev=1,bindingConditions=Attached" \
    --feature-gates DRADeviceBindingConditions=true,DRAResourceClaimDeviceStatus=true > "$DIR/up.log" 2>&1) &
  UP_PID=$!
  until_ok 30 grep -q "Local cluster is up" "$DIR/up.log" || fail "ksched up did not come up"
  until_ok 30 bash -c "[[ \$($KUBECTL --kubeconfig $DIR/kubeconfig get resourceslices --no-headers 2>/dev/null | grep -c .) == 2 ]]" ||
    fail "2 ResourceSlices: $(k get resourceslices)"
}
# apply_gpu_trainer <replicas>: applies dra_gpu_trainer.yaml (a GPU DeviceClass, a one-GPU claim
# template and a Deployment "trainer" of that many pods using it); prints kubectl's answer.
apply_gpu_trainer() {
  sed "s/REPLICAS/$1/" "$(dirname "${BASH_SOURCE[0]}")/dra_gpu_trainer.yaml" > "$DIR/dra.yaml"
  k apply -f "$DIR/dra.yaml"
}
