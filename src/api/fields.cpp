// Field selectors as k8s.io/apimachinery/pkg/fields: comma-separated terms (a backslash escapes
// the next character), each split at the first "!=", "==" or "=", values unescaped.
#include "api/fields.h"

#include <algorithm>

namespace ksched::fields {
namespace {

std::vector<std::string_view> split_terms(std::string_view s) {
  std::vector<std::string_view> terms;
  if (s.empty()) return terms;
  std::size_t start = 0;
  bool in_slash = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_slash) {
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',') {
      terms.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(s.substr(start));
  return terms;
}

util::Result<std::string> unescape_value(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool in_slash = false;
  for (char c : s) {
    if (in_slash) {
      if (c != '\\' && c != ',' && c != '=')
        return util::make_error(std::string("invalid field selector: invalid escape sequence: \\") + c);
      out += c;
      in_slash = false;
      continue;
    }
    if (c == '\\') {
      in_slash = true;
    } else if (c == ',' || c == '=') {
      // Upstream formats the rune with %v, i.e. as its code point number.
      return util::make_error("invalid field selector: unescaped character in value: " +
                              std::to_string(static_cast<int>(c)));
    } else {
      out += c;
    }
  }
  if (in_slash) return util::make_error("invalid field selector: invalid escape sequence: \\");
  return out;
}

std::string escape_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

util::Result<Selector> Selector::parse(std::string_view s) {
  auto parts = split_terms(s);
  std::sort(parts.begin(), parts.end());
  Selector sel;
  for (auto part : parts) {
    if (part.empty()) continue;
    // Split at the first position where any operator starts; "!=" wins over "=" at the same spot.
    std::size_t i = 0;
    std::size_t op_len = 0;
    bool neq = false;
    for (; i < part.size(); ++i) {
      auto rest = part.substr(i);
      if (rest.starts_with("!=")) {
        op_len = 2;
        neq = true;
        break;
      }
      if (rest.starts_with("==")) {
        op_len = 2;
        break;
      }
      if (rest.starts_with("=")) {
        op_len = 1;
        break;
      }
    }
    if (op_len == 0)
      return util::make_error("invalid selector: '" + std::string(s) + "'; can't understand '" + std::string(part) +
                              "'");
    auto value = unescape_value(part.substr(i + op_len));
    if (!value) return util::make_error(value.error());
    sel.reqs_.push_back(Requirement{std::string(part.substr(0, i)), neq, std::move(value).value()});
  }
  return sel;
}

FieldSet::FieldSet(std::initializer_list<std::pair<std::string, std::string>> pairs) {
  std::vector<std::pair<std::string, std::string>> sorted(pairs);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto names = std::make_shared<Names>();
  for (auto& [k, v] : sorted) {
    if (!names->empty() && names->back() == k) {
      values_.back() = std::move(v);  // the last one given wins, as in a map
      continue;
    }
    names->push_back(std::move(k));
    values_.push_back(std::move(v));
  }
  names_ = std::move(names);
}

std::string_view FieldSet::get(std::string_view name, std::string_view def) const {
  if (!names_) return def;
  auto it = std::lower_bound(names_->begin(), names_->end(), name);
  if (it == names_->end() || *it != name) return def;
  return values_[static_cast<std::size_t>(it - names_->begin())];
}

bool Selector::matches(const FieldSet& fields) const {
  for (const auto& r : reqs_) {
    // A field the object does not have reads as "" (upstream's Fields.Get).
    std::string_view have = fields.get(r.field);
    if ((have == r.value) == r.not_equals) return false;
  }
  return true;
}

std::string Selector::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < reqs_.size(); ++i) {
    if (i) out += ',';
    out += reqs_[i].field;
    out += reqs_[i].not_equals ? "!=" : "=";
    out += escape_value(reqs_[i].value);
  }
  return out;
}

}  // namespace ksched::fields
