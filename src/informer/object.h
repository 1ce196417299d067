// Shared, immutable cached objects and their keys, as client-go's cache.MetaNamespaceKeyFunc.
// Every cached object is a std::shared_ptr<const T>: readers share it, an update replaces the
// pointer, so listers hand out objects without copying and without locks held.
#pragma once
#include <memory>
#include <string>

namespace ksched::informer {

template <class T>
using Ptr = std::shared_ptr<const T>;

// "namespace/name", or "name" for cluster-scoped objects.
template <class T>
std::string meta_namespace_key(const T& obj) {
  const auto& m = obj.metadata;
  if (m.namespace_.empty()) return m.name;
  std::string k;
  k.reserve(m.namespace_.size() + 1 + m.name.size());
  k += m.namespace_;
  k += '/';
  k += m.name;
  return k;
}

// What OnDelete receives: the last known object, or, when the deletion was observed only through a
// relist (watch gap), a tombstone (DeletedFinalStateUnknown) holding the key and the last state
// the cache had, which may be stale.
template <class T>
struct Deleted {
  Ptr<T> obj;
  bool final_state_unknown = false;
  std::string key;
};

}  // namespace ksched::informer
