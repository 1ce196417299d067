// A small described object for informer unit tests: metadata + one value, with a hand-written
// JSON codec so these tests do not depend on the api codec.
#pragma once
#include <boost/json.hpp>
#include <string>

#include "api/meta.h"
#include "informer/list_watch.h"

namespace ksched::testing {

struct TestObj {
  api::ObjectMeta metadata;
  std::string node;
  int value = 0;
};

inline std::shared_ptr<const TestObj> obj(std::string ns, std::string name, std::string rv, int value = 0,
                                          std::string node = {}) {
  auto o = std::make_shared<TestObj>();
  o->metadata.namespace_ = std::move(ns);
  o->metadata.name = std::move(name);
  o->metadata.resourceVersion = std::move(rv);
  o->value = value;
  o->node = std::move(node);
  return o;
}

inline boost::json::object to_json(const TestObj& o) {
  boost::json::object m{{"name", o.metadata.name}, {"resourceVersion", o.metadata.resourceVersion}};
  if (!o.metadata.namespace_.empty()) m["namespace"] = o.metadata.namespace_.view();
  return {{"metadata", m}, {"value", o.value}, {"node", o.node}};
}

inline std::string event_line(const std::string& type, const TestObj& o) {
  return boost::json::serialize(boost::json::object{{"type", type}, {"object", to_json(o)}});
}

inline std::string list_body(const std::vector<TestObj>& items, const std::string& rv, const std::string& cont = {}) {
  boost::json::array a;
  for (const auto& i : items) a.push_back(to_json(i));
  boost::json::object meta{{"resourceVersion", rv}};
  if (!cont.empty()) meta["continue"] = cont;
  return boost::json::serialize(boost::json::object{{"kind", "TestList"}, {"metadata", meta}, {"items", a}});
}

}  // namespace ksched::testing

template <>
struct ksched::informer::ObjectCodec<ksched::testing::TestObj> {
  using T = ksched::testing::TestObj;
  static T from(const boost::json::value& v) {
    T o;
    const auto& ob = v.as_object();
    const auto& m = ob.at("metadata").as_object();
    auto str = [](const boost::json::object& x, const char* k) {
      auto* p = x.if_contains(k);
      return p && p->is_string() ? std::string(p->as_string()) : std::string();
    };
    o.metadata.name = str(m, "name");
    o.metadata.namespace_ = str(m, "namespace");
    o.metadata.resourceVersion = str(m, "resourceVersion");
    if (auto* a = m.if_contains("annotations"); a && a->is_object())
      for (const auto& [k, val] : a->as_object()) o.metadata.annotations.set(std::string(k), std::string(val.as_string()));
    if (auto* p = ob.if_contains("value"); p && p->is_int64()) o.value = int(p->as_int64());
    o.node = str(ob, "node");
    return o;
  }
  static util::Result<T> decode(std::string_view json, const api::DecodeOptions& = {}) {
    boost::system::error_code ec;
    auto v = boost::json::parse(json, ec);
    if (ec || !v.is_object()) return util::make_error("bad json");
    return from(v);
  }
  static util::Result<void> decode_into(T& out, std::string_view json, const api::DecodeOptions& = {}) {
    auto r = decode(json);
    if (!r) return util::make_error(r.error());
    out = std::move(*r);
    return {};
  }
  static util::Result<ListResult<T>> decode_list(std::string_view json, const api::DecodeOptions& = {}) {
    boost::system::error_code ec;
    auto v = boost::json::parse(json, ec);
    if (ec) return util::make_error("bad json");
    ListResult<T> r;
    for (const auto& i : v.at("items").as_array()) r.items.push_back(from(i));
    const auto& m = v.at("metadata").as_object();
    r.resourceVersion = std::string(m.at("resourceVersion").as_string());
    if (auto* c = m.if_contains("continue")) r.continue_ = std::string(c->as_string());
    return r;
  }
};
