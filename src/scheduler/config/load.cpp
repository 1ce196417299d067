#include "scheduler/config/load.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "api/yaml_json.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/validation.h"

namespace ksched::scheduler::config {

// ---------------------------------------------------------------- durations (Go semantics)

util::Result<Duration> parse_duration(std::string_view orig) {
  auto invalid = [&] { return util::make_error("time: invalid duration \"" + std::string(orig) + "\""); };
  std::string_view s = orig;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration{0};
  if (s.empty()) return invalid();
  // Accumulate in long double nanoseconds; overflow past int64 is an error as in Go.
  long double total = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    std::uint64_t whole = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (whole > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return invalid();
      whole = whole * 10 + static_cast<unsigned>(s[i] - '0');
      ++i;
      digits = true;
    }
    long double frac = 0;
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        frac += scale * (s[i] - '0');
        scale /= 10;
        ++i;
        digits = true;
      }
    }
    if (!digits) return invalid();
    std::size_t u = i;
    while (u < s.size() && !(s[u] == '.' || (s[u] >= '0' && s[u] <= '9'))) ++u;
    std::string_view unit = s.substr(i, u - i);
    if (unit.empty()) return util::make_error("time: missing unit in duration \"" + std::string(orig) + "\"");
    long double mult = 0;
    if (unit == "ns") mult = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") mult = 1e3L;
    else if (unit == "ms") mult = 1e6L;
    else if (unit == "s") mult = 1e9L;
    else if (unit == "m") mult = 60e9L;
    else if (unit == "h") mult = 3600e9L;
    else {
      return util::make_error("time: unknown unit \"" + std::string(unit) + "\" in duration \"" + std::string(orig) +
                              "\"");
    }
    total += (static_cast<long double>(whole) + frac) * mult;
    if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return invalid();
    s.remove_prefix(u);
  }
  auto ns = static_cast<std::int64_t>(std::llroundl(total));
  return Duration{neg ? -ns : ns};
}



namespace {

// ---------------------------------------------------------------- decoding context

struct Ctx {
  std::vector<std::string> strict;  // unknown / duplicate fields
  std::string fatal;                // first type error: decoding stops making sense after it

  bool failed() const { return !fatal.empty(); }
  void type_error(const YAML::Node& n, const std::string& path, const std::string& msg) {
    if (!fatal.empty()) return;
    auto mark = n.Mark();
    std::string where;
    if (!mark.is_null()) {
      where = "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) + ": ";
    }
    fatal = where + (path.empty() ? std::string("<root>") : path) + ": " + msg;
  }
};

std::string child(const std::string& p, std::string_view k) {
  return p.empty() ? std::string(k) : p + "." + std::string(k);
}
std::string index(const std::string& p, std::size_t i) { return p + "[" + std::to_string(i) + "]"; }

bool is_null(const YAML::Node& n) { return !n.IsDefined() || n.IsNull(); }

std::string kind_of(const YAML::Node& n) {
  if (n.IsMap()) return "object";
  if (n.IsSequence()) return "array";
  if (n.Tag() == "!") return "string";
  const std::string& s = n.Scalar();
  if (s == "true" || s == "false") return "bool";
  if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+')) return "number";
  return "string";
}

// Calls f(key, value, path) for each member of mapping `n`; f returns false for unknown keys.
template <class F>
void fields(Ctx& c, const YAML::Node& n, const std::string& path, F&& f) {
  if (is_null(n) || c.failed()) return;
  if (!n.IsMap()) {
    c.type_error(n, path, "cannot unmarshal " + kind_of(n) + " into object");
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (auto it = n.begin(); it != n.end() && !c.failed(); ++it) {
    if (!it->first.IsScalar()) {
      c.type_error(it->first, path, "object keys must be strings");
      return;
    }
    const std::string key = it->first.Scalar();
    std::string p = child(path, key);
    if (!seen.insert(key).second) {
      c.strict.push_back("duplicate field \"" + p + "\"");
      continue;
    }
    if (!f(key, it->second, p)) c.strict.push_back("unknown field \"" + p + "\"");
  }
}

template <class F>
void items(Ctx& c, const YAML::Node& n, const std::string& path, F&& f) {
  if (is_null(n) || c.failed()) return;
  if (!n.IsSequence()) {
    c.type_error(n, path, "cannot unmarshal " + kind_of(n) + " into array");
    return;
  }
  for (std::size_t i = 0; i < n.size() && !c.failed(); ++i) f(n[i], index(path, i));
}

bool scalar_or_error(Ctx& c, const YAML::Node& n, const std::string& path, const char* type) {
  if (!n.IsScalar()) {
    c.type_error(n, path, "cannot unmarshal " + kind_of(n) + " into " + type);
    return false;
  }
  return true;
}

template <class I>
void get_int(Ctx& c, const YAML::Node& n, const std::string& path, I& out, const char* type) {
  if (is_null(n) || c.failed() || !scalar_or_error(c, n, path, type)) return;
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") {
    c.type_error(n, path, "cannot unmarshal string \"" + s + "\" into " + type);
    return;
  }
  std::string_view sv = s;
  if (!sv.empty() && sv[0] == '+') sv.remove_prefix(1);
  I v{};
  auto [ptr, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), v);
  if (ec == std::errc::result_out_of_range) {
    c.type_error(n, path, "cannot unmarshal number " + s + " into " + type + " (out of range)");
    return;
  }
  if (ec != std::errc() || ptr != sv.data() + sv.size() || sv.empty()) {
    c.type_error(n, path, "cannot unmarshal " + kind_of(n) + " \"" + s + "\" into " + type);
    return;
  }
  out = v;
}

