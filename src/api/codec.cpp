// Non-template parts of the codec: per-thread parser, JSON string escaping and the table of
// interned unmodelled-member blocks.
#include <mutex>
#include <unordered_set>

#include "api/codec_impl.h"

namespace ksched::api {

// Interned Extra blocks, sharded by hash. The table holds one reference to each block. Every
// change of an interned block's count that can involve the table's reference (a lookup taking a
// reference, a user dropping one) happens under the shard lock, so the user whose release leaves
// only the table's reference removes and frees the block, and no lookup can revive it meanwhile.
// Copies of an ExtraFields add references without the lock: they are made from a live reference,
// so the count is at least 2 then.
struct ExtraFields::Intern {
  struct Hash {
    std::size_t operator()(const Header* b) const noexcept { return b->tag; }
  };
  struct Eq {
    bool operator()(const Header* a, const Header* b) const {
      return a->bytes == b->bytes && a->count == b->count && std::memcmp(data(a), data(b), a->bytes) == 0;
    }
  };
  struct Shard {
    std::mutex mu;
    std::unordered_set<Header*, Hash, Eq> set;
  };
  static constexpr std::size_t kShards = 16;
  static Shard& shard(std::uint32_t tag) {
    static auto* shards = new Shard[kShards];  // never destroyed: objects may outlive static destructors
    return shards[tag % kShards];
  }
};

ExtraFields::Header* ExtraFields::intern(Header* h) {
  h->tag = kInterned | (static_cast<std::uint32_t>(std::hash<std::string_view>{}(std::string_view(data(h), h->bytes))) &
                        ~kInterned);
  auto& s = Intern::shard(h->tag);
  std::lock_guard l(s.mu);
  if (auto it = s.set.find(h); it != s.set.end()) {
    (*it)->refs.fetch_add(1, std::memory_order_relaxed);
    destroy(h);
    return *it;
  }
  h->refs.store(2, std::memory_order_relaxed);  // the caller's and the table's
  s.set.insert(h);
  return h;
}

void ExtraFields::release_interned(Header* h) noexcept {
  auto& s = Intern::shard(h->tag);
  std::lock_guard l(s.mu);
  if (h->refs.fetch_sub(1, std::memory_order_acq_rel) == 2) {
    s.set.erase(h);
    destroy(h);
  }
}

}  // namespace ksched::api

namespace ksched::api::detail {

ThreadDecoder& thread_decoder() {
  thread_local ThreadDecoder td;
  return td;
}

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

}  // namespace ksched::api::detail
