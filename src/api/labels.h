// Label selectors as upstream's k8s.io/apimachinery/pkg/labels: the string form
// ("app=web,tier!=db,env in (a,b),!legacy,release"), conversion from metav1.LabelSelector
// (LabelSelectorAsSelector) and from a set (SelectorFromSet), with upstream's validation messages.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "api/meta.h"
#include "util/result.h"

namespace ksched::labels {

enum class Operator { Equals, DoubleEquals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };

struct Requirement {
  std::string key;
  Operator op = Operator::Exists;
  std::vector<std::string> values;  // sorted, as upstream
  bool matches(const api::StringMap& labels) const;
  std::string to_string() const;
};

class Selector {
 public:
  // Selects everything (the empty selector).
  Selector() = default;
  static Selector everything() { return Selector(); }
  // Selects nothing (a nil *metav1.LabelSelector).
  static Selector nothing() {
    Selector s;
    s.nothing_ = true;
    return s;
  }
  static util::Result<Selector> parse(std::string_view s);

  bool matches(const api::StringMap& labels) const {
    if (nothing_) return false;
    for (const auto& r : reqs_) {
      if (!r.matches(labels)) return false;
    }
    return true;
  }
  bool empty() const { return !nothing_ && reqs_.empty(); }
  bool is_nothing() const { return nothing_; }
  const std::vector<Requirement>& requirements() const { return reqs_; }
  void add(Requirement r);  // keeps requirements sorted by key like upstream
  std::string to_string() const;

 private:
  std::vector<Requirement> reqs_;
  bool nothing_ = false;
};

// labels.NewRequirement: validates the key, the operator's value count (Gt/Lt need one integer)
// and every value, with upstream's messages.
util::Result<Requirement> make_requirement(std::string key, Operator op, std::vector<std::string> values);

// metav1.LabelSelectorAsSelector: errors for bad operators/values with upstream's messages.
// A null selector pointer selects nothing; pass `nullptr` for that case.
util::Result<Selector> from_label_selector(const api::LabelSelector* ls);
// labels.SelectorFromSet / SelectorFromValidatedSet.
Selector from_set(const api::StringMap& set);

// Validation of label keys and values (qualified names, 63-char values) with upstream's messages;
// returns the list of error strings (empty = valid).
std::vector<std::string> validate_label_key(std::string_view key);
std::vector<std::string> validate_label_value(std::string_view value);

}  // namespace ksched::labels
