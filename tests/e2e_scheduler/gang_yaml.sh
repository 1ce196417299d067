# gang_yaml <namespace> <name> <size> <minCount> <cpu per member>: a v1.35 Workload with one gang pod
# group "workers" and its members, as YAML (shared by gang.sh and gang_up.sh).
gang_yaml() {
  printf 'apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {name: %s, namespace: %s}\n' "$2" "$1"
  printf 'spec:\n  podGroups:\n  - name: workers\n    policy: {gang: {minCount: %s}}\n' "$4"
  for i in $(seq 0 $(($3 - 1))); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s-%s, namespace: %s}\nspec:\n' "$2" "$i" "$1"
    printf '  workloadRef: {name: %s, podGroup: workers}\n' "$2"
    printf '  containers: [{name: c, image: registry.k8s.io/pause:3.10, resources: {requests: {cpu: "%s"}}}]\n' "$5"
  done
}
