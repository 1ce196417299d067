#!/usr/bin/env bash
# Authorization end to end (issue #38): kubectl as a token-file user `limited` whose only permission
# is `get pods` in team-a. `kubectl auth can-i` (SelfSubjectAccessReview, and --list through
# SelfSubjectRulesReview) answers as RBAC says; every request the security review made is refused
# with upstream's Forbidden message; anonymous /healthz, /livez, /readyz and /version answer 200,
# anything else anonymous 403, a wrong token 401.
# Usage: apiserver_authz.sh <path to ksched> [kubectl]
KSCHED=${1:?usage: apiserver_authz.sh <ksched> [kubectl]}
KUBECTL=${2:-kubectl}
source "$(dirname "$0")/apiserver_lib.sh"
E2E_EXTRA_TOKENS='limited-token,limited,1002' start_apiserver "$KSCHED"
export HOME="$E2E_DIR"
k() { timeout 30 "$KUBECTL" --request-timeout=20s "$@" 2>&1; }
# limited: the admin's kubeconfig (server, CA) with limited's token.
kl() { timeout 30 "$KUBECTL" --request-timeout=20s --token=limited-token "$@" 2>&1; }

# The admin sets up team-a: a pod, a secret, and limited's Role and RoleBinding.
k create namespace team-a >/dev/null || fail "create namespace"
k -n team-a run p --image=registry.k8s.io/pause:3.10 --restart=Never >/dev/null || fail "create pod"
k -n team-a create secret generic db --from-literal=password=x >/dev/null || fail "create secret"
k -n team-a create role pod-getter --verb=get --resource=pods >/dev/null || fail "create role"
k -n team-a create rolebinding limited-get-pods --role=pod-getter --user=limited >/dev/null || fail "create rolebinding"

# kubectl auth can-i: yes for what the Role allows, no (exit code 1) for the rest. (kubectl warns on
# stderr about a cluster-scoped resource with the kubeconfig's default namespace: not the answer.)
can_i() { timeout 30 "$KUBECTL" --request-timeout=20s --token=limited-token auth can-i "$@" 2>/dev/null; }
expect_eq "$(can_i get pods -n team-a)" "yes" "can-i get pods in team-a"
expect_eq "$(can_i get pods/p -n team-a)" "yes" "can-i get pod p in team-a"
for q in "list pods -n team-a" "get pods -n default" "list secrets -A" "get secrets -n team-a" "create pods -n team-a" \
         "create pods/binding -n team-a" "create pods/eviction -n team-a" "delete pods -n team-a" \
         "create rolebindings -n team-a" "create clusterrolebindings" "list nodes" "list namespaces"; do
  # shellcheck disable=SC2086
  out=$(can_i $q) && fail "can-i $q: exit code 0 for a no"
  expect_eq "$out" "no" "can-i $q"
done
expect_eq "$(can_i get /version)" "yes" "can-i get /version (system:discovery)"
expect_eq "$(k auth can-i '*' '*' -A)" "yes" "the admin can do anything"
out=$(kl auth can-i --list -n team-a)
expect_contains "$out" "pods                                            []                  []               [get]" "can-i --list: limited's Role"
expect_contains "$out" "selfsubjectaccessreviews.authorization.k8s.io   []                  []               [create]" "can-i --list: system:basic-user"
expect_contains "$out" "[/version]" "can-i --list: non-resource URLs"
[[ "$out" != *"secrets"* ]] || fail "can-i --list shows secrets"
expect_contains "$(k auth can-i --list -n team-a)" "*.*                                             []                  []               [*]" "admin's --list"
expect_contains "$(kl auth whoami)" "limited" "auth whoami (SelfSubjectReview)"

