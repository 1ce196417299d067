#include "perf/workload.h"

#include "api/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::perf {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string str_or(const json::object& o, std::string_view key, std::string def = {}) {
  auto* v = o.if_contains(key);
  if (v && v->is_string()) return std::string(v->as_string());
  return def;
}

util::Result<int> int_field(const json::object& o, std::string_view key, std::string_view param_key,
                            const std::map<std::string, int>& params, int def, const std::string& where) {
  if (auto* p = o.if_contains(param_key); p && p->is_string()) {
    std::string name(p->as_string());
    if (!name.empty() && name[0] == '$') name.erase(0, 1);
    auto it = params.find(name);
    if (it == params.end()) return util::make_error(where + ": " + std::string(param_key) + " refers to unknown param $" + name);
    return it->second;
  }
  if (auto* v = o.if_contains(key)) {
    if (v->is_int64()) return static_cast<int>(v->as_int64());
    if (v->is_uint64()) return static_cast<int>(v->as_uint64());
    return util::make_error(where + ": " + std::string(key) + " must be an integer");
  }
  return def;
}

std::string join_path(const std::string& base, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (fs::path(base) / p).lexically_normal().string();
}

util::Result<Op> resolve_op(const json::value& raw, const std::map<std::string, int>& params,
                            const std::map<std::string, double>& durations,
                            const std::map<std::string, std::string>& texts, const std::string& base,
                            const std::string& where) {
  if (!raw.is_object()) return util::make_error(where + ": an operation must be a mapping");
  const auto& o = raw.as_object();
  Op op;
  op.opcode = str_or(o, "opcode");
  static const char* known[] = {"createNodes", "createNamespaces", "createPods",   "createPodSets",
                                "churn",       "barrier",          "deletePods",   "sleep",
                                "createResourceDriver", "createAny", "allocResourceClaims"};
  bool ok = false;
  for (auto* k : known) ok = ok || op.opcode == k;
  if (!ok) return util::make_error(where + ": unknown opcode \"" + op.opcode + "\"");
  // createAny makes one object unless told otherwise.
  auto count = int_field(o, "count", "countParam", params, op.opcode == "createAny" ? 1 : 0, where);
  if (!count) return util::make_error(count.error());
  op.count = *count;
  if (op.count < 0) return util::make_error(where + ": count must not be negative");
  // scheduler_perf's countMultiplierParam: createPods of $groups x $podsPerGroup pods.
  auto multiplier = int_field(o, "countMultiplier", "countMultiplierParam", params, 1, where);
  if (!multiplier) return util::make_error(multiplier.error());
  if (*multiplier < 0) return util::make_error(where + ": countMultiplier must not be negative");
  op.count *= *multiplier;
  if (auto* tp = o.if_contains("templateParams"); tp && tp->is_object()) {
    for (const auto& kv : tp->as_object()) {
      const std::string key(kv.key());
      const json::value& v = kv.value();
      if (v.is_int64()) {
        op.template_params[key] = static_cast<int>(v.as_int64());
      } else if (v.is_string() && v.as_string().starts_with("$")) {
        const std::string name = std::string(v.as_string()).substr(1);
        if (auto it = params.find(name); it != params.end()) {
          op.template_params[key] = it->second;
        } else if (auto t = texts.find(name); t != texts.end()) {
          op.template_text_params[key] = t->second;
        } else {
          return util::make_error(where + ": templateParams." + key + " refers to unknown param $" + name);
        }
      } else if (v.is_string()) {
        op.template_text_params[key] = std::string(v.as_string());
      } else {
        return util::make_error(where + ": templateParams." + key + " must be an integer, a string or a $param");
      }
    }
  }
  op.node_template_path = join_path(base, str_or(o, "nodeTemplatePath"));
  if (auto* l = o.if_contains("labelNodePrepareStrategy"); l && l->is_object()) {
    op.label_key = str_or(l->as_object(), "labelKey");
    if (auto* vs = l->as_object().if_contains("labelValues"); vs && vs->is_array())
      for (const auto& v : vs->as_array())
        if (v.is_string()) op.label_values.emplace_back(v.as_string());
    if (op.label_key.empty() || op.label_values.empty())
      return util::make_error(where + ": labelNodePrepareStrategy needs labelKey and labelValues");
  }
  if (auto* a = o.if_contains("nodeAllocatableStrategy"); a && a->is_object()) {
    if (auto* na = a->as_object().if_contains("nodeAllocatable"); na && na->is_object())
      for (const auto& kv : na->as_object())
        op.node_allocatable[std::string(kv.key())] =
            kv.value().is_string() ? std::string(kv.value().as_string()) : json::serialize(kv.value());
    if (auto* ca = a->as_object().if_contains("csiNodeAllocatable"); ca && ca->is_object())
      for (const auto& kv : ca->as_object()) {
        int c = 0;
        if (kv.value().is_object())
          if (auto* cv = kv.value().as_object().if_contains("count"); cv && cv->is_int64()) c = static_cast<int>(cv->as_int64());
        op.csi_node_allocatable[std::string(kv.key())] = c;
      }
  }
  op.prefix = str_or(o, "prefix");
  op.namespace_template_path = join_path(base, str_or(o, "namespaceTemplatePath"));
  op.namespace_ = str_or(o, "namespace");
  op.pod_template_path = join_path(base, str_or(o, "podTemplatePath"));
  if (auto* v = o.if_contains("podTemplatePaths"); v && v->is_array())
    for (const auto& t : v->as_array())
      if (t.is_string()) op.pod_template_paths.push_back(join_path(base, std::string(t.as_string())));
  if (auto* v = o.if_contains("collectMetrics"); v && v->is_bool()) op.collect_metrics = v->as_bool();
  if (auto* v = o.if_contains("skipWaitToCompletion"); v && v->is_bool()) op.skip_wait_to_completion = v->as_bool();
  op.pv_template_path = join_path(base, str_or(o, "persistentVolumeTemplatePath"));
  op.pvc_template_path = join_path(base, str_or(o, "persistentVolumeClaimTemplatePath"));
  op.namespace_prefix = str_or(o, "namespacePrefix");
  if (auto* v = o.if_contains("createPodsOp")) {
    auto sub = resolve_op(*v, params, durations, texts, base, where + ".createPodsOp");
    if (!sub) return util::make_error(sub.error());
    if (sub->opcode != "createPods") return util::make_error(where + ": createPodsOp must be a createPods operation");
    op.create_pods_op.push_back(std::move(*sub));
  }
  op.mode = str_or(o, "mode");
  auto number = int_field(o, "number", "numberParam", params, 1, where);
  if (!number) return util::make_error(number.error());
  op.number = *number;
  if (auto* v = o.if_contains("templatePaths"); v && v->is_array())
    for (const auto& t : v->as_array())
      if (t.is_string()) op.template_paths.push_back(join_path(base, std::string(t.as_string())));
  auto interval = int_field(o, "intervalMilliseconds", "intervalMillisecondsParam", params, 500, where);
  if (!interval) return util::make_error(interval.error());
  op.interval_ms = *interval;
  op.stage_requirement = str_or(o, "stageRequirement", "Scheduled");
  if (auto* v = o.if_contains("namespaces"); v && v->is_array())
    for (const auto& t : v->as_array())
      if (t.is_string()) op.namespaces.emplace_back(t.as_string());
  auto rate = int_field(o, "deletePodsPerSecond", "deletePodsPerSecondParam", params, 0, where);
  if (!rate) return util::make_error(rate.error());
  op.delete_pods_per_second = *rate;
  if (auto* v = o.if_contains("duration")) {
    if (v->is_number()) {
      op.duration_seconds = v->to_number<double>();
    } else if (v->is_string()) {
      const std::string text(v->as_string());
      auto d = parse_duration(text);
      op.duration_seconds = d ? *d : std::strtod(text.c_str(), nullptr);
    }
  }
  if (auto* p = o.if_contains("durationParam"); p && p->is_string()) {
    std::string name(p->as_string());
    if (!name.empty() && name[0] == '$') name.erase(0, 1);
    auto it = durations.find(name);
    if (it == durations.end()) {
      if (auto t = texts.find(name); t != texts.end())
        return util::make_error(where + ": durationParam $" + name + " is \"" + t->second + "\", not a duration such as 10s");
      return util::make_error(where + ": durationParam refers to unknown duration param $" + name);
    }
    op.duration_seconds = it->second;
  }
  if (auto* v = o.if_contains("steadyState"); v && v->is_bool()) op.steady_state = v->as_bool();
  op.template_path = join_path(base, str_or(o, "templatePath"));
  op.driver_name = str_or(o, "driverName");
  op.nodes = str_or(o, "nodes");
  auto max_claims = int_field(o, "maxClaimsPerNode", "maxClaimsPerNodeParam", params, 0, where);
  if (!max_claims) return util::make_error(max_claims.error());
  op.max_claims_per_node = *max_claims;

  // Per-opcode checks, so a typo in a workload fails before any object is created.
  if (op.opcode == "churn") {
    if (op.mode != "recreate" && op.mode != "create") return util::make_error(where + ": churn mode must be recreate or create");
    if (op.template_paths.empty()) return util::make_error(where + ": churn needs templatePaths");
    if (op.interval_ms <= 0) return util::make_error(where + ": intervalMilliseconds must be positive");
  }
  if (op.opcode == "createPodSets" && op.create_pods_op.empty())
    return util::make_error(where + ": createPodSets needs createPodsOp");
  if (op.opcode == "createNamespaces" && op.prefix.empty()) return util::make_error(where + ": createNamespaces needs prefix");
  if (op.opcode == "barrier" && op.stage_requirement != "Scheduled" && op.stage_requirement != "Attempted")
    return util::make_error(where + ": stageRequirement must be Scheduled or Attempted");
  if (op.opcode == "deletePods" && op.namespace_.empty()) return util::make_error(where + ": deletePods needs namespace");
  if (op.opcode == "createPods" && op.steady_state && (op.duration_seconds <= 0 || op.count <= 0))
    return util::make_error(where + ": a steadyState createPods needs a positive count and duration");
  if (op.opcode == "createAny" && op.template_path.empty()) return util::make_error(where + ": createAny needs templatePath");
  if (op.opcode == "createResourceDriver") {
    if (op.driver_name.empty()) return util::make_error(where + ": createResourceDriver needs driverName");
    if (op.nodes.empty()) return util::make_error(where + ": createResourceDriver needs nodes");
    if (op.max_claims_per_node < 0) return util::make_error(where + ": maxClaimsPerNode must not be negative");
  }
  return op;
}

}  // namespace

