#include "scheduler/extender.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>

#include "api/codec.h"
#include "client/transport.h"
#include "util/log.h"

namespace ksched::scheduler {

namespace json = boost::json;

namespace {

// A JSON string literal (quoted, escaped).
std::string quoted(std::string_view s) { return json::serialize(json::string_view(s.data(), s.size())); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Member lookup the way Go's encoding/json matches struct fields: the exact key first, else a
// case-insensitive match (extenders written in other languages often capitalise the keys).
// JSON null counts as absent, like a nil pointer/map/slice in Go.
const json::value* member(const json::object& o, std::string_view key) {
  const json::value* found = o.if_contains(key);
  if (!found) {
    for (const auto& kv : o) {
      if (iequals(kv.key(), key)) {
        found = &kv.value();
        break;
      }
    }
  }
  return found && !found->is_null() ? found : nullptr;
}

util::Result<std::string> as_string(const json::value* v, std::string_view what) {
  if (!v) return std::string();
  if (!v->is_string())
    return util::make_error("json: cannot unmarshal " + json::serialize(*v) + " into " + std::string(what) +
                            " of type string");
  return std::string(v->get_string());
}

util::Result<std::int64_t> as_int64(const json::value* v, std::string_view what) {
  if (!v) return std::int64_t{0};
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() &&
      v->get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  return util::make_error("json: cannot unmarshal " + json::serialize(*v) + " into " + std::string(what) +
                          " of type int64");
}

util::Result<framework::FailedNodesMap> as_failed_nodes(const json::value* v, std::string_view what) {
  framework::FailedNodesMap out;
  if (!v) return out;
  if (!v->is_object())
    return util::make_error("json: cannot unmarshal " + std::string(what) + ": not an object");
  for (const auto& kv : v->get_object()) {
    auto msg = as_string(&kv.value(), what);
    if (!msg.ok()) return util::make_error(msg.error());
    out[std::string(kv.key())] = std::move(*msg);
  }
  return out;
}

util::Result<json::object> parse_object(const std::string& body, std::string_view what) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec) return util::make_error("decoding " + std::string(what) + ": " + ec.message());
  if (!v.is_object())
    return util::make_error("json: cannot unmarshal " + std::string(what) + ": not an object");
  return std::move(v.get_object());
}

bool has_managed_resource(const std::vector<api::Container>& containers,
                          const std::set<std::string, std::less<>>& managed) {
  for (const auto& c : containers) {
    for (const auto& [name, _] : c.resources.requests)
      if (managed.count(name)) return true;
    for (const auto& [name, _] : c.resources.limits)
      if (managed.count(name)) return true;
  }
  return false;
}

util::Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::make_error("open " + path + ": no such file or unreadable");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Inline data wins over the file, like client-go's dataFromSliceOrFile.
util::Result<std::string> data_or_file(const std::string& data, const std::string& file) {
  if (!data.empty() || file.empty()) return data;
  return read_file(file);
}

}  // namespace

// ---------------------------------------------------------------- construction

util::Result<std::shared_ptr<HTTPExtender>> HTTPExtender::create(const config::Extender& cfg) {
  std::shared_ptr<HTTPExtender> x(new HTTPExtender());
  x->url_prefix_ = cfg.urlPrefix;
  x->filter_verb_ = cfg.filterVerb;
  x->prioritize_verb_ = cfg.prioritizeVerb;
  x->preempt_verb_ = cfg.preemptVerb;
  x->bind_verb_ = cfg.bindVerb;
  x->weight_ = cfg.weight;
  x->node_cache_capable_ = cfg.nodeCacheCapable;
  x->ignorable_ = cfg.ignorable;
  for (const auto& r : cfg.managedResources) x->managed_resources_.insert(r.name);
  if (cfg.httpTimeout.count() > 0) {
    // Round sub-millisecond timeouts up so that they do not mean "no timeout".
    x->timeout_ = std::max(std::chrono::milliseconds(1),
                           std::chrono::duration_cast<std::chrono::milliseconds>(cfg.httpTimeout));
  }

  std::string_view url = cfg.urlPrefix;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return util::make_error("extender urlPrefix " + cfg.urlPrefix + ": must be an http:// or https:// URL");
  }
  const auto path_start = url.find('/', scheme_end + 3);
  std::string_view path = path_start == std::string_view::npos ? std::string_view() : url.substr(path_start);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  x->path_prefix_ = std::string(path);

  client::RestConfig rc;
  rc.host = std::string(url.substr(0, path_start));
  rc.qps = 0;  // no client-side throttling: every call is part of a scheduling cycle
  rc.timeout = x->timeout_;
  if (cfg.tlsConfig) {
    const auto& t = *cfg.tlsConfig;
    rc.insecure = t.insecure;
    rc.tls_server_name = t.serverName;
    auto ca = data_or_file(t.caData, t.caFile);
    if (!ca.ok()) return util::make_error("extender " + cfg.urlPrefix + ": " + ca.error());
    auto cert = data_or_file(t.certData, t.certFile);
    if (!cert.ok()) return util::make_error("extender " + cfg.urlPrefix + ": " + cert.error());
    auto key = data_or_file(t.keyData, t.keyFile);
    if (!key.ok()) return util::make_error("extender " + cfg.urlPrefix + ": " + key.error());
    rc.ca_pem = std::move(*ca);
    rc.cert_pem = std::move(*cert);
    rc.key_pem = std::move(*key);
  }
  if (cfg.enableHTTPS && rc.ca_pem.empty()) rc.insecure = true;  // HTTPS without a CA: no verification
  auto t = client::Transport::create(rc);
  if (!t.ok()) return util::make_error("extender " + cfg.urlPrefix + ": " + t.error());
  x->transport_ = std::move(*t);
  return x;
}

