// SharedVector<T>: a copy-on-write vector for members that repeat verbatim across many cached
// objects (labels, annotations, resource lists, tolerations, owner references of replicas).
//
// Copies share one reference-counted block; the first write through a shared handle copies it.
// The codec interns decoded blocks by their JSON text (intern_decoded), so 10,000 replicas whose
// `tolerations` read the same hold one vector between them, and a handle costs 8 bytes (null when
// empty) instead of std::vector's 24.
//
// Reading through a const handle never copies. The non-const accessors (begin/end/operator[]/
// front/back on a non-const object, mut()) detach first, like any COW container: code that only
// reads should use a const reference, or vec().
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/intern_table.h"

namespace ksched::api {

template <class T>
class SharedVector {
  struct Block {
    // References; an interned block also holds one for the table (see release()).
    std::atomic<std::uint32_t> refs{1};
    bool interned = false;
    std::size_t hash = 0;
    std::vector<T> v;
    std::string key;  // the JSON text it was decoded from (interned blocks)
  };

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;
  using reference = T&;
  using const_reference = const T&;

  SharedVector() noexcept = default;
  SharedVector(std::vector<T> v) {  // NOLINT: implicit, so members can be assigned vectors
    if (!v.empty()) b_ = new Block{{1}, false, 0, std::move(v), {}};
  }
  SharedVector(std::initializer_list<T> il) : SharedVector(std::vector<T>(il)) {}
  SharedVector(const SharedVector& o) noexcept : b_(o.b_) {
    // From a live reference: the count is at least 1 (2 for interned blocks), so no lock is needed.
    if (b_) b_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  SharedVector(SharedVector&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  SharedVector& operator=(const SharedVector& o) noexcept {
    SharedVector(o).swap(*this);
    return *this;
  }
  SharedVector& operator=(SharedVector&& o) noexcept {
    SharedVector(std::move(o)).swap(*this);
    return *this;
  }
  SharedVector& operator=(std::vector<T> v) {
    SharedVector(std::move(v)).swap(*this);
    return *this;
  }
  ~SharedVector() { release(b_); }
  void swap(SharedVector& o) noexcept { std::swap(b_, o.b_); }

  // ---- reading (never copies)
  const std::vector<T>& vec() const noexcept { return b_ ? b_->v : empty_vec(); }
  operator const std::vector<T>&() const noexcept { return vec(); }  // NOLINT: pass where a vector is read
  size_type size() const noexcept { return b_ ? b_->v.size() : 0; }
  bool empty() const noexcept { return size() == 0; }
  size_type capacity() const noexcept { return b_ ? b_->v.capacity() : 0; }
  const_iterator begin() const noexcept { return vec().begin(); }
  const_iterator end() const noexcept { return vec().end(); }
  const_iterator cbegin() const noexcept { return vec().begin(); }
  const_iterator cend() const noexcept { return vec().end(); }
  const T& operator[](size_type i) const { return vec()[i]; }
  const T& at(size_type i) const { return vec().at(i); }
  const T& front() const { return vec().front(); }
  const T& back() const { return vec().back(); }
  const T* data() const noexcept { return vec().data(); }
  // True when both handles share one block (tests and memory accounting).
  bool shares_with(const SharedVector& o) const noexcept { return b_ && b_ == o.b_; }

  friend bool operator==(const SharedVector& a, const SharedVector& b) {
    return a.b_ == b.b_ || a.vec() == b.vec();
  }
  friend bool operator==(const SharedVector& a, const std::vector<T>& b) { return a.vec() == b; }

  // ---- writing (detaches a shared block first)
  std::vector<T>& mut() {
    if (!b_) {
      b_ = new Block{};
    } else if (b_->interned || b_->refs.load(std::memory_order_acquire) != 1) {
      auto* n = new Block{{1}, false, 0, b_->v, {}};
      release(std::exchange(b_, n));
    }
    return b_->v;
  }
  iterator begin() { return mut().begin(); }
  iterator end() { return mut().end(); }
  T& operator[](size_type i) { return mut()[i]; }
  T& at(size_type i) { return mut().at(i); }
  T& front() { return mut().front(); }
  T& back() { return mut().back(); }
  void clear() noexcept { release(std::exchange(b_, nullptr)); }
  void reserve(size_type n) {
    if (n > capacity()) mut().reserve(n);
  }
  void resize(size_type n) { mut().resize(n); }
  void push_back(const T& v) { mut().push_back(v); }
  void push_back(T&& v) { mut().push_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... a) {
    return mut().emplace_back(std::forward<A>(a)...);
  }
  template <class... A>
  iterator emplace(const_iterator pos, A&&... a) {
    auto i = pos - cbegin();
    auto& m = mut();
    return m.emplace(m.begin() + i, std::forward<A>(a)...);
  }
  iterator insert(const_iterator pos, const T& v) { return emplace(pos, v); }
  iterator erase(const_iterator pos) {
    auto i = pos - cbegin();
    auto& m = mut();
    return m.erase(m.begin() + i);
  }
  iterator erase(const_iterator first, const_iterator last) {
    auto i = first - cbegin(), j = last - cbegin();
    auto& m = mut();
    return m.erase(m.begin() + i, m.begin() + j);
  }
  void pop_back() { mut().pop_back(); }

  // Blocks of this element type now in the intern table (tests, memory accounting).
  static std::size_t interned_blocks() { return InternTable<Block>::instance().size(); }

  // The codec's fast path, before decoding: when a block decoded from the same JSON text is
  // interned, this handle shares it and the caller skips decoding (true).
  bool adopt_interned(std::string_view json) {
    const std::size_t h = std::hash<std::string_view>{}(json);
    Block* got = InternTable<Block>::instance().find(h, [&](const Block& b) { return b.key == json; });
    if (got == nullptr) return false;
    release(std::exchange(b_, got));
    return true;
  }

  // The codec's path: this handle holds a freshly decoded, unshared block whose JSON text was
  // `json`; swap it for the interned block with the same text (or make it that block).
  void intern_decoded(std::string_view json) {
    if (!b_ || b_->interned || b_->refs.load(std::memory_order_relaxed) != 1) return;
    const std::size_t h = std::hash<std::string_view>{}(json);
    Block* got = InternTable<Block>::instance().intern(
        h, b_, [&](const Block& b) { return b.key == json; },
        [&](Block& b) {
          b.interned = true;
          b.hash = h;
          b.key.assign(json);
        });
    if (got != b_) delete std::exchange(b_, got);
  }

 private:
  static const std::vector<T>& empty_vec() noexcept {
    static const std::vector<T> e;
    return e;
  }
  static void release(Block* b) noexcept {
    if (!b) return;
    if (!b->interned) {
      if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b;
      return;
    }
    if (InternTable<Block>::instance().release(b, b->hash)) delete b;  // outside the table's lock
  }

  Block* b_ = nullptr;
};

}  // namespace ksched::api
