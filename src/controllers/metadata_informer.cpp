#include "controllers/metadata_informer.h"

#include <simdjson.h>

#include "api/codec.h"
#include "controllers/discovery.h"

namespace ksched::informer {

using controllers::ObjectMetadata;
namespace od = simdjson::ondemand;

namespace {

// One parser per thread, as the codec keeps: the object's own metadata is decoded by the codec
// (its own parser), from the raw text this one hands it.
struct Scratch {
  od::parser parser;
  std::string buffer;
};
thread_local Scratch scratch;

util::Result<void> decode_object(od::object obj, ObjectMetadata& out, const api::DecodeOptions& o) {
  out = ObjectMetadata{};
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return util::make_error("malformed object key");
    od::value v;
    if (field.value().get(v)) return util::make_error("malformed value of " + std::string(key));
    if (key == "apiVersion" || key == "kind") {
      std::string_view s;
      if (v.get_string().get(s)) return util::make_error(std::string(key) + ": expected a string");
      (key == "kind" ? out.kind : out.apiVersion) = std::string(s);
    } else if (key == "metadata") {
      od::object mo;
      std::string_view raw;
      if (v.get_object().get(mo) || mo.raw_json().get(raw)) return util::make_error("metadata: expected an object");
      auto m = api::decode<api::ObjectMeta>(raw, o);
      if (!m) return util::make_error("metadata." + m.error());
      out.metadata = std::move(*m);
    }
    // Anything else is skipped unread (the iterator steps over it).
  }
  return {};
}

od::document parse(std::string_view json, util::Result<void>& err) {
  auto& s = scratch;
  s.buffer.assign(json);
  s.buffer.append(simdjson::SIMDJSON_PADDING, '\0');
  od::document doc;
  if (auto ec = s.parser.iterate(s.buffer.data(), json.size(), s.buffer.size()).get(doc))
    err = util::make_error(std::string("invalid JSON: ") + simdjson::error_message(ec));
  return doc;
}

}  // namespace

util::Result<void> ObjectCodec<ObjectMetadata>::decode_into(ObjectMetadata& out, std::string_view json,
                                                            const api::DecodeOptions& o) {
  util::Result<void> err;
  auto doc = parse(json, err);
  if (!err) return err;
  od::object obj;
  if (doc.get_object().get(obj)) return util::make_error("expected a JSON object");
  return decode_object(obj, out, o);
}

util::Result<ObjectMetadata> ObjectCodec<ObjectMetadata>::decode(std::string_view json, const api::DecodeOptions& o) {
  ObjectMetadata out;
  if (auto r = decode_into(out, json, o); !r) return util::make_error(r.error());
  return out;
}

util::Result<ListResult<ObjectMetadata>> ObjectCodec<ObjectMetadata>::decode_list(std::string_view json,
                                                                                const api::DecodeOptions& o) {
  util::Result<void> err;
  auto doc = parse(json, err);
  if (!err) return util::make_error(err.error());
  od::object top;
  if (doc.get_object().get(top)) return util::make_error("expected a JSON object");
  ListResult<ObjectMetadata> out;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return util::make_error("malformed object key");
    od::value v;
    if (field.value().get(v)) return util::make_error("malformed value of " + std::string(key));
    if (key == "metadata") {
      od::object m;
      if (v.get_object().get(m)) return util::make_error("metadata: expected an object");
      for (auto mf : m) {
        std::string_view mk;
        if (mf.unescaped_key().get(mk)) return util::make_error("malformed object key");
        std::string_view s;
        if (mk == "resourceVersion" || mk == "continue") {
          if (mf.value().get_string().get(s)) return util::make_error("metadata." + std::string(mk) + ": expected a string");
          (mk == "continue" ? out.continue_ : out.resourceVersion) = std::string(s);
        }
      }
    } else if (key == "items") {
      od::array items;
      if (v.get_array().get(items)) return util::make_error("items: expected an array");
      for (auto item : items) {
        od::object io;
        if (item.get_object().get(io)) return util::make_error("items: expected objects");
        ObjectMetadata m;
        if (auto r = decode_object(io, m, o); !r) return util::make_error("items[" + std::to_string(out.items.size()) + "]." + r.error());
        out.items.push_back(std::move(m));
      }
    }
  }
  return out;
}

}  // namespace ksched::informer

namespace ksched::controllers {

std::shared_ptr<informer::SharedIndexInformer<ObjectMetadata>> new_metadata_informer(
    std::shared_ptr<client::RestClient> c, const ApiResource& resource, std::chrono::milliseconds resync) {
  informer::InformerOptions<ObjectMetadata> o;
  o.name = resource.group.empty() ? resource.resource : resource.resource + "." + resource.group;
  o.default_resync = resync;
  o.reflector.decode.dropManagedFields = true;
  std::string api_version = resource.api_version(), kind = resource.kind;
  o.transform = [api_version, kind](ObjectMetadata& m) {
    if (m.apiVersion.empty()) m.apiVersion = api_version;
    if (m.kind.empty()) m.kind = kind;
  };
  return std::make_shared<informer::SharedIndexInformer<ObjectMetadata>>(
      informer::rest_list_watch(std::move(c), resource.info()), std::move(o));
}

}  // namespace ksched::controllers