HTTPExtender::~HTTPExtender() = default;

util::Result<std::vector<std::shared_ptr<framework::Extender>>> build_extenders(
    const std::vector<config::Extender>& extenders) {
  std::vector<std::shared_ptr<framework::Extender>> out, ignorable;
  for (const auto& cfg : extenders) {
    log::V(2).info("Creating extender", {{"extender", cfg.urlPrefix}});
    auto x = HTTPExtender::create(cfg);
    if (!x.ok()) return util::make_error(x.error());
    (cfg.ignorable ? ignorable : out).push_back(std::move(*x));
  }
  out.insert(out.end(), ignorable.begin(), ignorable.end());
  return out;
}

util::Result<void> apply_extender_ignored_resources(const std::vector<config::Extender>& extenders,
                                                    std::vector<config::KubeSchedulerProfile>& profiles) {
  std::vector<std::string> ignored;
  for (const auto& x : extenders)
    for (const auto& r : x.managedResources)
      if (r.ignoredByScheduler) ignored.push_back(r.name);
  if (ignored.empty()) return {};
  for (auto& prof : profiles) {
    bool found = false;
    for (auto& pc : prof.pluginConfig) {
      if (pc.name != "NodeResourcesFit") continue;
      auto* args = std::get_if<config::NodeResourcesFitArgs>(&pc.args);
      if (!args)
        return util::make_error("want args to be of type NodeResourcesFitArgs for plugin NodeResourcesFit");
      args->ignoredResources = ignored;
      found = true;
      break;
    }
    if (!found) return util::make_error("can't find NodeResourcesFitArgs in plugin config");
  }
  return {};
}

// ---------------------------------------------------------------- calls

bool HTTPExtender::is_interested(const api::Pod& pod) const {
  if (managed_resources_.empty()) return true;
  return has_managed_resource(pod.spec.containers, managed_resources_) ||
         has_managed_resource(pod.spec.initContainers, managed_resources_);
}

util::Result<std::string> HTTPExtender::send(const std::string& verb, std::string body) {
  std::string url = url_prefix_;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/" + verb;
  client::HttpRequest req;
  req.method = "POST";
  req.target = path_prefix_ + "/" + verb;
  req.body = std::move(body);
  req.content_type = "application/json";
  req.timeout = timeout_;
  auto res = transport_->round_trip(req);
  if (!res.ok()) return util::make_error("Post \"" + url + "\": " + res.error().to_string());
  if (res->status != 200) {
    return util::make_error("failed " + verb + " with extender at URL " + url + ", code " +
                            std::to_string(res->status));
  }
  return std::move(res->body);
}

std::string HTTPExtender::extender_args(const api::Pod& pod,
                                        const std::vector<framework::NodeInfoPtr>& nodes) const {
  // An extender with its own node cache gets names only; otherwise the full Node objects.
  std::string out = "{\"pod\":" + api::encode(pod);
  if (node_cache_capable_) {
    out += ",\"nodenames\":[";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i) out += ',';
      out += quoted(nodes[i]->name());
    }
    out += "]}";
  } else {
    out += ",\"nodes\":{\"metadata\":{},\"items\":[";
    bool first = true;
    for (const auto& ni : nodes) {
      if (!ni->node()) continue;
      if (!first) out += ',';
      first = false;
      out += api::encode(*ni->node());
    }
    out += "]}}";
  }
  return out;
}