util::Result<json::value> yaml_to_json(const std::string& yaml_text) {
  try {
    return api::yaml_to_json(YAML::Load(yaml_text));
  } catch (const std::exception& e) {
    return util::make_error(std::string("invalid YAML: ") + e.what());
  }
}

util::Result<json::value> load_yaml_file(const std::string& path) {
  bool ok = false;
  std::string text = read_file(path, ok);
  if (!ok) return util::make_error("cannot read " + path);
  auto v = yaml_to_json(text);
  if (!v) return util::make_error(path + ": " + v.error());
  return v;
}

namespace {

// One {{ }} action being evaluated: its words and parentheses, and what they may refer to.
class TemplateAction {
 public:
  TemplateAction(std::string_view inner, long index, const std::map<std::string, int>& params,
                 const std::map<std::string, std::string>& text_params)
      : inner_(inner), index_(index), params_(params), text_params_(text_params) {
    while (!inner.empty()) {
      const std::size_t b = inner.find_first_not_of(" \t");
      if (b == std::string_view::npos) break;
      inner.remove_prefix(b);
      std::size_t e = inner[0] == '(' || inner[0] == ')' ? 1 : std::min(inner.find_first_of(" \t()"), inner.size());
      tokens_.push_back(inner.substr(0, e));
      inner.remove_prefix(e);
    }
  }