# What limited may do works...
expect_eq "$(kl -n team-a get pod p -o name)" "pod/p" "get the pod"
# ...and every request of the review gets 403 with upstream's message (kubectl prints it).
# (kubectl prints "Error from server (Forbidden): <message>", or for `create <kind>` "error: failed
# to create <kind>: <message>".)
forbidden() {  # forbidden <message> <kubectl args...>
  local msg=$1; shift
  local out
  out=$(kl "$@") && fail "kubectl $*: succeeded"
  expect_contains "$out" "$msg" "kubectl $*"
}
forbidden 'secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" at the cluster scope' get secrets -A
forbidden 'secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "team-a"' -n team-a get secrets
forbidden 'secrets "db" is forbidden: User "limited" cannot get resource "secrets" in API group "" in the namespace "team-a"' -n team-a get secret db
forbidden 'secrets is forbidden: User "limited" cannot list resource "secrets" in API group "" in the namespace "kube-system"' -n kube-system get secrets
forbidden 'pods is forbidden: User "limited" cannot list resource "pods" in API group "" in the namespace "team-a"' -n team-a get pods
forbidden 'pods is forbidden: User "limited" cannot create resource "pods" in API group "" in the namespace "team-a"' -n team-a run evil --image=x --restart=Never
forbidden 'pods "p" is forbidden: User "limited" cannot delete resource "pods" in API group "" in the namespace "team-a"' -n team-a delete pod p --wait=false
forbidden 'pods "p" is forbidden: User "limited" cannot patch resource "pods" in API group "" in the namespace "team-a"' -n team-a label pod p evil=yes
forbidden 'rolebindings.rbac.authorization.k8s.io is forbidden: User "limited" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team-a"' -n team-a create rolebinding escalate --clusterrole=cluster-admin --user=limited
forbidden 'clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "limited" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope' create clusterrolebinding escalate --clusterrole=cluster-admin --user=limited
forbidden 'nodes is forbidden: User "limited" cannot list resource "nodes" in API group "" at the cluster scope' get nodes
forbidden 'namespaces is forbidden: User "limited" cannot list resource "namespaces" in API group "" at the cluster scope' get namespaces
# Subresources kubectl has no verb for, over the API directly.
post_as_limited() {  # post_as_limited <path> <body>: prints the HTTP code, then the body
  curl -sS --cacert "$E2E_DIR/ca.crt" -H "Authorization: Bearer limited-token" -H "Content-Type: application/json" \
    -o "$E2E_DIR/body" -w '%{http_code}' -X POST --data "$2" "$SERVER_URL$1"
  echo; cat "$E2E_DIR/body"
}
awk '/certificate-authority-data:/ {print $2}' "$KUBECONFIG" | base64 -d > "$E2E_DIR/ca.crt"
out=$(post_as_limited /api/v1/namespaces/team-a/pods/p/binding '{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}')
expect_eq "$(head -1 <<<"$out")" "403" "pods/binding: 403"
expect_contains "$out" '"message":"pods \"p\" is forbidden: User \"limited\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"team-a\"","reason":"Forbidden","details":{"name":"p","kind":"pods"},"code":403' "pods/binding Status"
out=$(post_as_limited /api/v1/namespaces/team-a/pods/p/eviction '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}')
expect_eq "$(head -1 <<<"$out")" "403" "pods/eviction: 403"
expect_contains "$out" 'cannot create resource \"pods/eviction\" in API group \"\" in the namespace \"team-a\"' "pods/eviction message"
expect_eq "$(k -n team-a get pod p -o jsonpath='{.metadata.name} {.spec.nodeName}')" "p " "the pod is untouched"

# RBAC's escalation check: a namespace admin (upstream's admin role) may bind view but not cluster-admin.
k -n team-a create rolebinding limited-admin --clusterrole=admin --user=limited >/dev/null || fail "bind admin"
expect_contains "$(kl -n team-a create rolebinding viewers --clusterrole=view --user=someone)" "rolebinding.rbac.authorization.k8s.io/viewers created" "admin binds view"
forbidden 'rolebindings.rbac.authorization.k8s.io "escalate" is forbidden: user "limited" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:' \
  -n team-a create rolebinding escalate --clusterrole=cluster-admin --user=limited

# Anonymous requests (no Authorization header): health and version only.
anon() { curl -sS --cacert "$E2E_DIR/ca.crt" -o "$E2E_DIR/body" -w '%{http_code}' "$SERVER_URL$1"; }
for p in /healthz /livez /readyz /version; do expect_eq "$(anon "$p")" "200" "anonymous GET $p"; done
expect_eq "$(anon /api/v1/namespaces/team-a/pods)" "403" "anonymous list pods"
expect_contains "$(cat "$E2E_DIR/body")" 'pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" in the namespace \"team-a\"' "anonymous Forbidden message"
expect_eq "$(anon /api)" "403" "anonymous discovery (system:discovery is for authenticated users)"
code=$(curl -sS --cacert "$E2E_DIR/ca.crt" -H "Authorization: Bearer wrong" -o /dev/null -w '%{http_code}' "$SERVER_URL/healthz")
expect_eq "$code" "401" "a wrong token is 401, not anonymous"
echo "PASS: authorization e2e"
