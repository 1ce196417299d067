#!/usr/bin/env bash
# kubectl against `ksched apiserver`: discovery (aggregated), explain (OpenAPI v3), create/apply,
# get in every output format, label/annotate/patch (all three types), binding, delete, watch, auth,
# validation errors and a RuntimeClass round trip.
# Usage: apiserver_kubectl.sh <path to ksched> [kubectl]
KSCHED=${1:?usage: apiserver_kubectl.sh <ksched> [kubectl]}
KUBECTL=${2:-kubectl}
source "$(dirname "$0")/apiserver_lib.sh"
start_apiserver "$KSCHED" --nodes 2
export HOME="$E2E_DIR"  # private discovery cache
k() { timeout 30 "$KUBECTL" --request-timeout=20s "$@" 2>&1; }

out=$(k version)
expect_contains "$out" "Server Version: v1.35.4+ksched" "kubectl version"

out=$(k api-resources)
expect_contains "$out" "deployments" "api-resources lists deployments"
expect_contains "$out" "pods         " "api-resources lists pods"
expect_contains "$out" "priorityclasses" "api-resources lists priorityclasses"

# Aggregated discovery: with an empty cache kubectl reads /api and /apis in the
# APIGroupDiscoveryList form and never asks for a per-group-version resource list.
out=$("$KUBECTL" --request-timeout=20s --cache-dir "$E2E_DIR/aggregated-cache" -v=6 api-resources 2>&1)
expect_contains "$out" "/apis?timeout" "api-resources fetched /apis"
[[ "$out" != *"/apis/apps/v1?"* ]] || fail "api-resources fetched /apis/apps/v1: aggregated discovery not used"
expect_contains "$out" "csistoragecapacities" "api-resources (aggregated) lists storage.k8s.io"
# ... and lists exactly the resources of the legacy per-group-version documents.
k get --raw /api/v1 > "$E2E_DIR/legacy-core.json"
k get --raw /apis > "$E2E_DIR/groups.json"
gvs=$(python3 -c 'import json, sys
for g in json.load(open(sys.argv[1]))["groups"]:
    print(*(v["groupVersion"] for v in g["versions"]))' "$E2E_DIR/groups.json")
for gv in $gvs; do k get --raw "/apis/$gv" > "$E2E_DIR/legacy-${gv//\//_}.json"; done
expected=$(python3 - "$E2E_DIR"/legacy-*.json <<'PY'
import json, sys
names = set()
for f in sys.argv[1:]:
    d = json.load(open(f))
    g = d["groupVersion"].rpartition("/")[0]
    names.update(r["name"] + ("." + g if g else "") for r in d["resources"] if "/" not in r["name"])
print("\n".join(sorted(names)))
PY
)
expect_eq "$(k api-resources -o name | LC_ALL=C sort)" "$expected" "api-resources matches legacy discovery"

# explain: OpenAPI v3 schemas generated from the API structs.
out=$(k explain pods)
expect_contains "$out" "KIND:       Pod" "explain pods kind"
expect_contains "$out" "spec	<PodSpec>" "explain pods lists spec"
out=$(k explain pods.spec.containers)
expect_contains "$out" "FIELD: containers <[]Container>" "explain pods.spec.containers field"
expect_contains "$out" "image	<string>" "explain lists container image"
expect_contains "$out" "resources	<ResourceRequirements>" "explain lists container resources"
out=$(k explain pods.spec.containers.resources.limits)
expect_contains "$out" "FIELD: limits <map[string]Quantity>" "explain follows refs to Quantity maps"
out=$(k explain deployment.spec)
expect_contains "$out" "GROUP:      apps" "explain deployment group"
expect_contains "$out" "replicas	<integer>" "explain deployment.spec replicas"
expect_contains "$out" "template	<PodTemplateSpec>" "explain deployment.spec template"
expect_contains "$(k explain deploy.spec.template.spec.containers)" "image	<string>" "explain through the pod template"
out=$(k explain pods.spec.nope 2>&1 || true)
expect_contains "$out" 'field "nope" does not exist' "explain unknown field"
expect_contains "$(k explain clusterroles.rules)" "verbs	<[]string>" "explain a schema-only kind"
# The same definitions over /openapi/v2 in the protobuf form kubectl asks for.
out=$(k explain pods.spec.containers --output=plaintext-openapiv2)
expect_contains "$out" "RESOURCE: containers <[]Object>" "explain (openapi v2) field"
expect_contains "$out" "image	<string>" "explain (openapi v2) lists container image"

out=$(k get namespaces)
for ns in default kube-system kube-public kube-node-lease; do expect_contains "$out" "$ns" "bootstrap namespace $ns"; done
out=$(k get nodes)
expect_contains "$out" "node-0   Ready" "simulated nodes are Ready"
expect_contains "$out" "v1.35.4" "simulated kubelets report the baseline version"

# v1.35 on the wire: a pod with pod-level resources (beta, on since v1.34) round-trips through
# kubectl, and the server fills its pod-level requests and the fields upstream defaults.
cat > "$E2E_DIR/plr.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: plr}
spec:
  resources:
    limits: {cpu: "1", memory: 512Mi}
  containers:
  - name: c
    image: nginx:latest
    resources: {requests: {cpu: 250m}}
YAML
expect_contains "$(k apply -f "$E2E_DIR/plr.yaml")" "pod/plr created" "apply a pod with pod-level resources"
expect_eq "$(k get pod plr -o jsonpath='{.spec.resources.requests.cpu} {.spec.resources.requests.memory} {.status.qosClass} {.metadata.generation}')" \
  "250m 512Mi Burstable 1" "pod-level requests defaulted, QoS class from them, generation 1"
expect_eq "$(k get pod plr -o jsonpath='{.spec.containers[0].imagePullPolicy} {.spec.containers[0].terminationMessagePath} {.spec.dnsPolicy} {.spec.enableServiceLinks} {.spec.schedulerName}')" \
  "Always /dev/termination-log ClusterFirst true default-scheduler" "defaulted fields as upstream"
expect_contains "$(k explain pods.spec.resources)" "FIELD: resources <ResourceRequirements>" "explain pod-level resources"
expect_contains "$(k delete pod plr)" 'pod "plr" deleted' "delete the pod-level resources pod"

cat > "$E2E_DIR/objects.yaml" <<'YAML'
apiVersion: v1
kind: Namespace
metadata:
  name: e2e
---
apiVersion: v1
kind: Node
metadata:
  name: worker-a
  labels: {zone: z1}
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: ok}
YAML
out=$(k create -f "$E2E_DIR/objects.yaml")
expect_contains "$out" "namespace/e2e created" "create namespace"
expect_contains "$out" "node/worker-a created" "create node"

