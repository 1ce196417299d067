// pkg/registry/core/persistentvolume/strategy.go: SetDefaults_PersistentVolume on every write, the
// status strategy's lastPhaseTransitionTime, and ValidatePersistentVolume's capacity rules on every
// write, its status included.
#include <boost/json.hpp>

#include "apiserver/json_access.h"
#include "apiserver/registry/core/strategies.h"
#include "apiserver/timeutil.h"
#include "apiserver/write/validation_rules.h"
#include "util/go_format.h"

namespace ksched::apiserver::registry::core {

namespace json = boost::json;

namespace {

using rules::Errors;

// SetDefaults_PersistentVolume (and its status' phase).
void default_persistent_volume(json::object& pv) {
  auto& spec = ensure_object(pv, "spec");
  if (str_view(spec, "persistentVolumeReclaimPolicy").empty()) spec["persistentVolumeReclaimPolicy"] = "Retain";
  set_default(spec, "volumeMode", "Filesystem");
  auto& status = ensure_object(pv, "status");
  if (str_view(status, "phase").empty()) status["phase"] = "Pending";
}

// persistentvolumeStatusStrategy.PrepareForUpdate (PersistentVolumeLastPhaseTransitionTime, GA):
// a phase change the client gave no new transition time for is stamped now; an unchanged phase
// keeps the stored time when the write leaves it out.
void prepare_persistent_volume_status(json::object& pv, const json::object& old, std::int64_t now_unix) {
  auto& status = ensure_object(pv, "status");
  const json::object* old_status = object_member(old, "status");
  std::string_view phase = str_view(status, "phase");
  std::string_view old_phase = old_status ? str_view(*old_status, "phase") : std::string_view();
  const json::value* t = status.if_contains("lastPhaseTransitionTime");
  const json::value* old_t = old_status ? old_status->if_contains("lastPhaseTransitionTime") : nullptr;
  bool unset = !t || t->is_null();
  if (phase == old_phase && unset) {
    if (old_t && !old_t->is_null()) {
      json::value keep = *old_t;  // copied first: inserting may move the members
      status["lastPhaseTransitionTime"] = std::move(keep);
    }
  } else if (phase != old_phase && (unset || (old_t && *t == *old_t))) {
    status["lastPhaseTransitionTime"] = format_rfc3339(now_unix);
  }
}

// spec.capacity holds storage alone, a quantity above zero.
void validate_capacity(Errors& e, const json::object& pv) {
  const json::object* cap = rules::obj(member_or_empty(pv, "spec"), "capacity");
  const json::value* storage = cap ? cap->if_contains("storage") : nullptr;
  if (!storage)
    e.required(rules::key("spec.capacity", "storage"));
  else if (auto q = rules::quantity_of(*storage); q && q->sign() <= 0)
    e.invalid_str(rules::key("spec.capacity", "storage"), q->to_string(), "must be greater than zero");
  if (cap)
    for (const auto& kv : *cap) {
      if (kv.key() != "storage") e.not_supported(rules::key("spec.capacity", kv.key()), util::go_quote(kv.key()), {"storage"});
      rules::resource_quantity_value(e, kv.key(), kv.value(), rules::key("spec.capacity", kv.key()));
    }
}

class PersistentVolumeStrategy final : public Strategy {
 public:
  void set_defaults(json::object& obj, const WriteContext&) const override { default_persistent_volume(obj); }
  void prepare_for_status_update(json::object& obj, const WriteContext& w) const override {
    if (w.old) prepare_persistent_volume_status(obj, *w.old, w.now_unix);
  }
  void validate(Errors& e, const json::object& obj, const WriteContext&) const override { validate_capacity(e, obj); }
  void validate_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    validate_capacity(e, obj);
  }
  void validate_status_update(Errors& e, const json::object& obj, const WriteContext&) const override {
    validate_capacity(e, obj);
  }
};

}  // namespace

const Strategy& persistent_volume_strategy() {
  static const PersistentVolumeStrategy s;
  return s;
}

}  // namespace ksched::apiserver::registry::core