template <class I>
void get_opt_int(Ctx& c, const YAML::Node& n, const std::string& path, std::optional<I>& out, const char* type) {
  if (is_null(n)) return;
  I v{};
  get_int(c, n, path, v, type);
  if (!c.failed()) out = v;
}

void get_float(Ctx& c, const YAML::Node& n, const std::string& path, float& out) {
  if (is_null(n) || c.failed() || !scalar_or_error(c, n, path, "float32")) return;
  const std::string& s = n.Scalar();
  char* end = nullptr;
  float v = std::strtof(s.c_str(), &end);
  if (n.Tag() == "!" || s.empty() || end != s.c_str() + s.size()) {
    c.type_error(n, path, "cannot unmarshal " + kind_of(n) + " \"" + s + "\" into float32");
    return;
  }
  out = v;
}

void get_bool(Ctx& c, const YAML::Node& n, const std::string& path, bool& out) {
  if (is_null(n) || c.failed() || !scalar_or_error(c, n, path, "bool")) return;
  const std::string& s = n.Scalar();
  if (n.Tag() != "!") {
    // YAML 1.1 booleans, as sigs.k8s.io/yaml (go-yaml v2) accepts them.
    static const std::set<std::string, std::less<>> yes = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                                           "on",   "On",   "ON",   "y",   "Y"};
    static const std::set<std::string, std::less<>> no = {"false", "False", "FALSE", "no", "No", "NO",
                                                          "off",   "Off",   "OFF",   "n",  "N"};
    if (yes.contains(s)) {
      out = true;
      return;
    }
    if (no.contains(s)) {
      out = false;
      return;
    }
  }
  c.type_error(n, path, "cannot unmarshal " + kind_of(n) + " \"" + s + "\" into bool");
}

void get_string(Ctx& c, const YAML::Node& n, const std::string& path, std::string& out) {
  if (is_null(n) || c.failed() || !scalar_or_error(c, n, path, "string")) return;
  out = n.Scalar();
}

void get_opt_string(Ctx& c, const YAML::Node& n, const std::string& path, std::optional<std::string>& out) {
  if (is_null(n)) return;
  std::string v;
  get_string(c, n, path, v);
  if (!c.failed()) out = std::move(v);
}

void get_strings(Ctx& c, const YAML::Node& n, const std::string& path, std::vector<std::string>& out) {
  if (is_null(n)) return;
  out.clear();
  items(c, n, path, [&](const YAML::Node& e, const std::string& p) {
    std::string v;
    get_string(c, e, p, v);
    out.push_back(std::move(v));
  });
}

