// List continue tokens as upstream's apiserver storage writes and reads them: unpadded base64url
// of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the prefix>\u0000"}.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace ksched::apiserver {

struct ContinueToken {
  std::int64_t rv = 0;  // < 0: continue from the current state (upstream's inconsistent continuation)
  std::string start;    // the next key relative to the list's prefix, without the trailing NUL
};

// `next_key` is the key after the prefix of the first item not yet returned.
std::string encode_continue(std::int64_t rv, std::string_view next_key);

// Upstream's storage.DecodeContinue, with its error texts ("continue key is not valid: ...",
// Go's base64 and JSON messages inside); the list handler answers 400 "invalid continue token: "
// followed by the error.
util::Result<ContinueToken> decode_continue(std::string_view token);

}  // namespace ksched::apiserver