cat > "$E2E_DIR/app.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: web-0
  namespace: e2e
  labels: {app: web}
spec:
  containers:
  - name: c
    image: nginx:1.25
    ports: [{containerPort: 80}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: e2e
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx}]
YAML
out=$(k apply -f "$E2E_DIR/app.yaml")
expect_contains "$out" "pod/web-0 created" "apply creates pod"
expect_contains "$out" "deployment.apps/web created" "apply creates deployment"
sed -i 's/replicas: 2/replicas: 4/' "$E2E_DIR/app.yaml"
out=$(k apply -f "$E2E_DIR/app.yaml")
expect_contains "$out" "deployment.apps/web configured" "re-apply patches deployment"
expect_contains "$out" "pod/web-0 unchanged" "re-apply leaves pod unchanged"
# apply keeps computing patches from kubectl's own types (the served schemas are partial).
[[ "$out" != *warning* ]] || fail "re-apply printed a warning: $out"
expect_eq "$(k -n e2e get deploy web -o jsonpath='{.spec.replicas} {.metadata.generation}')" "4 2" "apply bumped replicas and generation"

# get: default table, wide, json, yaml, jsonpath
out=$(k -n e2e get pods)
expect_contains "$out" "NAME    READY   STATUS    RESTARTS   AGE" "pod table header"
expect_contains "$out" "web-0   0/1     Pending   0" "pod table row"
out=$(k -n e2e get pods -o wide)
expect_contains "$out" "NOMINATED NODE" "wide columns"
out=$(k -n e2e get pod web-0 -o json)
expect_contains "$out" '"schedulerName": "default-scheduler"' "pod defaulting (json)"
expect_contains "$out" '"phase": "Pending"' "pod status reset"
out=$(k -n e2e get pod web-0 -o yaml)
expect_contains "$out" "terminationGracePeriodSeconds: 30" "pod defaulting (yaml)"
expect_contains "$out" "node.kubernetes.io/not-ready" "default tolerations"
expect_eq "$(k -n e2e get pod web-0 -o jsonpath='{.spec.containers[0].imagePullPolicy}')" "IfNotPresent" "imagePullPolicy default"
out=$(k get pods -A)
expect_contains "$out" "NAMESPACE" "all-namespaces column"
expect_contains "$out" "e2e         web-0" "all-namespaces row"

