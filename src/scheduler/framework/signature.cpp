#include "scheduler/framework/signature.h"

#include "api/core.h"
#include "scheduler/framework/types.h"

namespace ksched::scheduler::framework {

void sign_tolerations(const api::Pod& pod, std::string_view element, PodSignature& sig) {
  // Every pod has tolerations (DefaultTolerationSeconds adds two): the fields, not their JSON.
  std::string text;
  for (const auto& t : pod.spec.tolerations) {
    for (const std::string* f : {&t.key, &t.operator_, &t.value, &t.effect}) {
      text.append(*f);
      text.push_back('\0');
    }
    text.append(t.tolerationSeconds ? std::to_string(*t.tolerationSeconds) : "-");
    text.push_back('\n');
  }
  sig.add(element, text);
}

namespace {
void append_resource(std::string& out, const Resource& r) {
  auto put = [&](std::int64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(r.milliCPU);
  put(r.memory);
  put(r.ephemeralStorage);
  for (const auto& [name, v] : r.scalarResources) {
    out.append(name);
    out.push_back('\0');
    put(v);
  }
  out.push_back('\n');
}
}  // namespace

void sign_requests(const api::Pod& pod, std::string_view element, PodSignature& sig) {
  std::string text;
  append_resource(text, compute_pod_requests(pod));
  append_resource(text, compute_pod_requests(pod, true));
  sig.add(element, text);
}

void sign_volumes(const api::Pod& pod, PodSignature& sig) {
  for (const auto& v : pod.spec.volumes) {
    if (v.persistentVolumeClaim || v.gcePersistentDisk || v.awsElasticBlockStore || v.iscsi || v.rbd || v.csi ||
        v.ephemeral) {
      sig.set_unsignable();
      return;
    }
  }
}

}  // namespace ksched::scheduler::framework
