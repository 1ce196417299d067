// ThinString's texts: interned ones shared by reference count and listed in an InternTable, and the
// well-known ones in static storage.
#include "api/compact_string.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <iterator>

#include "api/intern_table.h"

namespace ksched::api {

namespace {

// Header of an interned text; the NUL-terminated characters follow it.
struct SharedText {
  std::atomic<std::uint32_t> refs{1};
  std::uint32_t size = 0;
  std::size_t hash = 0;

  char* text() { return reinterpret_cast<char*>(this + 1); }
  const char* text() const { return reinterpret_cast<const char*>(this + 1); }
  static SharedText* of(const char* text) {
    return reinterpret_cast<SharedText*>(const_cast<char*>(text)) - 1;
  }
};
static_assert(sizeof(SharedText) == 16);
static_assert(offsetof(SharedText, size) == 4);  // ThinString::text_size reads it inline

using Table = InternTable<SharedText>;

void destroy(SharedText* b) noexcept {
  b->~SharedText();
  std::free(b);
}

// A fresh, unlisted block holding `s`.
SharedText* make_block(std::string_view s, std::size_t hash) {
  void* mem = std::malloc(sizeof(SharedText) + s.size() + 1);
  if (!mem) throw std::bad_alloc();
  auto* b = new (mem) SharedText{};
  b->size = static_cast<std::uint32_t>(s.size());
  b->hash = hash;
  std::memcpy(b->text(), s.data(), s.size());
  b->text()[s.size()] = '\0';
  return b;
}

// Values of a pod's enum-like members and of the conditions the control plane writes (a
// ThinString with one of these values points at static storage instead of the intern table).
constexpr std::string_view kWellKnown[] = {
    // conditions
    "True", "False", "Unknown", "PodScheduled", "Ready", "Initialized", "ContainersReady",
    "PodReadyToStartContainers", "DisruptionTarget", "Unschedulable", "SchedulerError",
    "PreemptionByScheduler", "PodCompleted", "ContainersNotReady", "ContainersNotInitialized",
    "ReadinessGatesNotReady", "TerminationByKubelet", "DeletionByTaintManager", "EvictionByEvictionAPI",
    "DeletionByPodGC",
    // type meta, phase, qosClass, restart/pull/DNS/preemption policies, defaults
    "v1", "Pod", "Pending", "Running", "Succeeded", "Failed", "Guaranteed", "Burstable", "BestEffort",
    "Always", "OnFailure", "Never", "IfNotPresent", "ClusterFirst", "ClusterFirstWithHostNet", "Default",
    "None", "PreemptLowerPriority", "default-scheduler", "default"};

// Open-addressed by (size, first and last character): the lookup costs a few compares and no lock.
class WellKnownTexts {
 public:
  WellKnownTexts() {
    for (auto s : kWellKnown) {
      std::size_t i = slot(s);
      while (slots_[i]) i = (i + 1) % kSlots;
      slots_[i] = make_block(s, 0);  // never freed
    }
  }
  const char* find(std::string_view s) const noexcept {
    if (s.empty() || s.size() > 32) return nullptr;
    for (std::size_t i = slot(s); slots_[i]; i = (i + 1) % kSlots) {
      const SharedText* b = slots_[i];
      if (b->size == s.size() && std::memcmp(b->text(), s.data(), s.size()) == 0) return b->text();
    }
    return nullptr;
  }
  static const WellKnownTexts& instance() {
    static const auto* t = new WellKnownTexts;  // never destroyed, like the values pointing at it
    return *t;
  }

 private:
  static constexpr std::size_t kSlots = 128;
  static_assert(std::size(kWellKnown) * 2 <= kSlots);
  static std::size_t slot(std::string_view s) noexcept {
    return (s.size() * 7 + static_cast<unsigned char>(s.front()) * 3 + static_cast<unsigned char>(s.back())) % kSlots;
  }
  SharedText* slots_[kSlots] = {};
};

// The interned text equal to `s` (non-empty), with a reference taken for the caller.
const char* intern(std::string_view s) {
  if (s.size() > UINT32_MAX) throw std::length_error("ThinString: longer than 4 GiB");
  const std::size_t hash = std::hash<std::string_view>{}(s);
  auto same = [&](const SharedText& b) {
    return b.size == s.size() && std::memcmp(b.text(), s.data(), s.size()) == 0;
  };
  Table& table = Table::instance();
  SharedText* got = table.find(hash, same);
  if (!got) {
    SharedText* fresh = make_block(s, hash);
    got = table.intern(hash, fresh, same, [](SharedText&) {});
    if (got != fresh) destroy(fresh);  // another thread listed the same text first
  }
  return got->text();
}

}  // namespace

ThinString& ThinString::assign(std::string_view s) {
  if (s.empty()) {
    clear();
    return *this;
  }
  if (p_ && view() == s) return *this;
  std::uintptr_t fresh;
  if (const char* known = WellKnownTexts::instance().find(s)) {
    fresh = reinterpret_cast<std::uintptr_t>(known) | kStatic;
  } else {
    fresh = reinterpret_cast<std::uintptr_t>(intern(s));
  }
  release();  // after the lookup: `s` may view this string's own text
  p_ = fresh;
  return *this;
}

std::size_t ThinString::interned_texts() { return Table::instance().size(); }

void ThinString::add_ref_interned(const char* text) noexcept {
  SharedText::of(text)->refs.fetch_add(1, std::memory_order_relaxed);
}

void ThinString::release_interned(const char* text) noexcept {
  SharedText* b = SharedText::of(text);
  if (Table::instance().release(b, b->hash)) destroy(b);
}

}  // namespace ksched::api