# label / annotate / patch (strategic, merge, json)
expect_contains "$(k -n e2e label pod web-0 tier=frontend)" "pod/web-0 labeled" "label"
expect_contains "$(k -n e2e annotate pod web-0 owner=team-a)" "pod/web-0 annotated" "annotate"
expect_contains "$(k -n e2e get pods -l tier=frontend -o name)" "pod/web-0" "label selector"
expect_eq "$(k -n e2e get pods -l 'tier in (backend)' -o name)" "" "label selector no match"
expect_contains "$(k -n e2e patch pod web-0 -p '{"spec":{"containers":[{"name":"c","image":"nginx:1.26"}]}}')" "patched" "strategic patch"
expect_eq "$(k -n e2e get pod web-0 -o jsonpath='{.spec.containers[0].image} {.spec.containers[0].ports[0].containerPort}')" "nginx:1.26 80" "strategic patch merged container by name"
expect_contains "$(k -n e2e patch pod web-0 --type=merge -p '{"metadata":{"labels":{"merge":"yes"}}}')" "patched" "merge patch"
expect_contains "$(k -n e2e patch pod web-0 --type=json -p '[{"op":"add","path":"/metadata/labels/json","value":"yes"}]')" "patched" "json patch"
expect_eq "$(k -n e2e get pod web-0 -o jsonpath='{.metadata.labels.merge}{.metadata.labels.json}{.metadata.annotations.owner}')" "yesyesteam-a" "patch results"
out=$(k -n e2e patch pod web-0 --type=json -p '[{"op":"test","path":"/metadata/name","value":"nope"}]' || true)
expect_contains "$out" "test failed" "failing json patch test op"

# scale subresource
expect_contains "$(k -n e2e scale deploy web --replicas=6)" "deployment.apps/web scaled" "scale"
expect_eq "$(k -n e2e get deploy web -o jsonpath='{.spec.replicas}')" "6" "scale result"

# binding through the bindings collection, then conflict on a second binding
cat > "$E2E_DIR/binding.yaml" <<'YAML'
apiVersion: v1
kind: Binding
metadata: {name: web-0, namespace: e2e}
target: {kind: Node, name: worker-a}
YAML
k create -f "$E2E_DIR/binding.yaml" >/dev/null || true
expect_eq "$(k -n e2e get pod web-0 -o jsonpath='{.spec.nodeName}')" "worker-a" "binding set nodeName"
expect_eq "$(k -n e2e get pod web-0 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status}')" "True" "PodScheduled condition"
out=$(k create -f "$E2E_DIR/binding.yaml" || true)
expect_contains "$out" 'pod web-0 is already assigned to node "worker-a"' "second binding conflicts"
expect_contains "$(k -n e2e get pods --field-selector spec.nodeName=worker-a -o name)" "pod/web-0" "field selector spec.nodeName"
out=$(k -n e2e get pods --field-selector foo=bar || true)
expect_contains "$out" "field label not supported: foo" "unsupported field selector"

# validation and missing namespace
out=$(k -n e2e run Bad_Name --image=nginx || true)
expect_contains "$out" 'The Pod "Bad_Name" is invalid' "invalid name"
expect_contains "$out" '* metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain' "invalid name cause"
out=$(k -n nowhere run p1 --image=nginx || true)
expect_contains "$out" 'namespaces "nowhere" not found' "create into missing namespace"
out=$(k -n e2e run p2 --image=nginx --overrides='{"spec":{"priorityClassName":"nope"}}' || true)
expect_contains "$out" "no PriorityClass with name nope was found" "unknown priority class"
expect_contains "$(k -n e2e run crit --image=nginx --overrides='{"spec":{"priorityClassName":"system-node-critical"}}')" "pod/crit created" "priority class pod"
expect_eq "$(k -n e2e get pod crit -o jsonpath='{.spec.priority}')" "2000001000" "priority resolved"

# watch: a pod created while `get -w` runs shows up, and the watch ends at the request timeout
"$KUBECTL" -n e2e get pods -w --request-timeout=4s > "$E2E_DIR/watch.out" 2>&1 &
WATCH_PID=$!
sleep 1
k -n e2e run watched --image=nginx >/dev/null
wait "$WATCH_PID" || true
expect_contains "$(cat "$E2E_DIR/watch.out")" "watched" "watch saw the new pod"

