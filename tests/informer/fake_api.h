// An in-memory list/watch source with resourceVersions, history and compaction, for testing the
// Reflector and SharedIndexInformer without a network.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include "client/watch.h"
#include "informer/test_obj.h"

namespace ksched::testing {

// A ResponseStream fed by another thread; read() blocks until data, close or stop.
class ChannelStream final : public client::ResponseStream {
 public:
  int status() const override { return 200; }
  std::string header(std::string_view) const override { return {}; }
  bool read(std::string& out) override {
    std::unique_lock l(mu_);
    cv_.wait(l, [&] { return stopped_ || closed_ || !chunks_.empty(); });
    if (stopped_) return false;
    if (chunks_.empty()) return false;
    out.append(chunks_.front());
    chunks_.pop_front();
    return true;
  }
  void push(std::string s) {
    std::lock_guard l(mu_);
    chunks_.push_back(std::move(s));
    cv_.notify_all();
  }
  void close() {
    std::lock_guard l(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  void stop() override {
    std::lock_guard l(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  bool stopped() const override {
    std::lock_guard l(mu_);
    return stopped_;
  }
  std::string error() const override { return {}; }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> chunks_;
  bool closed_ = false, stopped_ = false;
};

// Lets the WatchStream and the FakeApi share one channel.
class SharedStream final : public client::ResponseStream {
 public:
  explicit SharedStream(std::shared_ptr<ChannelStream> c) : c_(std::move(c)) {}
  int status() const override { return 200; }
  std::string header(std::string_view) const override { return {}; }
  bool read(std::string& out) override { return c_->read(out); }
  void stop() override { c_->stop(); }
  bool stopped() const override { return c_->stopped(); }
  std::string error() const override { return {}; }

 private:
  std::shared_ptr<ChannelStream> c_;
};

class FakeApi {
 public:
  // Applies a change and notifies watchers. type: ADDED/MODIFIED/DELETED.
  void apply(const std::string& type, TestObj o) {
    std::lock_guard l(mu_);
    o.metadata.resourceVersion = std::to_string(++rv_);
    auto key = informer::meta_namespace_key(o);
    if (type == "DELETED") {
      state_.erase(key);
    } else {
      state_[key] = o;
    }
    auto line = event_line(type, o) + "\n";
    history_.push_back({rv_, line});
    std::erase_if(watchers_, [](const auto& w) { return w->stopped(); });
    for (auto& w : watchers_) w->push(line);
  }
  // Drops history up to now and ends every open watch with a 410 ERROR event.
  void compact_and_expire() {
    std::lock_guard l(mu_);
    compacted_ = rv_;
    history_.clear();
    for (auto& w : watchers_) {
      w->push(R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}})"
              "\n");
      w->close();
    }
    watchers_.clear();
  }
  // Ends every open watch cleanly (like a server-side timeout).
  void close_watches() {
    std::lock_guard l(mu_);
    for (auto& w : watchers_) w->close();
    watchers_.clear();
  }
  std::map<std::string, TestObj> state() const {
    std::lock_guard l(mu_);
    return state_;
  }
  int lists() const { return lists_; }
  std::size_t open_watches() const {
    std::lock_guard l(mu_);
    return watchers_.size();
  }

  informer::ListWatch list_watch() {
    informer::ListWatch lw;
    lw.list = [this](const client::ListOptions& o) -> client::Result<std::string> {
      std::unique_lock l(mu_);
      lists_held_cv_.wait(l, [&] { return !lists_held_; });
      ++lists_;
      if (fail_lists_ > 0) {
        --fail_lists_;
        client::ApiError e;
        e.message = "connection refused";
        return e;
      }
      std::vector<TestObj> all;
      std::size_t start = o.continue_.empty() ? 0 : std::stoul(o.continue_);
      if (start == 0) snapshot_ = state_, snapshot_rv_ = rv_;
      for (auto& [k, v] : snapshot_) all.push_back(v);
      std::size_t end = o.limit > 0 ? std::min(all.size(), start + std::size_t(o.limit)) : all.size();
      std::vector<TestObj> page(all.begin() + start, all.begin() + end);
      return list_body(page, std::to_string(snapshot_rv_), end < all.size() ? std::to_string(end) : "");
    };
    lw.watch = [this](const client::ListOptions& o) -> client::Result<std::unique_ptr<client::WatchStream>> {
      std::lock_guard l(mu_);
      auto s = std::make_shared<ChannelStream>();
      std::uint64_t from = o.resourceVersion.empty() ? rv_ : std::stoull(o.resourceVersion);
      if (from < compacted_) {
        s->push(R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version"}})"
                "\n");
        s->close();
        return std::make_unique<client::WatchStream>(std::make_unique<SharedStream>(s));
      }
      for (auto& [rv, line] : history_)
        if (rv > from) s->push(line);
      watchers_.push_back(s);
      return std::make_unique<client::WatchStream>(std::make_unique<SharedStream>(s));
    };
    return lw;
  }
  void fail_next_lists(int n) {
    std::lock_guard l(mu_);
    fail_lists_ = n;
  }
  // While held, list calls wait: changes applied meanwhile are certainly missed by the watch and
  // seen only by the next list.
  void hold_lists(bool hold) {
    std::lock_guard l(mu_);
    lists_held_ = hold;
    lists_held_cv_.notify_all();
  }

 private:
  mutable std::mutex mu_;
  std::uint64_t rv_ = 100, compacted_ = 0, snapshot_rv_ = 0;
  std::map<std::string, TestObj> state_, snapshot_;
  std::vector<std::pair<std::uint64_t, std::string>> history_;
  std::vector<std::shared_ptr<ChannelStream>> watchers_;
  int lists_ = 0;
  int fail_lists_ = 0;
  bool lists_held_ = false;
  std::condition_variable lists_held_cv_;
};

}  // namespace ksched::testing
