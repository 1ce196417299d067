#include "scheduler/config/write.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <map>

#include "scheduler/config/load.h"
#include "util/go_format.h"

namespace ksched::scheduler::config {

namespace {

// A JSON-like value; maps keep keys sorted as sigs.k8s.io/yaml does (JSON -> map -> YAML).
struct Value {
  enum Kind { Null, String, Scalar, Map, Seq } kind = Null;  // Scalar: number or bool, written bare
  std::string text;
  std::map<std::string, Value> map;
  std::vector<Value> seq;

  static Value str(std::string s) {
    Value v;
    v.kind = String;
    v.text = std::move(s);
    return v;
  }
  static Value raw(std::string s) {
    Value v;
    v.kind = Scalar;
    v.text = std::move(s);
    return v;
  }
  static Value boolean(bool b) { return raw(b ? "true" : "false"); }
  template <class I>
  static Value integer(I i) {
    return raw(std::to_string(i));
  }
  static Value object() {
    Value v;
    v.kind = Map;
    return v;
  }
  static Value list() {
    Value v;
    v.kind = Seq;
    return v;
  }
  Value& operator[](const std::string& k) { return map[k]; }
  void push(Value v) { seq.push_back(std::move(v)); }
};

Value float_value(float f) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, f);
  (void)ec;
  return Value::raw(std::string(buf, p));
}

// ---------------------------------------------------------------- YAML emitter (go-yaml v2 layout)

// True when a plain scalar `s` would resolve to something other than a string in YAML 1.1
// (go-yaml v2 then writes it double-quoted).
bool resolves_to_non_string(const std::string& s) {
  static const char* const words[] = {"",      "~",     "null",  "Null", "NULL", "y",    "Y",    "yes",  "Yes",
                                      "YES",   "n",     "N",     "no",   "No",   "NO",   "true", "True", "TRUE",
                                      "false", "False", "FALSE", "on",   "On",   "ON",   "off",  "Off",  "OFF",
                                      ".inf",  ".Inf",  ".INF",  "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
                                      "-.INF", ".nan",  ".NaN",  ".NAN"};
  for (const char* w : words) {
    if (s == w) return true;
  }
  std::string t;
  for (char ch : s) {
    if (ch != '_') t += ch;
  }
  std::size_t i = 0;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) i = 1;
  std::string_view body = std::string_view(t).substr(i);
  if (body.empty()) return false;
  auto all = [&](std::string_view v, auto pred) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [&](char c) { return pred(static_cast<unsigned char>(c)); });
  };
  auto is_digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    return all(body.substr(2), [](unsigned char c) { return std::isxdigit(c) != 0; });
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'b' || body[1] == 'o')) {
    return all(body.substr(2), is_digit);
  }
  // Integers and floats: digits, optional fraction, optional exponent; also ".5".
  std::size_t j = 0;
  std::size_t int_digits = 0;
  while (j < body.size() && is_digit(static_cast<unsigned char>(body[j]))) ++j, ++int_digits;
  std::size_t frac_digits = 0;
  if (j < body.size() && body[j] == '.') {
    ++j;
    while (j < body.size() && is_digit(static_cast<unsigned char>(body[j]))) ++j, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (j < body.size() && (body[j] == 'e' || body[j] == 'E')) {
    ++j;
    if (j < body.size() && (body[j] == '+' || body[j] == '-')) ++j;
    std::size_t exp_digits = 0;
    while (j < body.size() && is_digit(static_cast<unsigned char>(body[j]))) ++j, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (j == body.size()) return true;
  // Sexagesimal ("1:20") is a float in YAML 1.1.
  if (int_digits > 0 && body[j] == ':') {
    return std::all_of(body.begin() + static_cast<std::ptrdiff_t>(j), body.end(),
                       [](char c) { return c == ':' || c == '.' || std::isdigit(static_cast<unsigned char>(c)); });
  }
  return false;
}

// libyaml's analysis of whether a scalar can be written plain in block context.
bool plain_allowed(const std::string& s) {
  if (s.empty()) return false;
  if (s.rfind("---", 0) == 0 || s.rfind("...", 0) == 0) return false;
  if (s.front() == ' ' || s.back() == ' ') return false;
  static const std::string start_indicators = ",[]{}#&*!|>'\"%@`";
  if (start_indicators.find(s[0]) != std::string::npos) return false;
  if ((s[0] == '-' || s[0] == '?' || s[0] == ':') && (s.size() == 1 || s[1] == ' ')) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x20 || ch == 0x7f) return false;
    if (s[i] == ':' && (i + 1 == s.size() || s[i + 1] == ' ')) return false;
    if (s[i] == '#' && i > 0 && s[i - 1] == ' ') return false;
  }
  return true;
}

