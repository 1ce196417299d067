#include "controllers/controller.h"

#include "util/log.h"
#include "util/thread.h"

namespace ksched::controllers {

void InformerRegistry::add(const std::string& name, std::function<const informer::ReflectorStats&()> stats) {
  std::lock_guard l(mu_);
  stats_.emplace(name, std::move(stats));
}

InformerRegistry::Counts InformerRegistry::totals() const {
  std::lock_guard l(mu_);
  Counts c;
  for (const auto& [name, f] : stats_) {
    const auto& s = f();
    c.lists += s.lists.load();
    c.watches += s.watches.load();
    c.relists_expired += s.relists_expired.load();
    c.errors += s.errors.load();
  }
  return c;
}

std::vector<std::string> InformerRegistry::names() const {
  std::lock_guard l(mu_);
  std::vector<std::string> out;
  for (const auto& [name, f] : stats_) out.push_back(name);
  return out;
}

KeyWorkers::KeyWorkers(std::string name, Sync sync, const util::Clock& clock, int max_retries)
    : name_(std::move(name)), sync_(std::move(sync)), max_retries_(max_retries),
      queue_(informer::default_controller_rate_limiter<std::string>(clock), clock) {}

KeyWorkers::~KeyWorkers() { stop(); }

void KeyWorkers::start(int workers) {
  for (int i = 0; i < std::max(1, workers); ++i)
    threads_.emplace_back([this] {
      util::set_thread_name(name_);
      work();
    });
}

void KeyWorkers::stop() {
  queue_.shut_down();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void KeyWorkers::work() {
  for (;;) {
    auto key = queue_.get();
    if (!key) return;
    util::Result<void> r = util::Error{};
    try {
      r = sync_(*key);
    } catch (const std::exception& e) {
      r = util::Error{std::string("sync threw: ") + e.what()};
    }
    if (r) {
      queue_.forget(*key);
    } else if (max_retries_ < 0 || queue_.num_requeues(*key) < max_retries_) {
      log::V(2).info("Error syncing; requeuing", {{"controller", name_}, {"key", *key}, {"err", r.error()}});
      queue_.add_rate_limited(*key);
    } else {
      log::info("Dropping key out of the queue", {{"controller", name_}, {"key", *key}, {"err", r.error()}});
      queue_.forget(*key);
    }
    queue_.done(*key);
  }
}

}  // namespace ksched::controllers