void get_duration(Ctx& c, const YAML::Node& n, const std::string& path, Duration& out) {
  if (is_null(n) || c.failed() || !scalar_or_error(c, n, path, "duration")) return;
  auto d = parse_duration(n.Scalar());
  if (!d) {
    c.type_error(n, path, d.error());
    return;
  }
  out = *d;
}

// Base64 ([]byte fields of the wire format).
void get_bytes(Ctx& c, const YAML::Node& n, const std::string& path, std::string& out) {
  if (is_null(n) || c.failed() || !scalar_or_error(c, n, path, "[]byte")) return;
  std::vector<unsigned char> raw = YAML::DecodeBase64(n.Scalar());
  if (raw.empty() && !n.Scalar().empty()) {
    c.type_error(n, path, "illegal base64 data");
    return;
  }
  out.assign(raw.begin(), raw.end());
}


// ---------------------------------------------------------------- core/v1 pieces used by args

void decode(Ctx& c, const YAML::Node& n, const std::string& path, api::LabelSelectorRequirement& r) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "key") get_string(c, v, p, r.key);
    else if (k == "operator") get_string(c, v, p, r.operator_);
    else if (k == "values") get_strings(c, v, p, r.values);
    else return false;
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, api::LabelSelector& s) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "matchLabels") {
      fields(c, v, p, [&](const std::string& lk, const YAML::Node& lv, const std::string& lp) {
        std::string val;
        get_string(c, lv, lp, val);
        s.matchLabels.set(lk, val);
        return true;
      });
    } else if (k == "matchExpressions") {
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        api::LabelSelectorRequirement r;
        decode(c, e, ep, r);
        s.matchExpressions.push_back(std::move(r));
      });
    } else {
      return false;
    }
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, api::TopologySpreadConstraint& t) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "maxSkew") get_int(c, v, p, t.maxSkew, "int32");
    else if (k == "topologyKey") get_string(c, v, p, t.topologyKey);
    else if (k == "whenUnsatisfiable") get_string(c, v, p, t.whenUnsatisfiable);
    else if (k == "labelSelector") {
      if (!is_null(v)) {
        t.labelSelector.emplace();
        decode(c, v, p, *t.labelSelector);
      }
    } else if (k == "minDomains") get_opt_int(c, v, p, t.minDomains, "int32");
    else if (k == "nodeAffinityPolicy") get_opt_string(c, v, p, t.nodeAffinityPolicy);
    else if (k == "nodeTaintsPolicy") get_opt_string(c, v, p, t.nodeTaintsPolicy);
    else if (k == "matchLabelKeys") get_strings(c, v, p, t.matchLabelKeys);
    else return false;
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, api::NodeSelectorRequirement& r) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "key") get_string(c, v, p, r.key);
    else if (k == "operator") get_string(c, v, p, r.operator_);
    else if (k == "values") get_strings(c, v, p, r.values);
    else return false;
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, api::NodeSelectorTerm& t) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    std::vector<api::NodeSelectorRequirement>* reqs = nullptr;
    if (k == "matchExpressions") reqs = &t.matchExpressions;
    else if (k == "matchFields") reqs = &t.matchFields;
    else return false;
    items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
      api::NodeSelectorRequirement r;
      decode(c, e, ep, r);
      reqs->push_back(std::move(r));
    });
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, api::NodeAffinity& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "requiredDuringSchedulingIgnoredDuringExecution") {
      if (is_null(v)) return true;
      a.requiredDuringSchedulingIgnoredDuringExecution.emplace();
      fields(c, v, p, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
        if (k2 != "nodeSelectorTerms") return false;
        items(c, v2, p2, [&](const YAML::Node& e, const std::string& ep) {
          api::NodeSelectorTerm t;
          decode(c, e, ep, t);
          a.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms.push_back(std::move(t));
        });
        return true;
      });
    } else if (k == "preferredDuringSchedulingIgnoredDuringExecution") {
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        api::PreferredSchedulingTerm t;
        fields(c, e, ep, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
          if (k2 == "weight") get_int(c, v2, p2, t.weight, "int32");
          else if (k2 == "preference") decode(c, v2, p2, t.preference);
          else return false;
          return true;
        });
        a.preferredDuringSchedulingIgnoredDuringExecution.push_back(std::move(t));
      });
    } else {
      return false;
    }
    return true;
  });
}

