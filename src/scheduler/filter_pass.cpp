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

struct FilterPass::Walk {
  int to_find = 0;
  framework::Framework::QuickRejecter quick;
  bool quick_by_position = false;
  std::vector<framework::NodeInfoPtr> found;  // the feasible nodes, by the order they were found
  std::atomic<int> feasible{0};
  std::atomic<std::size_t> rejected{0};
  std::atomic<std::size_t> quick_rejected{0};
  std::atomic<int> scanned{0};
  std::atomic<bool> failed{false};
  std::mutex err_mu;
  Status first_error;
};

Status FilterPass::run(int to_find, std::vector<framework::NodeInfoPtr>& feasible) {
  const int n = static_cast<int>(nodes_.size());
  if (n == 0) return {};
  if (!fwk_.has_filter_plugins()) {
    for (int i = 0; i < to_find; ++i) feasible.push_back(node_at(static_cast<std::size_t>(i)));
    return {};
  }
  if (slots_.slots_.size() < nodes_.size()) slots_.slots_.resize(nodes_.size());
  Walk w;
  w.to_find = to_find;
  w.found.resize(static_cast<std::size_t>(to_find));
  w.quick = fwk_.quick_rejecter(state_, pod_);
  w.quick_by_position = w.quick.test.rejects_at != nullptr && by_position_;
  fwk_.parallelizer().chunks(n, [&](int begin, int end) { return visit(begin, end, w); });
  count_ = w.rejected.load() + w.quick_rejected.load();
  scanned_ = static_cast<std::size_t>(w.scanned.load());
  if (!w.failed && w.feasible.load() == 0 && w.quick_rejected.load() != 0) resolve_quick_rejections(w);
  if (w.failed) {
    recorded_ = true;  // an error ends the attempt; its rejections say nothing
    return w.first_error;
  }
  const int count = std::min(w.feasible.load(), to_find);
  for (int i = 0; i < count; ++i) feasible.push_back(std::move(w.found[static_cast<std::size_t>(i)]));
  return {};
}

bool FilterPass::visit(int begin, int end, Walk& w) {
  // Counts are summed per chunk: a counter shared per node bounces between the cores.
  std::size_t rejected_here = 0;
  std::size_t quick_here = 0;
  int i = begin;
  bool go_on = true;
  for (; i < end; ++i) {
    if (w.failed.load(std::memory_order_relaxed) || w.feasible.load(std::memory_order_relaxed) >= w.to_find) {
      go_on = false;
      break;
    }
    const std::size_t at = (start_ + static_cast<std::size_t>(i)) % nodes_.size();
    const auto& ni = nodes_[at];
    const bool passed_over = w.quick_by_position
                                 ? w.quick.test.rejects_at(w.quick.test.data, static_cast<std::uint32_t>(at))
                                 : w.quick.test && w.quick.test.rejects(w.quick.test.data, *ni);
    auto& slot = slots_.slots_[static_cast<std::size_t>(i)];
    if (passed_over) {
      slot.pass = pass_;
      slot.quick = true;
      ++quick_here;
      continue;
    }
    Status s = fwk_.run_filter_plugins_with_nominated_pods(state_, pod_, *ni);
    if (s.is_error()) {
      fail(w, s);
      go_on = false;
      break;
    }
    if (s.is_success()) {
      const int len = w.feasible.fetch_add(1) + 1;
      if (len > w.to_find) {
        w.feasible.fetch_sub(1);
        continue;
      }
      w.found[static_cast<std::size_t>(len - 1)] = ni;
    } else {
      slot.pass = pass_;
      slot.status = std::move(s);
      slot.quick = false;
      ++rejected_here;
    }
  }
  if (rejected_here != 0) w.rejected.fetch_add(rejected_here, std::memory_order_relaxed);
  if (quick_here != 0) {
    w.quick_rejected.fetch_add(quick_here, std::memory_order_relaxed);
    fwk_.count_quick_rejections(w.quick.filter_index, quick_here);
  }
  for (int seen = w.scanned.load(std::memory_order_relaxed);
       seen < i && !w.scanned.compare_exchange_weak(seen, i, std::memory_order_relaxed);) {
  }
  return go_on;
}

void FilterPass::resolve_quick_rejections(Walk& w) {
  // A diagnosis follows: an Error that a plugin skipped on a quickly rejected node would have
  // returned ends the attempt, as the plain walk would have.
  auto& slots = slots_.slots_;
  std::vector<std::size_t> quick_slots;
  quick_slots.reserve(w.quick_rejected.load());
  for (std::size_t i = 0; i < scanned_; ++i) {
    if (slots[i].pass == pass_ && slots[i].quick) quick_slots.push_back(i);
  }
  fwk_.parallelizer().until(static_cast<int>(quick_slots.size()), [&](int k) {
    Status s = exact_rejection(quick_slots[static_cast<std::size_t>(k)]);
    if (s.is_error()) fail(w, s);
  });
  // A quick test that rejected a node its Filter plugins pass is a plugin bug; the node is
  // feasible all the same (exact_rejection left its slot empty).
  for (const std::size_t i : quick_slots) {
    if (slots[i].pass != pass_ && w.feasible.load() < w.to_find) {
      w.found[static_cast<std::size_t>(w.feasible.fetch_add(1))] = node_at(i);
      --count_;
    }
  }
}

void FilterPass::fail(Walk& w, const Status& s) {
  std::lock_guard l(w.err_mu);
  if (!w.failed.exchange(true)) w.first_error = s;
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