bool has_special_chars(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    unsigned char ch = static_cast<unsigned char>(c);
    return ch < 0x20 || ch == 0x7f;
  });
}

std::string double_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (ch < 0x20 || ch == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02X", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

std::string single_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'') out += "''";
    else out += ch;
  }
  return out + "'";
}

// go-yaml v2's choice: double quotes for strings that look like other types (and for control
// characters), plain when libyaml allows it, single quotes otherwise.
std::string string_scalar(const std::string& s) {
  if (resolves_to_non_string(s) || has_special_chars(s)) return double_quote(s);
  if (plain_allowed(s)) return s;
  return single_quote(s);
}

std::string scalar_text(const Value& v) {
  switch (v.kind) {
    case Value::Null: return "null";
    case Value::Scalar: return v.text;
    case Value::String: return string_scalar(v.text);
    default: return "";
  }
}

bool is_collection(const Value& v) { return v.kind == Value::Map || v.kind == Value::Seq; }
bool is_empty_collection(const Value& v) {
  return (v.kind == Value::Map && v.map.empty()) || (v.kind == Value::Seq && v.seq.empty());
}

void emit(const Value& v, int indent, bool inline_first, std::string& out);

// Writes the value after "key:" or "- ".
void emit_after_key(const Value& v, int indent, std::string& out, bool in_seq_item) {
  if (is_empty_collection(v)) {
    out += v.kind == Value::Map ? " {}\n" : " []\n";
  } else if (v.kind == Value::Map) {
    out += "\n";
    emit(v, indent + 2, false, out);
  } else if (v.kind == Value::Seq) {
    out += "\n";
    // go-yaml v2 does not indent a sequence under its mapping key.
    emit(v, in_seq_item ? indent + 2 : indent, false, out);
  } else {
    out += " " + scalar_text(v) + "\n";
  }
}

void emit(const Value& v, int indent, bool inline_first, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  bool first = true;
  if (v.kind == Value::Map) {
    for (const auto& [k, val] : v.map) {
      if (!(first && inline_first)) out += pad;
      first = false;
      out += string_scalar(k) + ":";
      emit_after_key(val, indent, out, false);
    }
  } else if (v.kind == Value::Seq) {
    for (const auto& item : v.seq) {
      if (!(first && inline_first)) out += pad;
      first = false;
      out += "-";
      if (is_collection(item) && !is_empty_collection(item)) {
        out += " ";
        emit(item, indent + 2, true, out);
      } else {
        emit_after_key(item, indent, out, true);
      }
    }
  } else {
    out += pad + scalar_text(v) + "\n";
  }
}

// ---------------------------------------------------------------- config -> Value

Value from_yaml(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return Value{};
  if (n.IsMap()) {
    Value v = Value::object();
    for (auto it = n.begin(); it != n.end(); ++it) v[it->first.Scalar()] = from_yaml(it->second);
    return v;
  }
  if (n.IsSequence()) {
    Value v = Value::list();
    for (std::size_t i = 0; i < n.size(); ++i) v.push(from_yaml(n[i]));
    return v;
  }
  // The JSON we stored quotes strings; bare scalars are numbers/bools.
  return n.Tag() == "!" ? Value::str(n.Scalar()) : Value::raw(n.Scalar());
}

Value strings(const std::vector<std::string>& v) {
  Value out = Value::list();
  for (const auto& s : v) out.push(Value::str(s));
  return out;
}