// ---------------------------------------------------------------- plugin args

void decode(Ctx& c, const YAML::Node& n, const std::string& path, std::vector<ResourceSpec>& out) {
  out.clear();
  items(c, n, path, [&](const YAML::Node& e, const std::string& ep) {
    ResourceSpec r;
    fields(c, e, ep, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
      if (k == "name") get_string(c, v, p, r.name);
      else if (k == "weight") get_int(c, v, p, r.weight, "int64");
      else return false;
      return true;
    });
    out.push_back(std::move(r));
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, std::vector<UtilizationShapePoint>& out) {
  out.clear();
  items(c, n, path, [&](const YAML::Node& e, const std::string& ep) {
    UtilizationShapePoint s;
    fields(c, e, ep, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
      if (k == "utilization") get_int(c, v, p, s.utilization, "int32");
      else if (k == "score") get_int(c, v, p, s.score, "int32");
      else return false;
      return true;
    });
    out.push_back(s);
  });
}

// Known members of every args object: its own TypeMeta.
bool type_meta_field(const std::string& k) { return k == "apiVersion" || k == "kind"; }

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, DefaultPreemptionArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "minCandidateNodesPercentage") get_int(c, v, p, a.minCandidateNodesPercentage, "int32");
    else if (k == "minCandidateNodesAbsolute") get_int(c, v, p, a.minCandidateNodesAbsolute, "int32");
    else return type_meta_field(k);
    return true;
  });
}

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, InterPodAffinityArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "hardPodAffinityWeight") get_int(c, v, p, a.hardPodAffinityWeight, "int32");
    else if (k == "ignorePreferredTermsOfExistingPods") get_bool(c, v, p, a.ignorePreferredTermsOfExistingPods);
    else return type_meta_field(k);
    return true;
  });
}

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, NodeAffinityArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "addedAffinity") {
      if (!is_null(v)) {
        a.addedAffinity.emplace();
        decode(c, v, p, *a.addedAffinity);
      }
      return true;
    }
    return type_meta_field(k);
  });
}

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, NodeResourcesBalancedAllocationArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "resources") {
      if (!is_null(v)) decode(c, v, p, a.resources);
      return true;
    }
    return type_meta_field(k);
  });
}

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, NodeResourcesFitArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "ignoredResources") get_strings(c, v, p, a.ignoredResources);
    else if (k == "ignoredResourceGroups") get_strings(c, v, p, a.ignoredResourceGroups);
    else if (k == "scoringStrategy") {
      if (is_null(v)) return true;
      // A given strategy starts empty: upstream only defaults a missing strategy as a whole
      // (plus empty resources / zero weights, in default_args).
      a.scoringStrategy = ScoringStrategy{"", {}, std::nullopt};
      fields(c, v, p, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
        if (k2 == "type") get_string(c, v2, p2, a.scoringStrategy.type);
        else if (k2 == "resources") decode(c, v2, p2, a.scoringStrategy.resources);
        else if (k2 == "requestedToCapacityRatio") {
          if (is_null(v2)) return true;
          a.scoringStrategy.requestedToCapacityRatio.emplace();
          fields(c, v2, p2, [&](const std::string& k3, const YAML::Node& v3, const std::string& p3) {
            if (k3 != "shape") return false;
            decode(c, v3, p3, a.scoringStrategy.requestedToCapacityRatio->shape);
            return true;
          });
        } else {
          return false;
        }
        return true;
      });
    } else {
      return type_meta_field(k);
    }
    return true;
  });
}

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, PodTopologySpreadArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "defaultConstraints") {
      a.defaultConstraints.clear();
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        api::TopologySpreadConstraint t;
        decode(c, e, ep, t);
        a.defaultConstraints.push_back(std::move(t));
      });
    } else if (k == "defaultingType") {
      get_string(c, v, p, a.defaultingType);
    } else {
      return type_meta_field(k);
    }
    return true;
  });
}

