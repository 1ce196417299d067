#include "apiserver/endpoints/patch.h"

#include <algorithm>

#include <boost/json.hpp>
#include <string>

namespace ksched::apiserver {

namespace json = boost::json;

// ---------------------------------------------------------------- RFC 6902

namespace {

util::Result<std::vector<std::string>> parse_pointer(std::string_view p) {
  std::vector<std::string> out;
  if (p.empty()) return out;
  if (p[0] != '/') return util::make_error("invalid JSON pointer: " + std::string(p));
  std::string cur;
  for (std::size_t i = 1; i <= p.size(); ++i) {
    if (i == p.size() || p[i] == '/') {
      out.push_back(cur);
      cur.clear();
    } else if (p[i] == '~' && i + 1 < p.size()) {
      cur += p[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      cur += p[i];
    }
  }
  return out;
}

bool parse_index(const std::string& s, std::size_t& idx) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  idx = std::stoul(s);
  return true;
}

// Resolves all but the last token: returns the parent container.
util::Result<json::value*> parent_of(json::value& doc, const std::vector<std::string>& toks, std::string_view path) {
  json::value* cur = &doc;
  for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
    if (cur->is_object()) {
      auto* n = cur->get_object().if_contains(toks[i]);
      if (!n) return util::make_error("doc is missing path: \"" + std::string(path) + "\": missing value");
      cur = n;
    } else if (cur->is_array()) {
      std::size_t idx;
      if (!parse_index(toks[i], idx) || idx >= cur->get_array().size())
        return util::make_error("doc is missing path: \"" + std::string(path) + "\": missing value");
      cur = &cur->get_array()[idx];
    } else {
      return util::make_error("doc is missing path: \"" + std::string(path) + "\": missing value");
    }
  }
  return cur;
}

util::Result<json::value> get_at(json::value& doc, std::string_view path) {
  auto toks = parse_pointer(path);
  if (!toks) return util::make_error(toks.error());
  if (toks->empty()) return doc;
  auto par = parent_of(doc, *toks, path);
  if (!par) return util::make_error(par.error());
  json::value* p = *par;
  const std::string& last = toks->back();
  if (p->is_object()) {
    auto* v = p->get_object().if_contains(last);
    if (v) return *v;
  } else if (p->is_array()) {
    std::size_t idx;
    if (parse_index(last, idx) && idx < p->get_array().size()) return p->get_array()[idx];
  }
  return util::make_error("unable to get nonexistent key: " + last + ": missing value");
}

util::Result<json::value> remove_at(json::value& doc, std::string_view path) {
  auto toks = parse_pointer(path);
  if (!toks) return util::make_error(toks.error());
  if (toks->empty()) return util::make_error("cannot remove the whole document");
  auto par = parent_of(doc, *toks, path);
  if (!par) return util::make_error(par.error());
  json::value* p = *par;
  const std::string& last = toks->back();
  if (p->is_object()) {
    auto it = p->get_object().find(last);
    if (it == p->get_object().end())
      return util::make_error("Unable to remove nonexistent key: " + last + ": missing value");
    json::value v = it->value();
    p->get_object().erase(it);
    return v;
  }
  if (p->is_array()) {
    std::size_t idx;
    if (!parse_index(last, idx) || idx >= p->get_array().size())
      return util::make_error("Unable to access invalid index: " + last + ": invalid index referenced");
    json::value v = p->get_array()[idx];
    p->get_array().erase(p->get_array().begin() + static_cast<std::ptrdiff_t>(idx));
    return v;
  }
  return util::make_error("doc is missing path: \"" + std::string(path) + "\": missing value");
}

util::Result<void> add_at(json::value& doc, std::string_view path, json::value v, bool replace) {
  auto toks = parse_pointer(path);
  if (!toks) return util::make_error(toks.error());
  if (toks->empty()) {
    doc = std::move(v);
    return {};
  }
  auto par = parent_of(doc, *toks, path);
  if (!par) return util::make_error(par.error());
  json::value* p = *par;
  const std::string& last = toks->back();
  if (p->is_object()) {
    if (replace && !p->get_object().contains(last))
      return util::make_error("replace operation does not apply: doc is missing key: " + std::string(path) +
                              ": missing value");
    p->get_object()[last] = std::move(v);
    return {};
  }
  if (p->is_array()) {
    auto& a = p->get_array();
    if (last == "-" && !replace) {
      a.push_back(std::move(v));
      return {};
    }
    std::size_t idx;
    if (!parse_index(last, idx) || idx > a.size() || (replace && idx == a.size()))
      return util::make_error("Unable to access invalid index: " + last + ": invalid index referenced");
    if (replace)
      a[idx] = std::move(v);
    else
      a.insert(a.begin() + static_cast<std::ptrdiff_t>(idx), std::move(v));
    return {};
  }
  return util::make_error("doc is missing path: \"" + std::string(path) + "\": missing value");
}

std::size_t string_size(std::string_view s) {
  std::size_t n = 2;
  for (unsigned char c : s) n += c == '"' || c == '\\' ? 2 : c < 0x20 ? 6 : 1;
  return n;
}

// The length of v's compact JSON text (what a copy adds), counted without writing it out.
std::size_t json_size(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: {
      const auto& o = v.get_object();
      std::size_t n = o.empty() ? 2 : 1 + o.size();  // braces and commas
      for (const auto& kv : o) n += string_size(kv.key()) + 1 + json_size(kv.value());
      return n;
    }
    case json::kind::array: {
      const auto& a = v.get_array();
      std::size_t n = a.empty() ? 2 : 1 + a.size();
      for (const auto& e : a) n += json_size(e);
      return n;
    }
    case json::kind::string:
      return string_size(v.get_string());
    default:
      return json::serialize(v).size();
  }
}

}  // namespace