util::Result<void> HTTPExtender::filter(const api::Pod& pod, const std::vector<framework::NodeInfoPtr>& nodes,
                                        std::vector<framework::NodeInfoPtr>& feasible,
                                        framework::FailedNodesMap& failed,
                                        framework::FailedNodesMap& failed_and_unresolvable) {
  feasible.clear();
  failed.clear();
  failed_and_unresolvable.clear();
  if (filter_verb_.empty()) {
    feasible = nodes;
    return {};
  }
  auto body = send(filter_verb_, extender_args(pod, nodes));
  if (!body.ok()) return util::make_error(body.error());
  auto obj = parse_object(*body, "ExtenderFilterResult");
  if (!obj.ok()) return util::make_error(obj.error());
  auto err = as_string(member(*obj, "error"), "ExtenderFilterResult.error");
  if (!err.ok()) return util::make_error(err.error());
  if (!err->empty()) return util::make_error(*err);

  std::map<std::string_view, const framework::NodeInfoPtr*> by_name;
  for (const auto& ni : nodes) by_name.emplace(ni->name(), &ni);
  auto take = [&](std::string_view name) -> util::Result<void> {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return util::make_error("extender \"" + url_prefix_ + "\" claims a filtered node \"" +
                              std::string(name) + "\" which is not found in the input node list");
    }
    feasible.push_back(*it->second);
    return {};
  };
  const json::value* names = member(*obj, "nodenames");
  const json::value* list = member(*obj, "nodes");
  if (node_cache_capable_ && names) {
    if (!names->is_array())
      return util::make_error("json: cannot unmarshal ExtenderFilterResult.nodenames: not an array");
    for (const auto& n : names->get_array()) {
      auto name = as_string(&n, "ExtenderFilterResult.nodenames");
      if (!name.ok()) return util::make_error(name.error());
      if (auto r = take(*name); !r.ok()) return r;
    }
  } else if (list) {
    const json::value* items = list->is_object() ? member(list->get_object(), "items") : nullptr;
    if (items && !items->is_array())
      return util::make_error("json: cannot unmarshal ExtenderFilterResult.nodes.items: not an array");
    if (items) {
      for (const auto& item : items->get_array()) {
        const json::value* meta = item.is_object() ? member(item.get_object(), "metadata") : nullptr;
        const json::value* name_v = meta && meta->is_object() ? member(meta->get_object(), "name") : nullptr;
        auto name = as_string(name_v, "ExtenderFilterResult.nodes.items.metadata.name");
        if (!name.ok()) return util::make_error(name.error());
        if (auto r = take(*name); !r.ok()) return r;
      }
    }
  }
  // Neither list: the extender accepted no node.

  auto f = as_failed_nodes(member(*obj, "failedNodes"), "ExtenderFilterResult.failedNodes");
  if (!f.ok()) return util::make_error(f.error());
  auto fu = as_failed_nodes(member(*obj, "failedAndUnresolvableNodes"),
                            "ExtenderFilterResult.failedAndUnresolvableNodes");
  if (!fu.ok()) return util::make_error(fu.error());
  failed = std::move(*f);
  failed_and_unresolvable = std::move(*fu);
  return {};
}

util::Result<void> HTTPExtender::prioritize(const api::Pod& pod,
                                            const std::vector<framework::NodeInfoPtr>& nodes,
                                            std::vector<framework::HostPriority>& scores,
                                            std::int64_t& weight) {
  scores.clear();
  if (prioritize_verb_.empty()) {
    for (const auto& ni : nodes) scores.push_back({ni->name(), 0});
    weight = 0;
    return {};
  }
  auto body = send(prioritize_verb_, extender_args(pod, nodes));
  if (!body.ok()) return util::make_error(body.error());
  boost::system::error_code ec;
  json::value v = json::parse(*body, ec);
  if (ec) return util::make_error("decoding HostPriorityList: " + ec.message());
  if (!v.is_null()) {
    if (!v.is_array()) return util::make_error("json: cannot unmarshal HostPriorityList: not an array");
    for (const auto& e : v.get_array()) {
      if (!e.is_object()) return util::make_error("json: cannot unmarshal HostPriority: not an object");
      auto host = as_string(member(e.get_object(), "host"), "HostPriority.host");
      if (!host.ok()) return util::make_error(host.error());
      auto score = as_int64(member(e.get_object(), "score"), "HostPriority.score");
      if (!score.ok()) return util::make_error(score.error());
      scores.push_back({std::move(*host), *score});
    }
  }
  weight = weight_;
  return {};
}

