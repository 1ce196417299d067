#include "scheduler/filter_pass.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "api/helpers.h"
#include "util/log.h"

namespace ksched::scheduler {

using framework::Status;

FilterPass::FilterPass(framework::Framework& fwk, framework::CycleState& state, const api::Pod& pod,
                       const std::vector<framework::NodeInfoPtr>& nodes, std::size_t start, bool by_position,
                       RejectionSlots& slots)
    : fwk_(fwk),
      state_(state),
      pod_(pod),
      nodes_(nodes),
      start_(start),
      by_position_(by_position),
      slots_(slots),
      pass_(++slots.pass_) {}

Status FilterPass::run(int to_find, std::vector<framework::NodeInfoPtr>& feasible) {
  const int n = static_cast<int>(nodes_.size());
  if (n == 0) return {};
  if (!fwk_.has_filter_plugins()) {
    for (int i = 0; i < to_find; ++i) feasible.push_back(node_at(static_cast<std::size_t>(i)));
    return {};
  }

  auto& slots = slots_.slots_;
  if (slots.size() < nodes_.size()) slots.resize(nodes_.size());
  std::vector<framework::NodeInfoPtr> found(static_cast<std::size_t>(to_find));
  std::atomic<int> feasible_count{0};
  std::atomic<std::size_t> rejected{0};
  std::atomic<std::size_t> quick_rejected{0};
  std::atomic<int> scanned{0};
  std::atomic<bool> failed{false};
  std::mutex err_mu;
  Status first_error;
  const framework::Framework::QuickRejecter quick = fwk_.quick_rejecter(state_, pod_);
  const bool quick_by_position = quick.test.rejects_at != nullptr && by_position_;

  // Counts are summed per chunk: a counter shared per node bounces between the cores.
  auto check = [&](int begin, int end) {
    std::size_t rejected_here = 0;
    std::size_t quick_here = 0;
    int i = begin;
    bool go_on = true;
    for (; i < end; ++i) {
      if (failed.load(std::memory_order_relaxed) || feasible_count.load(std::memory_order_relaxed) >= to_find) {
        go_on = false;
        break;
      }
      const std::size_t at = (start_ + static_cast<std::size_t>(i)) % nodes_.size();
      const auto& ni = nodes_[at];
      const bool passed_over = quick_by_position
                                   ? quick.test.rejects_at(quick.test.data, static_cast<std::uint32_t>(at))
                                   : quick.test && quick.test.rejects(quick.test.data, *ni);
      auto& slot = slots[static_cast<std::size_t>(i)];
      if (passed_over) {
        slot.pass = pass_;
        slot.quick = true;
        ++quick_here;
        continue;
      }
      Status s = fwk_.run_filter_plugins_with_nominated_pods(state_, pod_, *ni);
      if (s.is_error()) {
        std::lock_guard l(err_mu);
        if (!failed.exchange(true)) first_error = s;
        go_on = false;
        break;
      }
      if (s.is_success()) {
        int len = feasible_count.fetch_add(1) + 1;
        if (len > to_find) {
          feasible_count.fetch_sub(1);
          continue;
        }
        found[static_cast<std::size_t>(len - 1)] = ni;
      } else {
        slot.pass = pass_;
        slot.status = std::move(s);
        slot.quick = false;
        ++rejected_here;
      }
    }
    if (rejected_here != 0) rejected.fetch_add(rejected_here, std::memory_order_relaxed);
    if (quick_here != 0) {
      quick_rejected.fetch_add(quick_here, std::memory_order_relaxed);
      fwk_.count_quick_rejections(quick.filter_index, quick_here);
    }
    for (int seen = scanned.load(std::memory_order_relaxed);
         seen < i && !scanned.compare_exchange_weak(seen, i, std::memory_order_relaxed);) {
    }
    return go_on;
  };
  fwk_.parallelizer().chunks(n, check);
  count_ = rejected.load() + quick_rejected.load();
  scanned_ = static_cast<std::size_t>(scanned.load());
  if (!failed && feasible_count.load() == 0 && quick_rejected.load() != 0) {
    // No node passed, so a diagnosis follows: every quickly rejected node gets its exact status
    // now, and an Error that a plugin skipped on it would have returned ends the attempt.
    std::vector<std::size_t> quick_slots;
    quick_slots.reserve(quick_rejected.load());
    for (std::size_t i = 0; i < scanned_; ++i) {
      if (slots[i].pass == pass_ && slots[i].quick) quick_slots.push_back(i);
    }
    fwk_.parallelizer().until(static_cast<int>(quick_slots.size()), [&](int k) {
      Status s = exact_rejection(quick_slots[static_cast<std::size_t>(k)]);
      if (s.is_error()) {
        std::lock_guard l(err_mu);
        if (!failed.exchange(true)) first_error = s;
      }
    });
    // A quick test that rejected a node its Filter plugins pass is a plugin bug; the node is
    // feasible all the same (exact_rejection left its slot empty).
    for (const std::size_t i : quick_slots) {
      if (slots[i].pass != pass_ && feasible_count.load() < to_find) {
        found[static_cast<std::size_t>(feasible_count.fetch_add(1))] = node_at(i);
        --count_;
      }
    }
  }
  if (failed) {
    recorded_ = true;  // an error ends the attempt; its rejections say nothing
    return first_error;
  }
  const int count = std::min(feasible_count.load(), to_find);
  for (int i = 0; i < count; ++i) feasible.push_back(std::move(found[static_cast<std::size_t>(i)]));
  return {};
}

Status FilterPass::exact_rejection(std::size_t i) {
  auto& slot = slots_.slots_[i];
  const auto& ni = node_at(i);
  Status s = fwk_.run_filter_plugins_with_nominated_pods(state_, pod_, *ni);
  slot.quick = false;
  if (s.is_success()) {
    log::error("A Filter plugin's quick test rejected a node its Filter passes",
               {{"pod", api::key_of(pod_)}, {"node", std::string(ni->name_view())}});
    slot.pass = 0;
    return s;
  }
  slot.status = s;
  return s;
}

void FilterPass::record(framework::Diagnosis& diagnosis) {
  if (recorded_) return;
  recorded_ = true;
  if (count_ == 0) return;
  auto& slots = slots_.slots_;
  diagnosis.nodeToStatus.reserve(diagnosis.nodeToStatus.size() + count_);
  // Consecutive nodes are mostly rejected by the same plugin: its name is added to the
  // diagnosis once per run of them.
  const std::string* last_plugin = nullptr;
  framework::Code last_code = framework::Code::Success;
  for (std::size_t i = 0; i < scanned_; ++i) {
    auto& slot = slots[i];
    if (slot.pass != pass_) continue;
    if (slot.quick && exact_rejection(i).is_success()) continue;
    Status& st = slot.status;
    if (&st.plugin() != last_plugin || st.code() != last_code) {
      diagnosis.add_plugin_status(st);
      last_plugin = &st.plugin();
      last_code = st.code();
    }
    diagnosis.nodeToStatus.set(node_at(i)->name(), std::move(st));
  }
}

}  // namespace ksched::scheduler
