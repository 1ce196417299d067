// A kind's rules in one place, as upstream's pkg/registry/<group>/<resource>/strategy.go: what the
// server sets or defaults on a write, the validation on create, on update and of a status write,
// the warnings it answers with, and the columns `kubectl get` shows. The write pipeline
// (write_pipeline.cpp) asks strategy_for() and calls each step; the handlers keep what is about the
// request (names, UIDs, timestamps, generation, preconditions, the spec/status split).
//
// Groups in this shape: apps, batch, core/v1 (registry/core/strategies.h), node.k8s.io,
// resource.k8s.io, scheduling.k8s.io; the other groups' kinds have no rules beyond metadata. A new
// group gets a folder registry/<group>/ and one line in registry.cpp. Admission plugins
// (write/admission.cpp) are not strategies, as upstream's are not.
#pragma once
#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/features.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "apiserver/storage/storage.h"
#include "apiserver/write/validation_rules.h"

namespace ksched::apiserver::registry {

// What a strategy is told about the write in hand.
struct WriteContext {
  const ResourceInfo& resource;
  const FeatureGates& gates;              // the gates the server runs with (v1.35's defaults when not set)
  std::string_view ns;                    // the request's namespace ("" for cluster-scoped kinds)
  std::string_view subresource;           // "" or "status"
  const boost::json::object* old = nullptr;  // the stored object on an update, null on create
  const Store* store = nullptr;           // for rules that read other objects (a namespace's labels)
  // The write's time, read once per request (the handlers' creationTimestamp is the same second):
  // defaulted timestamps and lastTransitionTimes, formatted (format_rfc3339) only where one is set.
  std::int64_t now_unix = 0;
};

// A column of the server-side Table (meta.k8s.io/v1), as upstream's printers declare them.
struct TableColumn {
  const char* name;
  const char* type;    // "string", "integer", "boolean", "date"
  const char* format;  // "name" for the name column, else ""
  int priority;        // 0: always shown; 1: with -o wide
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  // The version's SetDefaults_* (upstream's defaulting during decode): every write of the kind,
  // its status included, before admission.
  virtual void set_defaults(boost::json::object& obj, const WriteContext& w) const;
  // PrepareForCreate; PrepareForUpdate of the main resource (the handler has already put the
  // stored status back); the status strategy's PrepareForUpdate (the handler has already put the
  // stored spec back).
  virtual void prepare_for_create(boost::json::object& obj, const WriteContext& w) const;
  virtual void prepare_for_update(boost::json::object& obj, const WriteContext& w) const;
  virtual void prepare_for_status_update(boost::json::object& obj, const WriteContext& w) const;
  // Validate, ValidateUpdate and the status strategy's ValidateUpdate: the kind's rules; metadata
  // (name, labels, annotations) is the pipeline's part and comes first.
  virtual void validate(rules::Errors& e, const boost::json::object& obj, const WriteContext& w) const = 0;
  virtual void validate_update(rules::Errors& e, const boost::json::object& obj, const WriteContext& w) const = 0;
  virtual void validate_status_update(rules::Errors& e, const boost::json::object& obj,
                                      const WriteContext& w) const;
  // WarningsOnCreate / WarningsOnUpdate: Warning headers of an accepted write.
  virtual void warnings(const boost::json::object& obj, const WriteContext& w, std::vector<std::string>& out) const;

  // The Table columns (empty: upstream's default Name and Age) and one object's cells.
  virtual std::vector<TableColumn> table_columns() const { return {}; }
  virtual boost::json::array table_cells(const boost::json::object& obj, std::int64_t now_unix) const;
};

// The strategy of a served resource, or null when its rules are not in this shape yet.
const Strategy* strategy_for(const ResourceInfo& r);

// kubectl's age of an object ("5s", "3m20s"), "<unknown>" without a creationTimestamp.
std::string age(const boost::json::object& obj, std::int64_t now_unix);
// A Table cell's text of a member (null: absent): a string, `dflt` when empty; a number's or a
// boolean's text; `dflt` for anything else.
std::string cell_text(const boost::json::value* v, std::string_view dflt = {});

// The kind's causes of one write (validate, validate_update or validate_status_update, as the
// write is a create, an update or a status write), empty when valid.
std::vector<Cause> validate(const Strategy& s, const boost::json::object& obj, const WriteContext& w);

}  // namespace ksched::apiserver::registry
