#include "scheduler/simulate/cluster_objects.h"

#include <simdjson.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "api/codec.h"
#include "api/yaml_json.h"

namespace ksched::scheduler::simulate {
namespace {

template <class T>
util::Result<void> add_as(std::string_view json, std::vector<std::shared_ptr<const T>>& out) {
  api::DecodeOptions opts;
  opts.dropManagedFields = true;  // the scheduler never reads them; dumps are full of them
  auto obj = api::decode<T>(json, opts);
  if (!obj) return util::make_error(obj.error());
  out.push_back(std::make_shared<const T>(std::move(*obj)));
  return {};
}

util::Result<void> add_one(std::string_view kind, std::string_view json, ClusterObjects& out) {
  if (kind == "Node") return add_as(json, out.nodes);
  if (kind == "Pod") return add_as(json, out.pods);
  if (kind == "Namespace") return add_as(json, out.namespaces);
  if (kind == "PodDisruptionBudget") return add_as(json, out.pdbs);
  if (kind == "PersistentVolume") return add_as(json, out.pvs);
  if (kind == "PersistentVolumeClaim") return add_as(json, out.pvcs);
  if (kind == "StorageClass") return add_as(json, out.storageClasses);
  if (kind == "CSINode") return add_as(json, out.csiNodes);
  if (kind == "CSIDriver") return add_as(json, out.csiDrivers);
  if (kind == "PriorityClass") return add_as(json, out.priorityClasses);
  if (kind == "DeviceClass") return add_as(json, out.deviceClasses);
  if (kind == "ResourceSlice") return add_as(json, out.resourceSlices);
  if (kind == "ResourceClaim") return add_as(json, out.resourceClaims);
  if (kind == "ResourceClaimTemplate") return add_as(json, out.resourceClaimTemplates);
  if (kind == "Workload") return add_as(json, out.workloads);
  if (kind == "PodGroup") return add_as(json, out.podGroups);
  ++out.skippedKinds[std::string(kind)];
  return {};
}

std::string describe(simdjson::dom::element obj) {
  // Absent fields read as empty: this names an object in an error, it does not check it.
  std::string_view kind = "?", ns, name;
  if (obj["kind"].get(kind) != simdjson::SUCCESS) kind = "?";
  if (obj["metadata"]["namespace"].get(ns) != simdjson::SUCCESS) ns = {};
  if (obj["metadata"]["name"].get(name) != simdjson::SUCCESS) name = {};
  std::string out(kind);
  out += " ";
  if (!ns.empty()) out += std::string(ns) + "/";
  out += name.empty() ? std::string("(no name)") : std::string(name);
  return out;
}

// One JSON value: an object (a *List's items one by one) or an array of objects.
util::Result<void> add_json_value(simdjson::dom::element v, const std::string& where, ClusterObjects& out) {
  auto add_object = [&](simdjson::dom::element obj, const std::string& at) -> util::Result<void> {
    if (!obj.is_object()) return util::make_error(at + ": not an object");
    std::string_view kind;
    if (obj["kind"].get(kind) != simdjson::SUCCESS || kind.empty()) {
      std::string_view name;
      if (obj["metadata"]["name"].get(name) != simdjson::SUCCESS || name.empty()) {
        return util::make_error((at.empty() ? std::string() : at + ": ") + "an object with neither kind nor name");
      }
      return util::make_error(at + " (" + describe(obj) + "): no kind");
    }
    simdjson::dom::array items;
    if (kind.size() >= 4 && kind.substr(kind.size() - 4) == "List" && obj["items"].get(items) == simdjson::SUCCESS) {
      std::size_t i = 0;
      for (auto item : items) {
        const std::string item_at = at + "items[" + std::to_string(i++) + "]";
        std::string_view item_kind;
        if (!item.is_object() || item["kind"].get(item_kind) != simdjson::SUCCESS) {
          return util::make_error(item_at + ": not an object with a kind");
        }
        const std::string text = simdjson::minify(item);
        if (auto r = add_one(item_kind, text, out); !r) {
          return util::make_error(item_at + " (" + describe(item) + "): " + r.error());
        }
      }
      return {};
    }
    const std::string text = simdjson::minify(obj);
    if (auto r = add_one(kind, text, out); !r) return util::make_error(at + " (" + describe(obj) + "): " + r.error());
    return {};
  };
  if (v.is_array()) {
    std::size_t i = 0;
    for (auto obj : v.get_array()) {
      if (auto r = add_object(obj, where + "[" + std::to_string(i++) + "]"); !r) return r;
    }
    return {};
  }
  return add_object(v, where);
}

// YAML documents of a stream: the text between lines that start with "---" (a marker line may
// carry a comment or, as in "--- {a: 1}", the document itself).
std::vector<std::string> split_documents(std::string_view text) {
  std::vector<std::string> docs(1);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.substr(0, 3) == "---" && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')) {
      docs.emplace_back(line.substr(3));
      docs.back() += '\n';
    } else {
      docs.back().append(line);
      docs.back() += '\n';
    }
    at = end + 1;
  }
  return docs;
}

}  // namespace

