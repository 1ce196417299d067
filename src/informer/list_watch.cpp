#include "informer/list_watch.h"

#include <boost/json.hpp>

namespace ksched::informer {

std::string_view watch_event_object(std::string_view line, std::string& scratch) {
  // {"type":"ADDED","object":{...}}
  if (line.size() > 12 && line.substr(0, 9) == "{\"type\":\"") {
    auto q = line.find('"', 9);
    constexpr std::string_view obj = ",\"object\":";
    if (q != std::string_view::npos && line.substr(q + 1, obj.size()) == obj && line.back() == '}') {
      auto start = q + 1 + obj.size();
      return line.substr(start, line.size() - 1 - start);
    }
  }
  boost::system::error_code ec;
  auto v = boost::json::parse(line, ec);
  if (ec || !v.is_object()) return {};
  auto* o = v.as_object().if_contains("object");
  if (!o) return {};
  scratch = boost::json::serialize(*o);
  return scratch;
}

ListWatch rest_list_watch(std::shared_ptr<client::RestClient> c, const client::ResourceInfo& info, std::string ns,
                          std::function<void(client::ListOptions&)> tweak) {
  auto ref = client::ResourceRef::of(info, ns);
  ListWatch lw;
  lw.list = [c, ref](const client::ListOptions& o) { return c->list(ref, o); };
  lw.watch = [c, ref](const client::ListOptions& o) { return c->watch(ref, o); };
  lw.tweak = std::move(tweak);
  return lw;
}

}  // namespace ksched::informer