  // The action's output: a number, or a text param as written.
  util::Result<std::string> render() {
    if (tokens_.size() == 1 && tokens_[0].size() > 1 && tokens_[0][0] == '.')
      if (auto t = text_params_.find(std::string(tokens_[0].substr(1))); t != text_params_.end()) return t->second;
    auto v = pipeline();
    if (!v) return util::make_error(v.error());
    if (at_ != tokens_.size()) return unsupported();
    return std::to_string(*v);
  }

 private:
  util::Error unsupported() const { return util::make_error("unsupported template action {{" + std::string(inner_) + "}}"); }

  // A function with its arguments, or one argument.
  util::Result<long> pipeline() {
    if (at_ >= tokens_.size()) return unsupported();
    const std::string_view fn = tokens_[at_];
    if (fn != "DivideInt" && fn != "AddInt" && fn != "Mod") {
      if (fn == "(" || fn[0] == '.' || std::isdigit(static_cast<unsigned char>(fn[0]))) return argument();
      return unsupported();
    }
    ++at_;
    auto a = argument();
    if (!a) return a;
    auto b = argument();
    if (!b) return b;
    if (fn == "AddInt") return *a + *b;
    if (*b == 0) return util::make_error("template divides by zero: {{" + std::string(inner_) + "}}");
    return fn == "DivideInt" ? *a / *b : *a % *b;
  }

