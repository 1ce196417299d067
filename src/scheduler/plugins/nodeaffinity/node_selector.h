// Node selector matching as upstream's component-helpers nodeaffinity package: node selector
// terms are ORed, a term's matchExpressions (labels, incl. Gt/Lt) and matchFields
// (metadata.name, In/NotIn with one value) are ANDed, an empty term matches nothing, and a term
// that fails to parse is dropped (LazyErrorNodeSelector) with its error kept.
// Header-only so VolumeBinding (PV node affinity) can use it without linking this plugin.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "api/core.h"
#include "api/labels.h"

namespace ksched::scheduler::plugins::nodeaffinity {

inline constexpr std::string_view kObjectNameField = "metadata.name";

struct FieldRequirement {
  std::string key;
  bool equal = true;  // In → equal, NotIn → not equal
  std::string value;
};

struct CompiledNodeSelectorTerm {
  bool hasLabels = false;
  bool hasFields = false;
  std::vector<labels::Requirement> labelRequirements;
  std::vector<FieldRequirement> fieldRequirements;

  bool match(const api::Node& node) const { return match(node.metadata.labels, node.metadata.name); }
  // Labels and name only; an empty name skips matchFields (upstream passes no fields then, e.g.
  // for PV node affinity checked against node labels).
  bool match(const api::StringMap& labels, std::string_view node_name) const {
    if (!hasLabels && !hasFields) return false;
    if (hasLabels) {
      for (const auto& r : labelRequirements) {
        if (!r.matches(labels)) return false;
      }
    }
    if (hasFields && !node_name.empty()) {
      for (const auto& f : fieldRequirements) {
        const std::string_view have = f.key == kObjectNameField ? node_name : std::string_view();
        if ((have == f.value) != f.equal) return false;
      }
    }
    return true;
  }
};

namespace detail {

inline bool parse_int64(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  std::size_t i = 0;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
    if (s.size() == 1) return false;
  }
  unsigned __int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > static_cast<unsigned __int128>(INT64_MAX) + 1) return false;
  }
  if (!neg && v > static_cast<unsigned __int128>(INT64_MAX)) return false;
  out = neg ? static_cast<std::int64_t>(-static_cast<__int128>(v)) : static_cast<std::int64_t>(v);
  return true;
}

inline std::string join_errors(const std::vector<std::string>& errs) {
  std::string out;
  for (std::size_t i = 0; i < errs.size(); ++i) {
    if (i) out += "; ";
    out += errs[i];
  }
  return out;
}

}  // namespace detail

// Parses one term; appends errors (with the field path) and returns false when it is invalid.
inline bool compile_node_selector_term(const api::NodeSelectorTerm& term, const std::string& path,
                                       CompiledNodeSelectorTerm& out, std::vector<std::string>& errors) {
  const std::size_t errors_before = errors.size();
  out = {};
  if (!term.matchExpressions.empty()) {
    out.hasLabels = true;
    for (std::size_t i = 0; i < term.matchExpressions.size(); ++i) {
      const auto& e = term.matchExpressions[i];
      const std::string p = path + ".matchExpressions[" + std::to_string(i) + "]";
      labels::Requirement r;
      r.key = e.key;
      r.values = e.values;
      if (e.operator_ == "In") {
        r.op = labels::Operator::In;
      } else if (e.operator_ == "NotIn") {
        r.op = labels::Operator::NotIn;
      } else if (e.operator_ == "Exists") {
        r.op = labels::Operator::Exists;
      } else if (e.operator_ == "DoesNotExist") {
        r.op = labels::Operator::DoesNotExist;
      } else if (e.operator_ == "Gt") {
        r.op = labels::Operator::GreaterThan;
      } else if (e.operator_ == "Lt") {
        r.op = labels::Operator::LessThan;
      } else {
        errors.push_back(p + ".operator: Unsupported value: \"" + e.operator_ + "\"");
        continue;
      }
      for (const auto& msg : labels::validate_label_key(e.key)) errors.push_back(p + ".key: Invalid value: \"" + e.key + "\": " + msg);
      switch (r.op) {
        case labels::Operator::In:
        case labels::Operator::NotIn:
          if (e.values.empty()) errors.push_back(p + ".values: Invalid value: for 'in', 'notin' operators, values set can't be empty");
          break;
        case labels::Operator::Exists:
        case labels::Operator::DoesNotExist:
          if (!e.values.empty()) errors.push_back(p + ".values: Invalid value: values set must be empty for exists and does not exist");
          break;
        default: {
          std::int64_t ignored = 0;
          if (e.values.size() != 1) {
            errors.push_back(p + ".values: Invalid value: for 'Gt', 'Lt' operators, exactly one value is required");
          } else if (!detail::parse_int64(e.values[0], ignored)) {
            errors.push_back(p + ".values[0]: Invalid value: \"" + e.values[0] +
                             "\": for 'Gt', 'Lt' operators, the value must be an integer");
          }
        }
      }
      if (r.op == labels::Operator::In || r.op == labels::Operator::NotIn) {
        for (const auto& v : e.values) {
          for (const auto& msg : labels::validate_label_value(v)) errors.push_back(p + ".values: Invalid value: \"" + v + "\": " + msg);
        }
      }
      out.labelRequirements.push_back(std::move(r));
    }
  }
  if (!term.matchFields.empty()) {
    out.hasFields = true;
    for (std::size_t i = 0; i < term.matchFields.size(); ++i) {
      const auto& e = term.matchFields[i];
      const std::string p = path + ".matchFields[" + std::to_string(i) + "]";
      if (e.operator_ != "In" && e.operator_ != "NotIn") {
        errors.push_back(p + ".operator: Unsupported value: \"" + e.operator_ + "\": supported values: \"In\", \"NotIn\"");
        continue;
      }
      if (e.values.size() != 1) {
        errors.push_back(p + ".values: Invalid value: must have one element");
        continue;
      }
      out.fieldRequirements.push_back(FieldRequirement{e.key, e.operator_ == "In", e.values[0]});
    }
  }
  return errors.size() == errors_before;
}

