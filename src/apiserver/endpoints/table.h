// Server-side printing (meta.k8s.io/v1 Table) as kubectl get requests it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/resources.h"
#include "apiserver/storage/storage.h"

namespace ksched::apiserver {

enum class IncludeObject { None, Metadata, Object };

struct TableOptions {
  IncludeObject include = IncludeObject::Metadata;
  bool with_columns = true;
  std::int64_t now_unix = 0;
};

// A Table of `items` (one row each); list metadata fields when rv/cont are set.
std::string make_table(const ResourceInfo& r, const std::vector<std::string_view>& items_json, const TableOptions& opts,
                       const std::string& rv, const std::string& cont, std::int64_t remaining);
// kubectl's human-readable age ("5s", "3m20s", "2d4h").
std::string human_age(std::int64_t seconds);

}  // namespace ksched::apiserver