void decode_args(Ctx& c, const YAML::Node& n, const std::string& path, VolumeBindingArgs& a) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "bindTimeoutSeconds") get_int(c, v, p, a.bindTimeoutSeconds, "int64");
    else if (k == "shape") decode(c, v, p, a.shape);
    else return type_meta_field(k);
    return true;
  });
}

// Decodes the args of one pluginConfig entry. Unknown fields inside args are reported like
// upstream's nested strict error, naming the plugin.
void decode_plugin_args(Ctx& c, const YAML::Node& n, const std::string& entry_path, const std::string& plugin,
                        PluginArgs& out, std::vector<std::string>& nested_strict) {
  PluginArgs args = default_args_for(plugin);
  if (std::holds_alternative<std::monostate>(args)) {
    // Out-of-tree (or args-less) plugin: keep whatever was given.
    UnknownArgs u;
    // Kept as JSON, converted as upstream's config decoding does (sigs.k8s.io/yaml's scalar rules).
    if (!is_null(n)) {
      try {
        u.json = api::to_json_text(api::yaml_to_json(n));
      } catch (const std::exception& e) {
        c.type_error(n, entry_path + ".args", e.what());
      }
    }
    out = std::move(u);
    return;
  }
  if (!is_null(n) && n.IsMap()) {
    const YAML::Node kind = n["kind"];
    std::string want = plugin + "Args";
    if (!is_null(kind) && kind.IsScalar() && kind.Scalar() != want) {
      c.type_error(kind, entry_path + ".args",
                   "args for plugin " + plugin + " were not of type " + want + ".kubescheduler.config.k8s.io, got " +
                       kind.Scalar() + ".kubescheduler.config.k8s.io");
      return;
    }
  }
  Ctx inner;
  std::visit(
      [&](auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (!std::is_same_v<A, std::monostate> && !std::is_same_v<A, UnknownArgs>) {
          decode_args(inner, n, "", a);
        }
      },
      args);
  if (inner.failed()) {
    c.fatal = "decoding " + entry_path + ": decoding args for plugin " + plugin + ": " + inner.fatal;
    return;
  }
  if (!inner.strict.empty()) {
    std::string msg;
    for (const auto& e : inner.strict) msg += (msg.empty() ? "" : ", ") + e;
    nested_strict.push_back("decoding ." + entry_path + ": strict decoding error: decoding args for plugin " + plugin +
                            ": strict decoding error: " + msg);
  }
  out = std::move(args);
}

// ---------------------------------------------------------------- configuration

void decode(Ctx& c, const YAML::Node& n, const std::string& path, PluginSet& s) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    std::vector<Plugin>* list = nullptr;
    if (k == "enabled") list = &s.enabled;
    else if (k == "disabled") list = &s.disabled;
    else return false;
    items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
      Plugin pl;
      fields(c, e, ep, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
        if (k2 == "name") get_string(c, v2, p2, pl.name);
        else if (k2 == "weight") get_opt_int(c, v2, p2, pl.weight, "int32");
        else return false;
        return true;
      });
      list->push_back(std::move(pl));
    });
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, Plugins& ps) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    for (ExtensionPoint ep : kSpecificExtensionPoints) {
      if (k == extension_point_field(ep)) {
        decode(c, v, p, ps.at(ep));
        return true;
      }
    }
    if (k == "multiPoint") {
      decode(c, v, p, ps.multiPoint);
      return true;
    }
    return false;
  });
}

struct ProfileDecodeState {
  bool has_scheduler_name = false;
};

void decode(Ctx& c, const YAML::Node& n, const std::string& path, KubeSchedulerProfile& prof,
            ProfileDecodeState& st, std::vector<std::string>& nested_strict) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "schedulerName") {
      st.has_scheduler_name = !is_null(v);
      get_string(c, v, p, prof.schedulerName);
    } else if (k == "percentageOfNodesToScore") {
      get_opt_int(c, v, p, prof.percentageOfNodesToScore, "int32");
    } else if (k == "plugins") {
      decode(c, v, p, prof.plugins);
    } else if (k == "pluginConfig") {
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        PluginConfig pc;
        YAML::Node args;
        fields(c, e, ep, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
          if (k2 == "name") get_string(c, v2, p2, pc.name);
          else if (k2 == "args") args = v2;
          else return false;
          return true;
        });
        if (!c.failed()) decode_plugin_args(c, args, ep, pc.name, pc.args, nested_strict);
        prof.pluginConfig.push_back(std::move(pc));
      });
    } else {
      return false;
    }
    return true;
  });
}