# delete: unbound pods go at once; a bound pod's graceful deletion is completed after its grace
expect_contains "$(k -n e2e delete pod watched)" 'pod "watched" deleted' "delete unbound pod"
out=$(k -n e2e get pod watched || true)
expect_contains "$out" 'Error from server (NotFound): pods "watched" not found' "deleted pod is gone"
expect_contains "$(k -n e2e delete pod web-0 --grace-period=1 --wait=true --timeout=20s)" 'pod "web-0" deleted' "graceful delete of bound pod"
expect_contains "$(k -n e2e delete deploy web)" 'deployment.apps "web" deleted' "delete deployment"

# RuntimeClass (node.k8s.io/v1, cluster-scoped): create from YAML, table, readback, explain, delete
cat > "$E2E_DIR/runtimeclass.yaml" <<'EOF'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
overhead:
  podFixed:
    cpu: 250m
    memory: 120Mi
scheduling:
  nodeSelector:
    runtime: gvisor
  tolerations:
  - key: sandbox
    operator: Equal
    value: gvisor
    effect: NoSchedule
EOF
out=$(k api-resources --api-group=node.k8s.io)
expect_contains "$out" "runtimeclasses" "api-resources lists runtimeclasses"
expect_contains "$out" "node.k8s.io/v1   false        RuntimeClass" "runtimeclasses are cluster-scoped"
expect_eq "$(k create -f "$E2E_DIR/runtimeclass.yaml")" "runtimeclass.node.k8s.io/gvisor created" "create runtimeclass from YAML"
out=$(k create -f "$E2E_DIR/runtimeclass.yaml" || true)
expect_contains "$out" 'runtimeclasses.node.k8s.io "gvisor" already exists' "create runtimeclass twice"
out=$(k get runtimeclass)
expect_contains "$out" "NAME     HANDLER   AGE" "runtimeclass table header"
expect_contains "$out" "gvisor   runsc     " "runtimeclass table row"
expect_eq "$(k get runtimeclasses -o name)" "runtimeclass.node.k8s.io/gvisor" "runtimeclass -o name"
out=$(k get runtimeclass gvisor -o yaml)
expect_contains "$out" "apiVersion: node.k8s.io/v1" "runtimeclass yaml apiVersion"
expect_contains "$out" "kind: RuntimeClass" "runtimeclass yaml kind"
expect_contains "$out" "handler: runsc" "runtimeclass yaml handler"
expect_contains "$out" "    cpu: 250m" "runtimeclass yaml overhead"
expect_contains "$out" "    runtime: gvisor" "runtimeclass yaml nodeSelector"
expect_contains "$out" "  - effect: NoSchedule" "runtimeclass yaml tolerations"
[[ "$out" != *"namespace:"* ]] || fail "runtimeclass is cluster-scoped, yet its yaml has a namespace"
expect_eq "$(k get runtimeclass gvisor -o jsonpath='{.handler} {.overhead.podFixed.memory} {.scheduling.tolerations[0].value}')" \
  "runsc 120Mi gvisor" "runtimeclass jsonpath readback"
out=$(k explain runtimeclass)
expect_contains "$out" "GROUP:      node.k8s.io" "explain runtimeclass group"
expect_contains "$out" "KIND:       RuntimeClass" "explain runtimeclass kind"
expect_contains "$out" "handler	<string>" "explain runtimeclass handler"
expect_contains "$(k explain runtimeclass.scheduling)" "tolerations	<[]Toleration>" "explain runtimeclass.scheduling"
expect_contains "$(k explain runtimeclass.overhead.podFixed)" "FIELD: podFixed <map[string]Quantity>" "explain runtimeclass.overhead.podFixed"
expect_eq "$(k delete runtimeclass gvisor)" 'runtimeclass.node.k8s.io "gvisor" deleted' "delete runtimeclass"
out=$(k get runtimeclass gvisor || true)
expect_contains "$out" 'Error from server (NotFound): runtimeclasses.node.k8s.io "gvisor" not found' "deleted runtimeclass is gone"

