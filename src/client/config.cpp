#include "client/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace ksched::client {

bool RestConfig::prefers_protobuf() const {
  std::string_view media = std::string_view(content_type).substr(0, content_type.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  return media == "application/vnd.kubernetes.protobuf";
}
namespace {

namespace fs = std::filesystem;
using util::make_error;

util::Result<std::string> read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error("unable to read " + what + " file \"" + path + "\": no such file or not readable");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

util::Result<std::string> base64_decode(const std::string& in, const std::string& what) {
  static constexpr auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  unsigned buf = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    int v = value(c);
    if (v < 0) return make_error(what + ": illegal base64 data");
    buf = (buf << 6) | unsigned(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(char((buf >> bits) & 0xff));
    }
  }
  return out;
}

struct Named {
  YAML::Node node;
  std::string base_dir;
};

struct Merged {
  std::map<std::string, Named> clusters, users, contexts;
  std::string current_context;
  bool any = false;
};

std::string scalar(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return {};
  return v.as<std::string>();
}

util::Result<void> merge_doc(Merged& m, const std::string& text, const std::string& source, const std::string& base) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error("error loading config file \"" + source + "\": yaml: line " + std::to_string(e.mark.line + 1) +
                      ": " + e.msg);
  }
  if (!root || root.IsNull()) return {};  // empty file: ignored like clientcmd
  if (!root.IsMap()) return make_error("error loading config file \"" + source + "\": not a YAML mapping");
  m.any = true;
  try {
    auto take = [&](const char* list, const char* inner, std::map<std::string, Named>& into) -> util::Result<void> {
      auto seq = root[list];
      if (!seq || seq.IsNull()) return {};
      if (!seq.IsSequence())
        return make_error("error loading config file \"" + source + "\": " + list + " must be a list");
      for (const auto& item : seq) {
        std::string name = scalar(item, "name");
        if (name.empty())
          return make_error("error loading config file \"" + source + "\": an entry in " + list + " has no name");
        auto body = item[inner];
        if (!body || !body.IsMap()) body = YAML::Node(YAML::NodeType::Map);
        into.try_emplace(name, Named{body, base});  // first definition wins
      }
      return {};
    };
    if (auto r = take("clusters", "cluster", m.clusters); !r) return r;
    if (auto r = take("users", "user", m.users); !r) return r;
    if (auto r = take("contexts", "context", m.contexts); !r) return r;
    if (m.current_context.empty()) m.current_context = scalar(root, "current-context");
  } catch (const YAML::Exception& e) {
    return make_error("error loading config file \"" + source + "\": " + e.msg);
  }
  return {};
}

std::string resolve(const std::string& base, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (fs::path(base) / p).lexically_normal().string();
}

