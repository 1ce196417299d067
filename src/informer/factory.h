// SharedInformerFactory (client-go informers/factory.go): one informer per type (plus per explicit
// key for filtered variants), created on first request; Start() starts only informers not yet
// started; WaitForCacheSync() waits for the started ones.
#pragma once
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <typeindex>
#include <utility>

#include "client/rest.h"
#include "informer/shared_informer.h"
#include "util/clock.h"

namespace ksched::informer {

class SharedInformerFactory {
 public:
  explicit SharedInformerFactory(std::shared_ptr<client::RestClient> c,
                                 std::chrono::milliseconds default_resync = std::chrono::milliseconds(0),
                                 std::string ns = {}, const util::Clock& clock = util::RealClock::instance())
      : client_(std::move(c)), default_resync_(default_resync), namespace_(std::move(ns)), clock_(clock) {}
  ~SharedInformerFactory() { shutdown(); }

  // The informer for T; the first registration's options win (later calls get the same informer).
  // `variant` distinguishes differently filtered informers of the same type.
  template <class T>
  std::shared_ptr<SharedIndexInformer<T>> informer_for(InformerOptions<T> opts = {},
                                                       std::function<void(client::ListOptions&)> tweak = {},
                                                       const std::string& variant = {}) {
    std::lock_guard l(mu_);
    Key key{std::type_index(typeid(T)), variant};
    if (auto it = informers_.find(key); it != informers_.end())
      return std::static_pointer_cast<SharedIndexInformer<T>>(it->second);
    const auto& info = client::ResourceFor<T>::info;
    if (opts.name == "informer") opts.name = std::string(info.resource) + (variant.empty() ? "" : "(" + variant + ")");
    if (opts.default_resync.count() == 0) opts.default_resync = default_resync_;
    if (opts.clock == &util::RealClock::instance()) opts.clock = &clock_;
    auto inf = std::make_shared<SharedIndexInformer<T>>(
        rest_list_watch(client_, info, info.namespaced ? namespace_ : std::string(), std::move(tweak),
                        api::protobuf::kTypedDecoding<T>),
        std::move(opts));
    informers_.emplace(key, inf);
    return inf;
  }

  void start() {
    std::lock_guard l(mu_);
    if (shutting_down_) return;
    for (auto& [k, inf] : informers_)
      if (!inf->started()) inf->start();
  }

  // Waits (polling every 10 ms; upstream polls every 100 ms) until every started informer synced or
  // the timeout passed on the factory's clock; returns name -> synced.
  std::map<std::string, bool> wait_for_cache_sync(std::chrono::milliseconds timeout) {
    auto deadline = clock_.now() + timeout;
    for (;;) {
      std::map<std::string, bool> out;
      bool all = true;
      {
        std::lock_guard l(mu_);
        for (auto& [k, inf] : informers_) {
          if (!inf->started()) continue;
          bool s = inf->has_synced();
          out[inf->name()] = s;
          all = all && s;
        }
      }
      if (all || clock_.now() >= deadline) return out;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  void shutdown() {
    std::map<Key, std::shared_ptr<InformerBase>> all;
    {
      std::lock_guard l(mu_);
      shutting_down_ = true;
      all = informers_;
    }
    for (auto& [k, inf] : all) inf->stop();
  }

  client::RestClient& client() { return *client_; }

 private:
  using Key = std::pair<std::type_index, std::string>;
  std::shared_ptr<client::RestClient> client_;
  std::chrono::milliseconds default_resync_;
  std::string namespace_;
  const util::Clock& clock_;  // wait_for_cache_sync's deadline; informers given no clock of their own
  std::mutex mu_;
  std::map<Key, std::shared_ptr<InformerBase>> informers_;
  bool shutting_down_ = false;
};

}  // namespace ksched::informer