void decode(Ctx& c, const YAML::Node& n, const std::string& path, Extender& x) {
  fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "urlPrefix") get_string(c, v, p, x.urlPrefix);
    else if (k == "filterVerb") get_string(c, v, p, x.filterVerb);
    else if (k == "preemptVerb") get_string(c, v, p, x.preemptVerb);
    else if (k == "prioritizeVerb") get_string(c, v, p, x.prioritizeVerb);
    else if (k == "weight") get_int(c, v, p, x.weight, "int64");
    else if (k == "bindVerb") get_string(c, v, p, x.bindVerb);
    else if (k == "enableHTTPS") get_bool(c, v, p, x.enableHTTPS);
    else if (k == "httpTimeout") get_duration(c, v, p, x.httpTimeout);
    else if (k == "nodeCacheCapable") get_bool(c, v, p, x.nodeCacheCapable);
    else if (k == "ignorable") get_bool(c, v, p, x.ignorable);
    else if (k == "tlsConfig") {
      if (is_null(v)) return true;
      x.tlsConfig.emplace();
      auto& t = *x.tlsConfig;
      fields(c, v, p, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
        if (k2 == "insecure") get_bool(c, v2, p2, t.insecure);
        else if (k2 == "serverName") get_string(c, v2, p2, t.serverName);
        else if (k2 == "certFile") get_string(c, v2, p2, t.certFile);
        else if (k2 == "keyFile") get_string(c, v2, p2, t.keyFile);
        else if (k2 == "caFile") get_string(c, v2, p2, t.caFile);
        else if (k2 == "certData") get_bytes(c, v2, p2, t.certData);
        else if (k2 == "keyData") get_bytes(c, v2, p2, t.keyData);
        else if (k2 == "caData") get_bytes(c, v2, p2, t.caData);
        else return false;
        return true;
      });
    } else if (k == "managedResources") {
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        ExtenderManagedResource r;
        fields(c, e, ep, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
          if (k2 == "name") get_string(c, v2, p2, r.name);
          else if (k2 == "ignoredByScheduler") get_bool(c, v2, p2, r.ignoredByScheduler);
          else return false;
          return true;
        });
        x.managedResources.push_back(std::move(r));
      });
    } else {
      return false;
    }
    return true;
  });
}

std::string join_strict(const std::vector<std::string>& errs) {
  std::string msg = "strict decoding error: ";
  for (std::size_t i = 0; i < errs.size(); ++i) msg += (i ? ", " : "") + errs[i];
  return msg;
}

}  // namespace

