// Field selectors as upstream's k8s.io/apimachinery/pkg/fields: "a=b,c==d,e!=f", with backslash
// escapes. Which fields exist is per resource and decided by the API server.
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/object.h"
#include "util/result.h"

namespace ksched::fields {

struct Requirement {
  std::string field;
  bool not_equals = false;
  std::string value;
};

// Field values of one object, e.g. {"metadata.name": "p", "spec.nodeName": "n1"}. The names are
// one sorted list per resource, shared by every object of it, so an object holds only its values
// (short ones inline): the API server builds one of these on every write.
class FieldSet {
 public:
  using Names = std::vector<std::string>;  // sorted, unique

  FieldSet() = default;
  // `values[i]` is the value of `(*names)[i]`.
  FieldSet(std::shared_ptr<const Names> names, std::vector<std::string> values)
      : names_(std::move(names)), values_(std::move(values)) {}
  // A set with names of its own, in any order (tests, one-off callers).
  FieldSet(std::initializer_list<std::pair<std::string, std::string>> pairs);

  // A field the set does not have reads as `def` (upstream's Fields.Get reads "").
  std::string_view get(std::string_view name, std::string_view def = {}) const;
  std::size_t size() const { return values_.size(); }

 private:
  std::shared_ptr<const Names> names_;
  std::vector<std::string> values_;
};

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