util::Result<void> HTTPExtender::bind(const api::Pod& pod, const std::string& node) {
  if (!is_binder()) return util::make_error("unexpected empty bindVerb in extender");
  std::string args = "{\"podName\":" + quoted(pod.metadata.name) +
                     ",\"podNamespace\":" + quoted(pod.metadata.namespace_) +
                     ",\"podUID\":" + quoted(pod.metadata.uid) + ",\"node\":" + quoted(node) + "}";
  auto body = send(bind_verb_, std::move(args));
  if (!body.ok()) return util::make_error(body.error());
  auto obj = parse_object(*body, "ExtenderBindingResult");
  if (!obj.ok()) return util::make_error(obj.error());
  auto err = as_string(member(*obj, "error"), "ExtenderBindingResult.error");
  if (!err.ok()) return util::make_error(err.error());
  if (!err->empty()) return util::make_error(*err);
  return {};
}

util::Result<framework::NodeToVictims> HTTPExtender::process_preemption(
    const api::Pod& pod, const framework::NodeToVictims& victims,
    const framework::NodeInfoLister& node_infos) {
  if (!supports_preemption()) {
    return util::make_error("preempt verb is not defined for extender " + url_prefix_ +
                            " but run into ProcessPreemption");
  }
  // With its own node cache the extender gets victim UIDs only (MetaVictims); otherwise the pods.
  std::string args = "{\"pod\":" + api::encode(pod);
  if (!victims.empty()) {
    args += node_cache_capable_ ? ",\"nodeNameToMetaVictims\":{" : ",\"nodeNameToVictims\":{";
    bool first_node = true;
    for (const auto& [node, v] : victims) {
      if (!first_node) args += ',';
      first_node = false;
      args += quoted(node) + ":{\"pods\":[";
      for (std::size_t i = 0; i < v.pods.size(); ++i) {
        if (i) args += ',';
        args += node_cache_capable_ ? "{\"uid\":" + quoted(v.pods[i]->metadata.uid) + "}"
                                    : api::encode(*v.pods[i]);
      }
      args += "],\"numPDBViolations\":" + std::to_string(v.numPDBViolations) + "}";
    }
    args += '}';
  }
  args += '}';

  auto body = send(preempt_verb_, std::move(args));
  if (!body.ok()) return util::make_error(body.error());
  auto obj = parse_object(*body, "ExtenderPreemptionResult");
  if (!obj.ok()) return util::make_error(obj.error());

  // The answer always names victims by UID; resolve them against the snapshot.
  framework::NodeToVictims out;
  const json::value* meta = member(*obj, "nodeNameToMetaVictims");
  if (!meta) return out;
  if (!meta->is_object())
    return util::make_error("json: cannot unmarshal nodeNameToMetaVictims: not an object");
  for (const auto& kv : meta->get_object()) {
    const std::string node(kv.key());
    auto ni = node_infos.get(node);
    if (!ni || !ni->node()) return util::make_error("nodeinfo not found for node name \"" + node + "\"");
    framework::ExtenderVictims& v = out[node];
    if (kv.value().is_null()) continue;  // no victims: the caller decides what that means
    if (!kv.value().is_object()) return util::make_error("json: cannot unmarshal MetaVictims: not an object");
    const auto& mv = kv.value().get_object();
    auto pdb = as_int64(member(mv, "numPDBViolations"), "MetaVictims.numPDBViolations");
    if (!pdb.ok()) return util::make_error(pdb.error());
    v.numPDBViolations = *pdb;
    const json::value* pods = member(mv, "pods");
    if (!pods) continue;
    if (!pods->is_array()) return util::make_error("json: cannot unmarshal MetaVictims.pods: not an array");
    for (const auto& mp : pods->get_array()) {
      const json::value* uid_v = mp.is_object() ? member(mp.get_object(), "uid") : nullptr;
      auto uid = as_string(uid_v, "MetaPod.uid");
      if (!uid.ok()) return util::make_error(uid.error());
      framework::PodPtr found;
      for (const auto& pi : ni->pods) {
        if (pi->pod->metadata.uid == *uid) {
          found = pi->pod;
          break;
        }
      }
      if (!found) {
        return util::make_error("extender: " + url_prefix_ + " claims to preempt pod (UID: " + *uid +
                                ") on node: " + node + ", but the pod is not found on that node");
      }
      v.pods.push_back(std::move(found));
    }
  }
  return out;
}

}  // namespace ksched::scheduler
