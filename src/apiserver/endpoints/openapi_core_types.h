// Schema-only structs that complete the core/v1 Pod and Node (and the metav1 ObjectMeta they
// carry) field for field as upstream's v1.35 API defines them: the members the typed structs in
// src/api keep verbatim in `extra` (`<Type>More`, merged into the typed struct's definition) and
// the sub-objects they never model. With them the OpenAPI schemas of these kinds are complete, so
// the write path can check every field's JSON type and find unknown fields there
// (type_check.cpp) as upstream's typed decode does. Private to openapi.cpp.
//
// Written out from upstream's core/v1 and meta/v1 field lists; a field upstream adds goes here
// (or into the typed struct) with its Go type, and a named Go type (a string type such as
// v1.RestartPolicy) also into kGoNamedTypes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"

namespace ksched::apiserver::openapi {

namespace schema_only {

using api::field;
using api::field_list;
using api::IntOrString;
using api::LabelSelector;
using api::ObjectMeta;
using api::Quantity;
using api::RawJson;
using api::ResourceList;
using api::StringMap;
using api::Time;
using api::type_tag;

#define KSCHED_F(name) field(#name, &T::name)

struct ManagedFieldsEntry {
  std::string manager;
  std::string operation;
  std::string apiVersion;
  std::optional<Time> time;
  std::string fieldsType;
  std::optional<RawJson> fieldsV1;
  std::string subresource;
};
constexpr auto describe(type_tag<ManagedFieldsEntry>) {
  using T = ManagedFieldsEntry;
  return field_list(KSCHED_F(manager),    KSCHED_F(operation), KSCHED_F(apiVersion), KSCHED_F(time),
                    KSCHED_F(fieldsType), KSCHED_F(fieldsV1),  KSCHED_F(subresource));
}

struct ObjectMetaMore {
  std::string selfLink;
  std::vector<ManagedFieldsEntry> managedFields;
};
constexpr auto describe(type_tag<ObjectMetaMore>) {
  using T = ObjectMetaMore;
  return field_list(KSCHED_F(selfLink), KSCHED_F(managedFields));
}

struct ConfigMapEnvSource {
  std::string name;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<ConfigMapEnvSource>) {
  using T = ConfigMapEnvSource;
  return field_list(KSCHED_F(name), KSCHED_F(optional));
}

struct SecretEnvSource {
  std::string name;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<SecretEnvSource>) {
  using T = SecretEnvSource;
  return field_list(KSCHED_F(name), KSCHED_F(optional));
}

struct EnvFromSource {
  std::string prefix;
  std::optional<ConfigMapEnvSource> configMapRef;
  std::optional<SecretEnvSource> secretRef;
};
constexpr auto describe(type_tag<EnvFromSource>) {
  using T = EnvFromSource;
  return field_list(KSCHED_F(prefix), KSCHED_F(configMapRef), KSCHED_F(secretRef));
}

struct ObjectFieldSelector {
  std::string apiVersion;
  std::string fieldPath;
};
constexpr auto describe(type_tag<ObjectFieldSelector>) {
  using T = ObjectFieldSelector;
  return field_list(KSCHED_F(apiVersion), KSCHED_F(fieldPath));
}

struct ResourceFieldSelector {
  std::string containerName;
  std::string resource;
  Quantity divisor;
};
constexpr auto describe(type_tag<ResourceFieldSelector>) {
  using T = ResourceFieldSelector;
  return field_list(KSCHED_F(containerName), KSCHED_F(resource), KSCHED_F(divisor));
}

struct ConfigMapKeySelector {
  std::string name;
  std::string key;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<ConfigMapKeySelector>) {
  using T = ConfigMapKeySelector;
  return field_list(KSCHED_F(name), KSCHED_F(key), KSCHED_F(optional));
}

struct SecretKeySelector {
  std::string name;
  std::string key;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<SecretKeySelector>) {
  using T = SecretKeySelector;
  return field_list(KSCHED_F(name), KSCHED_F(key), KSCHED_F(optional));
}

struct FileKeySelector {
  std::string volumeName;
  std::string path;
  std::string key;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<FileKeySelector>) {
  using T = FileKeySelector;
  return field_list(KSCHED_F(volumeName), KSCHED_F(path), KSCHED_F(key), KSCHED_F(optional));
}

struct EnvVarSource {
  std::optional<ObjectFieldSelector> fieldRef;
  std::optional<ResourceFieldSelector> resourceFieldRef;
  std::optional<ConfigMapKeySelector> configMapKeyRef;
  std::optional<SecretKeySelector> secretKeyRef;
  std::optional<FileKeySelector> fileKeyRef;
};
constexpr auto describe(type_tag<EnvVarSource>) {
  using T = EnvVarSource;
  return field_list(KSCHED_F(fieldRef), KSCHED_F(resourceFieldRef), KSCHED_F(configMapKeyRef),
                    KSCHED_F(secretKeyRef), KSCHED_F(fileKeyRef));
}

struct EnvVar {
  std::string name;
  std::string value;
  std::optional<EnvVarSource> valueFrom;
};
constexpr auto describe(type_tag<EnvVar>) {
  using T = EnvVar;
  return field_list(KSCHED_F(name), KSCHED_F(value), KSCHED_F(valueFrom));
}

struct ContainerResizePolicy {
  std::string resourceName;
  std::string restartPolicy;
};
constexpr auto describe(type_tag<ContainerResizePolicy>) {
  using T = ContainerResizePolicy;
  return field_list(KSCHED_F(resourceName), KSCHED_F(restartPolicy));
}

struct ContainerRestartRuleOnExitCodes {
  std::string operator_;
  std::vector<std::int32_t> values;
};
constexpr auto describe(type_tag<ContainerRestartRuleOnExitCodes>) {
  using T = ContainerRestartRuleOnExitCodes;
  return field_list(field("operator", &T::operator_), KSCHED_F(values));
}

struct ContainerRestartRule {
  std::string action;
  std::optional<ContainerRestartRuleOnExitCodes> exitCodes;
};
constexpr auto describe(type_tag<ContainerRestartRule>) {
  using T = ContainerRestartRule;
  return field_list(KSCHED_F(action), KSCHED_F(exitCodes));
}

struct VolumeDevice {
  std::string name;
  std::string devicePath;
};
constexpr auto describe(type_tag<VolumeDevice>) {
  using T = VolumeDevice;
  return field_list(KSCHED_F(name), KSCHED_F(devicePath));
}

struct ExecAction {
  std::vector<std::string> command;
};
constexpr auto describe(type_tag<ExecAction>) {
  using T = ExecAction;
  return field_list(KSCHED_F(command));
}

struct HTTPHeader {
  std::string name;
  std::string value;
};
constexpr auto describe(type_tag<HTTPHeader>) {
  using T = HTTPHeader;
  return field_list(KSCHED_F(name), KSCHED_F(value));
}

struct HTTPGetAction {
  std::string path;
  IntOrString port;
  std::string host;
  std::string scheme;
  std::vector<HTTPHeader> httpHeaders;
};
constexpr auto describe(type_tag<HTTPGetAction>) {
  using T = HTTPGetAction;
  return field_list(KSCHED_F(path), KSCHED_F(port), KSCHED_F(host), KSCHED_F(scheme), KSCHED_F(httpHeaders));
}

struct TCPSocketAction {
  IntOrString port;
  std::string host;
};
constexpr auto describe(type_tag<TCPSocketAction>) {
  using T = TCPSocketAction;
  return field_list(KSCHED_F(port), KSCHED_F(host));
}

struct GRPCAction {
  std::int32_t port;
  std::optional<std::string> service;
};
constexpr auto describe(type_tag<GRPCAction>) {
  using T = GRPCAction;
  return field_list(KSCHED_F(port), KSCHED_F(service));
}

struct Probe {
  std::optional<ExecAction> exec;
  std::optional<HTTPGetAction> httpGet;
  std::optional<TCPSocketAction> tcpSocket;
  std::optional<GRPCAction> grpc;
  std::int32_t initialDelaySeconds;
  std::int32_t timeoutSeconds;
  std::int32_t periodSeconds;
  std::int32_t successThreshold;
  std::int32_t failureThreshold;
  std::optional<std::int64_t> terminationGracePeriodSeconds;
};
constexpr auto describe(type_tag<Probe>) {
  using T = Probe;
  return field_list(KSCHED_F(exec),
                    KSCHED_F(httpGet),
                    KSCHED_F(tcpSocket),
                    KSCHED_F(grpc),
                    KSCHED_F(initialDelaySeconds),
                    KSCHED_F(timeoutSeconds),
                    KSCHED_F(periodSeconds),
                    KSCHED_F(successThreshold),
                    KSCHED_F(failureThreshold),
                    KSCHED_F(terminationGracePeriodSeconds));
}

struct SleepAction {
  std::int64_t seconds;
};
constexpr auto describe(type_tag<SleepAction>) {
  using T = SleepAction;
  return field_list(KSCHED_F(seconds));
}

struct LifecycleHandler {
  std::optional<ExecAction> exec;
  std::optional<HTTPGetAction> httpGet;
  std::optional<TCPSocketAction> tcpSocket;
  std::optional<SleepAction> sleep;
};
constexpr auto describe(type_tag<LifecycleHandler>) {
  using T = LifecycleHandler;
  return field_list(KSCHED_F(exec), KSCHED_F(httpGet), KSCHED_F(tcpSocket), KSCHED_F(sleep));
}

struct Lifecycle {
  std::optional<LifecycleHandler> postStart;
  std::optional<LifecycleHandler> preStop;
  std::optional<std::string> stopSignal;
};
constexpr auto describe(type_tag<Lifecycle>) {
  using T = Lifecycle;
  return field_list(KSCHED_F(postStart), KSCHED_F(preStop), KSCHED_F(stopSignal));
}

struct Capabilities {
  std::vector<std::string> add;
  std::vector<std::string> drop;
};
constexpr auto describe(type_tag<Capabilities>) {
  using T = Capabilities;
  return field_list(KSCHED_F(add), KSCHED_F(drop));
}

struct SELinuxOptions {
  std::string user;
  std::string role;
  std::string type;
  std::string level;
};
constexpr auto describe(type_tag<SELinuxOptions>) {
  using T = SELinuxOptions;
  return field_list(KSCHED_F(user), KSCHED_F(role), KSCHED_F(type), KSCHED_F(level));
}

struct WindowsSecurityContextOptions {
  std::optional<std::string> gmsaCredentialSpecName;
  std::optional<std::string> gmsaCredentialSpec;
  std::optional<std::string> runAsUserName;
  std::optional<bool> hostProcess;
};
constexpr auto describe(type_tag<WindowsSecurityContextOptions>) {
  using T = WindowsSecurityContextOptions;
  return field_list(KSCHED_F(gmsaCredentialSpecName), KSCHED_F(gmsaCredentialSpec), KSCHED_F(runAsUserName),
                    KSCHED_F(hostProcess));
}

struct SeccompProfile {
  std::string type;
  std::optional<std::string> localhostProfile;
};
constexpr auto describe(type_tag<SeccompProfile>) {
  using T = SeccompProfile;
  return field_list(KSCHED_F(type), KSCHED_F(localhostProfile));
}

struct AppArmorProfile {
  std::string type;
  std::optional<std::string> localhostProfile;
};
constexpr auto describe(type_tag<AppArmorProfile>) {
  using T = AppArmorProfile;
  return field_list(KSCHED_F(type), KSCHED_F(localhostProfile));
}

struct SecurityContext {
  std::optional<Capabilities> capabilities;
  std::optional<bool> privileged;
  std::optional<SELinuxOptions> seLinuxOptions;
  std::optional<WindowsSecurityContextOptions> windowsOptions;
  std::optional<std::int64_t> runAsUser;
  std::optional<std::int64_t> runAsGroup;
  std::optional<bool> runAsNonRoot;
  std::optional<bool> readOnlyRootFilesystem;
  std::optional<bool> allowPrivilegeEscalation;
  std::optional<std::string> procMount;
  std::optional<SeccompProfile> seccompProfile;
  std::optional<AppArmorProfile> appArmorProfile;
};
constexpr auto describe(type_tag<SecurityContext>) {
  using T = SecurityContext;
  return field_list(KSCHED_F(capabilities),
                    KSCHED_F(privileged),
                    KSCHED_F(seLinuxOptions),
                    KSCHED_F(windowsOptions),
                    KSCHED_F(runAsUser),
                    KSCHED_F(runAsGroup),
                    KSCHED_F(runAsNonRoot),
                    KSCHED_F(readOnlyRootFilesystem),
                    KSCHED_F(allowPrivilegeEscalation),
                    KSCHED_F(procMount),
                    KSCHED_F(seccompProfile),
                    KSCHED_F(appArmorProfile));
}

struct EphemeralContainer {
  std::string name;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::string workingDir;
  std::vector<api::ContainerPort> ports;
  std::vector<EnvFromSource> envFrom;
  std::vector<EnvVar> env;
  api::ResourceRequirements resources;
  std::vector<ContainerResizePolicy> resizePolicy;
  std::optional<std::string> restartPolicy;
  std::vector<ContainerRestartRule> restartPolicyRules;
  std::vector<api::VolumeMount> volumeMounts;
  std::vector<VolumeDevice> volumeDevices;
  std::optional<Probe> livenessProbe;
  std::optional<Probe> readinessProbe;
  std::optional<Probe> startupProbe;
  std::optional<Lifecycle> lifecycle;
  std::string terminationMessagePath;
  std::string terminationMessagePolicy;
  std::string imagePullPolicy;
  std::optional<SecurityContext> securityContext;
  bool stdin;
  bool stdinOnce;
  bool tty;
  std::string targetContainerName;
};
constexpr auto describe(type_tag<EphemeralContainer>) {
  using T = EphemeralContainer;
  return field_list(KSCHED_F(name),
                    KSCHED_F(image),
                    KSCHED_F(command),
                    KSCHED_F(args),
                    KSCHED_F(workingDir),
                    KSCHED_F(ports),
                    KSCHED_F(envFrom),
                    KSCHED_F(env),
                    KSCHED_F(resources),
                    KSCHED_F(resizePolicy),
                    KSCHED_F(restartPolicy),
                    KSCHED_F(restartPolicyRules),
                    KSCHED_F(volumeMounts),
                    KSCHED_F(volumeDevices),
                    KSCHED_F(livenessProbe),
                    KSCHED_F(readinessProbe),
                    KSCHED_F(startupProbe),
                    KSCHED_F(lifecycle),
                    KSCHED_F(terminationMessagePath),
                    KSCHED_F(terminationMessagePolicy),
                    KSCHED_F(imagePullPolicy),
                    KSCHED_F(securityContext),
                    KSCHED_F(stdin),
                    KSCHED_F(stdinOnce),
                    KSCHED_F(tty),
                    KSCHED_F(targetContainerName));
}

struct Sysctl {
  std::string name;
  std::string value;
};
constexpr auto describe(type_tag<Sysctl>) {
  using T = Sysctl;
  return field_list(KSCHED_F(name), KSCHED_F(value));
}

struct PodSecurityContext {
  std::optional<SELinuxOptions> seLinuxOptions;
  std::optional<WindowsSecurityContextOptions> windowsOptions;
  std::optional<std::int64_t> runAsUser;
  std::optional<std::int64_t> runAsGroup;
  std::optional<bool> runAsNonRoot;
  std::vector<std::int64_t> supplementalGroups;
  std::optional<std::string> supplementalGroupsPolicy;
  std::optional<std::int64_t> fsGroup;
  std::vector<Sysctl> sysctls;
  std::optional<std::string> fsGroupChangePolicy;
  std::optional<SeccompProfile> seccompProfile;
  std::optional<AppArmorProfile> appArmorProfile;
  std::optional<std::string> seLinuxChangePolicy;
};
constexpr auto describe(type_tag<PodSecurityContext>) {
  using T = PodSecurityContext;
  return field_list(KSCHED_F(seLinuxOptions),
                    KSCHED_F(windowsOptions),
                    KSCHED_F(runAsUser),
                    KSCHED_F(runAsGroup),
                    KSCHED_F(runAsNonRoot),
                    KSCHED_F(supplementalGroups),
                    KSCHED_F(supplementalGroupsPolicy),
                    KSCHED_F(fsGroup),
                    KSCHED_F(sysctls),
                    KSCHED_F(fsGroupChangePolicy),
                    KSCHED_F(seccompProfile),
                    KSCHED_F(appArmorProfile),
                    KSCHED_F(seLinuxChangePolicy));
}

struct LocalObjectReference {
  std::string name;
};
constexpr auto describe(type_tag<LocalObjectReference>) {
  using T = LocalObjectReference;
  return field_list(KSCHED_F(name));
}

struct HostAlias {
  std::string ip;
  std::vector<std::string> hostnames;
};
constexpr auto describe(type_tag<HostAlias>) {
  using T = HostAlias;
  return field_list(KSCHED_F(ip), KSCHED_F(hostnames));
}

struct PodDNSConfigOption {
  std::string name;
  std::optional<std::string> value;
};
constexpr auto describe(type_tag<PodDNSConfigOption>) {
  using T = PodDNSConfigOption;
  return field_list(KSCHED_F(name), KSCHED_F(value));
}

struct PodDNSConfig {
  std::vector<std::string> nameservers;
  std::vector<std::string> searches;
  std::vector<PodDNSConfigOption> options;
};
constexpr auto describe(type_tag<PodDNSConfig>) {
  using T = PodDNSConfig;
  return field_list(KSCHED_F(nameservers), KSCHED_F(searches), KSCHED_F(options));
}

struct PodReadinessGate {
  std::string conditionType;
};
constexpr auto describe(type_tag<PodReadinessGate>) {
  using T = PodReadinessGate;
  return field_list(KSCHED_F(conditionType));
}

struct PodOS {
  std::string name;
};
constexpr auto describe(type_tag<PodOS>) {
  using T = PodOS;
  return field_list(KSCHED_F(name));
}

struct PodSpecMore {
  std::vector<EphemeralContainer> ephemeralContainers;
  std::string serviceAccount;
  std::optional<bool> automountServiceAccountToken;
  bool hostPID;
  bool hostIPC;
  std::optional<bool> shareProcessNamespace;
  std::optional<PodSecurityContext> securityContext;
  std::vector<LocalObjectReference> imagePullSecrets;
  std::string hostname;
  std::string subdomain;
  std::vector<HostAlias> hostAliases;
  std::optional<PodDNSConfig> dnsConfig;
  std::vector<PodReadinessGate> readinessGates;
  std::optional<std::string> runtimeClassName;
  std::optional<bool> enableServiceLinks;
  std::optional<bool> setHostnameAsFQDN;
  std::optional<PodOS> os;
  std::optional<bool> hostUsers;
  std::optional<api::ResourceRequirements> resources;
  std::optional<std::string> hostnameOverride;
};
constexpr auto describe(type_tag<PodSpecMore>) {
  using T = PodSpecMore;
  return field_list(KSCHED_F(ephemeralContainers),
                    KSCHED_F(serviceAccount),
                    KSCHED_F(automountServiceAccountToken),
                    KSCHED_F(hostPID),
                    KSCHED_F(hostIPC),
                    KSCHED_F(shareProcessNamespace),
                    KSCHED_F(securityContext),
                    KSCHED_F(imagePullSecrets),
                    KSCHED_F(hostname),
                    KSCHED_F(subdomain),
                    KSCHED_F(hostAliases),
                    KSCHED_F(dnsConfig),
                    KSCHED_F(readinessGates),
                    KSCHED_F(runtimeClassName),
                    KSCHED_F(enableServiceLinks),
                    KSCHED_F(setHostnameAsFQDN),
                    KSCHED_F(os),
                    KSCHED_F(hostUsers),
                    KSCHED_F(resources),
                    KSCHED_F(hostnameOverride));
}

struct HostIP {
  std::string ip;
};
constexpr auto describe(type_tag<HostIP>) {
  using T = HostIP;
  return field_list(KSCHED_F(ip));
}

struct PodIP {
  std::string ip;
};
constexpr auto describe(type_tag<PodIP>) {
  using T = PodIP;
  return field_list(KSCHED_F(ip));
}

struct ContainerExtendedResourceRequest {
  std::string containerName;
  std::string resourceName;
  std::string requestName;
};
constexpr auto describe(type_tag<ContainerExtendedResourceRequest>) {
  using T = ContainerExtendedResourceRequest;
  return field_list(KSCHED_F(containerName), KSCHED_F(resourceName), KSCHED_F(requestName));
}

struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> requestMappings;
  std::string resourceClaimName;
};
constexpr auto describe(type_tag<PodExtendedResourceClaimStatus>) {
  using T = PodExtendedResourceClaimStatus;
  return field_list(KSCHED_F(requestMappings), KSCHED_F(resourceClaimName));
}

struct PodStatusMore {
  std::int64_t observedGeneration;
  std::vector<HostIP> hostIPs;
  std::vector<PodIP> podIPs;
  std::vector<api::ContainerStatus> ephemeralContainerStatuses;
  std::string resize;
  std::optional<PodExtendedResourceClaimStatus> extendedResourceClaimStatus;
  ResourceList allocatedResources;
  std::optional<api::ResourceRequirements> resources;
};
constexpr auto describe(type_tag<PodStatusMore>) {
  using T = PodStatusMore;
  return field_list(KSCHED_F(observedGeneration),
                    KSCHED_F(hostIPs),
                    KSCHED_F(podIPs),
                    KSCHED_F(ephemeralContainerStatuses),
                    KSCHED_F(resize),
                    KSCHED_F(extendedResourceClaimStatus),
                    KSCHED_F(allocatedResources),
                    KSCHED_F(resources));
}

struct ConfigMapNodeConfigSource {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resourceVersion;
  std::string kubeletConfigKey;
};
constexpr auto describe(type_tag<ConfigMapNodeConfigSource>) {
  using T = ConfigMapNodeConfigSource;
  return field_list(field("namespace", &T::namespace_), KSCHED_F(name), KSCHED_F(uid),
                    KSCHED_F(resourceVersion), KSCHED_F(kubeletConfigKey));
}

struct NodeConfigSource {
  std::optional<ConfigMapNodeConfigSource> configMap;
};
constexpr auto describe(type_tag<NodeConfigSource>) {
  using T = NodeConfigSource;
  return field_list(KSCHED_F(configMap));
}

struct NodeSpecMore {
  std::vector<std::string> podCIDRs;
  std::optional<NodeConfigSource> configSource;
  std::string externalID;
};
constexpr auto describe(type_tag<NodeSpecMore>) {
  using T = NodeSpecMore;
  return field_list(KSCHED_F(podCIDRs), KSCHED_F(configSource), KSCHED_F(externalID));
}

struct DaemonEndpoint {
  std::int32_t Port;
};
constexpr auto describe(type_tag<DaemonEndpoint>) {
  using T = DaemonEndpoint;
  return field_list(KSCHED_F(Port));
}

struct NodeDaemonEndpoints {
  DaemonEndpoint kubeletEndpoint;
};
constexpr auto describe(type_tag<NodeDaemonEndpoints>) {
  using T = NodeDaemonEndpoints;
  return field_list(KSCHED_F(kubeletEndpoint));
}

struct NodeSwapStatus {
  std::optional<std::int64_t> capacity;
};
constexpr auto describe(type_tag<NodeSwapStatus>) {
  using T = NodeSwapStatus;
  return field_list(KSCHED_F(capacity));
}

struct NodeSystemInfo {
  std::string machineID;
  std::string systemUUID;
  std::string bootID;
  std::string kernelVersion;
  std::string osImage;
  std::string containerRuntimeVersion;
  std::string kubeletVersion;
  std::string kubeProxyVersion;
  std::string operatingSystem;
  std::string architecture;
  std::optional<NodeSwapStatus> swap;
};
constexpr auto describe(type_tag<NodeSystemInfo>) {
  using T = NodeSystemInfo;
  return field_list(KSCHED_F(machineID),
                    KSCHED_F(systemUUID),
                    KSCHED_F(bootID),
                    KSCHED_F(kernelVersion),
                    KSCHED_F(osImage),
                    KSCHED_F(containerRuntimeVersion),
                    KSCHED_F(kubeletVersion),
                    KSCHED_F(kubeProxyVersion),
                    KSCHED_F(operatingSystem),
                    KSCHED_F(architecture),
                    KSCHED_F(swap));
}

struct AttachedVolume {
  std::string name;
  std::string devicePath;
};
constexpr auto describe(type_tag<AttachedVolume>) {
  using T = AttachedVolume;
  return field_list(KSCHED_F(name), KSCHED_F(devicePath));
}

struct NodeConfigStatus {
  std::optional<NodeConfigSource> assigned;
  std::optional<NodeConfigSource> active;
  std::optional<NodeConfigSource> lastKnownGood;
  std::string error;
};
constexpr auto describe(type_tag<NodeConfigStatus>) {
  using T = NodeConfigStatus;
  return field_list(KSCHED_F(assigned), KSCHED_F(active), KSCHED_F(lastKnownGood), KSCHED_F(error));
}

struct NodeRuntimeHandlerFeatures {
  std::optional<bool> recursiveReadOnlyMounts;
  std::optional<bool> userNamespaces;
};
constexpr auto describe(type_tag<NodeRuntimeHandlerFeatures>) {
  using T = NodeRuntimeHandlerFeatures;
  return field_list(KSCHED_F(recursiveReadOnlyMounts), KSCHED_F(userNamespaces));
}

struct NodeRuntimeHandler {
  std::string name;
  std::optional<NodeRuntimeHandlerFeatures> features;
};
constexpr auto describe(type_tag<NodeRuntimeHandler>) {
  using T = NodeRuntimeHandler;
  return field_list(KSCHED_F(name), KSCHED_F(features));
}

struct NodeFeatures {
  std::optional<bool> supplementalGroupsPolicy;
};
constexpr auto describe(type_tag<NodeFeatures>) {
  using T = NodeFeatures;
  return field_list(KSCHED_F(supplementalGroupsPolicy));
}

struct NodeStatusMore {
  NodeDaemonEndpoints daemonEndpoints;
  NodeSystemInfo nodeInfo;
  std::vector<std::string> volumesInUse;
  std::vector<AttachedVolume> volumesAttached;
  std::optional<NodeConfigStatus> config;
  std::vector<NodeRuntimeHandler> runtimeHandlers;
  std::optional<NodeFeatures> features;
  std::vector<std::string> declaredFeatures;
};
constexpr auto describe(type_tag<NodeStatusMore>) {
  using T = NodeStatusMore;
  return field_list(KSCHED_F(daemonEndpoints), KSCHED_F(nodeInfo),        KSCHED_F(volumesInUse),
                    KSCHED_F(volumesAttached), KSCHED_F(config),          KSCHED_F(runtimeHandlers),
                    KSCHED_F(features),        KSCHED_F(declaredFeatures));
}

struct HostPathVolumeSource {
  std::string path;
  std::optional<std::string> type;
};
constexpr auto describe(type_tag<HostPathVolumeSource>) {
  using T = HostPathVolumeSource;
  return field_list(KSCHED_F(path), KSCHED_F(type));
}

struct EmptyDirVolumeSource {
  std::string medium;
  std::optional<Quantity> sizeLimit;
};
constexpr auto describe(type_tag<EmptyDirVolumeSource>) {
  using T = EmptyDirVolumeSource;
  return field_list(KSCHED_F(medium), KSCHED_F(sizeLimit));
}

struct GitRepoVolumeSource {
  std::string repository;
  std::string revision;
  std::string directory;
};
constexpr auto describe(type_tag<GitRepoVolumeSource>) {
  using T = GitRepoVolumeSource;
  return field_list(KSCHED_F(repository), KSCHED_F(revision), KSCHED_F(directory));
}

struct KeyToPath {
  std::string key;
  std::string path;
  std::optional<std::int32_t> mode;
};
constexpr auto describe(type_tag<KeyToPath>) {
  using T = KeyToPath;
  return field_list(KSCHED_F(key), KSCHED_F(path), KSCHED_F(mode));
}

struct SecretVolumeSource {
  std::string secretName;
  std::vector<KeyToPath> items;
  std::optional<std::int32_t> defaultMode;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<SecretVolumeSource>) {
  using T = SecretVolumeSource;
  return field_list(KSCHED_F(secretName), KSCHED_F(items), KSCHED_F(defaultMode), KSCHED_F(optional));
}

struct NFSVolumeSource {
  std::string server;
  std::string path;
  bool readOnly;
};
constexpr auto describe(type_tag<NFSVolumeSource>) {
  using T = NFSVolumeSource;
  return field_list(KSCHED_F(server), KSCHED_F(path), KSCHED_F(readOnly));
}

struct GlusterfsVolumeSource {
  std::string endpoints;
  std::string path;
  bool readOnly;
};
constexpr auto describe(type_tag<GlusterfsVolumeSource>) {
  using T = GlusterfsVolumeSource;
  return field_list(KSCHED_F(endpoints), KSCHED_F(path), KSCHED_F(readOnly));
}

struct FlexVolumeSource {
  std::string driver;
  std::string fsType;
  std::optional<LocalObjectReference> secretRef;
  bool readOnly;
  StringMap options;
};
constexpr auto describe(type_tag<FlexVolumeSource>) {
  using T = FlexVolumeSource;
  return field_list(KSCHED_F(driver), KSCHED_F(fsType), KSCHED_F(secretRef), KSCHED_F(readOnly),
                    KSCHED_F(options));
}

struct CinderVolumeSource {
  std::string volumeID;
  std::string fsType;
  bool readOnly;
  std::optional<LocalObjectReference> secretRef;
};
constexpr auto describe(type_tag<CinderVolumeSource>) {
  using T = CinderVolumeSource;
  return field_list(KSCHED_F(volumeID), KSCHED_F(fsType), KSCHED_F(readOnly), KSCHED_F(secretRef));
}

struct CephFSVolumeSource {
  std::vector<std::string> monitors;
  std::string path;
  std::string user;
  std::string secretFile;
  std::optional<LocalObjectReference> secretRef;
  bool readOnly;
};
constexpr auto describe(type_tag<CephFSVolumeSource>) {
  using T = CephFSVolumeSource;
  return field_list(KSCHED_F(monitors),   KSCHED_F(path),      KSCHED_F(user),
                    KSCHED_F(secretFile), KSCHED_F(secretRef), KSCHED_F(readOnly));
}

struct FlockerVolumeSource {
  std::string datasetName;
  std::string datasetUUID;
};
constexpr auto describe(type_tag<FlockerVolumeSource>) {
  using T = FlockerVolumeSource;
  return field_list(KSCHED_F(datasetName), KSCHED_F(datasetUUID));
}

struct DownwardAPIVolumeFile {
  std::string path;
  std::optional<ObjectFieldSelector> fieldRef;
  std::optional<ResourceFieldSelector> resourceFieldRef;
  std::optional<std::int32_t> mode;
};
constexpr auto describe(type_tag<DownwardAPIVolumeFile>) {
  using T = DownwardAPIVolumeFile;
  return field_list(KSCHED_F(path), KSCHED_F(fieldRef), KSCHED_F(resourceFieldRef), KSCHED_F(mode));
}

struct DownwardAPIVolumeSource {
  std::vector<DownwardAPIVolumeFile> items;
  std::optional<std::int32_t> defaultMode;
};
constexpr auto describe(type_tag<DownwardAPIVolumeSource>) {
  using T = DownwardAPIVolumeSource;
  return field_list(KSCHED_F(items), KSCHED_F(defaultMode));
}

struct FCVolumeSource {
  std::vector<std::string> targetWWNs;
  std::optional<std::int32_t> lun;
  std::string fsType;
  bool readOnly;
  std::vector<std::string> wwids;
};
constexpr auto describe(type_tag<FCVolumeSource>) {
  using T = FCVolumeSource;
  return field_list(KSCHED_F(targetWWNs), KSCHED_F(lun), KSCHED_F(fsType), KSCHED_F(readOnly),
                    KSCHED_F(wwids));
}

struct AzureFileVolumeSource {
  std::string secretName;
  std::string shareName;
  bool readOnly;
};
constexpr auto describe(type_tag<AzureFileVolumeSource>) {
  using T = AzureFileVolumeSource;
  return field_list(KSCHED_F(secretName), KSCHED_F(shareName), KSCHED_F(readOnly));
}

struct ConfigMapVolumeSource {
  std::string name;
  std::vector<KeyToPath> items;
  std::optional<std::int32_t> defaultMode;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<ConfigMapVolumeSource>) {
  using T = ConfigMapVolumeSource;
  return field_list(KSCHED_F(name), KSCHED_F(items), KSCHED_F(defaultMode), KSCHED_F(optional));
}

struct VsphereVirtualDiskVolumeSource {
  std::string volumePath;
  std::string fsType;
  std::string storagePolicyName;
  std::string storagePolicyID;
};
constexpr auto describe(type_tag<VsphereVirtualDiskVolumeSource>) {
  using T = VsphereVirtualDiskVolumeSource;
  return field_list(KSCHED_F(volumePath), KSCHED_F(fsType), KSCHED_F(storagePolicyName),
                    KSCHED_F(storagePolicyID));
}

struct QuobyteVolumeSource {
  std::string registry;
  std::string volume;
  bool readOnly;
  std::string user;
  std::string group;
  std::string tenant;
};
constexpr auto describe(type_tag<QuobyteVolumeSource>) {
  using T = QuobyteVolumeSource;
  return field_list(KSCHED_F(registry), KSCHED_F(volume), KSCHED_F(readOnly),
                    KSCHED_F(user),     KSCHED_F(group),  KSCHED_F(tenant));
}

struct AzureDiskVolumeSource {
  std::string diskName;
  std::string diskURI;
  std::optional<std::string> cachingMode;
  std::optional<std::string> fsType;
  std::optional<bool> readOnly;
  std::optional<std::string> kind;
};
constexpr auto describe(type_tag<AzureDiskVolumeSource>) {
  using T = AzureDiskVolumeSource;
  return field_list(KSCHED_F(diskName), KSCHED_F(diskURI),  KSCHED_F(cachingMode),
                    KSCHED_F(fsType),   KSCHED_F(readOnly), KSCHED_F(kind));
}

struct PhotonPersistentDiskVolumeSource {
  std::string pdID;
  std::string fsType;
};
constexpr auto describe(type_tag<PhotonPersistentDiskVolumeSource>) {
  using T = PhotonPersistentDiskVolumeSource;
  return field_list(KSCHED_F(pdID), KSCHED_F(fsType));
}

struct SecretProjection {
  std::string name;
  std::vector<KeyToPath> items;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<SecretProjection>) {
  using T = SecretProjection;
  return field_list(KSCHED_F(name), KSCHED_F(items), KSCHED_F(optional));
}

struct DownwardAPIProjection {
  std::vector<DownwardAPIVolumeFile> items;
};
constexpr auto describe(type_tag<DownwardAPIProjection>) {
  using T = DownwardAPIProjection;
  return field_list(KSCHED_F(items));
}

struct ConfigMapProjection {
  std::string name;
  std::vector<KeyToPath> items;
  std::optional<bool> optional;
};
constexpr auto describe(type_tag<ConfigMapProjection>) {
  using T = ConfigMapProjection;
  return field_list(KSCHED_F(name), KSCHED_F(items), KSCHED_F(optional));
}

struct ServiceAccountTokenProjection {
  std::string audience;
  std::optional<std::int64_t> expirationSeconds;
  std::string path;
};
constexpr auto describe(type_tag<ServiceAccountTokenProjection>) {
  using T = ServiceAccountTokenProjection;
  return field_list(KSCHED_F(audience), KSCHED_F(expirationSeconds), KSCHED_F(path));
}

struct ClusterTrustBundleProjection {
  std::optional<std::string> name;
  std::optional<std::string> signerName;
  std::optional<LabelSelector> labelSelector;
  std::optional<bool> optional;
  std::string path;
};
constexpr auto describe(type_tag<ClusterTrustBundleProjection>) {
  using T = ClusterTrustBundleProjection;
  return field_list(KSCHED_F(name), KSCHED_F(signerName), KSCHED_F(labelSelector), KSCHED_F(optional),
                    KSCHED_F(path));
}

struct PodCertificateProjection {
  std::string signerName;
  std::string keyType;
  std::optional<std::int32_t> maxExpirationSeconds;
  std::string credentialBundlePath;
  std::string keyPath;
  std::string certificateChainPath;
  StringMap userAnnotations;
};
constexpr auto describe(type_tag<PodCertificateProjection>) {
  using T = PodCertificateProjection;
  return field_list(KSCHED_F(signerName),           KSCHED_F(keyType), KSCHED_F(maxExpirationSeconds),
                    KSCHED_F(credentialBundlePath), KSCHED_F(keyPath), KSCHED_F(certificateChainPath),
                    KSCHED_F(userAnnotations));
}

struct VolumeProjection {
  std::optional<SecretProjection> secret;
  std::optional<DownwardAPIProjection> downwardAPI;
  std::optional<ConfigMapProjection> configMap;
  std::optional<ServiceAccountTokenProjection> serviceAccountToken;
  std::optional<ClusterTrustBundleProjection> clusterTrustBundle;
  std::optional<PodCertificateProjection> podCertificate;
};
constexpr auto describe(type_tag<VolumeProjection>) {
  using T = VolumeProjection;
  return field_list(KSCHED_F(secret),
                    KSCHED_F(downwardAPI),
                    KSCHED_F(configMap),
                    KSCHED_F(serviceAccountToken),
                    KSCHED_F(clusterTrustBundle),
                    KSCHED_F(podCertificate));
}

struct ProjectedVolumeSource {
  std::vector<VolumeProjection> sources;
  std::optional<std::int32_t> defaultMode;
};
constexpr auto describe(type_tag<ProjectedVolumeSource>) {
  using T = ProjectedVolumeSource;
  return field_list(KSCHED_F(sources), KSCHED_F(defaultMode));
}

struct PortworxVolumeSource {
  std::string volumeID;
  std::string fsType;
  bool readOnly;
};
constexpr auto describe(type_tag<PortworxVolumeSource>) {
  using T = PortworxVolumeSource;
  return field_list(KSCHED_F(volumeID), KSCHED_F(fsType), KSCHED_F(readOnly));
}

struct ScaleIOVolumeSource {
  std::string gateway;
  std::string system;
  std::optional<LocalObjectReference> secretRef;
  bool sslEnabled;
  std::string protectionDomain;
  std::string storagePool;
  std::string storageMode;
  std::string volumeName;
  std::string fsType;
  bool readOnly;
};
constexpr auto describe(type_tag<ScaleIOVolumeSource>) {
  using T = ScaleIOVolumeSource;
  return field_list(KSCHED_F(gateway),     KSCHED_F(system),           KSCHED_F(secretRef),
                    KSCHED_F(sslEnabled),  KSCHED_F(protectionDomain), KSCHED_F(storagePool),
                    KSCHED_F(storageMode), KSCHED_F(volumeName),       KSCHED_F(fsType),
                    KSCHED_F(readOnly));
}

struct StorageOSVolumeSource {
  std::string volumeName;
  std::string volumeNamespace;
  std::string fsType;
  bool readOnly;
  std::optional<LocalObjectReference> secretRef;
};
constexpr auto describe(type_tag<StorageOSVolumeSource>) {
  using T = StorageOSVolumeSource;
  return field_list(KSCHED_F(volumeName), KSCHED_F(volumeNamespace), KSCHED_F(fsType), KSCHED_F(readOnly),
                    KSCHED_F(secretRef));
}

struct ImageVolumeSource {
  std::string reference;
  std::string pullPolicy;
};
constexpr auto describe(type_tag<ImageVolumeSource>) {
  using T = ImageVolumeSource;
  return field_list(KSCHED_F(reference), KSCHED_F(pullPolicy));
}

struct VolumeMore {
  std::optional<HostPathVolumeSource> hostPath;
  std::optional<EmptyDirVolumeSource> emptyDir;
  std::optional<GitRepoVolumeSource> gitRepo;
  std::optional<SecretVolumeSource> secret;
  std::optional<NFSVolumeSource> nfs;
  std::optional<GlusterfsVolumeSource> glusterfs;
  std::optional<FlexVolumeSource> flexVolume;
  std::optional<CinderVolumeSource> cinder;
  std::optional<CephFSVolumeSource> cephfs;
  std::optional<FlockerVolumeSource> flocker;
  std::optional<DownwardAPIVolumeSource> downwardAPI;
  std::optional<FCVolumeSource> fc;
  std::optional<AzureFileVolumeSource> azureFile;
  std::optional<ConfigMapVolumeSource> configMap;
  std::optional<VsphereVirtualDiskVolumeSource> vsphereVolume;
  std::optional<QuobyteVolumeSource> quobyte;
  std::optional<AzureDiskVolumeSource> azureDisk;
  std::optional<PhotonPersistentDiskVolumeSource> photonPersistentDisk;
  std::optional<ProjectedVolumeSource> projected;
  std::optional<PortworxVolumeSource> portworxVolume;
  std::optional<ScaleIOVolumeSource> scaleIO;
  std::optional<StorageOSVolumeSource> storageos;
  std::optional<ImageVolumeSource> image;
};
constexpr auto describe(type_tag<VolumeMore>) {
  using T = VolumeMore;
  return field_list(KSCHED_F(hostPath),      KSCHED_F(emptyDir),
                    KSCHED_F(gitRepo),       KSCHED_F(secret),
                    KSCHED_F(nfs),           KSCHED_F(glusterfs),
                    KSCHED_F(flexVolume),    KSCHED_F(cinder),
                    KSCHED_F(cephfs),        KSCHED_F(flocker),
                    KSCHED_F(downwardAPI),   KSCHED_F(fc),
                    KSCHED_F(azureFile),     KSCHED_F(configMap),
                    KSCHED_F(vsphereVolume), KSCHED_F(quobyte),
                    KSCHED_F(azureDisk),     KSCHED_F(photonPersistentDisk),
                    KSCHED_F(projected),     KSCHED_F(portworxVolume),
                    KSCHED_F(scaleIO),       KSCHED_F(storageos),
                    KSCHED_F(image));
}

struct ContainerMore {
  std::string workingDir;
  std::vector<EnvFromSource> envFrom;
  std::vector<EnvVar> env;
  std::vector<ContainerResizePolicy> resizePolicy;
  std::vector<ContainerRestartRule> restartPolicyRules;
  std::vector<VolumeDevice> volumeDevices;
  std::optional<Probe> livenessProbe;
  std::optional<Probe> readinessProbe;
  std::optional<Probe> startupProbe;
  std::optional<Lifecycle> lifecycle;
  std::string terminationMessagePath;
  std::string terminationMessagePolicy;
  std::optional<SecurityContext> securityContext;
  bool stdin;
  bool stdinOnce;
  bool tty;
};
constexpr auto describe(type_tag<ContainerMore>) {
  using T = ContainerMore;
  return field_list(KSCHED_F(workingDir),
                    KSCHED_F(envFrom),
                    KSCHED_F(env),
                    KSCHED_F(resizePolicy),
                    KSCHED_F(restartPolicyRules),
                    KSCHED_F(volumeDevices),
                    KSCHED_F(livenessProbe),
                    KSCHED_F(readinessProbe),
                    KSCHED_F(startupProbe),
                    KSCHED_F(lifecycle),
                    KSCHED_F(terminationMessagePath),
                    KSCHED_F(terminationMessagePolicy),
                    KSCHED_F(securityContext),
                    KSCHED_F(stdin),
                    KSCHED_F(stdinOnce),
                    KSCHED_F(tty));
}

struct ResourceClaim {
  std::string name;
  std::string request;
};
constexpr auto describe(type_tag<ResourceClaim>) {
  using T = ResourceClaim;
  return field_list(KSCHED_F(name), KSCHED_F(request));
}

struct ResourceRequirementsMore {
  std::vector<ResourceClaim> claims;
};
constexpr auto describe(type_tag<ResourceRequirementsMore>) {
  using T = ResourceRequirementsMore;
  return field_list(KSCHED_F(claims));
}

struct PodConditionMore {
  std::int64_t observedGeneration;
};
constexpr auto describe(type_tag<PodConditionMore>) {
  using T = PodConditionMore;
  return field_list(KSCHED_F(observedGeneration));
}

struct LinuxContainerUser {
  std::int64_t uid;
  std::int64_t gid;
  std::vector<std::int64_t> supplementalGroups;
};
constexpr auto describe(type_tag<LinuxContainerUser>) {
  using T = LinuxContainerUser;
  return field_list(KSCHED_F(uid), KSCHED_F(gid), KSCHED_F(supplementalGroups));
}

struct ContainerUser {
  std::optional<LinuxContainerUser> linux;
};
constexpr auto describe(type_tag<ContainerUser>) {
  using T = ContainerUser;
  return field_list(KSCHED_F(linux));
}

struct ResourceHealth {
  std::string resourceID;
  std::string health;
};
constexpr auto describe(type_tag<ResourceHealth>) {
  using T = ResourceHealth;
  return field_list(KSCHED_F(resourceID), KSCHED_F(health));
}

struct ResourceStatus {
  std::string name;
  std::vector<ResourceHealth> resources;
};
constexpr auto describe(type_tag<ResourceStatus>) {
  using T = ResourceStatus;
  return field_list(KSCHED_F(name), KSCHED_F(resources));
}

struct ContainerStatusMore {
  ResourceList allocatedResources;
  std::optional<api::ResourceRequirements> resources;
  std::optional<ContainerUser> user;
  std::vector<ResourceStatus> allocatedResourcesStatus;
  std::optional<std::string> stopSignal;
};
constexpr auto describe(type_tag<ContainerStatusMore>) {
  using T = ContainerStatusMore;
  return field_list(KSCHED_F(allocatedResources), KSCHED_F(resources), KSCHED_F(user),
                    KSCHED_F(allocatedResourcesStatus), KSCHED_F(stopSignal));
}

struct ISCSIVolumeSourceMore {
  std::string iscsiInterface;
  std::string fsType;
  std::vector<std::string> portals;
  bool chapAuthDiscovery;
  bool chapAuthSession;
  std::optional<LocalObjectReference> secretRef;
  std::optional<std::string> initiatorName;
};
constexpr auto describe(type_tag<ISCSIVolumeSourceMore>) {
  using T = ISCSIVolumeSourceMore;
  return field_list(KSCHED_F(iscsiInterface),    KSCHED_F(fsType),          KSCHED_F(portals),
                    KSCHED_F(chapAuthDiscovery), KSCHED_F(chapAuthSession), KSCHED_F(secretRef),
                    KSCHED_F(initiatorName));
}

struct RBDVolumeSourceMore {
  std::string fsType;
  std::string user;
  std::string keyring;
  std::optional<LocalObjectReference> secretRef;
};
constexpr auto describe(type_tag<RBDVolumeSourceMore>) {
  using T = RBDVolumeSourceMore;
  return field_list(KSCHED_F(fsType), KSCHED_F(user), KSCHED_F(keyring), KSCHED_F(secretRef));
}

struct CSIVolumeSourceMore {
  std::optional<std::string> fsType;
  StringMap volumeAttributes;
  std::optional<LocalObjectReference> nodePublishSecretRef;
};
constexpr auto describe(type_tag<CSIVolumeSourceMore>) {
  using T = CSIVolumeSourceMore;
  return field_list(KSCHED_F(fsType), KSCHED_F(volumeAttributes), KSCHED_F(nodePublishSecretRef));
}

struct PersistentVolumeClaimTemplate {
  ObjectMeta metadata;
  api::PersistentVolumeClaimSpec spec;
};
constexpr auto describe(type_tag<PersistentVolumeClaimTemplate>) {
  using T = PersistentVolumeClaimTemplate;
  return field_list(KSCHED_F(metadata), KSCHED_F(spec));
}

struct EphemeralVolumeSourceMore {
  std::optional<PersistentVolumeClaimTemplate> volumeClaimTemplate;
};
constexpr auto describe(type_tag<EphemeralVolumeSourceMore>) {
  using T = EphemeralVolumeSourceMore;
  return field_list(KSCHED_F(volumeClaimTemplate));
}

struct VolumeMountMore {
  std::optional<std::string> recursiveReadOnly;
  std::string subPath;
  std::optional<std::string> mountPropagation;
  std::string subPathExpr;
};
constexpr auto describe(type_tag<VolumeMountMore>) {
  using T = VolumeMountMore;
  return field_list(KSCHED_F(recursiveReadOnly), KSCHED_F(subPath), KSCHED_F(mountPropagation),
                    KSCHED_F(subPathExpr));
}

struct PodAntiAffinity {
  std::vector<api::PodAffinityTerm> requiredDuringSchedulingIgnoredDuringExecution;
  std::vector<api::WeightedPodAffinityTerm> preferredDuringSchedulingIgnoredDuringExecution;
};
constexpr auto describe(type_tag<PodAntiAffinity>) {
  using T = PodAntiAffinity;
  return field_list(KSCHED_F(requiredDuringSchedulingIgnoredDuringExecution),
                    KSCHED_F(preferredDuringSchedulingIgnoredDuringExecution));
}

struct VolumeResourceRequirements {
  ResourceList limits;
  ResourceList requests;
};
constexpr auto describe(type_tag<VolumeResourceRequirements>) {
  using T = VolumeResourceRequirements;
  return field_list(KSCHED_F(limits), KSCHED_F(requests));
}

struct TypedLocalObjectReference {
  std::optional<std::string> apiGroup;
  std::string kind;
  std::string name;
};
constexpr auto describe(type_tag<TypedLocalObjectReference>) {
  using T = TypedLocalObjectReference;
  return field_list(KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name));
}

