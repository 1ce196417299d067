// Field selectors as upstream's k8s.io/apimachinery/pkg/fields: "a=b,c==d,e!=f", with backslash
// escapes. Which fields exist is per resource and decided by the API server.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "util/result.h"

namespace ksched::fields {

struct Requirement {
  std::string field;
  bool not_equals = false;
  std::string value;
};

// Field values of one object, e.g. {"metadata.name": "p", "spec.nodeName": "n1"}.
using FieldSet = api::StringMap;

class Selector {
 public:
  Selector() = default;
  static util::Result<Selector> parse(std::string_view s);
  bool matches(const FieldSet& fields) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<Requirement>& requirements() const { return reqs_; }
  std::string to_string() const;

 private:
  std::vector<Requirement> reqs_;
};

}  // namespace ksched::fields
