// Metadata-only informers (client-go's metadatainformer): list and watch any resource, keeping
// apiVersion, kind and metadata of each object and skipping the rest while decoding. The garbage
// collector watches every resource this way, so its cache holds what ownership needs and no more.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "controllers/types.h"
#include "informer/list_watch.h"
#include "informer/shared_informer.h"

namespace ksched::informer {

// Decodes any object as ObjectMetadata (top-level apiVersion, kind, metadata; other members are
// skipped, not kept). List items usually carry no apiVersion and kind: new_metadata_informer's
// transform fills them in from the resource watched.
template <>
struct ObjectCodec<controllers::ObjectMetadata> {
  static util::Result<controllers::ObjectMetadata> decode(std::string_view json, const api::DecodeOptions& o = {});
  static util::Result<void> decode_into(controllers::ObjectMetadata& out, std::string_view json,
                                        const api::DecodeOptions& o = {});
  static util::Result<ListResult<controllers::ObjectMetadata>> decode_list(std::string_view json,
                                                                          const api::DecodeOptions& o = {});
};

}  // namespace ksched::informer

namespace ksched::controllers {

struct ApiResource;

// A metadata informer over `resource` in all namespaces.
std::shared_ptr<informer::SharedIndexInformer<ObjectMetadata>> new_metadata_informer(
    std::shared_ptr<client::RestClient> c, const ApiResource& resource, std::chrono::milliseconds resync);

}  // namespace ksched::controllers