# The write pipeline, through every encoding kubectl uses: protobuf (`create quota`, `create
# priorityclass`), JSON (`run`, `create -f` of YAML, patches). Values come back canonical, defaults
# and admission apply, invalid writes get upstream's errors.
expect_contains "$(k -n e2e create quota rq --hard=cpu=0.5,memory=1024Mi,pods=10)" "resourcequota/rq created" "create quota (protobuf)"
expect_eq "$(k -n e2e get quota rq -o jsonpath='{.spec.hard.cpu} {.spec.hard.memory} {.spec.hard.pods}')" "500m 1Gi 10" "quota quantities canonical"
expect_contains "$(k create priorityclass polite --value=100 --preemption-policy=Never)" "priorityclass.scheduling.k8s.io/polite created" "create priorityclass (protobuf)"
expect_eq "$(k get pc polite -o jsonpath='{.preemptionPolicy} {.metadata.generation}')" "Never 1" "priorityclass readback"
out=$(k create priorityclass huge --value=2000000000 || true)
expect_contains "$out" "maximum allowed value of a user defined priority is 1000000000" "priorityclass value limit"
cat > "$E2E_DIR/guaranteed.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: guaranteed, namespace: e2e}
spec:
  priorityClassName: polite
  hostNetwork: true
  containers:
  - name: c
    image: nginx:1.27
    ports: [{containerPort: 8080}]
    resources:
      limits: {cpu: 0.5, memory: 1024Mi}
YAML
expect_contains "$(k create -f "$E2E_DIR/guaranteed.yaml")" "pod/guaranteed created" "create pod from YAML"
expect_eq "$(k -n e2e get pod guaranteed -o jsonpath='{.spec.containers[0].resources.requests.cpu} {.spec.containers[0].resources.requests.memory} {.status.qosClass}')" \
  "500m 1Gi Guaranteed" "requests defaulted from limits, canonical"
expect_eq "$(k -n e2e get pod guaranteed -o jsonpath='{.spec.containers[0].ports[0].hostPort} {.spec.priority} {.spec.preemptionPolicy}')" \
  "8080 100 Never" "hostPort under hostNetwork, priority and preemptionPolicy from the class"
out=$(k -n e2e run raw-priority --image=nginx --overrides='{"spec":{"priorityClassName":"polite","priority":5}}' || true)
expect_contains "$out" 'pods "raw-priority" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 100 from the given PriorityClass name' "raw priority refused"
cat > "$E2E_DIR/bad-quantity.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: bad-quantity, namespace: e2e}
spec: {containers: [{name: c, image: nginx, resources: {requests: {cpu: one}}}]}
YAML
out=$(k create -f "$E2E_DIR/bad-quantity.yaml" || true)
expect_contains "$out" "Error from server (BadRequest)" "invalid quantity is a bad request"
expect_contains "$out" "quantities must match the regular expression" "invalid quantity message"
# Issue #38: what upstream's server would not store is refused, and nothing of it is stored:
# kubectl describe and get keep working on the namespace. Raw bodies reach the server unchanged.
bad_pod() {  # name, expected text, JSON of the spec
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"e2e"},"spec":%s}\n' "$1" "$3" > "$E2E_DIR/$1.json"
  out=$(k create --raw /api/v1/namespaces/e2e/pods -f "$E2E_DIR/$1.json" || true)
  expect_contains "$out" "$2" "refused: $1"
}
bad_pod bad-runasuser "cannot unmarshal string into Go struct field PodSecurityContext.spec.securityContext.runAsUser of type int64" \
  '{"securityContext":{"runAsUser":"str"},"containers":[{"name":"c","image":"nginx"}]}'
bad_pod bad-links "cannot unmarshal string into Go struct field PodSpec.spec.enableServiceLinks of type bool" \
  '{"enableServiceLinks":"str","containers":[{"name":"c","image":"nginx"}]}'
bad_pod bad-emptydir "Go struct field Volume.spec.volumes.VolumeSource.emptyDir of type v1.EmptyDirVolumeSource" \
  '{"volumes":[{"name":"v","emptyDir":"str"}],"containers":[{"name":"c","image":"nginx"}]}'
bad_pod bad-port "cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe.ProbeHandler.httpGet.port of type int32" \
  '{"containers":[{"name":"c","image":"nginx","livenessProbe":{"httpGet":{"port":true}}}]}'
bad_pod bad-cpu "must be greater than or equal to 0" \
  '{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"-1000"}}}]}'
bad_pod bad-deadline "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive" \
  '{"activeDeadlineSeconds":0,"containers":[{"name":"c","image":"nginx"}]}'
bad_pod bad-containerport "must be between 1 and 65535, inclusive" \
  '{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":70000}]}]}'