// A required node selector (ORed terms). Invalid terms are left out; errors() lists them.
class NodeSelectorMatcher {
 public:
  static NodeSelectorMatcher compile(const api::NodeSelector& ns, const std::string& path = "nodeSelectorTerms") {
    NodeSelectorMatcher m;
    for (std::size_t i = 0; i < ns.nodeSelectorTerms.size(); ++i) {
      const auto& t = ns.nodeSelectorTerms[i];
      if (t.matchExpressions.empty() && t.matchFields.empty()) continue;  // selects nothing
      CompiledNodeSelectorTerm c;
      if (compile_node_selector_term(t, path + "[" + std::to_string(i) + "]", c, m.errors_)) {
        m.terms_.push_back(std::move(c));
      }
    }
    return m;
  }
  bool match(const api::Node& node) const { return match(node.metadata.labels, node.metadata.name); }
  bool match(const api::StringMap& labels, std::string_view node_name = {}) const {
    for (const auto& t : terms_) {
      if (t.match(labels, node_name)) return true;
    }
    return false;
  }
  const std::vector<std::string>& errors() const { return errors_; }
  std::string error_string() const { return detail::join_errors(errors_); }

 private:
  std::vector<CompiledNodeSelectorTerm> terms_;
  std::vector<std::string> errors_;
};

// Preferred terms: Σ weight of matching terms; weight-0 terms are dropped.
class PreferredSchedulingTerms {
 public:
  static PreferredSchedulingTerms compile(const std::vector<api::PreferredSchedulingTerm>& terms,
                                          const std::string& path = "preferredDuringSchedulingIgnoredDuringExecution") {
    PreferredSchedulingTerms p;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (terms[i].weight == 0) continue;
      CompiledNodeSelectorTerm c;
      if (compile_node_selector_term(terms[i].preference, path + "[" + std::to_string(i) + "].preference", c,
                                     p.errors_)) {
        p.terms_.emplace_back(terms[i].weight, std::move(c));
      }
    }
    return p;
  }
  std::int64_t score(const api::Node& node) const {
    std::int64_t s = 0;
    for (const auto& [w, t] : terms_) {
      if (t.match(node)) s += w;
    }
    return s;
  }
  bool empty() const { return terms_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }
  std::string error_string() const { return detail::join_errors(errors_); }

 private:
  std::vector<std::pair<std::int32_t, CompiledNodeSelectorTerm>> terms_;
  std::vector<std::string> errors_;
};

// spec.nodeSelector AND spec.affinity.nodeAffinity.required (upstream GetRequiredNodeAffinity).
class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const api::Pod& pod) : nodeSelector_(pod.spec.nodeSelector) {
    const auto& aff = pod.spec.affinity;
    if (aff && aff->nodeAffinity && aff->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution) {
      affinity_ = NodeSelectorMatcher::compile(*aff->nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution,
                                               "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
      hasAffinity_ = true;
    }
  }
  bool match(const api::Node& node) const {
    for (const auto& [k, v] : nodeSelector_) {
      const std::string* have = node.metadata.labels.find(k);
      if (have == nullptr || *have != v) return false;
    }
    return !hasAffinity_ || affinity_.match(node);
  }

 private:
  api::StringMap nodeSelector_;
  NodeSelectorMatcher affinity_;
  bool hasAffinity_ = false;
};

}  // namespace ksched::scheduler::plugins::nodeaffinity