Value resources(const std::vector<ResourceSpec>& rs) {
  Value out = Value::list();
  for (const auto& r : rs) {
    Value e = Value::object();
    e["name"] = Value::str(r.name);
    if (r.weight != 0) e["weight"] = Value::integer(r.weight);
    out.push(std::move(e));
  }
  return out;
}

Value shape(const std::vector<UtilizationShapePoint>& pts) {
  Value out = Value::list();
  for (const auto& p : pts) {
    Value e = Value::object();
    e["utilization"] = Value::integer(p.utilization);
    e["score"] = Value::integer(p.score);
    out.push(std::move(e));
  }
  return out;
}

Value label_selector(const api::LabelSelector& s) {
  Value out = Value::object();
  if (!s.matchLabels.empty()) {
    Value m = Value::object();
    for (const auto& [k, val] : s.matchLabels) m[k] = Value::str(val);
    out["matchLabels"] = std::move(m);
  }
  if (!s.matchExpressions.empty()) {
    Value l = Value::list();
    for (const auto& r : s.matchExpressions) {
      Value e = Value::object();
      e["key"] = Value::str(r.key);
      e["operator"] = Value::str(r.operator_);
      if (!r.values.empty()) e["values"] = strings(r.values);
      l.push(std::move(e));
    }
    out["matchExpressions"] = std::move(l);
  }
  return out;
}

Value node_selector_term(const api::NodeSelectorTerm& t) {
  Value out = Value::object();
  auto reqs = [](const std::vector<api::NodeSelectorRequirement>& rs) {
    Value l = Value::list();
    for (const auto& r : rs) {
      Value e = Value::object();
      e["key"] = Value::str(r.key);
      e["operator"] = Value::str(r.operator_);
      if (!r.values.empty()) e["values"] = strings(r.values);
      l.push(std::move(e));
    }
    return l;
  };
  if (!t.matchExpressions.empty()) out["matchExpressions"] = reqs(t.matchExpressions);
  if (!t.matchFields.empty()) out["matchFields"] = reqs(t.matchFields);
  return out;
}

Value node_affinity(const api::NodeAffinity& a) {
  Value out = Value::object();
  if (a.requiredDuringSchedulingIgnoredDuringExecution) {
    Value terms = Value::list();
    for (const auto& t : a.requiredDuringSchedulingIgnoredDuringExecution->nodeSelectorTerms) {
      terms.push(node_selector_term(t));
    }
    Value ns = Value::object();
    ns["nodeSelectorTerms"] = std::move(terms);
    out["requiredDuringSchedulingIgnoredDuringExecution"] = std::move(ns);
  }
  if (!a.preferredDuringSchedulingIgnoredDuringExecution.empty()) {
    Value l = Value::list();
    for (const auto& p : a.preferredDuringSchedulingIgnoredDuringExecution) {
      Value e = Value::object();
      e["weight"] = Value::integer(p.weight);
      e["preference"] = node_selector_term(p.preference);
      l.push(std::move(e));
    }
    out["preferredDuringSchedulingIgnoredDuringExecution"] = std::move(l);
  }
  return out;
}

Value topology_spread_constraint(const api::TopologySpreadConstraint& c) {
  Value out = Value::object();
  out["maxSkew"] = Value::integer(c.maxSkew);
  out["topologyKey"] = Value::str(c.topologyKey);
  out["whenUnsatisfiable"] = Value::str(c.whenUnsatisfiable);
  if (c.labelSelector) out["labelSelector"] = label_selector(*c.labelSelector);
  if (c.minDomains) out["minDomains"] = Value::integer(*c.minDomains);
  if (c.nodeAffinityPolicy) out["nodeAffinityPolicy"] = Value::str(*c.nodeAffinityPolicy);
  if (c.nodeTaintsPolicy) out["nodeTaintsPolicy"] = Value::str(*c.nodeTaintsPolicy);
  if (!c.matchLabelKeys.empty()) out["matchLabelKeys"] = strings(c.matchLabelKeys);
  return out;
}

