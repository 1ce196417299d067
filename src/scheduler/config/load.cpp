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
#include "util/base64.h"

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
  std::vector<std::string> strict;         // unknown / duplicate fields
  std::vector<std::string> nested_strict;  // those inside plugin args, each entry's in one message
  std::string fatal;                       // first type error: decoding stops making sense after it

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
  auto raw = util::base64_decode(n.Scalar());
  if (!raw) {
    c.type_error(n, path, "illegal base64 data");
    return;
  }
  out = std::move(*raw);
}

// ---------------------------------------------------------------- decoding by description

template <class T>
void decode(Ctx& c, const YAML::Node& n, const std::string& path, T& out, std::uint8_t flags = kAlways);

// One pluginConfig entry's args, typed by the plugin's name (which may follow them).
void decode_plugin_args(Ctx& c, const YAML::Node& n, const std::string& entry_path, const std::string& plugin,
                        PluginArgs& out);

// Every member of a described struct, by the names of its description; unknown and duplicate
// names are strict errors. Api types (with a Presence) note which members were given, as their
// codec does, so that they are written back the same.
template <class T>
void decode_struct(Ctx& c, const YAML::Node& n, const std::string& path, T& out) {
  constexpr auto desc = describe(type_tag<T>{});
  YAML::Node args;  // PluginConfig: decoded once the entry's name is known
  fields(c, n, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    bool known = false;
    api::apply_fields(
        [&](const auto&... f) {
          unsigned i = 0;
          (
              [&] {
                const unsigned index = i++;
                if (known || key != f.name) return;
                known = true;
                auto& member = out.*(f.member);
                if constexpr (std::is_same_v<std::remove_reference_t<decltype(member)>, PluginArgs>) {
                  args = v;
                } else {
                  decode(c, v, p, member, flags_of(f));
                }
                if constexpr (requires { out.present.set(index); }) {
                  if (!is_null(v)) out.present.set(index);
                }
              }(),
              ...);
        },
        desc);
    if constexpr (Kind<T>) known = known || key == "apiVersion" || key == "kind";
    return known;
  });
  if constexpr (std::is_same_v<T, PluginConfig>) {
    if (!c.failed()) decode_plugin_args(c, args, path, out.name, out.args);
  }
}

template <class T>
void decode(Ctx& c, const YAML::Node& n, const std::string& path, T& out, std::uint8_t flags) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (flags & kBase64) {
      get_bytes(c, n, path, out);
    } else {
      get_string(c, n, path, out);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    get_bool(c, n, path, out);
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    get_int(c, n, path, out, "int32");
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    get_int(c, n, path, out, "int64");
  } else if constexpr (std::is_same_v<T, float>) {
    get_float(c, n, path, out);
  } else if constexpr (std::is_same_v<T, Duration>) {
    get_duration(c, n, path, out);
  } else if constexpr (is_optional<T>::value) {
    if (is_null(n)) return;
    out.emplace();
    decode(c, n, path, *out, flags);
  } else if constexpr (is_vector<T>::value) {
    if (is_null(n)) return;
    out.clear();
    items(c, n, path, [&](const YAML::Node& e, const std::string& ep) {
      typename T::value_type v{};
      decode(c, e, ep, v, flags);
      out.push_back(std::move(v));
    });
  } else if constexpr (std::is_same_v<T, api::StringMap>) {
    fields(c, n, path, [&](const std::string& k, const YAML::Node& v, const std::string& p) {
      std::string value;
      get_string(c, v, p, value);
      out.set(k, std::move(value));
      return true;
    });
  } else {
    static_assert(Described<T>, "a configuration member of a type the schema does not know");
    if ((flags & kZeroWhenGiven) && !is_null(n)) {
      api::apply_fields([&](const auto&... f) { ((out.*(f.member) = {}), ...); }, describe(type_tag<T>{}));
    }
    decode_struct(c, n, path, out);
  }
}

// Decodes the args of one pluginConfig entry. Unknown fields inside args are reported like
// upstream's nested strict error, naming the plugin; they are kept apart (Ctx::nested_strict)
// and reported only when the configuration has no strict errors of its own.
void decode_plugin_args(Ctx& c, const YAML::Node& n, const std::string& entry_path, const std::string& plugin,
                        PluginArgs& out) {
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
        if constexpr (!std::is_same_v<A, std::monostate> && !std::is_same_v<A, UnknownArgs>) decode(inner, n, "", a);
      },
      args);
  if (inner.failed()) {
    c.fatal = "decoding " + entry_path + ": decoding args for plugin " + plugin + ": " + inner.fatal;
    return;
  }
  if (!inner.strict.empty()) {
    std::string msg;
    for (const auto& e : inner.strict) msg += (msg.empty() ? "" : ", ") + e;
    c.nested_strict.push_back("decoding ." + entry_path + ": strict decoding error: decoding args for plugin " +
                              plugin + ": strict decoding error: " + msg);
  }
  out = std::move(args);
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
  decode(c, root, "", cfg);
  if (c.failed()) return util::make_error(c.fatal);
  if (!c.strict.empty()) return util::make_error(join_strict(c.strict));
  if (!c.nested_strict.empty()) return util::make_error(join_strict(c.nested_strict));

  // Presence-dependent defaults (the rest is in set_defaults).
  if (is_null(root["enableContentionProfiling"])) cfg.enableContentionProfiling = cfg.enableProfiling;
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