util::Result<KubeSchedulerConfiguration> decode_config(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string msg = "yaml: ";
    if (!e.mark.is_null()) {
      msg += "line " + std::to_string(e.mark.line + 1) + ", column " + std::to_string(e.mark.column + 1) + ": ";
    }
    return util::make_error(msg + e.msg);
  }
  if (is_null(root) || !root.IsMap()) {
    if (!is_null(root) && !root.IsMap()) {
      return util::make_error("couldn't decode as KubeSchedulerConfiguration: the document is not an object");
    }
    return util::make_error("Object 'Kind' is missing in the configuration");
  }
  std::string api_version;
  std::string kind;
  {
    Ctx c;
    get_string(c, root["apiVersion"], "apiVersion", api_version);
    get_string(c, root["kind"], "kind", kind);
    if (c.failed()) return util::make_error(c.fatal);
  }
  if (kind.empty()) return util::make_error("Object 'Kind' is missing in the configuration");
  if (api_version.empty()) return util::make_error("Object 'apiVersion' is missing in the configuration");
  if (api_version != kAPIVersion || kind != kKind) {
    return util::make_error("no kind \"" + kind + "\" is registered for version \"" + api_version + "\"");
  }

  KubeSchedulerConfiguration cfg;
  Ctx c;
  std::vector<std::string> nested_strict;
  bool contention_set = false;
  std::vector<ProfileDecodeState> profile_states;

  fields(c, root, "", [&](const std::string& k, const YAML::Node& v, const std::string& p) {
    if (k == "apiVersion" || k == "kind") return true;
    if (k == "parallelism") get_int(c, v, p, cfg.parallelism, "int32");
    else if (k == "leaderElection") {
      auto& le = cfg.leaderElection;
      fields(c, v, p, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
        if (k2 == "leaderElect") get_bool(c, v2, p2, le.leaderElect);
        else if (k2 == "leaseDuration") get_duration(c, v2, p2, le.leaseDuration);
        else if (k2 == "renewDeadline") get_duration(c, v2, p2, le.renewDeadline);
        else if (k2 == "retryPeriod") get_duration(c, v2, p2, le.retryPeriod);
        else if (k2 == "resourceLock") get_string(c, v2, p2, le.resourceLock);
        else if (k2 == "resourceName") get_string(c, v2, p2, le.resourceName);
        else if (k2 == "resourceNamespace") get_string(c, v2, p2, le.resourceNamespace);
        else return false;
        return true;
      });
    } else if (k == "clientConnection") {
      auto& cc = cfg.clientConnection;
      fields(c, v, p, [&](const std::string& k2, const YAML::Node& v2, const std::string& p2) {
        if (k2 == "kubeconfig") get_string(c, v2, p2, cc.kubeconfig);
        else if (k2 == "acceptContentTypes") get_string(c, v2, p2, cc.acceptContentTypes);
        else if (k2 == "contentType") get_string(c, v2, p2, cc.contentType);
        else if (k2 == "qps") get_float(c, v2, p2, cc.qps);
        else if (k2 == "burst") get_int(c, v2, p2, cc.burst, "int32");
        else return false;
        return true;
      });
    } else if (k == "enableProfiling") {
      get_bool(c, v, p, cfg.enableProfiling);
    } else if (k == "enableContentionProfiling") {
      contention_set = !is_null(v);
      get_bool(c, v, p, cfg.enableContentionProfiling);
    } else if (k == "percentageOfNodesToScore") {
      get_opt_int(c, v, p, cfg.percentageOfNodesToScore, "int32");
    } else if (k == "podInitialBackoffSeconds") {
      get_int(c, v, p, cfg.podInitialBackoffSeconds, "int64");
    } else if (k == "podMaxBackoffSeconds") {
      get_int(c, v, p, cfg.podMaxBackoffSeconds, "int64");
    } else if (k == "profiles") {
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        KubeSchedulerProfile prof;
        ProfileDecodeState st;
        decode(c, e, ep, prof, st, nested_strict);
        cfg.profiles.push_back(std::move(prof));
        profile_states.push_back(st);
      });
    } else if (k == "extenders") {
      items(c, v, p, [&](const YAML::Node& e, const std::string& ep) {
        Extender x;
        decode(c, e, ep, x);
        cfg.extenders.push_back(std::move(x));
      });
    } else if (k == "delayCacheUntilActive") {
      get_bool(c, v, p, cfg.delayCacheUntilActive);
    } else {
      return false;
    }
    return true;
  });
  if (c.failed()) return util::make_error(c.fatal);
  if (!c.strict.empty()) return util::make_error(join_strict(c.strict));
  if (!nested_strict.empty()) return util::make_error(join_strict(nested_strict));

  // Presence-dependent defaults (the rest is in set_defaults).
  if (!contention_set) cfg.enableContentionProfiling = cfg.enableProfiling;
  if (cfg.profiles.size() == 1 && !profile_states[0].has_scheduler_name) {
    cfg.profiles[0].schedulerName = std::string(kDefaultSchedulerName);
  }
  set_defaults(cfg);
  return cfg;
}

util::Result<KubeSchedulerConfiguration> load_config(std::string_view text) {
  auto cfg = decode_config(text);
  if (!cfg) return cfg;
  auto valid = validate(*cfg);
  if (!valid) return util::make_error(valid.error());
  return cfg;
}

util::Result<KubeSchedulerConfiguration> load_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::make_error("open " + path + ": no such file or directory");
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_config(ss.str());
}

}  // namespace ksched::scheduler::config