util::Result<void> apply_json_patch(json::value& doc, const json::value& patch, std::size_t max_copy_bytes) {
  std::size_t copied = 0;
  if (!patch.is_array()) return util::make_error("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  for (const auto& opv : patch.get_array()) {
    if (!opv.is_object()) return util::make_error("invalid JSON patch operation");
    const auto& op = opv.get_object();
    auto sv = [&](std::string_view k) -> std::string {
      auto* v = op.if_contains(k);
      return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    std::string kind = sv("op"), path = sv("path"), from = sv("from");
    const json::value* value = op.if_contains("value");
    util::Result<void> r;
    if (kind == "add" || kind == "replace") {
      if (!value) return util::make_error("missing value for " + kind + " operation");
      r = add_at(doc, path, *value, kind == "replace");
    } else if (kind == "remove") {
      auto v = remove_at(doc, path);
      if (!v) r = util::make_error(v.error());
    } else if (kind == "move") {
      auto v = remove_at(doc, from);
      if (!v) return util::make_error(v.error());
      r = add_at(doc, path, std::move(*v), false);
    } else if (kind == "copy") {
      auto v = get_at(doc, from);
      if (!v) return util::make_error(v.error());
      if (max_copy_bytes) {
        copied += json_size(*v);
        if (copied > max_copy_bytes)
          return util::make_error("Unable to complete the copy, the accumulated size increase of copy is " +
                                  std::to_string(copied) + ", exceeding the limit " + std::to_string(max_copy_bytes));
      }
      r = add_at(doc, path, std::move(*v), false);
    } else if (kind == "test") {
      auto v = get_at(doc, path);
      if (!v || !value || *v != *value) return util::make_error("testing value " + path + " failed: test failed");
    } else {
      return util::make_error("Unexpected kind: " + kind);
    }
    if (!r) return r;
  }
  return {};
}

// ---------------------------------------------------------------- RFC 7386

void apply_merge_patch(json::value& target, const json::value& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = json::object();
  auto& t = target.get_object();
  for (const auto& kv : patch.get_object()) {
    if (kv.value().is_null()) {
      t.erase(kv.key());
    } else {
      apply_merge_patch(t[kv.key()], kv.value());
    }
  }
}

// ---------------------------------------------------------------- strategic merge patch

namespace {

// patchMergeKey of list fields in the served types (by field name; kind-specific overrides).
const char* merge_key(std::string_view kind, std::string_view field) {
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" || field == "volumes" ||
      field == "env" || field == "imagePullSecrets" || field == "resourceClaims" || field == "schedulingGates")
    return "name";
  if (field == "volumeMounts") return "mountPath";
  if (field == "volumeDevices") return "devicePath";
  if (field == "conditions" || field == "addresses") return "type";
  if (field == "ports") return kind == "Service" ? "port" : "containerPort";
  if (field == "hostAliases") return "ip";
  if (field == "ownerReferences") return "uid";
  if (field == "topologySpreadConstraints") return "topologyKey";
  if (field == "resizePolicy") return "resourceName";
  return nullptr;
}

bool merges_primitives(std::string_view field) { return field == "finalizers"; }

json::value strip_directives(const json::value& v) {
  if (v.is_object()) {
    json::object o;
    for (const auto& kv : v.get_object()) {
      if (!kv.key().empty() && kv.key()[0] == '$') continue;
      o[kv.key()] = strip_directives(kv.value());
    }
    return o;
  }
  if (v.is_array()) {
    json::array a;
    for (const auto& e : v.get_array()) a.push_back(strip_directives(e));
    return a;
  }
  return v;
}

std::string_view directive(const json::value& v) {
  if (!v.is_object()) return {};
  auto* d = v.get_object().if_contains("$patch");
  return d && d->is_string() ? std::string_view(d->get_string()) : std::string_view();
}

util::Result<void> smp_object(json::value& target, const json::object& patch, std::string_view kind);

util::Result<void> smp_list(json::value& target, const json::array& patch, std::string_view kind,
                            std::string_view field, const json::array* order) {
  const char* mk = merge_key(kind, field);
  if (!target.is_array()) target = json::array();
  auto& t = target.get_array();
  if (mk) {
    // Replace directive for the whole list.
    for (const auto& e : patch) {
      if (directive(e) == "replace") {
        json::array out;
        for (const auto& x : patch)
          if (directive(x) != "replace") out.push_back(strip_directives(x));
        target = std::move(out);
        return {};
      }
    }
    // Each element remembers its index in the live list (npos when new), for the final order.
    constexpr std::size_t kNew = static_cast<std::size_t>(-1);
    struct Item {
      json::value v;
      std::size_t live;
    };
    std::vector<Item> patched;  // patch elements (merged) in patch order
    std::vector<bool> used(t.size(), false);
    for (const auto& e : patch) {
      if (!e.is_object()) return util::make_error("strategic merge patch: list element of " + std::string(field) + " is not an object");
      const auto* key = e.get_object().if_contains(mk);
      std::size_t found = t.size();
      if (key) {
        for (std::size_t i = 0; i < t.size(); ++i) {
          if (!used[i] && t[i].is_object()) {
            const auto* tk = t[i].get_object().if_contains(mk);
            if (tk && *tk == *key) {
              found = i;
              break;
            }
          }
        }
      }
      if (directive(e) == "delete") {
        if (found < t.size()) used[found] = true;
        continue;
      }
      json::value merged = found < t.size() ? t[found] : json::value(json::object());
      if (found < t.size()) used[found] = true;
      auto r = smp_object(merged, e.get_object(), kind);
      if (!r) return r;
      patched.push_back(Item{std::move(merged), found < t.size() ? found : kNew});
    }
    std::vector<Item> server_only;  // live order
    for (std::size_t i = 0; i < t.size(); ++i)
      if (!used[i]) server_only.push_back(Item{t[i], i});
    if (order) {
      // $setElementOrder: the elements it lists (patched or not) take its order; the rest stay
      // server-only in live order.
      auto position = [&](const json::value& v) -> std::size_t {
        const auto* k = v.is_object() ? v.get_object().if_contains(mk) : nullptr;
        if (!k) return kNew;
        for (std::size_t i = 0; i < order->size(); ++i) {
          const auto& o = (*order)[i];
          const auto* ok = o.is_object() ? o.get_object().if_contains(mk) : nullptr;
          if (ok && *ok == *k) return i;
        }
        return kNew;
      };
      std::vector<Item> listed, rest;
      for (auto* group : {&patched, &server_only})
        for (auto& it : *group) (position(it.v) != kNew || group == &patched ? listed : rest).push_back(std::move(it));
      std::stable_sort(listed.begin(), listed.end(),
                       [&](const Item& x, const Item& y) { return position(x.v) < position(y.v); });
      patched = std::move(listed);
      server_only = std::move(rest);
    }
    // Upstream's mergeSortedSlice: a server-only element goes before a patch element only when
    // both were in the live list and it came first there; so new elements keep their place in
    // the patch ([a,b] + [c] -> [c,a,b]; [a,b] + [b,c] -> [a,b,c]).
    json::array out;
    std::size_t i = 0, j = 0;
    while (i < server_only.size() && j < patched.size()) {
      const Item& l = server_only[i];
      const Item& r = patched[j];
      if (l.live != kNew && r.live != kNew && l.live < r.live)
        out.push_back(std::move(server_only[i++].v));
      else
        out.push_back(std::move(patched[j++].v));
    }
    for (; i < server_only.size(); ++i) out.push_back(std::move(server_only[i].v));
    for (; j < patched.size(); ++j) out.push_back(std::move(patched[j].v));
    target = std::move(out);
    return {};
  }
  if (merges_primitives(field)) {
    for (const auto& e : patch) {
      bool present = false;
      for (const auto& x : t) present = present || x == e;
      if (!present) t.push_back(e);
    }
    return {};
  }
  target = strip_directives(json::value(patch));
  return {};
}

util::Result<void> smp_object(json::value& target, const json::object& patch, std::string_view kind) {
  auto d = patch.if_contains("$patch");
  if (d && d->is_string() && d->get_string() == "replace") {
    target = strip_directives(json::value(patch));
    return {};
  }
  if (!target.is_object()) target = json::object();
  auto& t = target.get_object();
  for (const auto& kv : patch) {
    std::string_view k = kv.key();
    const json::value& v = kv.value();
    if (k == "$patch" || k == "$retainKeys") continue;
    if (k.starts_with("$setElementOrder/")) continue;
    if (k.starts_with("$deleteFromPrimitiveList/")) {
      auto field = k.substr(std::string_view("$deleteFromPrimitiveList/").size());
      auto* arr = t.if_contains(field);
      if (arr && arr->is_array() && v.is_array()) {
        json::array kept;
        for (const auto& x : arr->get_array()) {
          bool drop = false;
          for (const auto& y : v.get_array()) drop = drop || x == y;
          if (!drop) kept.push_back(x);
        }
        *arr = std::move(kept);
      }
      continue;
    }
    if (v.is_null()) {
      t.erase(k);
    } else if (v.is_object()) {
      if (directive(v) == "delete") {
        t.erase(k);
        continue;
      }
      auto r = smp_object(t[k], v.get_object(), kind);
      if (!r) return r;
    } else if (v.is_array()) {
      const json::array* order = nullptr;
      if (auto* o = patch.if_contains("$setElementOrder/" + std::string(k)); o && o->is_array()) order = &o->get_array();
      auto r = smp_list(t[k], v.get_array(), kind, k, order);
      if (!r) return r;
    } else {
      t[k] = v;
    }
  }
  if (auto* rk = patch.if_contains("$retainKeys"); rk && rk->is_array()) {
    std::vector<std::string> drop;
    for (const auto& kv : t) {
      bool keep = false;
      for (const auto& x : rk->get_array()) keep = keep || (x.is_string() && x.get_string() == kv.key());
      if (!keep) drop.emplace_back(kv.key());
    }
    for (const auto& k : drop) t.erase(k);
  }
  return {};
}

}  // namespace

const char* strategic_merge_key(std::string_view kind, std::string_view field) { return merge_key(kind, field); }
bool strategic_merges_primitives(std::string_view field) { return merges_primitives(field); }

util::Result<void> apply_strategic_merge_patch(json::value& target, const json::value& patch, std::string_view kind) {
  if (!patch.is_object()) return util::make_error("strategic merge patch must be a JSON object");
  return smp_object(target, patch.get_object(), kind);
}

}  // namespace ksched::apiserver