  // .Index, a number param, a literal, or a parenthesised pipeline.
  util::Result<long> argument() {
    if (at_ >= tokens_.size()) return unsupported();
    const std::string_view term = tokens_[at_++];
    if (term == "(") {
      auto v = pipeline();
      if (!v) return v;
      if (at_ >= tokens_.size() || tokens_[at_] != ")") return unsupported();
      ++at_;
      return v;
    }
    if (term == ".Index") return index_;
    // A literal, as Go's templates take one (upstream's node template: {{DivideInt .Index 1000}}).
    if (!term.empty() && term.size() < 10 && std::all_of(term.begin(), term.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::stol(std::string(term));
    if (term.size() > 1 && term[0] == '.') {
      const std::string name(term.substr(1));
      if (auto it = params_.find(name); it != params_.end()) return static_cast<long>(it->second);
      if (text_params_.count(name))
        return util::make_error("template does arithmetic on " + std::string(term) + ", which is text, not a number");
    }
    if (term == ")") return unsupported();
    return util::make_error("template refers to " + std::string(term) + ", which is not .Index or a templateParams value");
  }

  std::string_view inner_;
  long index_;
  const std::map<std::string, int>& params_;
  const std::map<std::string, std::string>& text_params_;
  std::vector<std::string_view> tokens_;
  std::size_t at_ = 0;
};

}  // namespace

util::Result<std::string> render_template(std::string_view text, long index, const std::map<std::string, int>& params,
                                          const std::map<std::string, std::string>& text_params) {
  std::string out;
  out.reserve(text.size() + 16);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string_view::npos) {
      out.append(text.substr(at));
      break;
    }
    out.append(text.substr(at, open - at));
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) return util::make_error("template has an unclosed {{");
    auto v = TemplateAction(text.substr(open + 2, close - open - 2), index, params, text_params).render();
    if (!v) return util::make_error(v.error());
    out += *v;
    at = close + 2;
  }
  return out;
}