util::Result<void> add_objects(std::string_view text, ClusterObjects& out) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  ClusterObjects got;
  if (text[first] == '{' || text[first] == '[') {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    simdjson::padded_string padded(text);
    if (auto err = parser.parse(padded).get(doc); err != simdjson::SUCCESS) {
      return util::make_error(std::string("malformed JSON: ") + simdjson::error_message(err));
    }
    if (auto r = add_json_value(doc, "", got); !r) return r;
  } else {
    // Documents are split here, on "---" lines as kubectl splits them, and loaded one by one:
    // yaml-cpp 0.7's LoadAll never returns on some malformed input that Load refuses.
    std::vector<YAML::Node> docs;
    for (const std::string& doc : split_documents(text)) {
      try {
        docs.push_back(YAML::Load(doc));
      } catch (const YAML::Exception& e) {
        return util::make_error("document " + std::to_string(docs.size() + 1) + ": malformed YAML: " + e.what());
      }
    }
    simdjson::dom::parser parser;
    for (std::size_t i = 0; i < docs.size(); ++i) {
      if (docs[i].IsNull()) continue;
      const std::string json = api::to_json_text(api::yaml_to_json(docs[i]));
      simdjson::dom::element doc;
      if (auto err = parser.parse(json).get(doc); err != simdjson::SUCCESS) {
        return util::make_error("document " + std::to_string(i + 1) + ": " + simdjson::error_message(err));
      }
      if (auto r = add_json_value(doc, "document " + std::to_string(i + 1) + " ", got); !r) return r;
    }
  }
  auto append = [](auto& to, auto& from) { to.insert(to.end(), from.begin(), from.end()); };
  append(out.nodes, got.nodes);
  append(out.pods, got.pods);
  append(out.namespaces, got.namespaces);
  append(out.pdbs, got.pdbs);
  append(out.pvs, got.pvs);
  append(out.pvcs, got.pvcs);
  append(out.storageClasses, got.storageClasses);
  append(out.csiNodes, got.csiNodes);
  append(out.csiDrivers, got.csiDrivers);
  append(out.priorityClasses, got.priorityClasses);
  append(out.deviceClasses, got.deviceClasses);
  append(out.resourceSlices, got.resourceSlices);
  append(out.resourceClaims, got.resourceClaims);
  append(out.resourceClaimTemplates, got.resourceClaimTemplates);
  append(out.workloads, got.workloads);
  append(out.podGroups, got.podGroups);
  for (const auto& [k, n] : got.skippedKinds) out.skippedKinds[k] += n;
  return {};
}

util::Result<ClusterObjects> load_objects_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::make_error("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return util::make_error("cannot read " + path + ": " + std::strerror(errno));
  ClusterObjects out;
  if (auto r = add_objects(ss.str(), out); !r) return util::make_error(path + ": " + r.error());
  return out;
}

}  // namespace ksched::scheduler::simulate
