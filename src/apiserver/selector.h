// Label and field selectors over the small index kept next to each stored object.
// (Own minimal implementation so the server does not depend on the typed api layer.)
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace ksched::apiserver {

// Sorted (key, value) pairs: labels or selectable fields of one object.
using Pairs = std::vector<std::pair<std::string, std::string>>;
const std::string* find_pair(const Pairs& p, std::string_view key);
void sort_pairs(Pairs& p);

struct LabelRequirement {
  enum class Op { Eq, Ne, In, NotIn, Exists, NotExists, Gt, Lt };
  std::string key;
  Op op = Op::Exists;
  std::vector<std::string> values;
  bool matches(const Pairs& labels) const;
};

class LabelSelector {
 public:
  static util::Result<LabelSelector> parse(std::string_view s);
  bool matches(const Pairs& labels) const {
    for (const auto& r : reqs_)
      if (!r.matches(labels)) return false;
    return true;
  }
  bool empty() const { return reqs_.empty(); }

 private:
  std::vector<LabelRequirement> reqs_;
};

struct FieldRequirement {
  std::string field;
  std::string value;
  bool not_equals = false;
};

class FieldSelector {
 public:
  static util::Result<FieldSelector> parse(std::string_view s);
  bool matches(const Pairs& fields) const;
  bool empty() const { return reqs_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return reqs_; }

 private:
  std::vector<FieldRequirement> reqs_;
};

}  // namespace ksched::apiserver