// Returns a Null value when there are no args to write.
Value args_value(const std::string& plugin, const PluginArgs& args) {
  Value out = Value::object();
  auto type_meta = [&](std::string_view kind) {
    out["apiVersion"] = Value::str(std::string(kAPIVersion));
    out["kind"] = Value::str(std::string(kind));
  };
  if (auto* a = std::get_if<DefaultPreemptionArgs>(&args)) {
    type_meta("DefaultPreemptionArgs");
    out["minCandidateNodesPercentage"] = Value::integer(a->minCandidateNodesPercentage);
    out["minCandidateNodesAbsolute"] = Value::integer(a->minCandidateNodesAbsolute);
  } else if (auto* a = std::get_if<InterPodAffinityArgs>(&args)) {
    type_meta("InterPodAffinityArgs");
    out["hardPodAffinityWeight"] = Value::integer(a->hardPodAffinityWeight);
    out["ignorePreferredTermsOfExistingPods"] = Value::boolean(a->ignorePreferredTermsOfExistingPods);
  } else if (auto* a = std::get_if<NodeAffinityArgs>(&args)) {
    type_meta("NodeAffinityArgs");
    if (a->addedAffinity) out["addedAffinity"] = node_affinity(*a->addedAffinity);
  } else if (auto* a = std::get_if<NodeResourcesBalancedAllocationArgs>(&args)) {
    type_meta("NodeResourcesBalancedAllocationArgs");
    if (!a->resources.empty()) out["resources"] = resources(a->resources);
  } else if (auto* a = std::get_if<NodeResourcesFitArgs>(&args)) {
    type_meta("NodeResourcesFitArgs");
    if (!a->ignoredResources.empty()) out["ignoredResources"] = strings(a->ignoredResources);
    if (!a->ignoredResourceGroups.empty()) out["ignoredResourceGroups"] = strings(a->ignoredResourceGroups);
    Value s = Value::object();
    if (!a->scoringStrategy.type.empty()) s["type"] = Value::str(a->scoringStrategy.type);
    if (!a->scoringStrategy.resources.empty()) s["resources"] = resources(a->scoringStrategy.resources);
    if (a->scoringStrategy.requestedToCapacityRatio) {
      Value r = Value::object();
      if (!a->scoringStrategy.requestedToCapacityRatio->shape.empty()) {
        r["shape"] = shape(a->scoringStrategy.requestedToCapacityRatio->shape);
      }
      s["requestedToCapacityRatio"] = std::move(r);
    }
    out["scoringStrategy"] = std::move(s);
  } else if (auto* a = std::get_if<PodTopologySpreadArgs>(&args)) {
    type_meta("PodTopologySpreadArgs");
    if (!a->defaultConstraints.empty()) {
      Value l = Value::list();
      for (const auto& c : a->defaultConstraints) l.push(topology_spread_constraint(c));
      out["defaultConstraints"] = std::move(l);
    }
    if (!a->defaultingType.empty()) out["defaultingType"] = Value::str(a->defaultingType);
  } else if (auto* a = std::get_if<VolumeBindingArgs>(&args)) {
    type_meta("VolumeBindingArgs");
    out["bindTimeoutSeconds"] = Value::integer(a->bindTimeoutSeconds);
    if (!a->shape.empty()) out["shape"] = shape(a->shape);
  } else if (auto* a = std::get_if<UnknownArgs>(&args)) {
    if (a->json.empty()) return Value{};
    try {
      return from_yaml(YAML::Load(a->json));
    } catch (const YAML::Exception&) {
      return Value::str(a->json);  // cannot happen for JSON we produced; keep the text visible
    }
  } else {
    (void)plugin;
    return Value{};
  }
  return out;
}

Value plugin_set(const PluginSet& s) {
  Value out = Value::object();
  // Upstream's output carries the (internally plain int32) weight for enabled plugins only.
  auto list = [](const std::vector<Plugin>& ps, bool with_weight) {
    Value l = Value::list();
    for (const auto& p : ps) {
      Value e = Value::object();
      e["name"] = Value::str(p.name);
      if (with_weight) e["weight"] = Value::integer(p.weight.value_or(0));
      l.push(std::move(e));
    }
    return l;
  };
  if (!s.enabled.empty()) out["enabled"] = list(s.enabled, true);
  if (!s.disabled.empty()) out["disabled"] = list(s.disabled, false);
  return out;
}

