// The one YAML -> JSON conversion (request bodies, node and pod templates, workload files), with
// the scalar rules of sigs.k8s.io/yaml (go-yaml v2, YAML 1.1): plain `0.5` is a JSON number,
// `yes`/`on` are booleans, `0x1f` and `0755` are integers, quoted scalars are always strings.
#pragma once
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "util/result.h"

namespace YAML {
class Node;
}

namespace ksched::api {

// Converts one parsed YAML document.
boost::json::value yaml_to_json(const YAML::Node& node);
// Parses and converts the first document of `text`; a syntax error names its line and column.
util::Result<boost::json::value> yaml_text_to_json(std::string_view text);

// JSON text with numbers as Go's encoding/json writes them (2.5, not Boost's 2.5E0).
std::string to_json_text(const boost::json::value& v);

}  // namespace ksched::api