struct TypedObjectReference {
  std::optional<std::string> apiGroup;
  std::string kind;
  std::string name;
  std::optional<std::string> namespace_;
};
constexpr auto describe(type_tag<TypedObjectReference>) {
  using T = TypedObjectReference;
  return field_list(KSCHED_F(apiGroup), KSCHED_F(kind), KSCHED_F(name), field("namespace", &T::namespace_));
}

struct PersistentVolumeClaimSpecMore {
  VolumeResourceRequirements resources;
  std::optional<TypedLocalObjectReference> dataSource;
  std::optional<TypedObjectReference> dataSourceRef;
  std::optional<std::string> volumeAttributesClassName;
};
constexpr auto describe(type_tag<PersistentVolumeClaimSpecMore>) {
  using T = PersistentVolumeClaimSpecMore;
  return field_list(KSCHED_F(resources), KSCHED_F(dataSource), KSCHED_F(dataSourceRef),
                    KSCHED_F(volumeAttributesClassName));
}

#undef KSCHED_F

}  // namespace schema_only

// The schema-only core/v1 definitions above (X(Type): io.k8s.api.core.v1.<Type>).
#define KSCHED_CORE_SCHEMA_TYPES(X)                                                                          \
  X(EphemeralContainer)                                                                                      \
  X(PodSecurityContext) X(LocalObjectReference) X(HostAlias) X(PodDNSConfig) X(PodReadinessGate) X(PodOS)     \
      X(HostIP) X(PodIP)                                                               \
      X(PodExtendedResourceClaimStatus) X(NodeConfigSource) X(NodeDaemonEndpoints) X(NodeSystemInfo) X(      \
          AttachedVolume) X(NodeConfigStatus) X(NodeRuntimeHandler) X(NodeFeatures) X(HostPathVolumeSource)  \
          X(EmptyDirVolumeSource) X(GitRepoVolumeSource) X(SecretVolumeSource) X(NFSVolumeSource) X(         \
              GlusterfsVolumeSource) X(FlexVolumeSource) X(CinderVolumeSource) X(CephFSVolumeSource)         \
              X(FlockerVolumeSource) X(DownwardAPIVolumeSource) X(FCVolumeSource) X(                         \
                  AzureFileVolumeSource) X(ConfigMapVolumeSource) X(VsphereVirtualDiskVolumeSource)          \
                  X(QuobyteVolumeSource) X(AzureDiskVolumeSource) X(PhotonPersistentDiskVolumeSource) X(     \
                      ProjectedVolumeSource) X(PortworxVolumeSource) X(ScaleIOVolumeSource)                  \
                      X(StorageOSVolumeSource) X(ImageVolumeSource) X(EnvFromSource) X(EnvVar) X(            \
                          ContainerResizePolicy) X(ContainerRestartRule) X(VolumeDevice) X(Probe)            \
                          X(Lifecycle) X(SecurityContext) X(SELinuxOptions) X(                               \
                              WindowsSecurityContextOptions) X(Sysctl) X(SeccompProfile) X(AppArmorProfile)  \
                              X(PodAntiAffinity) X(PodDNSConfigOption) X(ResourceClaim) X(ContainerUser) X(  \
                                  ResourceStatus) X(ContainerExtendedResourceRequest)                        \
                                  X(ConfigMapNodeConfigSource) X(DaemonEndpoint) X(NodeSwapStatus) X(        \
                                      NodeRuntimeHandlerFeatures) X(KeyToPath) X(DownwardAPIVolumeFile)      \
                                      X(VolumeProjection) X(PersistentVolumeClaimTemplate) X(                \
                                          ConfigMapEnvSource) X(SecretEnvSource) X(EnvVarSource)             \
                                          X(ContainerRestartRuleOnExitCodes) X(ExecAction) X(HTTPGetAction)  \
                                              X(TCPSocketAction) X(GRPCAction) X(LifecycleHandler)           \
                                                  X(Capabilities) X(LinuxContainerUser) X(ResourceHealth) X( \
                                                      ObjectFieldSelector) X(ResourceFieldSelector)          \
                                                      X(SecretProjection) X(DownwardAPIProjection) X(        \
                                                          ConfigMapProjection)                               \
                                                          X(ServiceAccountTokenProjection) X(                \
                                                              ClusterTrustBundleProjection)                  \
                                                              X(PodCertificateProjection) X(                 \
                                                                  ConfigMapKeySelector) X(SecretKeySelector) \
                                                                  X(FileKeySelector) X(HTTPHeader)           \
                                                                      X(SleepAction)                         \
                                                                          X(VolumeResourceRequirements)      \
                                                                              X(TypedLocalObjectReference)   \
                                                                                  X(TypedObjectReference)
