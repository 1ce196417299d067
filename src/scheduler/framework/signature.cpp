#include "scheduler/framework/signature.h"

#include "api/codec.h"
#include "api/core.h"
#include "scheduler/framework/types.h"

namespace ksched::scheduler::framework {

void sign_tolerations(const api::Pod& pod, std::string_view element, PodSignature& sig) {
  std::string text;
  for (const auto& t : pod.spec.tolerations) api::encode_to(text, t);
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