util::Result<Config> parse_config(const std::string& yaml_text, const std::string& base_dir) {
  auto doc = yaml_to_json(yaml_text);
  if (!doc) return util::make_error(doc.error());
  if (!doc->is_array()) return util::make_error("a workload config is a list of test cases");
  Config cfg;
  cfg.base_dir = base_dir;
  for (std::size_t i = 0; i < doc->as_array().size(); ++i) {
    const auto& tv = doc->as_array()[i];
    std::string where = "testCase[" + std::to_string(i) + "]";
    if (!tv.is_object()) return util::make_error(where + ": must be a mapping");
    const auto& t = tv.as_object();
    TestCase tc;
    tc.name = str_or(t, "name");
    if (tc.name.empty()) return util::make_error(where + ": name is required");
    where = tc.name;
    tc.description = str_or(t, "description");
    tc.default_pod_template_path = str_or(t, "defaultPodTemplatePath");
    if (auto* l = t.if_contains("labels"); l && l->is_array())
      for (const auto& s : l->as_array())
        if (s.is_string()) tc.labels.emplace_back(s.as_string());
    auto* wt = t.if_contains("workloadTemplate");
    if (!wt || !wt->is_array() || wt->as_array().empty()) return util::make_error(where + ": workloadTemplate must be a non-empty list");
    tc.workload_template = *wt;
    auto gates = [&](const json::object& o, std::map<std::string, bool>& out) -> util::Result<void> {
      auto* g = o.if_contains("featureGates");
      if (!g) return {};
      if (!g->is_object()) return util::make_error(where + ": featureGates must be a mapping of gate to true/false");
      for (const auto& kv : g->as_object()) {
        if (!kv.value().is_bool()) return util::make_error(where + ": feature gate " + std::string(kv.key()) + " must be true or false");
        out[std::string(kv.key())] = kv.value().as_bool();
      }
      return {};
    };
    if (auto r = gates(t, tc.feature_gates); !r) return util::make_error(r.error());
    auto* ws = t.if_contains("workloads");
    if (!ws || !ws->is_array() || ws->as_array().empty()) return util::make_error(where + ": workloads must be a non-empty list");
    for (const auto& wv : ws->as_array()) {
      if (!wv.is_object()) return util::make_error(where + ": a workload must be a mapping");
      const auto& w = wv.as_object();
      Workload wl;
      wl.name = str_or(w, "name");
      if (wl.name.empty()) return util::make_error(where + ": workload name is required");
      if (auto* l = w.if_contains("labels"); l && l->is_array())
        for (const auto& s : l->as_array())
          if (s.is_string()) wl.labels.emplace_back(s.as_string());
      for (const auto& l : tc.labels) wl.labels.push_back(l);
      if (auto* th = w.if_contains("threshold"); th && th->is_number()) wl.threshold = th->to_number<double>();
      if (auto r = gates(w, wl.feature_gates); !r) return util::make_error(r.error());
      if (auto* p = w.if_contains("params"); p && p->is_object())
        for (const auto& kv : p->as_object()) {
          if (kv.value().is_string()) {
            // A string is text for templateParams (upstream's gangCpuRequest: 3970m) and, when it
            // reads as one, a duration for durationParam.
            const std::string text(kv.value().as_string());
            if (auto d = parse_duration(text)) wl.durations[std::string(kv.key())] = *d;
            wl.texts[std::string(kv.key())] = text;
            continue;
          }
          if (!kv.value().is_int64()) return util::make_error(where + "/" + wl.name + ": param " + std::string(kv.key()) + " must be an integer or a string");
          wl.params[std::string(kv.key())] = static_cast<int>(kv.value().as_int64());
        }
      tc.workloads.push_back(std::move(wl));
    }
    for (const auto& prev : cfg.test_cases)
      if (prev.name == tc.name) return util::make_error("duplicate test case " + tc.name);
    cfg.test_cases.push_back(std::move(tc));
  }
  // Resolve every workload once so errors surface at load time, not half-way through a run.
  for (const auto& tc : cfg.test_cases)
    for (const auto& w : tc.workloads) {
      auto r = resolve(cfg, tc.name + "/" + w.name);
      if (!r) return util::make_error(r.error());
    }
  return cfg;
}

util::Result<Config> load_config(const std::string& path) {
  bool ok = false;
  std::string text = read_file(path, ok);
  if (!ok) return util::make_error("cannot read " + path);
  auto cfg = parse_config(text, fs::path(path).parent_path().string());
  if (!cfg) return util::make_error(path + ": " + cfg.error());
  return cfg;
}