// Typed structs completed by a <Type>More struct above (X(Type): api::Type + schema_only::TypeMore).
#define KSCHED_CORE_SCHEMA_MORE(X)                                                                           \
  X(PodSpec)                                                                                                 \
  X(PodStatus) X(NodeSpec) X(NodeStatus) X(Volume) X(Container) X(ResourceRequirements) X(PodCondition)      \
      X(ContainerStatus) X(ISCSIVolumeSource) X(RBDVolumeSource) X(CSIVolumeSource) X(EphemeralVolumeSource) \
          X(VolumeMount) X(PersistentVolumeClaimSpec)

// Fields whose Go type has a name of its own, as encoding/json names it in a type error.
struct GoNamedType {
  std::string_view definition, field, go_type;
};
inline constexpr GoNamedType kGoNamedTypes[] = {
    {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "uid", "types.UID"},
    {"io.k8s.api.core.v1.PodSpec", "restartPolicy", "v1.RestartPolicy"},
    {"io.k8s.api.core.v1.PodSpec", "dnsPolicy", "v1.DNSPolicy"},
    {"io.k8s.api.core.v1.PodSpec", "preemptionPolicy", "v1.PreemptionPolicy"},
    {"io.k8s.api.core.v1.PodSpec", "overhead", "v1.ResourceList"},
    {"io.k8s.api.core.v1.PodStatus", "phase", "v1.PodPhase"},
    {"io.k8s.api.core.v1.PodStatus", "qosClass", "v1.PodQOSClass"},
    {"io.k8s.api.core.v1.PodStatus", "resize", "v1.PodResizeStatus"},
    {"io.k8s.api.core.v1.PodStatus", "allocatedResources", "v1.ResourceList"},
    {"io.k8s.api.core.v1.NodeStatus", "capacity", "v1.ResourceList"},
    {"io.k8s.api.core.v1.NodeStatus", "allocatable", "v1.ResourceList"},
    {"io.k8s.api.core.v1.NodeStatus", "phase", "v1.NodePhase"},
    {"io.k8s.api.core.v1.NodeStatus", "volumesInUse", "[]v1.UniqueVolumeName"},
    {"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference", "uid", "types.UID"},
    {"io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry", "operation", "v1.ManagedFieldsOperationType"},
    {"io.k8s.api.core.v1.Container", "restartPolicy", "v1.ContainerRestartPolicy"},
    {"io.k8s.api.core.v1.Container", "terminationMessagePolicy", "v1.TerminationMessagePolicy"},
    {"io.k8s.api.core.v1.Container", "imagePullPolicy", "v1.PullPolicy"},
    {"io.k8s.api.core.v1.EphemeralContainer", "restartPolicy", "v1.ContainerRestartPolicy"},
    {"io.k8s.api.core.v1.EphemeralContainer", "terminationMessagePolicy", "v1.TerminationMessagePolicy"},
    {"io.k8s.api.core.v1.EphemeralContainer", "imagePullPolicy", "v1.PullPolicy"},
    {"io.k8s.api.core.v1.PodSecurityContext", "supplementalGroupsPolicy", "v1.SupplementalGroupsPolicy"},
    {"io.k8s.api.core.v1.PodSecurityContext", "fsGroupChangePolicy", "v1.PodFSGroupChangePolicy"},
    {"io.k8s.api.core.v1.PodSecurityContext", "seLinuxChangePolicy", "v1.PodSELinuxChangePolicy"},
    {"io.k8s.api.core.v1.Toleration", "operator", "v1.TolerationOperator"},
    {"io.k8s.api.core.v1.Toleration", "effect", "v1.TaintEffect"},
    {"io.k8s.api.core.v1.PodReadinessGate", "conditionType", "v1.PodConditionType"},
    {"io.k8s.api.core.v1.TopologySpreadConstraint", "whenUnsatisfiable", "v1.UnsatisfiableConstraintAction"},
    {"io.k8s.api.core.v1.TopologySpreadConstraint", "nodeAffinityPolicy", "v1.NodeInclusionPolicy"},
    {"io.k8s.api.core.v1.TopologySpreadConstraint", "nodeTaintsPolicy", "v1.NodeInclusionPolicy"},
    {"io.k8s.api.core.v1.PodOS", "name", "v1.OSName"},
    {"io.k8s.api.core.v1.ResourceRequirements", "limits", "v1.ResourceList"},
    {"io.k8s.api.core.v1.ResourceRequirements", "requests", "v1.ResourceList"},
    {"io.k8s.api.core.v1.PodCondition", "type", "v1.PodConditionType"},
    {"io.k8s.api.core.v1.PodCondition", "status", "v1.ConditionStatus"},
    {"io.k8s.api.core.v1.ContainerStatus", "allocatedResources", "v1.ResourceList"},
    {"io.k8s.api.core.v1.ContainerStatus", "stopSignal", "v1.Signal"},
    {"io.k8s.api.core.v1.Taint", "effect", "v1.TaintEffect"},
    {"io.k8s.api.core.v1.NodeCondition", "type", "v1.NodeConditionType"},
    {"io.k8s.api.core.v1.NodeCondition", "status", "v1.ConditionStatus"},
    {"io.k8s.api.core.v1.NodeAddress", "type", "v1.NodeAddressType"},
    {"io.k8s.api.core.v1.AttachedVolume", "name", "v1.UniqueVolumeName"},
    {"io.k8s.api.core.v1.HostPathVolumeSource", "type", "v1.HostPathType"},
    {"io.k8s.api.core.v1.EmptyDirVolumeSource", "medium", "v1.StorageMedium"},
    {"io.k8s.api.core.v1.AzureDiskVolumeSource", "cachingMode", "v1.AzureDataDiskCachingMode"},
    {"io.k8s.api.core.v1.AzureDiskVolumeSource", "kind", "v1.AzureDataDiskKind"},
    {"io.k8s.api.core.v1.ImageVolumeSource", "pullPolicy", "v1.PullPolicy"},
    {"io.k8s.api.core.v1.ContainerPort", "protocol", "v1.Protocol"},
    {"io.k8s.api.core.v1.ContainerResizePolicy", "resourceName", "v1.ResourceName"},
    {"io.k8s.api.core.v1.ContainerResizePolicy", "restartPolicy", "v1.ResourceResizeRestartPolicy"},
    {"io.k8s.api.core.v1.ContainerRestartRule", "action", "v1.ContainerRestartRuleAction"},
    {"io.k8s.api.core.v1.VolumeMount", "recursiveReadOnly", "v1.RecursiveReadOnlyMode"},
    {"io.k8s.api.core.v1.VolumeMount", "mountPropagation", "v1.MountPropagationMode"},
    {"io.k8s.api.core.v1.Lifecycle", "stopSignal", "v1.Signal"},
    {"io.k8s.api.core.v1.SecurityContext", "procMount", "v1.ProcMountType"},
    {"io.k8s.api.core.v1.SeccompProfile", "type", "v1.SeccompProfileType"},
    {"io.k8s.api.core.v1.AppArmorProfile", "type", "v1.AppArmorProfileType"},
    {"io.k8s.api.core.v1.VolumeMountStatus", "recursiveReadOnly", "v1.RecursiveReadOnlyMode"},
    {"io.k8s.api.core.v1.ResourceStatus", "name", "v1.ResourceName"},
    {"io.k8s.api.core.v1.ConfigMapNodeConfigSource", "uid", "types.UID"},
    {"io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes", "operator",
     "v1.ContainerRestartRuleOnExitCodesOperator"},
    {"io.k8s.api.core.v1.HTTPGetAction", "scheme", "v1.URIScheme"},
    {"io.k8s.api.core.v1.Capabilities", "add", "[]v1.Capability"},
    {"io.k8s.api.core.v1.Capabilities", "drop", "[]v1.Capability"},
    {"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", "operator", "v1.LabelSelectorOperator"},
    {"io.k8s.api.core.v1.ResourceHealth", "resourceID", "v1.ResourceID"},
    {"io.k8s.api.core.v1.ResourceHealth", "health", "v1.ResourceHealthStatus"},
    {"io.k8s.api.core.v1.PersistentVolumeClaimSpec", "accessModes", "[]v1.PersistentVolumeAccessMode"},
    {"io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeMode", "v1.PersistentVolumeMode"},
    {"io.k8s.api.core.v1.VolumeResourceRequirements", "limits", "v1.ResourceList"},
    {"io.k8s.api.core.v1.VolumeResourceRequirements", "requests", "v1.ResourceList"},
    {"io.k8s.api.core.v1.NodeSelectorRequirement", "operator", "v1.NodeSelectorOperator"},
    {"io.k8s.api.core.v1.Secret", "type", "v1.SecretType"},
};