Value profile_value(const KubeSchedulerProfile& prof) {
  Value out = Value::object();
  if (!prof.schedulerName.empty()) out["schedulerName"] = Value::str(prof.schedulerName);
  if (prof.percentageOfNodesToScore) out["percentageOfNodesToScore"] = Value::integer(*prof.percentageOfNodesToScore);
  Value plugins = Value::object();
  plugins["multiPoint"] = plugin_set(prof.plugins.multiPoint);
  for (ExtensionPoint ep : kSpecificExtensionPoints) {
    plugins[std::string(extension_point_field(ep))] = plugin_set(prof.plugins.at(ep));
  }
  out["plugins"] = std::move(plugins);
  if (!prof.pluginConfig.empty()) {
    Value l = Value::list();
    for (const auto& pc : prof.pluginConfig) {
      Value e = Value::object();
      e["name"] = Value::str(pc.name);
      Value a = args_value(pc.name, pc.args);
      if (a.kind != Value::Null) e["args"] = std::move(a);
      l.push(std::move(e));
    }
    out["pluginConfig"] = std::move(l);
  }
  return out;
}

Value extender_value(const Extender& x) {
  Value out = Value::object();
  out["urlPrefix"] = Value::str(x.urlPrefix);
  if (!x.filterVerb.empty()) out["filterVerb"] = Value::str(x.filterVerb);
  if (!x.preemptVerb.empty()) out["preemptVerb"] = Value::str(x.preemptVerb);
  if (!x.prioritizeVerb.empty()) out["prioritizeVerb"] = Value::str(x.prioritizeVerb);
  if (x.weight != 0) out["weight"] = Value::integer(x.weight);
  if (!x.bindVerb.empty()) out["bindVerb"] = Value::str(x.bindVerb);
  if (x.enableHTTPS) out["enableHTTPS"] = Value::boolean(true);
  if (x.tlsConfig) {
    const auto& t = *x.tlsConfig;
    Value v = Value::object();
    auto b64 = [](const std::string& s) {
      return Value::str(YAML::EncodeBase64(reinterpret_cast<const unsigned char*>(s.data()), s.size()));
    };
    if (t.insecure) v["insecure"] = Value::boolean(true);
    if (!t.serverName.empty()) v["serverName"] = Value::str(t.serverName);
    if (!t.certFile.empty()) v["certFile"] = Value::str(t.certFile);
    if (!t.keyFile.empty()) v["keyFile"] = Value::str(t.keyFile);
    if (!t.caFile.empty()) v["caFile"] = Value::str(t.caFile);
    if (!t.certData.empty()) v["certData"] = b64(t.certData);
    if (!t.keyData.empty()) v["keyData"] = b64(t.keyData);
    if (!t.caData.empty()) v["caData"] = b64(t.caData);
    out["tlsConfig"] = std::move(v);
  }
  out["httpTimeout"] = Value::str(util::go_duration(x.httpTimeout));
  if (x.nodeCacheCapable) out["nodeCacheCapable"] = Value::boolean(true);
  if (!x.managedResources.empty()) {
    Value l = Value::list();
    for (const auto& r : x.managedResources) {
      Value e = Value::object();
      e["name"] = Value::str(r.name);
      if (r.ignoredByScheduler) e["ignoredByScheduler"] = Value::boolean(true);
      l.push(std::move(e));
    }
    out["managedResources"] = std::move(l);
  }
  if (x.ignorable) out["ignorable"] = Value::boolean(true);
  return out;
}

