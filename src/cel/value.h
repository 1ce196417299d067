// Runtime values of the evaluator: 16 bytes, no ownership. Strings and bytes are views (into the
// program's constants, the device, or the evaluation's arena); lists, maps, optionals, errors
// and computed quantities point into the program or the arena. Values derived from the device
// (its attribute and capacity maps) are views computed on access, so reading
// device.attributes["d"].model copies and allocates nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "api/quantity.h"
#include "cel/semver.h"

namespace ksched::cel {

enum class ValueKind : std::uint8_t {
  Null, Bool, Int, Uint, Double, String, Bytes, List, Map, Type, Quantity, Semver, Optional, Error,
  // Views into the device being evaluated.
  Device,      // the `device` variable (a map at runtime, as upstream passes it)
  AttrDomains, // device.attributes: domain -> attributes of that domain
  AttrIds,     // device.attributes[domain] (s/size: the domain)
  CapDomains,  // device.capacity
  CapIds,      // device.capacity[domain]
};

struct ListValue;
struct MapValue;
struct ErrorValue;
struct Value;

struct Value {
  ValueKind kind = ValueKind::Null;
  // Quantity: set for the results of add()/sub(), which upstream returns by pointer; that changes
  // how `==` treats them (see library.cpp, equals).
  std::uint8_t flags = 0;
  std::uint32_t size = 0;  // String, Bytes, Type (name), AttrIds/CapIds (domain) length
  union {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
    const char* s;
    const ListValue* list;
    const MapValue* map;
    const api::Quantity* q;
    const Semver* sv;
    const Value* opt;  // null: optional.none()
    const ErrorValue* err;
  };

  Value() : i(0) {}
  static Value null() { return Value(); }
  static Value boolean(bool v) {
    Value x;
    x.kind = ValueKind::Bool;
    x.b = v;
    return x;
  }
  static Value integer(std::int64_t v) {
    Value x;
    x.kind = ValueKind::Int;
    x.i = v;
    return x;
  }
  static Value uinteger(std::uint64_t v) {
    Value x;
    x.kind = ValueKind::Uint;
    x.u = v;
    return x;
  }
  static Value dbl(double v) {
    Value x;
    x.kind = ValueKind::Double;
    x.d = v;
    return x;
  }
  static Value string(std::string_view v) {
    Value x;
    x.kind = ValueKind::String;
    x.s = v.data();
    x.size = static_cast<std::uint32_t>(v.size());
    return x;
  }
  static Value bytes(std::string_view v) {
    Value x = string(v);
    x.kind = ValueKind::Bytes;
    return x;
  }
  static Value type(std::string_view name) {
    Value x = string(name);
    x.kind = ValueKind::Type;
    return x;
  }
  static Value of(ValueKind k) {
    Value x;
    x.kind = k;
    return x;
  }

  std::string_view str() const { return {s, size}; }
  bool is_error() const { return kind == ValueKind::Error; }
};
static_assert(sizeof(Value) == 16);

struct ListValue {
  std::uint32_t size = 0;
  const Value* elems = nullptr;
};

struct MapValue {
  std::uint32_t size = 0;
  const Value* keys = nullptr;
  const Value* values = nullptr;
};

struct ErrorValue {
  std::string_view message;
};

// Bump allocator for one evaluation's temporaries. Reset keeps the memory, so steady-state
// evaluation allocates nothing from the heap.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(std::size_t n, std::size_t align = alignof(std::max_align_t)) {
    std::size_t p = (used_ + align - 1) & ~(align - 1);
    if (chunk_ >= chunks_.size() || p + n > chunks_[chunk_].size) {
      next_chunk(n + align);
      p = (used_ + align - 1) & ~(align - 1);
    }
    used_ = p + n;
    total_ += n;
    return chunks_[chunk_].data.get() + p;
  }
  template <class T>
  T* make_array(std::size_t n) {
    return static_cast<T*>(allocate(sizeof(T) * (n == 0 ? 1 : n), alignof(T)));
  }
  std::string_view copy(std::string_view s) {
    char* p = make_array<char>(s.size());
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  void reset() {
    chunk_ = 0;
    used_ = 0;
    total_ = 0;
  }
  // Frees all memory beyond the first chunk.
  void release() {
    if (chunks_.size() > 1) chunks_.resize(1);
    reset();
  }
  // Bytes handed out since the last reset.
  std::size_t used() const { return total_; }

 private:
  struct Chunk {
    std::unique_ptr<char[]> data;
    std::size_t size;
  };
  // Moves to the next kept chunk that can hold `at_least` bytes, or adds one.
  void next_chunk(std::size_t at_least) {
    std::size_t k = chunks_.empty() ? 0 : chunk_ + 1;
    while (k < chunks_.size() && chunks_[k].size < at_least) ++k;
    if (k < chunks_.size()) {
      chunk_ = k;
      used_ = 0;
      return;
    }
    std::size_t size = std::max<std::size_t>(at_least, chunks_.empty() ? 4096 : chunks_.back().size * 2);
    chunks_.push_back({std::unique_ptr<char[]>(new char[size]), size});
    chunk_ = chunks_.size() - 1;
    used_ = 0;
  }

  std::vector<Chunk> chunks_;
  std::size_t chunk_ = 0;
  std::size_t used_ = 0;
  std::size_t total_ = 0;
};

}  // namespace ksched::cel