// Fields of a struct that Go embeds in the definition (Volume's VolumeSource): encoding/json names the
// embedded struct in a type error's field path ("spec.volumes.VolumeSource.emptyDir").
struct EmbeddedField {
  std::string_view definition, field, embedded;
};
inline constexpr EmbeddedField kEmbeddedFields[] = {
    {"io.k8s.api.core.v1.ConfigMapEnvSource", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.ConfigMapKeySelector", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.ConfigMapProjection", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.ConfigMapVolumeSource", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.EphemeralContainer", "args", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "command", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "env", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "envFrom", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "image", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "imagePullPolicy", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "lifecycle", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "livenessProbe", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "name", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "ports", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "readinessProbe", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "resizePolicy", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "resources", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "restartPolicy", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "restartPolicyRules", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "securityContext", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "startupProbe", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "stdin", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "stdinOnce", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "terminationMessagePath", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "terminationMessagePolicy", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "tty", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "volumeDevices", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "volumeMounts", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.EphemeralContainer", "workingDir", "EphemeralContainerCommon"},
    {"io.k8s.api.core.v1.Probe", "exec", "ProbeHandler"},
    {"io.k8s.api.core.v1.Probe", "grpc", "ProbeHandler"},
    {"io.k8s.api.core.v1.Probe", "httpGet", "ProbeHandler"},
    {"io.k8s.api.core.v1.Probe", "tcpSocket", "ProbeHandler"},
    {"io.k8s.api.core.v1.SecretEnvSource", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.SecretKeySelector", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.SecretProjection", "name", "LocalObjectReference"},
    {"io.k8s.api.core.v1.Volume", "awsElasticBlockStore", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "azureDisk", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "azureFile", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "cephfs", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "cinder", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "configMap", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "csi", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "downwardAPI", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "emptyDir", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "ephemeral", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "fc", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "flexVolume", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "flocker", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "gcePersistentDisk", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "gitRepo", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "glusterfs", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "hostPath", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "image", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "iscsi", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "nfs", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "persistentVolumeClaim", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "photonPersistentDisk", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "portworxVolume", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "projected", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "quobyte", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "rbd", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "scaleIO", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "secret", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "storageos", "VolumeSource"},
    {"io.k8s.api.core.v1.Volume", "vsphereVolume", "VolumeSource"},
};

// Definitions that hold every field upstream defines: a member not listed there is unknown.
inline constexpr std::string_view kCompleteDefinitions[] = {
    "io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource",
    "io.k8s.api.core.v1.Affinity",
    "io.k8s.api.core.v1.AppArmorProfile",
    "io.k8s.api.core.v1.AttachedVolume",
    "io.k8s.api.core.v1.AzureDiskVolumeSource",
    "io.k8s.api.core.v1.AzureFileVolumeSource",
    "io.k8s.api.core.v1.CSIVolumeSource",
    "io.k8s.api.core.v1.Capabilities",
    "io.k8s.api.core.v1.CephFSVolumeSource",
    "io.k8s.api.core.v1.CinderVolumeSource",
    "io.k8s.api.core.v1.ClusterTrustBundleProjection",
    "io.k8s.api.core.v1.ConfigMap",
    "io.k8s.api.core.v1.ConfigMapEnvSource",
    "io.k8s.api.core.v1.ConfigMapKeySelector",
    "io.k8s.api.core.v1.ConfigMapNodeConfigSource",
    "io.k8s.api.core.v1.ConfigMapProjection",
    "io.k8s.api.core.v1.ConfigMapVolumeSource",
    "io.k8s.api.core.v1.Container",
    "io.k8s.api.core.v1.ContainerExtendedResourceRequest",
    "io.k8s.api.core.v1.ContainerImage",
    "io.k8s.api.core.v1.ContainerPort",
    "io.k8s.api.core.v1.ContainerResizePolicy",
    "io.k8s.api.core.v1.ContainerRestartRule",
    "io.k8s.api.core.v1.ContainerRestartRuleOnExitCodes",
    "io.k8s.api.core.v1.ContainerState",
    "io.k8s.api.core.v1.ContainerStateRunning",
    "io.k8s.api.core.v1.ContainerStateTerminated",
    "io.k8s.api.core.v1.ContainerStateWaiting",
    "io.k8s.api.core.v1.ContainerStatus",
    "io.k8s.api.core.v1.ContainerUser",
    "io.k8s.api.core.v1.DaemonEndpoint",
    "io.k8s.api.core.v1.DownwardAPIProjection",
    "io.k8s.api.core.v1.DownwardAPIVolumeFile",
    "io.k8s.api.core.v1.DownwardAPIVolumeSource",
    "io.k8s.api.core.v1.EmptyDirVolumeSource",
    "io.k8s.api.core.v1.EnvFromSource",
    "io.k8s.api.core.v1.EnvVar",
    "io.k8s.api.core.v1.EnvVarSource",
    "io.k8s.api.core.v1.EphemeralContainer",
    "io.k8s.api.core.v1.EphemeralVolumeSource",
    "io.k8s.api.core.v1.ExecAction",
    "io.k8s.api.core.v1.FCVolumeSource",
    "io.k8s.api.core.v1.FileKeySelector",
    "io.k8s.api.core.v1.FlexVolumeSource",
    "io.k8s.api.core.v1.FlockerVolumeSource",
    "io.k8s.api.core.v1.GCEPersistentDiskVolumeSource",
    "io.k8s.api.core.v1.GRPCAction",
    "io.k8s.api.core.v1.GitRepoVolumeSource",
    "io.k8s.api.core.v1.GlusterfsVolumeSource",
    "io.k8s.api.core.v1.HTTPGetAction",
    "io.k8s.api.core.v1.HTTPHeader",
    "io.k8s.api.core.v1.HostAlias",
    "io.k8s.api.core.v1.HostIP",
    "io.k8s.api.core.v1.HostPathVolumeSource",
    "io.k8s.api.core.v1.ISCSIVolumeSource",
    "io.k8s.api.core.v1.ImageVolumeSource",
    "io.k8s.api.core.v1.KeyToPath",
    "io.k8s.api.core.v1.Lifecycle",
    "io.k8s.api.core.v1.LifecycleHandler",
    "io.k8s.api.core.v1.LinuxContainerUser",
    "io.k8s.api.core.v1.LocalObjectReference",
    "io.k8s.api.core.v1.NFSVolumeSource",
    "io.k8s.api.core.v1.Node",
    "io.k8s.api.core.v1.NodeAddress",
    "io.k8s.api.core.v1.NodeAffinity",
    "io.k8s.api.core.v1.NodeCondition",
    "io.k8s.api.core.v1.NodeConfigSource",
    "io.k8s.api.core.v1.NodeConfigStatus",
    "io.k8s.api.core.v1.NodeDaemonEndpoints",
    "io.k8s.api.core.v1.NodeFeatures",
    "io.k8s.api.core.v1.NodeRuntimeHandler",
    "io.k8s.api.core.v1.NodeRuntimeHandlerFeatures",
    "io.k8s.api.core.v1.NodeSelector",
    "io.k8s.api.core.v1.NodeSelectorRequirement",
    "io.k8s.api.core.v1.NodeSelectorTerm",
    "io.k8s.api.core.v1.NodeSpec",
    "io.k8s.api.core.v1.NodeStatus",
    "io.k8s.api.core.v1.NodeSwapStatus",
    "io.k8s.api.core.v1.NodeSystemInfo",
    "io.k8s.api.core.v1.ObjectFieldSelector",
    "io.k8s.api.core.v1.PersistentVolumeClaimSpec",
    "io.k8s.api.core.v1.PersistentVolumeClaimTemplate",
    "io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource",
    "io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource",
    "io.k8s.api.core.v1.Pod",
    "io.k8s.api.core.v1.PodAffinity",
    "io.k8s.api.core.v1.PodAffinityTerm",
    "io.k8s.api.core.v1.PodAntiAffinity",
    "io.k8s.api.core.v1.PodCertificateProjection",
    "io.k8s.api.core.v1.PodCondition",
    "io.k8s.api.core.v1.PodDNSConfig",
    "io.k8s.api.core.v1.PodDNSConfigOption",
    "io.k8s.api.core.v1.PodExtendedResourceClaimStatus",
    "io.k8s.api.core.v1.PodIP",
    "io.k8s.api.core.v1.PodOS",
    "io.k8s.api.core.v1.PodReadinessGate",
    "io.k8s.api.core.v1.PodResourceClaim",
    "io.k8s.api.core.v1.PodResourceClaimStatus",
    "io.k8s.api.core.v1.PodSchedulingGate",
    "io.k8s.api.core.v1.PodSchedulingGroup",
    "io.k8s.api.core.v1.PodSecurityContext",
    "io.k8s.api.core.v1.PodSpec",
    "io.k8s.api.core.v1.PodStatus",
    "io.k8s.api.core.v1.PortworxVolumeSource",
    "io.k8s.api.core.v1.PreferredSchedulingTerm",
    "io.k8s.api.core.v1.Probe",
    "io.k8s.api.core.v1.ProjectedVolumeSource",
    "io.k8s.api.core.v1.QuobyteVolumeSource",
    "io.k8s.api.core.v1.RBDVolumeSource",
    "io.k8s.api.core.v1.ResourceClaim",
    "io.k8s.api.core.v1.ResourceFieldSelector",
    "io.k8s.api.core.v1.ResourceHealth",
    "io.k8s.api.core.v1.ResourceRequirements",
    "io.k8s.api.core.v1.ResourceStatus",
    "io.k8s.api.core.v1.SELinuxOptions",
    "io.k8s.api.core.v1.ScaleIOVolumeSource",
    "io.k8s.api.core.v1.SeccompProfile",
    "io.k8s.api.core.v1.Secret",
    "io.k8s.api.core.v1.SecretEnvSource",
    "io.k8s.api.core.v1.SecretKeySelector",
    "io.k8s.api.core.v1.SecretProjection",
    "io.k8s.api.core.v1.SecretVolumeSource",
    "io.k8s.api.core.v1.SecurityContext",
    "io.k8s.api.core.v1.ServiceAccountTokenProjection",
    "io.k8s.api.core.v1.SleepAction",
    "io.k8s.api.core.v1.StorageOSVolumeSource",
    "io.k8s.api.core.v1.Sysctl",
    "io.k8s.api.core.v1.TCPSocketAction",
    "io.k8s.api.core.v1.Taint",
    "io.k8s.api.core.v1.Toleration",
    "io.k8s.api.core.v1.TopologySpreadConstraint",
    "io.k8s.api.core.v1.TypedLocalObjectReference",
    "io.k8s.api.core.v1.TypedObjectReference",
    "io.k8s.api.core.v1.Volume",
    "io.k8s.api.core.v1.VolumeDevice",
    "io.k8s.api.core.v1.VolumeMount",
    "io.k8s.api.core.v1.VolumeMountStatus",
    "io.k8s.api.core.v1.VolumeProjection",
    "io.k8s.api.core.v1.VolumeResourceRequirements",
    "io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource",
    "io.k8s.api.core.v1.WeightedPodAffinityTerm",
    "io.k8s.api.core.v1.WindowsSecurityContextOptions",
    "io.k8s.api.core.v1.WorkloadReference",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
    "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
};

}  // namespace ksched::apiserver::openapi