util::Result<Config> load_config_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return util::make_error("workload directory " + dir + " does not exist");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  Config all;
  all.base_dir = dir;
  for (const auto& f : files) {
    auto c = load_config(f);
    if (!c) return util::make_error(c.error());
    for (auto& tc : c->test_cases) {
      for (const auto& prev : all.test_cases)
        if (prev.name == tc.name) return util::make_error("duplicate test case " + tc.name + " in " + f);
      all.test_cases.push_back(std::move(tc));
    }
  }
  if (all.test_cases.empty()) return util::make_error("no workload definitions in " + dir);
  return all;
}

util::Result<ResolvedWorkload> resolve(const Config& cfg, const std::string& name,
                                       const std::map<std::string, int>& overrides) {
  std::string tc_name = name, wl_name;
  if (auto slash = name.find('/'); slash != std::string::npos) {
    tc_name = name.substr(0, slash);
    wl_name = name.substr(slash + 1);
  }
  const TestCase* tc = nullptr;
  for (const auto& t : cfg.test_cases)
    if (t.name == tc_name) tc = &t;
  if (!tc) return util::make_error("unknown workload \"" + name + "\" (see --list)");
  const Workload* wl = wl_name.empty() ? &tc->workloads.front() : nullptr;
  for (const auto& w : tc->workloads)
    if (w.name == wl_name) wl = &w;
  if (!wl) return util::make_error("test case " + tc_name + " has no workload \"" + wl_name + "\" (see --list)");
  ResolvedWorkload r;
  r.test_case = tc->name;
  r.workload = wl->name;
  r.threshold = wl->threshold;
  r.params = wl->params;
  r.durations = wl->durations;
  r.texts = wl->texts;
  r.feature_gates = tc->feature_gates;
  for (const auto& [k, v] : wl->feature_gates) r.feature_gates[k] = v;
  r.base_dir = cfg.base_dir;
  for (const auto& [k, v] : overrides) {
    if (!r.params.count(k)) return util::make_error(r.full_name() + " has no param " + k + " to override");
    r.params[k] = v;
  }
  if (!overrides.empty()) {
    r.threshold = 0;  // upstream's threshold is for upstream's sizes only
    // The name says which sizes ran: "500Nodes" over 5,000 nodes would mislead every report.
    std::string sizes;
    for (const auto& [k, v] : overrides) sizes += (sizes.empty() ? "" : ",") + k + "=" + std::to_string(v);
    r.workload += "[" + sizes + "]";
  }
  r.default_pod_template_path = join_path(cfg.base_dir, tc->default_pod_template_path);
  const auto& ops = tc->workload_template.as_array();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto op = resolve_op(ops[i], r.params, r.durations, r.texts, cfg.base_dir, r.full_name() + ": op[" + std::to_string(i) + "]");
    if (!op) return util::make_error(op.error());
    r.ops.push_back(std::move(*op));
  }
  return r;
}

bool ResolvedWorkload::uses_dra() const {
  return std::any_of(ops.begin(), ops.end(), [](const Op& op) {
    return op.opcode == "createResourceDriver" || op.opcode == "createAny" || op.opcode == "allocResourceClaims";
  });
}

std::optional<double> parse_duration(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double total = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    if (j == i) return std::nullopt;
    const double v = std::strtod(std::string(s.substr(i, j - i)).c_str(), nullptr);
    std::size_t k = j;
    while (k < s.size() && std::isalpha(static_cast<unsigned char>(s[k]))) ++k;
    const std::string_view unit = s.substr(j, k - j);
    double scale = 0;
    if (unit == "h") scale = 3600;
    else if (unit == "m") scale = 60;
    else if (unit == "s") scale = 1;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "us") scale = 1e-6;
    else if (unit == "ns") scale = 1e-9;
    else return std::nullopt;
    total += v * scale;
    i = k;
  }
  return total;
}

std::vector<std::string> workloads_with_label(const Config& cfg, const std::string& label) {
  std::vector<std::string> out;
  for (const auto& tc : cfg.test_cases)
    for (const auto& w : tc.workloads) {
      bool match = label.empty();
      for (const auto& l : w.labels) match = match || l == label;
      if (match) out.push_back(tc.name + "/" + w.name);
    }
  return out;
}

}  // namespace ksched::perf
