# Shell shared by the gang suites on `ksched up` (gang_up.sh, pod_group_up.sh,
# pod_group_topology_up.sh); sourced after ../e2e/up_lib.sh, with $DIR set and `fail` defined.

# fail_with_pod_groups <namespace> <message>: a failure that shows the log's tail and the namespace's
# pods and PodGroups (the PodGroup suites' fail()).
fail_with_pod_groups() {
  echo "FAIL: $2" >&2
  tail -30 "$DIR/up.log" >&2 || true
  k -n "$1" get pods -o wide >&2 || true
  k -n "$1" get podgroups -o yaml >&2 || true
  exit 1
}

# bound_count <namespace> <prefix>: pods named <prefix>-<n> with a node.
bound_count() {
  kq -n "$1" get pods -o jsonpath='{range .items[*]}{.metadata.name}={.spec.nodeName}{"\n"}{end}' | grep -c "^$2-[0-9]*=." || true
}
# running_count <namespace> <prefix>: pods named <prefix>-<n> Running (the kubelet stand-in runs them).
running_count() {
  kq -n "$1" get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}{"\n"}{end}' | grep -c "^$2-[0-9]*=Running" || true
}
# rejected_count <namespace> <prefix>: pods named <prefix>-<n> whose PodScheduled reason is Unschedulable.
rejected_count() {
  kq -n "$1" get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}' |
    grep -c "^$2-[0-9]*=Unschedulable" || true
}
# scheduled_messages <namespace> <prefix>: the distinct PodScheduled messages of those pods.
scheduled_messages() {
  kq -n "$1" get pods -o jsonpath='{range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="PodScheduled")].message}{"\n"}{end}' |
    grep "^$2-" | cut -d= -f2- | sort -u
}
# add_simulated_nodes <cpu> <name>...: Node objects made with kubectl, which the kubelet stand-in runs.
add_simulated_nodes() {
  local cpu=$1 n
  shift
  for n in "$@"; do
    printf 'apiVersion: v1\nkind: Node\nmetadata:\n  name: %s\n  labels: {type: simulated, kubernetes.io/hostname: %s}\n' "$n" "$n"
    printf 'status:\n  capacity: {cpu: "%s", memory: 16Gi, pods: "110"}\n  allocatable: {cpu: "%s", memory: 16Gi, pods: "110"}\n---\n' "$cpu" "$cpu"
  done | k apply -f - >/dev/null
}
