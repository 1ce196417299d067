#include "controllers/hash.h"

#include "api/codec.h"

namespace ksched::controllers {

namespace {

void write_collision_count(Fnv32a& h, std::optional<std::int32_t> collision_count) {
  if (!collision_count) return;
  // binary.LittleEndian.PutUint32 into an 8-byte buffer: the upper four bytes stay zero.
  auto v = static_cast<std::uint32_t>(*collision_count);
  char buf[8] = {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff), static_cast<char>((v >> 16) & 0xff),
                 static_cast<char>((v >> 24) & 0xff), 0, 0, 0, 0};
  h.write(std::string_view(buf, 8));
}

}  // namespace

std::string safe_encode_string(std::string_view s) {
  static constexpr std::string_view alphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out(s.size(), ' ');
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = alphanums[static_cast<unsigned char>(s[i]) % alphanums.size()];
  return out;
}

std::string compute_hash(const PodTemplateSpec& tmpl, std::optional<std::int32_t> collision_count) {
  // Upstream hashes go-spew's dump of the Go struct (every field of PodTemplateSpec, zero ones
  // included, with their Go types); this hashes the template's JSON instead. Same properties
  // (stable for a template, different for different ones, collision count appended), different
  // values: a ReplicaSet upstream would name web-7d4b9c8f6 is named differently here.
  Fnv32a h;
  h.write(api::encode(tmpl));
  write_collision_count(h, collision_count);
  return safe_encode_string(std::to_string(h.sum()));
}

std::string hash_revision_data(std::string_view data, std::optional<std::int32_t> collision_count) {
  Fnv32a h;
  h.write(data);
  write_collision_count(h, collision_count);
  return safe_encode_string(std::to_string(h.sum()));
}

}  // namespace ksched::controllers
