// The hashes controllers name things by: the pod-template-hash of a Deployment's ReplicaSets and
// of a DaemonSet's revisions (controller.ComputeHash) and the hash of a StatefulSet's
// ControllerRevision (history.HashControllerRevision): FNV-1a 32, the collision count appended
// when set, the sum's decimal digits written with rand.SafeEncodeString's alphabet. The
// revision hash is upstream's (over the revision's data); the template hash is over the
// template's JSON where upstream hashes a go-spew dump of the Go struct (see compute_hash).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "controllers/types.h"

namespace ksched::controllers {

// controller.ComputeHash(&template, collisionCount).
std::string compute_hash(const PodTemplateSpec& tmpl, std::optional<std::int32_t> collision_count);

// history.HashControllerRevision over the revision's data (its JSON bytes).
std::string hash_revision_data(std::string_view data, std::optional<std::int32_t> collision_count);

// rand.SafeEncodeString: each byte mapped onto "bcdfghjklmnpqrstvwxz2456789".
std::string safe_encode_string(std::string_view s);

// FNV-1a, 32 bits.
class Fnv32a {
 public:
  void write(std::string_view bytes) {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 16777619u;
    }
  }
  std::uint32_t sum() const { return h_; }

 private:
  std::uint32_t h_ = 2166136261u;
};

}  // namespace ksched::controllers