void emit_json(const Value& v, std::string& out) {
  switch (v.kind) {
    case Value::Null: out += "null"; break;
    case Value::Scalar: out += v.text; break;
    case Value::String: {
      out += '"';
      for (unsigned char ch : v.text) {
        switch (ch) {
          case '"': out += "\\\""; break;
          case '\\': out += "\\\\"; break;
          case '\n': out += "\\n"; break;
          case '\t': out += "\\t"; break;
          case '\r': out += "\\r"; break;
          default:
            if (ch < 0x20) {
              char buf[8];
              std::snprintf(buf, sizeof buf, "\\u%04x", ch);
              out += buf;
            } else {
              out += static_cast<char>(ch);
            }
        }
      }
      out += '"';
      break;
    }
    case Value::Map: {
      out += '{';
      bool first = true;
      for (const auto& [k, val] : v.map) {
        if (!first) out += ',';
        first = false;
        emit_json(Value::str(k), out);
        out += ':';
        emit_json(val, out);
      }
      out += '}';
      break;
    }
    case Value::Seq: {
      out += '[';
      for (std::size_t i = 0; i < v.seq.size(); ++i) {
        if (i) out += ',';
        emit_json(v.seq[i], out);
      }
      out += ']';
      break;
    }
  }
}

Value config_value(const KubeSchedulerConfiguration& cfg);

}  // namespace

std::string write_args(const std::string& plugin, const PluginArgs& args) {
  Value v = args_value(plugin, args);
  if (v.kind == Value::Null) return "";
  std::string out;
  emit(v, 0, false, out);
  return out;
}

std::string write_config(const KubeSchedulerConfiguration& cfg) {
  std::string out;
  emit(config_value(cfg), 0, false, out);
  return out;
}

std::string write_config_json(const KubeSchedulerConfiguration& cfg) {
  std::string out;
  emit_json(config_value(cfg), out);
  return out;
}

namespace {

Value config_value(const KubeSchedulerConfiguration& cfg) {
  Value root = Value::object();
  root["apiVersion"] = Value::str(std::string(kAPIVersion));
  root["kind"] = Value::str(std::string(kKind));
  root["parallelism"] = Value::integer(cfg.parallelism);

  const auto& le = cfg.leaderElection;
  Value lv = Value::object();
  lv["leaderElect"] = Value::boolean(le.leaderElect);
  lv["leaseDuration"] = Value::str(util::go_duration(le.leaseDuration));
  lv["renewDeadline"] = Value::str(util::go_duration(le.renewDeadline));
  lv["retryPeriod"] = Value::str(util::go_duration(le.retryPeriod));
  lv["resourceLock"] = Value::str(le.resourceLock);
  lv["resourceName"] = Value::str(le.resourceName);
  lv["resourceNamespace"] = Value::str(le.resourceNamespace);
  root["leaderElection"] = std::move(lv);

  const auto& cc = cfg.clientConnection;
  Value cv = Value::object();
  cv["kubeconfig"] = Value::str(cc.kubeconfig);
  cv["acceptContentTypes"] = Value::str(cc.acceptContentTypes);
  cv["contentType"] = Value::str(cc.contentType);
  cv["qps"] = float_value(cc.qps);
  cv["burst"] = Value::integer(cc.burst);
  root["clientConnection"] = std::move(cv);

  root["enableProfiling"] = Value::boolean(cfg.enableProfiling);
  root["enableContentionProfiling"] = Value::boolean(cfg.enableContentionProfiling);
  if (cfg.percentageOfNodesToScore) root["percentageOfNodesToScore"] = Value::integer(*cfg.percentageOfNodesToScore);
  root["podInitialBackoffSeconds"] = Value::integer(cfg.podInitialBackoffSeconds);
  root["podMaxBackoffSeconds"] = Value::integer(cfg.podMaxBackoffSeconds);
  if (!cfg.profiles.empty()) {
    Value l = Value::list();
    for (const auto& p : cfg.profiles) l.push(profile_value(p));
    root["profiles"] = std::move(l);
  }
  if (!cfg.extenders.empty()) {
    Value l = Value::list();
    for (const auto& x : cfg.extenders) l.push(extender_value(x));
    root["extenders"] = std::move(l);
  }
  if (cfg.delayCacheUntilActive) root["delayCacheUntilActive"] = Value::boolean(true);
  return root;
}

}  // namespace

}  // namespace ksched::scheduler::config