printf '{"apiVersion":"v2","kind":"Pod","metadata":{"name":"bad-v2","namespace":"e2e"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}\n' > "$E2E_DIR/bad-v2.json"
out=$(k create --raw /api/v1/namespaces/e2e/pods -f "$E2E_DIR/bad-v2.json" || true)
expect_contains "$out" "cannot be handled as a Pod: no kind" "refused: apiVersion v2"
# kubectl asks for fieldValidation=Strict by itself.
cat > "$E2E_DIR/unknown-field.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: bad-unknown, namespace: e2e}
spec: {foo: 1, containers: [{name: c, image: nginx}]}
YAML
out=$(k create -f "$E2E_DIR/unknown-field.yaml" || true)
expect_contains "$out" 'strict decoding error: unknown field "spec.foo"' "unknown field refused under kubectl's Strict"
out=$(k create -f "$E2E_DIR/unknown-field.yaml" --validate=warn || true)
expect_contains "$out" 'Warning: unknown field "spec.foo"' "unknown field warned under --validate=warn"
expect_contains "$out" "pod/bad-unknown created" "created without the unknown field"
expect_eq "$(k -n e2e get pods -o name | grep -c 'pod/bad-[a-z0-9]*$' || true)" "1" "only the warned pod was stored"
out=$(k -n e2e describe pods)
grep -Eq '^Name: +guaranteed$' <<<"$out" || fail "kubectl describe pods: no pod guaranteed in: $out"
grep -Eq '^Name: +bad-unknown$' <<<"$out" || fail "kubectl describe pods: no pod bad-unknown in: $out"
[[ "$out" != *"unmarshal"* && "$out" != *"Error from server"* ]] || fail "kubectl describe pods: $out"
out=$(k -n e2e patch pod guaranteed -p '{"spec":{"schedulerName":"other"}}' || true)
expect_contains "$out" 'The Pod "guaranteed" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`' "immutable pod spec"
expect_contains "$(k -n e2e set image pod/guaranteed c=nginx:1.28)" "image updated" "image stays mutable"
out=$(k -n e2e patch pod guaranteed --type=merge -p '{"spec":{"containers":[{"name":"c","image":"nginx"},{"name":"d","image":"nginx"}]}}' || true)
expect_contains "$out" "spec.containers: Forbidden: pod updates may not add or remove containers" "containers cannot be added"
cat > "$E2E_DIR/kata.yaml" <<'YAML'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead: {podFixed: {cpu: 0.25, memory: 120Mi}}
scheduling: {nodeSelector: {sandbox: kata}}
YAML
expect_contains "$(k create -f "$E2E_DIR/kata.yaml")" "runtimeclass.node.k8s.io/kata created" "create runtimeclass for admission"
expect_contains "$(k -n e2e run sandboxed --image=nginx --overrides='{"spec":{"runtimeClassName":"kata"}}')" "pod/sandboxed created" "pod with a runtime class"
expect_eq "$(k -n e2e get pod sandboxed -o jsonpath='{.spec.overhead.cpu} {.spec.overhead.memory} {.spec.nodeSelector.sandbox}')" \
  "250m 120Mi kata" "overhead and node selector from the runtime class"
out=$(k -n e2e run nosuch --image=nginx --overrides='{"spec":{"runtimeClassName":"nosuch"}}' || true)
expect_contains "$out" 'pod rejected: RuntimeClass "nosuch" not found' "unknown runtime class"
cat > "$E2E_DIR/node.yaml" <<'YAML'
apiVersion: v1
kind: Node
metadata: {name: bare-node}
status: {capacity: {pods: 110, cpu: 1.5, memory: 2048Mi}}
YAML
expect_contains "$(k create -f "$E2E_DIR/node.yaml")" "node/bare-node created" "create node from YAML"
expect_eq "$(k get node bare-node -o jsonpath='{.status.allocatable.pods} {.status.allocatable.cpu} {.status.allocatable.memory} {.status.daemonEndpoints.kubeletEndpoint.Port}')" \
  "110 1500m 2Gi 0" "node quantities canonical, allocatable from capacity, zero-value structs"
k delete node bare-node >/dev/null
k delete pc polite >/dev/null

# authentication: the token file user is authenticated (and, without any RBAC binding, refused
# with upstream's Forbidden message), an unknown token is refused
out=$("$KUBECTL" --token=e2e-user-token get ns default -o name 2>&1 || true)
expect_eq "$out" 'Error from server (Forbidden): namespaces "default" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "default"' "token-file user"
out=$("$KUBECTL" --token=wrong get ns 2>&1 || true)
expect_contains "$out" "Unauthorized" "unknown token"

expect_contains "$(k delete ns e2e)" 'namespace "e2e" deleted' "delete namespace"
echo "PASS: kubectl e2e"