util::Result<RestConfig> build(const Merged& m, const KubeconfigOptions& o) {
  if (!m.any)
    return make_error("invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER "
                      "environment variable");
  std::string ctx_name = o.context.empty() ? m.current_context : o.context;
  if (ctx_name.empty()) return make_error("invalid configuration: no current-context is set and no --context given");
  auto ctx_it = m.contexts.find(ctx_name);
  if (ctx_it == m.contexts.end())
    return make_error("invalid configuration: context was not found for specified context: " + ctx_name);
  const auto& ctx = ctx_it->second.node;
  std::string cluster_name = o.cluster.empty() ? scalar(ctx, "cluster") : o.cluster;
  std::string user_name = o.user.empty() ? scalar(ctx, "user") : o.user;
  auto cl_it = m.clusters.find(cluster_name);
  if (cl_it == m.clusters.end())
    return make_error("invalid configuration: cluster \"" + cluster_name + "\" (of context \"" + ctx_name +
                      "\") was not found");
  RestConfig cfg;
  cfg.user_agent = default_user_agent();
  cfg.namespace_ = scalar(ctx, "namespace");
  if (cfg.namespace_.empty()) cfg.namespace_ = "default";
  try {
    const auto& cl = cl_it->second.node;
    cfg.host = scalar(cl, "server");
    if (cfg.host.empty()) return make_error("invalid configuration: cluster \"" + cluster_name + "\" has no server defined");
    while (!cfg.host.empty() && cfg.host.back() == '/') cfg.host.pop_back();
    if (cfg.host.rfind("https://", 0) != 0 && cfg.host.rfind("http://", 0) != 0)
      cfg.host = "https://" + cfg.host;
    cfg.insecure = cl["insecure-skip-tls-verify"] && cl["insecure-skip-tls-verify"].as<bool>();
    cfg.tls_server_name = scalar(cl, "tls-server-name");
    std::string ca_data = scalar(cl, "certificate-authority-data");
    std::string ca_file = scalar(cl, "certificate-authority");
    if (!ca_data.empty()) {
      auto d = base64_decode(ca_data, "cluster \"" + cluster_name + "\" certificate-authority-data");
      if (!d) return make_error(d.error());
      cfg.ca_pem = std::move(*d);
    } else if (!ca_file.empty()) {
      auto d = read_file(resolve(cl_it->second.base_dir, ca_file), "certificate-authority");
      if (!d) return make_error(d.error());
      cfg.ca_pem = std::move(*d);
    }
    if (cfg.insecure && !cfg.ca_pem.empty())
      return make_error("invalid configuration: specifying a root certificates file with the insecure flag is not "
                        "allowed (cluster \"" + cluster_name + "\")");
    if (!user_name.empty()) {
      auto u_it = m.users.find(user_name);
      if (u_it == m.users.end())
        return make_error("invalid configuration: user \"" + user_name + "\" (of context \"" + ctx_name +
                          "\") was not found");
      const auto& u = u_it->second.node;
      const auto& base = u_it->second.base_dir;
      auto load = [&](const char* data_key, const char* file_key, std::string& out) -> util::Result<void> {
        std::string data = scalar(u, data_key), file = scalar(u, file_key);
        if (!data.empty()) {
          auto d = base64_decode(data, "user \"" + user_name + "\" " + data_key);
          if (!d) return make_error(d.error());
          out = std::move(*d);
        } else if (!file.empty()) {
          auto d = read_file(resolve(base, file), file_key);
          if (!d) return make_error(d.error());
          out = std::move(*d);
        }
        return {};
      };
      if (auto r = load("client-certificate-data", "client-certificate", cfg.cert_pem); !r) return make_error(r.error());
      if (auto r = load("client-key-data", "client-key", cfg.key_pem); !r) return make_error(r.error());
      if (cfg.cert_pem.empty() != cfg.key_pem.empty())
        return make_error("invalid configuration: user \"" + user_name +
                          "\": client-certificate and client-key must be given together");
      cfg.bearer_token = scalar(u, "token");
      std::string token_file = scalar(u, "tokenFile");
      if (cfg.bearer_token.empty() && !token_file.empty()) {
        cfg.token_file = resolve(base, token_file);
        auto t = read_file(cfg.token_file, "tokenFile");
        if (!t) return make_error(t.error());
        cfg.bearer_token = *t;
        while (!cfg.bearer_token.empty() && std::isspace(static_cast<unsigned char>(cfg.bearer_token.back())))
          cfg.bearer_token.pop_back();
      }
    }
  } catch (const YAML::Exception& e) {
    return make_error("invalid configuration: " + e.msg);
  }
  return cfg;
}

std::string dir_of(const std::string& path) {
  auto p = fs::path(path).parent_path();
  return p.empty() ? "." : p.string();
}

std::string env_or(const std::optional<std::string>& v, const char* name, bool& set) {
  if (v) {
    set = true;
    return *v;
  }
  const char* e = std::getenv(name);
  set = e != nullptr;
  return e ? e : "";
}

}  // namespace

util::Result<RestConfig> kubeconfig_from_string(const std::string& yaml, const std::string& base_dir,
                                                const std::string& context) {
  Merged m;
  if (auto r = merge_doc(m, yaml, "<string>", base_dir); !r) return make_error(r.error());
  KubeconfigOptions o;
  o.context = context;
  return build(m, o);
}

util::Result<RestConfig> load_kubeconfig(const KubeconfigOptions& opts) {
  Merged m;
  if (!opts.explicit_path.empty()) {
    auto t = read_file(opts.explicit_path, "kubeconfig");
    if (!t) return make_error("stat " + opts.explicit_path + ": no such file or directory");
    if (auto r = merge_doc(m, *t, opts.explicit_path, dir_of(opts.explicit_path)); !r) return make_error(r.error());
    return build(m, opts);
  }
  bool env_set = false;
  std::string env = env_or(opts.kubeconfig_env, "KUBECONFIG", env_set);
  if (env_set && !env.empty()) {
    std::stringstream ss(env);
    std::string path;
    std::vector<std::string> seen;
    while (std::getline(ss, path, ':')) {
      if (path.empty()) continue;
      if (std::find(seen.begin(), seen.end(), path) != seen.end()) continue;
      seen.push_back(path);
      std::error_code ec;
      if (!fs::exists(path, ec)) continue;  // missing entries in $KUBECONFIG are skipped
      auto t = read_file(path, "kubeconfig");
      if (!t) return make_error(t.error());
      if (auto r = merge_doc(m, *t, path, dir_of(path)); !r) return make_error(r.error());
    }
    return build(m, opts);
  }
  bool home_set = false;
  std::string home = env_or(opts.home, "HOME", home_set);
  if (!home.empty()) {
    std::string path = (fs::path(home) / ".kube" / "config").string();
    std::error_code ec;
    if (fs::exists(path, ec)) {
      auto t = read_file(path, "kubeconfig");
      if (!t) return make_error(t.error());
      if (auto r = merge_doc(m, *t, path, dir_of(path)); !r) return make_error(r.error());
    }
  }
  return build(m, opts);
}

util::Result<RestConfig> in_cluster_config(const InClusterOptions& opts) {
  bool hs = false, ps = false;
  std::string host = env_or(opts.service_host, "KUBERNETES_SERVICE_HOST", hs);
  std::string port = env_or(opts.service_port, "KUBERNETES_SERVICE_PORT", ps);
  if (host.empty() || port.empty())
    return make_error("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                      "must be defined");
  RestConfig cfg;
  cfg.user_agent = default_user_agent();
  bool v6 = host.find(':') != std::string::npos;
  cfg.host = "https://" + (v6 ? "[" + host + "]" : host) + ":" + port;
  cfg.token_file = (fs::path(opts.root) / "token").string();
  auto tok = read_file(cfg.token_file, "service account token");
  if (!tok) return make_error(tok.error());
  cfg.bearer_token = *tok;
  while (!cfg.bearer_token.empty() && std::isspace(static_cast<unsigned char>(cfg.bearer_token.back())))
    cfg.bearer_token.pop_back();
  if (cfg.bearer_token.empty()) return make_error("service account token file \"" + cfg.token_file + "\" is empty");
  auto ca = read_file((fs::path(opts.root) / "ca.crt").string(), "service account CA");
  if (!ca) return make_error(ca.error());
  cfg.ca_pem = *ca;
  auto ns = read_file((fs::path(opts.root) / "namespace").string(), "namespace");
  cfg.namespace_ = ns ? *ns : "default";
  while (!cfg.namespace_.empty() && std::isspace(static_cast<unsigned char>(cfg.namespace_.back())))
    cfg.namespace_.pop_back();
  return cfg;
}

std::string default_user_agent(const std::string& component) {
  return component + "/v0.1.0 (linux/amd64) ksched";
}

}  // namespace ksched::client
