#include "scheduler/framework/runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "scheduler/framework/parallelizer.h"
#include "scheduler_testing/testing.h"

namespace ksched::scheduler::framework {
namespace {
using testing::MakeNode;
using testing::MakePod;

struct CallLog {
  std::mutex mu;
  std::vector<std::string> calls;
  void add(std::string s) {
    std::lock_guard l(mu);
    calls.push_back(std::move(s));
  }
};

// A plugin implementing every extension point; behaviour is set per test.
class TestPlugin final : public PreEnqueuePlugin,
                         public QueueSortPlugin,
                         public PreFilterPlugin,
                         public FilterPlugin,
                         public PostFilterPlugin,
                         public PreScorePlugin,
                         public ScorePlugin,
                         public ReservePlugin,
                         public PermitPlugin,
                         public PreBindPlugin,
                         public BindPlugin,
                         public PostBindPlugin,
                         public PreFilterExtensions {
 public:
  TestPlugin(std::string name, CallLog* log) : name_(std::move(name)), log_(log) {}
  std::string_view name() const override { return name_; }

  Status pre_enqueue(const api::Pod&) override { return pre_enqueue_status; }
  bool less(const QueuedPodInfo&, const QueuedPodInfo&) const override { return false; }
  Status pre_filter(CycleState&, const api::Pod&, const std::vector<NodeInfoPtr>&, PreFilterResult& r) override {
    log_->add("PreFilter/" + name_);
    if (pre_filter_nodes) r.nodeNames = *pre_filter_nodes;
    return pre_filter_status;
  }
  PreFilterExtensions* pre_filter_extensions() override { return this; }
  Status add_pod(CycleState&, const api::Pod&, const PodInfoPtr& p, const NodeInfo&) override {
    log_->add("AddPod/" + name_ + "/" + p->pod->metadata.name);
    return {};
  }
  Status remove_pod(CycleState&, const api::Pod&, const PodInfoPtr&, const NodeInfo&) override { return {}; }
  Status filter(const CycleState&, const api::Pod&, const NodeInfo& ni) override {
    if (filter_fn) return filter_fn(ni);
    return {};
  }
  QuickReject quick_reject(const CycleState&, const api::Pod&) const override {
    if (!quick_fn) return {};
    return {[](const void* fn, const NodeInfo& ni) {
              return (*static_cast<const std::function<bool(const NodeInfo&)>*>(fn))(ni);
            },
            &quick_fn};
  }
  bool filter_error_depends_on_node() const override { return error_depends_on_node; }
  Status post_filter(CycleState&, const api::Pod&, const NodeToStatus&, PostFilterResult& r) override {
    log_->add("PostFilter/" + name_);
    r = post_filter_result;
    return post_filter_status;
  }
  Status pre_score(CycleState&, const api::Pod&, const std::vector<NodeInfoPtr>&) override {
    log_->add("PreScore/" + name_);
    return pre_score_status;
  }
  Status score(const CycleState&, const api::Pod&, const NodeInfo& ni, std::int64_t& s) override {
    if (score_fn) return score_fn(ni, s);
    s = 0;
    return {};
  }
  bool has_normalize_score() const override { return normalize; }
  bool scores_nothing(const CycleState&, const api::Pod&) const override { return nothing_to_score; }
  Status normalize_score(const CycleState&, const api::Pod&, NodeScoreList& scores) override {
    // Reverse: max - s (as many plugins do), keeps the test arithmetic obvious.
    for (auto& s : scores) s.score = kMaxNodeScore - s.score;
    return {};
  }
  Status reserve(CycleState&, const api::Pod&, const std::string&) override {
    log_->add("Reserve/" + name_);
    return reserve_status;
  }
  void unreserve(CycleState&, const api::Pod&, const std::string&) override { log_->add("Unreserve/" + name_); }
  Status permit(CycleState&, const api::Pod&, const std::string&, std::chrono::milliseconds& timeout) override {
    timeout = permit_timeout;
    return permit_status;
  }
  Status pre_bind(CycleState&, const api::Pod&, const std::string&) override { return {}; }
  Status bind(CycleState&, const api::Pod&, const std::string& node) override {
    log_->add("Bind/" + name_ + "/" + node);
    return bind_status;
  }
  void post_bind(CycleState&, const api::Pod&, const std::string&) override { log_->add("PostBind/" + name_); }

  Status pre_enqueue_status, pre_filter_status, post_filter_status, pre_score_status, reserve_status,
      permit_status, bind_status;
  std::optional<std::set<std::string>> pre_filter_nodes;
  std::function<Status(const NodeInfo&)> filter_fn;
  std::function<bool(const NodeInfo&)> quick_fn;  // set: the plugin offers a quick rejection
  bool error_depends_on_node = true;
  std::function<Status(const NodeInfo&, std::int64_t&)> score_fn;
  bool normalize = false;
  bool nothing_to_score = false;
  PostFilterResult post_filter_result;
  std::chrono::milliseconds permit_timeout{0};

 private:
  std::string name_;
  CallLog* log_;
};

// A plugin that only filters (for "does not extend" checks).
class FilterOnly final : public FilterPlugin {
 public:
  std::string_view name() const override { return "FilterOnly"; }
  Status filter(const CycleState&, const api::Pod&, const NodeInfo&) override { return {}; }
};

struct Fixture {
  CallLog log;
  std::map<std::string, std::shared_ptr<TestPlugin>> plugins;
  Registry registry;
  config::KubeSchedulerProfile profile;
  testing::FakeSnapshot snapshot;
  testing::FakeNominator nominator;
  testing::FakeClusterClient client;
  util::FakeClock clock;
  CallLog observed;
  std::vector<double> duration_bounds;  // FrameworkDeps::plugin_duration_bounds
  int filter_timing_stride = FrameworkDeps{}.filter_timing_stride;

  explicit Fixture(std::vector<std::string> names) {
    for (auto n : {"Sort", "Binder"}) names.emplace_back(n);
    for (const auto& n : names) {
      auto p = std::make_shared<TestPlugin>(n, &log);
      plugins[n] = p;
      (void)registry.add(n, [p](const PluginArgs&, Handle&) -> util::Result<std::shared_ptr<Plugin>> { return std::shared_ptr<Plugin>(p); });
    }
    (void)registry.add("FilterOnly", [](const PluginArgs&, Handle&) -> util::Result<std::shared_ptr<Plugin>> {
      return std::shared_ptr<Plugin>(std::make_shared<FilterOnly>());
    });
    profile.schedulerName = "test-scheduler";
    profile.plugins.queueSort.enabled = {{"Sort", std::nullopt}};
    profile.plugins.bind.enabled = {{"Binder", std::nullopt}};
  }
  TestPlugin& operator[](const std::string& n) { return *plugins.at(n); }
  std::unique_ptr<Framework> make(bool inline_parallel = true) {
    FrameworkDeps d;
    d.client = &client;
    d.nominator = &nominator;
    d.node_infos = &snapshot;
    d.storage_infos = &snapshot;
    d.clock = &clock;
    d.plugin_observer = [this](std::string_view plugin, std::string_view point, const Status& s,
                              std::chrono::nanoseconds) {
      observed.add(std::string(point) + "/" + std::string(plugin) + "/" + code_name(s.code()));
    };
    d.plugin_duration_bounds = duration_bounds;
    d.filter_timing_stride = filter_timing_stride;
    if (inline_parallel) d.parallelizer = std::make_shared<testing::InlineParallelizer>();
    auto f = Framework::create(profile, registry, d);
    EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error());
    return f.ok() ? std::move(f.value()) : nullptr;
  }
  std::string make_error() {
    FrameworkDeps d;
    d.parallelizer = std::make_shared<testing::InlineParallelizer>();
    auto f = Framework::create(profile, registry, d);
    return f.ok() ? "" : f.error();
  }
};

std::vector<config::Plugin> names(std::initializer_list<const char*> ns) {
  std::vector<config::Plugin> out;
  for (auto n : ns) out.push_back({n, std::nullopt});
  return out;
}

TEST(FrameworkInit, MultiPointExpansionOrderAndWeights) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.multiPoint.enabled = {{"A", 3}, {"B", std::nullopt}, {"C", 2}};
  // C explicitly at Filter: it moves first (override), then multiPoint A, B.
  fx.profile.plugins.filter.enabled = names({"C"});
  // B disabled at Score.
  fx.profile.plugins.score.disabled = names({"B"});
  // Score weight at the Score point wins over multiPoint's.
  fx.profile.plugins.score.enabled = {{"C", 7}};
  fx.profile.plugins.preScore.disabled = names({"*"});
  // Test plugins implement every point; keep exactly one sorter and binder.
  fx.profile.plugins.queueSort.disabled = names({"*"});
  fx.profile.plugins.bind.disabled = names({"*"});
  auto f = fx.make();
  ASSERT_TRUE(f);
  auto lp = f->list_plugins();
  EXPECT_EQ(lp["Filter"], (std::vector<std::string>{"C", "A", "B"}));
  EXPECT_EQ(lp["Score"], (std::vector<std::string>{"C", "A"}));
  EXPECT_EQ(lp.count("PreScore"), 0u);
  EXPECT_EQ(lp["QueueSort"], (std::vector<std::string>{"Sort"}));
  EXPECT_EQ(lp["Bind"], (std::vector<std::string>{"Binder"}));
  EXPECT_EQ(f->score_weights().at("C"), 7);
  EXPECT_EQ(f->score_weights().at("A"), 3);
  EXPECT_EQ(f->score_weights().at("B"), 1);  // unset -> 1
}

TEST(FrameworkInit, Errors) {
  {
    Fixture fx({"A"});
    fx.profile.plugins.filter.enabled = names({"Missing"});
    EXPECT_EQ(fx.make_error(), "FilterPlugin \"Missing\" does not exist");
  }
  {
    Fixture fx({"A"});
    fx.profile.plugins.score.enabled = names({"FilterOnly"});
    EXPECT_EQ(fx.make_error(), "plugin \"FilterOnly\" does not extend ScorePlugin plugin");
  }
  {
    Fixture fx({"A"});
    fx.profile.plugins.filter.enabled = names({"A", "A"});
    EXPECT_EQ(fx.make_error(), "plugin \"A\" already registered as \"FilterPlugin\"");
  }
  {
    Fixture fx({"A"});
    fx.profile.plugins.queueSort.enabled = names({"Sort", "A"});
    EXPECT_EQ(fx.make_error(),
              "only one queue sort plugin required for profile with scheduler name \"test-scheduler\", but got 2");
  }
  {
    Fixture fx({"A"});
    fx.profile.plugins.bind.enabled.clear();
    EXPECT_EQ(fx.make_error(), "at least one bind plugin is needed for profile with scheduler name \"test-scheduler\"");
  }
  {
    Fixture fx({"A"});
    fx.profile.plugins.multiPoint.enabled = names({"A", "A"});
    EXPECT_EQ(fx.make_error(), "plugin \"A\" already registered as \"PreEnqueuePlugin\"");
  }
  {
    Fixture fx({"A"});
    fx.profile.plugins.score.enabled = {{"A", std::numeric_limits<std::int32_t>::max()}};
    fx.registry = Registry();
    // Re-register with the same plugin objects (cleared above).
    for (auto& [n, p] : fx.plugins) {
      auto pp = p;
      (void)fx.registry.add(n, [pp](const PluginArgs&, Handle&) -> util::Result<std::shared_ptr<Plugin>> { return std::shared_ptr<Plugin>(pp); });
    }
    EXPECT_TRUE(fx.make_error().empty());  // 2^31 * 100 fits in int64
  }
  {
    Registry r;
    auto failing = [](const PluginArgs&, Handle&) -> util::Result<std::shared_ptr<Plugin>> {
      return util::make_error("bad args");
    };
    EXPECT_TRUE(r.add("X", failing).ok());
    EXPECT_EQ(r.add("X", failing).error(), "a plugin named X already exists");
    config::KubeSchedulerProfile p;
    p.plugins.filter.enabled = names({"X"});
    FrameworkDeps d;
    d.parallelizer = std::make_shared<testing::InlineParallelizer>();
    auto f = Framework::create(p, r, d);
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.error(), "initializing plugin \"X\": bad args");
  }
}

TEST(FrameworkInit, ArgsArePassedTyped) {
  Registry r;
  std::optional<std::int32_t> seen;
  (void)r.add("Sort", [](const PluginArgs&, Handle&) -> util::Result<std::shared_ptr<Plugin>> {
    return std::shared_ptr<Plugin>(std::make_shared<TestPlugin>("Sort", nullptr));
  });
  (void)r.add("Binder", [&](const PluginArgs& a, Handle&) -> util::Result<std::shared_ptr<Plugin>> {
    if (auto* ipa = a.as<config::InterPodAffinityArgs>()) seen = ipa->hardPodAffinityWeight;
    return std::shared_ptr<Plugin>(std::make_shared<TestPlugin>("Binder", nullptr));
  });
  config::KubeSchedulerProfile p;
  p.plugins.queueSort.enabled = names({"Sort"});
  p.plugins.bind.enabled = names({"Binder"});
  p.pluginConfig.push_back({"Binder", config::InterPodAffinityArgs{42, false}});
  FrameworkDeps d;
  d.parallelizer = std::make_shared<testing::InlineParallelizer>();
  ASSERT_TRUE(Framework::create(p, r, d).ok());
  EXPECT_EQ(seen, 42);
}

TEST(FrameworkPreFilter, SkipAndNodeSetMerge) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.preFilter.enabled = names({"A", "B", "C"});
  fx["A"].pre_filter_status = Status::skip();
  fx["B"].pre_filter_nodes = std::set<std::string>{"n1", "n2"};
  fx["C"].pre_filter_nodes = std::set<std::string>{"n2", "n3"};
  auto f = fx.make();
  CycleState st;
  PreFilterResult r;
  std::set<std::string> unsched;
  EXPECT_TRUE(f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched).is_success());
  EXPECT_EQ(*r.nodeNames, (std::set<std::string>{"n2"}));
  EXPECT_EQ(st.skip_filter_plugins, (std::set<std::string, std::less<>>{"A"}));
  // As upstream's third result: the plugins whose node sets the result is made of.
  EXPECT_EQ(unsched, (std::set<std::string>{"B", "C"}));
}

TEST(FrameworkPreFilter, SkippedPluginsDoNotFilter) {
  Fixture fx({"A", "B"});
  fx.profile.plugins.preFilter.enabled = names({"A", "B"});
  fx.profile.plugins.filter.enabled = names({"A", "B"});
  fx["A"].pre_filter_status = Status::skip();
  int a_calls = 0, b_calls = 0;
  fx["A"].filter_fn = [&](const NodeInfo&) {
    ++a_calls;
    return Status();
  };
  fx["B"].filter_fn = [&](const NodeInfo&) {
    ++b_calls;
    return Status();
  };
  auto f = fx.make();
  CycleState st;
  PreFilterResult r;
  std::set<std::string> unsched;
  ASSERT_TRUE(f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched).is_success());
  NodeInfo ni(MakeNode().Name("n1").Ptr());
  EXPECT_TRUE(f->run_filter_plugins(st, MakePod().Name("p").Obj(), ni).is_success());
  EXPECT_EQ(a_calls, 0);
  EXPECT_EQ(b_calls, 1);
  // A clone (preemption dry runs) keeps the skip decisions.
  auto c = st.clone();
  EXPECT_TRUE(f->run_filter_plugins(*c, MakePod().Name("p").Obj(), ni).is_success());
  EXPECT_EQ(a_calls, 0);
  // Editing the set afterwards is still honoured.
  st.skip_filter_plugins.insert("B");
  EXPECT_TRUE(f->run_filter_plugins(st, MakePod().Name("p").Obj(), ni).is_success());
  EXPECT_EQ(b_calls, 2);
}

TEST(FrameworkPreFilter, EmptyIntersectionMessages) {
  {
    Fixture fx({"A", "B"});
    // Run order B, A; the message lists plugin names sorted.
    fx.profile.plugins.preFilter.enabled = names({"B", "A"});
    fx["A"].pre_filter_nodes = std::set<std::string>{"n1"};
    fx["B"].pre_filter_nodes = std::set<std::string>{"n2"};
    auto f = fx.make();
    CycleState st;
    PreFilterResult r;
    std::set<std::string> unsched;
    Status s = f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched);
    EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
    EXPECT_EQ(s.message(), "node(s) didn't satisfy plugin(s) [A B] simultaneously");
    EXPECT_EQ(unsched, (std::set<std::string>{"A", "B"}));
  }
  {
    Fixture fx({"A", "B"});
    fx.profile.plugins.preFilter.enabled = names({"A", "B"});
    fx["B"].pre_filter_nodes = std::set<std::string>{};
    auto f = fx.make();
    CycleState st;
    PreFilterResult r;
    std::set<std::string> unsched;
    Status s = f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched);
    EXPECT_EQ(s.message(), "node(s) didn't satisfy plugin B");
  }
}

// The plugins that returned node sets reject every node outside the result (their status names
// them), and are not reported when a plugin's own verdict ended the run.
TEST(FrameworkPreFilter, ReportsThePluginsThatReturnedNodeSets) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.preFilter.enabled = names({"A", "B", "C"});
  fx["A"].pre_filter_nodes = std::set<std::string>{"n1", "n2"};
  fx["C"].pre_filter_nodes = std::set<std::string>{"n2", "n3"};
  auto f = fx.make();
  CycleState st;
  PreFilterResult r;
  std::set<std::string> with_nodes{"stale"};
  ASSERT_TRUE(f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, with_nodes).is_success());
  EXPECT_EQ(with_nodes, (std::set<std::string>{"A", "C"}));
  EXPECT_EQ(prefilter_result_rejection(with_nodes).message(), "node(s) didn't satisfy plugin(s) [A C]");
  EXPECT_EQ(prefilter_result_rejection(with_nodes).code(), Code::UnschedulableAndUnresolvable);

  fx["B"].pre_filter_status = Status::unresolvable("b says never");
  Status s = f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, with_nodes);
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_TRUE(with_nodes.empty());
}

TEST(FrameworkPreFilter, RejectionSemantics) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.preFilter.enabled = names({"A", "B", "C"});
  fx["A"].pre_filter_status = Status::unschedulable("a says no");
  fx["B"].pre_filter_status = Status::unresolvable("b says never");
  auto f = fx.make();
  CycleState st;
  PreFilterResult r;
  std::set<std::string> unsched;
  Status s = f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched);
  // U&U returns at once: C never runs.
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_EQ(fx.log.calls, (std::vector<std::string>{"PreFilter/A", "PreFilter/B"}));

  fx.log.calls.clear();
  fx["B"].pre_filter_status = Status();
  s = f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched);
  // Unschedulable is remembered while the rest still run.
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(fx.log.calls.size(), 3u);

  fx["A"].pre_filter_status = Status::error("boom");
  s = f->run_pre_filter_plugins(st, MakePod().Name("p").Obj(), r, unsched);
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "running PreFilter plugin \"A\": boom");
}

TEST(FrameworkFilter, FirstFailureWinsAndSkips) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.filter.enabled = names({"A", "B", "C"});
  int c_calls = 0;
  fx["B"].filter_fn = [](const NodeInfo& ni) {
    return ni.name() == "bad" ? Status::unschedulable("B rejects") : Status();
  };
  fx["C"].filter_fn = [&](const NodeInfo&) {
    ++c_calls;
    return Status(Code::Wait, "odd");
  };
  auto f = fx.make();
  CycleState st;
  auto pod = MakePod().Name("p").Obj();
  NodeInfo bad(MakeNode().Name("bad").Ptr());
  NodeInfo good(MakeNode().Name("good").Ptr());
  Status s = f->run_filter_plugins(st, pod, bad);
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_EQ(c_calls, 0);
  s = f->run_filter_plugins(st, pod, good);
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(), "running \"C\" filter plugin: odd");
  EXPECT_EQ(s.plugin(), "C");
  st.skip_filter_plugins.insert("C");
  EXPECT_TRUE(f->run_filter_plugins(st, pod, good).is_success());
}

// The cycle's quick rejection is the first one offered in run order, and none is offered past a
// plugin whose Filter errors can depend on the node (skipping it on a node could hide one).
TEST(FrameworkFilter, QuickRejectionIsTheFirstOfferedPastNodeIndependentPlugins) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.preFilter.enabled = names({"A", "B", "C"});
  fx.profile.plugins.filter.enabled = names({"A", "B", "C"});
  fx["B"].quick_fn = [](const NodeInfo& ni) { return ni.name() == "b-rejects"; };
  fx["C"].quick_fn = [](const NodeInfo& ni) { return ni.name() == "c-rejects"; };
  auto f = fx.make();
  auto pod = MakePod().Name("p").Obj();
  NodeInfo b_rejects(MakeNode().Name("b-rejects").Ptr());
  NodeInfo c_rejects(MakeNode().Name("c-rejects").Ptr());
  auto quick_after_pre_filter = [&](CycleState& st) {
    PreFilterResult res;
    std::set<std::string> with_nodes;
    EXPECT_TRUE(f->run_pre_filter_plugins(st, pod, res, with_nodes).is_success());
    return f->quick_rejecter(st, pod);
  };

  {  // A's Filter errors may depend on the node: no quick rejection may skip it.
    CycleState st;
    EXPECT_FALSE(quick_after_pre_filter(st).test);
  }
  fx["A"].error_depends_on_node = false;
  {
    CycleState st;
    auto q = quick_after_pre_filter(st);
    ASSERT_TRUE(q.test);
    EXPECT_EQ(q.filter_index, 1u);
    EXPECT_TRUE(q.test.rejects(q.test.data, b_rejects));
    EXPECT_FALSE(q.test.rejects(q.test.data, c_rejects));
  }
  fx["B"].pre_filter_status = Status::skip();  // B does not run: C's test is the cycle's
  {
    CycleState st;
    auto q = quick_after_pre_filter(st);
    ASSERT_TRUE(q.test);
    EXPECT_EQ(q.filter_index, 2u);
    EXPECT_TRUE(q.test.rejects(q.test.data, c_rejects));
  }
  {  // Without PreFilter the plugins that run are not fixed: none.
    CycleState st;
    EXPECT_FALSE(f->quick_rejecter(st, pod).test);
  }
}

TEST(FrameworkFilter, NominatedPodsTwoPasses) {
  Fixture fx({"Cap"});
  fx.profile.plugins.preFilter.enabled = names({"Cap"});
  fx.profile.plugins.filter.enabled = names({"Cap"});
  // Node fits at most one pod; an "anti" label makes the pod need the nominated pod absent.
  std::vector<int> seen_pods;
  fx["Cap"].filter_fn = [&](const NodeInfo& ni) {
    seen_pods.push_back(static_cast<int>(ni.pods.size()));
    return ni.pods.size() >= 1 ? Status::unschedulable("Too many pods") : Status();
  };
  auto f = fx.make();
  NodeInfo ni(MakeNode().Name("n1").Ptr());
  auto pod = MakePod().Name("p").UID("p").Priority(10).Obj();
  CycleState st;

  // No nominated pods: one pass.
  EXPECT_TRUE(f->run_filter_plugins_with_nominated_pods(st, pod, ni).is_success());
  EXPECT_EQ(seen_pods, (std::vector<int>{0}));

  // A lower-priority nominated pod is ignored.
  seen_pods.clear();
  fx.nominator.add(MakePod().Name("low").UID("low").Priority(5).Info(), "n1");
  EXPECT_TRUE(f->run_filter_plugins_with_nominated_pods(st, pod, ni).is_success());
  EXPECT_EQ(seen_pods, (std::vector<int>{0}));

  // An equal-priority nominated pod is added in pass 1 and fails the pod; no second pass.
  seen_pods.clear();
  fx.nominator.add(MakePod().Name("eq").UID("eq").Priority(10).Info(), "n1");
  Status s = f->run_filter_plugins_with_nominated_pods(st, pod, ni);
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(seen_pods, (std::vector<int>{1}));
  EXPECT_EQ(ni.pods.size(), 0u);  // the real NodeInfo is untouched
  EXPECT_EQ(std::count(fx.log.calls.begin(), fx.log.calls.end(), "AddPod/Cap/eq"), 1);

  // When pass 1 succeeds with pods added, pass 2 runs without them.
  seen_pods.clear();
  fx["Cap"].filter_fn = [&](const NodeInfo& n) {
    seen_pods.push_back(static_cast<int>(n.pods.size()));
    return Status();
  };
  EXPECT_TRUE(f->run_filter_plugins_with_nominated_pods(st, pod, ni).is_success());
  EXPECT_EQ(seen_pods, (std::vector<int>{1, 0}));

  // The pod itself, nominated, is not added.
  seen_pods.clear();
  fx.nominator.clear();
  fx.nominator.add(MakePod().Name("p").UID("p").Priority(10).Info(), "n1");
  EXPECT_TRUE(f->run_filter_plugins_with_nominated_pods(st, pod, ni).is_success());
  EXPECT_EQ(seen_pods, (std::vector<int>{0}));
}

TEST(FrameworkPostFilter, Semantics) {
  Fixture fx({"A", "B"});
  fx.profile.plugins.postFilter.enabled = names({"A", "B"});
  fx["A"].post_filter_status = Status::unschedulable("a: nothing to preempt");
  fx["A"].post_filter_result.nominatingInfo = {NominatingInfo::Mode::Override, "n9"};
  fx["B"].post_filter_status = Status::unschedulable("b: no");
  auto f = fx.make();
  CycleState st;
  PostFilterResult r;
  NodeToStatus m;
  Status s = f->run_post_filter_plugins(st, MakePod().Name("p").Obj(), m, r);
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(s.message(), "a: nothing to preempt, b: no");
  EXPECT_EQ(r.nominatingInfo.nominatedNodeName, "n9");

  fx["A"].post_filter_status = Status();
  fx["A"].post_filter_result.nominatingInfo = {NominatingInfo::Mode::Override, "n1"};
  fx.log.calls.clear();
  s = f->run_post_filter_plugins(st, MakePod().Name("p").Obj(), m, r);
  EXPECT_TRUE(s.is_success());
  EXPECT_EQ(r.nominatingInfo.nominatedNodeName, "n1");
  EXPECT_EQ(fx.log.calls, (std::vector<std::string>{"PostFilter/A"}));
}

TEST(FrameworkScore, NormalizeWeightsAndSkip) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.preScore.enabled = names({"C"});
  fx.profile.plugins.score.enabled = {{"A", 2}, {"B", 3}, {"C", 1}};
  fx["A"].score_fn = [](const NodeInfo& ni, std::int64_t& s) {
    s = ni.name() == "n1" ? 10 : 40;
    return Status();
  };
  fx["B"].score_fn = [](const NodeInfo& ni, std::int64_t& s) {
    s = ni.name() == "n1" ? 100 : 30;
    return Status();
  };
  fx["B"].normalize = true;  // 100 - s
  fx["C"].pre_score_status = Status::skip();
  fx["C"].score_fn = [](const NodeInfo&, std::int64_t& s) {
    s = 1000;  // would be out of range, but C is skipped
    return Status();
  };
  auto f = fx.make(/*inline_parallel=*/false);
  std::vector<NodeInfoPtr> nodes{std::make_shared<NodeInfo>(MakeNode().Name("n1").Ptr()),
                                 std::make_shared<NodeInfo>(MakeNode().Name("n2").Ptr())};
  CycleState st;
  auto pod = MakePod().Name("p").Obj();
  ASSERT_TRUE(f->run_pre_score_plugins(st, pod, nodes).is_success());
  EXPECT_EQ(st.skip_score_plugins, (std::set<std::string, std::less<>>{"C"}));
  std::vector<NodePluginScores> out;
  ASSERT_TRUE(f->run_score_plugins(st, pod, nodes, out).is_success());
  ASSERT_EQ(out.size(), 2u);
  // n1: A 10*2 = 20, B (100-100)*3 = 0 -> 20; n2: A 40*2 = 80, B (100-30)*3 = 210 -> 290.
  EXPECT_EQ(out[0].name, "n1");
  EXPECT_EQ(out[0].totalScore, 20);
  EXPECT_EQ(out[1].totalScore, 290);
  ASSERT_EQ(out[1].scores.size(), 2u);
  EXPECT_EQ(out[1].scores[0], (std::pair<std::string_view, std::int64_t>{"A", 80}));
  EXPECT_EQ(out[1].scores[1], (std::pair<std::string_view, std::int64_t>{"B", 210}));
}

// A plugin that scores nothing for the pod (DynamicResources without claims) is skipped as a
// PreScore Skip would skip it, without a PreScore of its own: neither Score nor normalize runs.
TEST(FrameworkScore, APluginThatScoresNothingIsSkipped) {
  Fixture fx({"A", "D"});
  fx.profile.plugins.score.enabled = {{"A", 1}, {"D", 2}};
  fx["A"].score_fn = [](const NodeInfo& ni, std::int64_t& s) {
    s = ni.name() == "n1" ? 10 : 40;
    return Status();
  };
  int d_calls = 0;
  fx["D"].score_fn = [&](const NodeInfo&, std::int64_t& s) {
    ++d_calls;
    s = 50;
    return Status();
  };
  fx["D"].normalize = true;
  fx["D"].nothing_to_score = true;
  auto f = fx.make(/*inline_parallel=*/false);
  std::vector<NodeInfoPtr> nodes{std::make_shared<NodeInfo>(MakeNode().Name("n1").Ptr()),
                                 std::make_shared<NodeInfo>(MakeNode().Name("n2").Ptr())};
  CycleState st;
  auto pod = MakePod().Name("p").Obj();
  ASSERT_TRUE(f->run_pre_score_plugins(st, pod, nodes).is_success());
  EXPECT_EQ(st.skip_score_plugins, (std::set<std::string, std::less<>>{"D"}));
  std::vector<NodePluginScores> out;
  ASSERT_TRUE(f->run_score_plugins(st, pod, nodes, out).is_success());
  EXPECT_EQ(d_calls, 0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].totalScore, 10);
  EXPECT_EQ(out[1].totalScore, 40);

  // Once it has something to score, it is scored (and normalized) as any other.
  fx["D"].nothing_to_score = false;
  CycleState st2;
  ASSERT_TRUE(f->run_pre_score_plugins(st2, pod, nodes).is_success());
  EXPECT_TRUE(st2.skip_score_plugins.empty());
  ASSERT_TRUE(f->run_score_plugins(st2, pod, nodes, out).is_success());
  EXPECT_EQ(d_calls, 2);
  EXPECT_EQ(out[0].totalScore, 10 + (kMaxNodeScore - 50) * 2);
}

TEST(FrameworkScore, RangeAndPluginErrors) {
  Fixture fx({"A"});
  fx.profile.plugins.score.enabled = names({"A"});
  fx["A"].score_fn = [](const NodeInfo&, std::int64_t& s) {
    s = 101;
    return Status();
  };
  auto f = fx.make();
  std::vector<NodeInfoPtr> nodes{std::make_shared<NodeInfo>(MakeNode().Name("n1").Ptr())};
  CycleState st;
  std::vector<NodePluginScores> out;
  Status s = f->run_score_plugins(st, MakePod().Name("p").Obj(), nodes, out);
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.message(),
            "applying score defaultWeights on Score plugins: plugin \"A\" returns an invalid score 101, it should in "
            "the range of [0, 100] after normalizing");
  fx["A"].score_fn = [](const NodeInfo&, std::int64_t&) { return Status::error("kaput"); };
  s = f->run_score_plugins(st, MakePod().Name("p").Obj(), nodes, out);
  EXPECT_EQ(s.message(), "running Score plugins: plugin \"A\" failed with: kaput");
}

TEST(FrameworkReserve, UnreserveRunsInReverse) {
  Fixture fx({"A", "B"});
  fx.profile.plugins.reserve.enabled = names({"A", "B"});
  auto f = fx.make();
  CycleState st;
  auto pod = MakePod().Name("p").Obj();
  fx["B"].reserve_status = Status::unschedulable("no room");
  Status s = f->run_reserve_plugins_reserve(st, pod, "n1");
  EXPECT_EQ(s.plugin(), "B");
  f->run_reserve_plugins_unreserve(st, pod, "n1");
  EXPECT_EQ(fx.log.calls,
            (std::vector<std::string>{"Reserve/A", "Reserve/B", "Unreserve/B", "Unreserve/A"}));
  fx["B"].reserve_status = Status::error("disk");
  EXPECT_EQ(f->run_reserve_plugins_reserve(st, pod, "n1").message(), "running Reserve plugin \"B\": disk");
}

TEST(FrameworkBind, SkipTriesNextBinder) {
  Fixture fx({"First"});
  fx.profile.plugins.bind.enabled = names({"First", "Binder"});
  fx.profile.plugins.postBind.enabled = names({"First"});
  fx["First"].bind_status = Status::skip();
  auto f = fx.make();
  CycleState st;
  auto pod = MakePod().Name("p").Obj();
  EXPECT_TRUE(f->run_bind_plugins(st, pod, "n1").is_success());
  f->run_post_bind_plugins(st, pod, "n1");
  EXPECT_EQ(fx.log.calls, (std::vector<std::string>{"Bind/First/n1", "Bind/Binder/n1", "PostBind/First"}));
  fx["Binder"].bind_status = Status::skip();
  EXPECT_TRUE(f->run_bind_plugins(st, pod, "n1").is_skip());
  fx["Binder"].bind_status = Status::error("conflict");
  EXPECT_EQ(f->run_bind_plugins(st, pod, "n1").message(), "running Bind plugin \"Binder\": conflict");
}

// A binder that sends a batch with one client call (as DefaultBinder does) and says so.
class ClientBinder final : public BindPlugin {
 public:
  explicit ClientBinder(Handle& h) : h_(h) {}
  std::string_view name() const override { return "ClientBinder"; }
  Status bind(CycleState&, const api::Pod& pod, const std::string& node) override {
    return answer(h_.client().bind(pod, node));
  }
  void bind_all(std::span<const BindItem> items, std::span<Status> out) override {
    std::vector<ClusterClient::Binding> bindings;
    for (const auto& it : items) bindings.push_back({it.pod, it.node_name});
    auto answers = h_.client().bind_all(bindings);
    for (std::size_t i = 0; i < items.size(); ++i) out[i] = answer(answers[i]);
  }
  bool binds_in_batches() const override { return true; }

 private:
  static Status answer(const Status& s) { return s.is_success() ? s : Status::error("bind: " + s.message()); }
  Handle& h_;
};

void add_client_binder(Fixture& fx) {
  (void)fx.registry.add("ClientBinder", [](const PluginArgs&, Handle& h) -> util::Result<std::shared_ptr<Plugin>> {
    return std::shared_ptr<Plugin>(std::make_shared<ClientBinder>(h));
  });
}

// Two pods' bindings to n1 and the statuses Framework::run_bind_plugins gives them.
struct TwoBindings {
  CycleState s0, s1;
  api::Pod p0 = MakePod().Name("p0").Obj();
  api::Pod p1 = MakePod().Name("p1").Obj();
  const std::string n1 = "n1";
  const std::vector<BindItem> items{{&s0, &p0, &n1}, {&s1, &p1, &n1}};
  std::vector<Status> out = std::vector<Status>(2);
  void run(Framework& f) { f.run_bind_plugins(items, out); }
};

TEST(FrameworkBind, ABatchGoesToTheBindersBindAllAnsweringAsOneByOne) {
  Fixture fx({});
  add_client_binder(fx);
  fx.profile.plugins.bind.enabled = names({"ClientBinder"});
  auto f = fx.make();
  CycleState s0, s1, s2;
  auto p0 = MakePod().Name("p0").Obj();
  auto p1 = MakePod().Name("p1").Obj();
  auto p2 = MakePod().Name("p2").Obj();
  const std::string n1 = "n1", n2 = "n2";
  fx.client.bind_error = Status::unschedulable("pods \"p1\" not found");
  fx.client.fail_binds_of = {"p1"};
  EXPECT_TRUE(f->binds_in_batches(s0, p0));
  const std::vector<BindItem> items{{&s0, &p0, &n1}, {&s1, &p1, &n2}, {&s2, &p2, &n1}};
  std::vector<Status> out(items.size());
  f->run_bind_plugins(items, out);
  EXPECT_TRUE(out[0].is_success());
  EXPECT_EQ(out[1].code(), Code::Error);
  EXPECT_EQ(out[1].message(), "running Bind plugin \"ClientBinder\": bind: pods \"p1\" not found");
  EXPECT_TRUE(out[2].is_success());
  EXPECT_EQ(fx.client.bind_all_sizes(), std::vector<std::size_t>{3});
  ASSERT_EQ(fx.client.binds().size(), 2u);
  EXPECT_EQ(fx.client.binds()[0].pod, "default/p0");
  EXPECT_EQ(fx.client.binds()[1].node, "n1");
  // The same pod alone gets the same answer.
  Status alone = f->run_bind_plugins(s1, p1, n2);
  EXPECT_EQ(alone.code(), out[1].code());
  EXPECT_EQ(alone.message(), out[1].message());
}

// The pods a binder skips go, together, to the next binder; those every binder skips stay Skip.
TEST(FrameworkBind, SkippedPodsOfABatchGoToTheNextBinder) {
  Fixture fx({"First"});
  add_client_binder(fx);
  fx.profile.plugins.bind.enabled = names({"First", "ClientBinder"});
  fx["First"].bind_status = Status::skip();
  auto f = fx.make();
  TwoBindings b;
  b.run(*f);
  EXPECT_TRUE(b.out[0].is_success());
  EXPECT_TRUE(b.out[1].is_success());
  EXPECT_EQ(fx.log.calls, (std::vector<std::string>{"Bind/First/n1", "Bind/First/n1"}));
  EXPECT_EQ(fx.client.bind_all_sizes(), std::vector<std::size_t>{2});
  EXPECT_FALSE(f->binds_in_batches(b.s0, b.p0)) << "First binds one by one";

  fx.profile.plugins.bind.enabled = names({"First"});
  auto g = fx.make();
  b.run(*g);
  EXPECT_TRUE(b.out[0].is_skip());
  EXPECT_TRUE(b.out[1].is_skip());
}

TEST(FrameworkBind, OtherBindersAndSlowPreBindsBindOneByOne) {
  Fixture fx({"Slow"});
  add_client_binder(fx);
  fx.profile.plugins.bind.enabled = names({"Binder"});
  auto f = fx.make();
  TwoBindings b;
  EXPECT_FALSE(f->binds_in_batches(b.s0, b.p0)) << "Binder does not bind in batches";
  b.run(*f);
  EXPECT_TRUE(b.out[0].is_success());
  EXPECT_TRUE(b.out[1].is_success());
  EXPECT_EQ(fx.log.calls, (std::vector<std::string>{"Bind/Binder/n1", "Bind/Binder/n1"}));
  EXPECT_TRUE(fx.client.bind_all_sizes().empty());

  // A batch binder behind a PreBind plugin that does not say it is quick: no batches either.
  fx.profile.plugins.bind.enabled = names({"ClientBinder"});
  fx.profile.plugins.preBind.enabled = names({"Slow"});
  auto g = fx.make();
  EXPECT_FALSE(g->binds_in_batches(b.s0, b.p0));
}

TEST(FrameworkPermit, AllowRejectAndTimeout) {
  Fixture fx({"A", "B"});
  fx.profile.plugins.permit.enabled = names({"A", "B"});
  fx["A"].permit_status = Status(Code::Wait);
  fx["A"].permit_timeout = std::chrono::seconds(10);
  fx["B"].permit_status = Status(Code::Wait);
  fx["B"].permit_timeout = std::chrono::hours(1);  // capped at 15 min
  auto f = fx.make();
  CycleState st;
  auto pod = MakePod().Name("p").UID("uid-p").Obj();

  // Allowed by both plugins.
  Status s = f->run_permit_plugins(st, pod, "n1");
  EXPECT_EQ(s.code(), Code::Wait);
  EXPECT_EQ(s.message(), "one or more plugins asked to wait and no plugin rejected pod \"p\"");
  auto wp = f->get_waiting_pod("uid-p");
  ASSERT_TRUE(wp);
  EXPECT_EQ(wp->pending_plugins(), (std::vector<std::string>{"A", "B"}));
  int visited = 0;
  f->iterate_over_waiting_pods([&](WaitingPod& w) {
    ++visited;
    EXPECT_EQ(w.pod().metadata.name, "p");
  });
  EXPECT_EQ(visited, 1);
  std::thread allow([&] {
    wp->allow("A");
    wp->allow("B");
  });
  EXPECT_TRUE(f->wait_on_permit(pod).is_success());
  allow.join();
  EXPECT_FALSE(f->get_waiting_pod("uid-p"));
  EXPECT_TRUE(f->wait_on_permit(pod).is_success());  // not waiting: nothing to do

  // Rejected.
  ASSERT_EQ(f->run_permit_plugins(st, pod, "n1").code(), Code::Wait);
  f->get_waiting_pod("uid-p")->reject("B", "nope");
  s = f->wait_on_permit(pod);
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_EQ(s.message(), "nope");

  // Removed through the handle.
  ASSERT_EQ(f->run_permit_plugins(st, pod, "n1").code(), Code::Wait);
  f->reject_waiting_pod("uid-p");
  EXPECT_EQ(f->wait_on_permit(pod).message(), "removed");

  // Timed out on the (fake) clock: A's 10 s pass first.
  ASSERT_EQ(f->run_permit_plugins(st, pod, "n1").code(), Code::Wait);
  std::thread waiter([&] { s = f->wait_on_permit(pod); });
  fx.clock.step(std::chrono::seconds(11));
  waiter.join();
  EXPECT_EQ(s.code(), Code::Unschedulable);
  EXPECT_EQ(s.plugin(), "A");
  EXPECT_EQ(s.message(), "rejected due to timeout after waiting 10s at plugin A");

  // The 1 h wait is capped at 15 minutes.
  fx["A"].permit_status = Status();
  ASSERT_EQ(f->run_permit_plugins(st, pod, "n1").code(), Code::Wait);
  fx.clock.step(std::chrono::minutes(15));
  s = f->wait_on_permit(pod);
  EXPECT_EQ(s.message(), "rejected due to timeout after waiting 15m0s at plugin B");

  // Rejection by a permit plugin itself.
  fx["B"].permit_status = Status::unschedulable("quota");
  s = f->run_permit_plugins(st, pod, "n1");
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_FALSE(f->get_waiting_pod("uid-p"));
}

TEST(FrameworkEvents, WildcardForPluginsWithoutEnqueueExtensions) {
  Fixture fx({"A"});
  fx.profile.plugins.filter.enabled = names({"A"});
  auto f = fx.make();
  auto ev = f->events_to_register();
  ASSERT_EQ(ev.size(), 1u);  // Sort and Binder cannot reject pods
  ASSERT_EQ(ev["A"].size(), 1u);
  EXPECT_TRUE(ev["A"][0].event.is_wildcard());
}

class Registering final : public FilterPlugin, public EnqueueExtensions {
 public:
  std::string_view name() const override { return "Registering"; }
  Status filter(const CycleState&, const api::Pod&, const NodeInfo&) override { return {}; }
  std::vector<ClusterEventWithHint> events_to_register() const override {
    return {{ClusterEvent{EventResource::Node, kAdd | kUpdateNodeLabel, "NodeAdd"}, {}}};
  }
};

TEST(FrameworkEvents, RegisteredEventsPerPlugin) {
  Fixture fx({"A"});
  (void)fx.registry.add("Registering", [](const PluginArgs&, Handle&) -> util::Result<std::shared_ptr<Plugin>> {
    return std::shared_ptr<Plugin>(std::make_shared<Registering>());
  });
  fx.profile.plugins.filter.enabled = names({"Registering"});
  auto f = fx.make();
  auto ev = f->events_to_register();
  ASSERT_EQ(ev.size(), 1u);
  ASSERT_EQ(ev["Registering"].size(), 1u);
  EXPECT_EQ(ev["Registering"][0].event.resource, EventResource::Node);
  EXPECT_EQ(ev["Registering"][0].event.actionType, kAdd | kUpdateNodeLabel);
}

TEST(FrameworkPreEnqueue, FirstRejectionWithPlugin) {
  Fixture fx({"A", "B"});
  fx.profile.plugins.preEnqueue.enabled = names({"A", "B"});
  fx["B"].pre_enqueue_status = Status::unresolvable("waiting for scheduling gates: [g]");
  auto f = fx.make();
  Status s = f->run_pre_enqueue_plugins(MakePod().Name("p").Obj());
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_EQ(s.code(), Code::UnschedulableAndUnresolvable);
}

TEST(FrameworkMetrics, PluginObserverOnlyOnSampledCycles) {
  Fixture fx({"A"});
  fx.profile.plugins.filter.enabled = names({"A"});
  fx.profile.plugins.score.enabled = names({"A"});
  fx["A"].filter_fn = [](const NodeInfo&) { return Status::unschedulable("no"); };
  auto f = fx.make();
  NodeInfo ni(MakeNode().Name("n1").Ptr());
  std::vector<NodeInfoPtr> nodes{std::make_shared<NodeInfo>(MakeNode().Name("n1").Ptr())};
  std::vector<NodePluginScores> out;
  CycleState st;
  (void)f->run_filter_plugins(st, MakePod().Name("p").Obj(), ni);
  EXPECT_TRUE(fx.observed.calls.empty());
  st.record_plugin_metrics = true;
  (void)f->run_filter_plugins(st, MakePod().Name("p").Obj(), ni);
  ASSERT_TRUE(f->run_score_plugins(st, MakePod().Name("p").Obj(), nodes, out).is_success());
  EXPECT_EQ(fx.observed.calls, (std::vector<std::string>{"Filter/A/Unschedulable", "Score/A/Success"}));
}

// scheduler_plugin_evaluation_total semantics (upstream's instrumented plugins): PreFilter and
// PreScore count runs that did not return Skip; Filter and Score count every per-node call, and a
// Filter plugin after the first rejection on a node is not called, so not counted.
TEST(FrameworkMetrics, PluginEvaluationCounts) {
  Fixture fx({"A", "B", "C"});
  fx.profile.plugins.preFilter.enabled = names({"A", "C"});
  fx.profile.plugins.filter.enabled = names({"A", "B", "C"});
  fx.profile.plugins.preScore.enabled = names({"A", "C"});
  fx.profile.plugins.score.enabled = names({"A", "B"});
  fx["C"].pre_filter_status = Status::skip();  // C then does not filter
  fx["C"].pre_score_status = Status::skip();
  fx["A"].filter_fn = [](const NodeInfo& ni) {
    return ni.name().starts_with("bad") ? Status::unschedulable("A rejects") : Status();
  };
  auto f = fx.make(/*inline_parallel=*/false);  // thread pool: counts come from several threads
  auto pod = MakePod().Name("p").Obj();
  std::vector<NodeInfoPtr> nodes;
  for (int i = 0; i < 300; ++i) nodes.push_back(std::make_shared<NodeInfo>(MakeNode().Name("good-" + std::to_string(i)).Ptr()));
  std::vector<NodeInfoPtr> bad;
  for (int i = 0; i < 40; ++i) bad.push_back(std::make_shared<NodeInfo>(MakeNode().Name("bad-" + std::to_string(i)).Ptr()));

  CycleState st;
  PreFilterResult r;
  std::set<std::string> unsched;
  ASSERT_TRUE(f->run_pre_filter_plugins(st, pod, r, unsched).is_success());
  std::atomic<int> rejected{0};
  std::vector<NodeInfoPtr> all = nodes;
  all.insert(all.end(), bad.begin(), bad.end());
  f->parallelizer().until(static_cast<int>(all.size()), [&](int i) {
    if (!f->run_filter_plugins(st, pod, *all[i]).is_success()) ++rejected;
  });
  ASSERT_EQ(rejected.load(), 40);
  ASSERT_TRUE(f->run_pre_score_plugins(st, pod, nodes).is_success());
  std::vector<NodePluginScores> out;
  ASSERT_TRUE(f->run_score_plugins(st, pod, nodes, out).is_success());

  std::map<std::string, std::uint64_t> got;
  for (const auto& e : f->plugin_evaluations()) got[std::string(e.extensionPoint) + "/" + e.plugin] = e.count;
  std::map<std::string, std::uint64_t> want{
      {"PreFilter/A", 1}, {"PreFilter/C", 0},  // C returned Skip
      {"Filter/A", 340},  {"Filter/B", 300},   // B never runs where A rejected
      {"Filter/C", 0},                          // skipped by its PreFilter
      {"PreScore/A", 1},  {"PreScore/C", 0},
      {"Score/A", 300},   {"Score/B", 300}};
  EXPECT_EQ(got, want);
}

// With the histogram's bounds given, Filter's timings on sampled cycles are counted per thread and
// handed over in bulk: every call once, under its plugin and status, none through the observer,
// and none twice across flushes.
TEST(FrameworkMetrics, FilterDurationsAreCountedPerThreadAndFlushedOnce) {
  Fixture fx({"A", "B"});
  fx.profile.plugins.filter.enabled = names({"A", "B"});
  fx.profile.plugins.score.enabled = names({"A"});
  fx["A"].filter_fn = [](const NodeInfo& ni) {
    return ni.name().starts_with("bad") ? Status::unschedulable("A rejects") : Status();
  };
  fx.duration_bounds = {3600.0, 7200.0};  // every call lands in the first bucket
  // Every visit timed: with one in eight, which visits the pool's threads time decides the split
  // between Success and Unschedulable (the test failed now and then, under ASan most).
  fx.filter_timing_stride = 1;
  auto f = fx.make(/*inline_parallel=*/false);
  auto pod = MakePod().Name("p").Obj();
  std::vector<NodeInfoPtr> all;
  for (int i = 0; i < 300; ++i) all.push_back(std::make_shared<NodeInfo>(MakeNode().Name("good-" + std::to_string(i)).Ptr()));
  for (int i = 0; i < 40; ++i) all.push_back(std::make_shared<NodeInfo>(MakeNode().Name("bad-" + std::to_string(i)).Ptr()));
  auto run = [&](bool sampled) {
    CycleState st;
    st.record_plugin_metrics = sampled;
    f->parallelizer().until(static_cast<int>(all.size()), [&](int i) { (void)f->run_filter_plugins(st, pod, *all[i]); });
  };
  run(false);  // not sampled: not timed
  run(true);
  run(true);
  struct Got {
    std::uint64_t count = 0, first_bucket = 0, second_bucket = 0;
    double sum = 0;
  };
  std::map<std::string, Got> got;
  auto flush = [&] {
    got.clear();
    f->flush_filter_durations([&](std::string_view plugin, Code code, std::span<const std::uint64_t> buckets,
                                  std::uint64_t count, double sum) {
      ASSERT_EQ(buckets.size(), 2u);
      auto& g = got[std::string(plugin) + "/" + code_name(code)];
      g = {count, buckets[0], buckets[1], sum};
    });
  };
  flush();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got["A/Success"].count, 600u);
  EXPECT_EQ(got["A/Unschedulable"].count, 80u);
  EXPECT_EQ(got["B/Success"].count, 600u);  // B never runs where A rejected
  for (const auto& [k, g] : got) {
    EXPECT_EQ(g.first_bucket, g.count) << k;
    EXPECT_EQ(g.second_bucket, 0u) << k;
    EXPECT_GE(g.sum, 0.0) << k;
    EXPECT_LT(g.sum, 3600.0) << k;
  }
  EXPECT_TRUE(fx.observed.calls.empty());  // Filter bypasses the per-call observer
  flush();
  EXPECT_TRUE(got.empty());  // nothing new since the last flush
  run(true);
  flush();
  EXPECT_EQ(got["A/Unschedulable"].count, 40u);
}

// Before the binding cycle the scheduler drops the data only PreFilter..Permit read; the rest
// (a binding plugin's state) stays, and the dropped objects are released.
TEST(CycleState, DropsSchedulingOnlyDataAndKeepsTheRest) {
  struct Kept final : StateData {
    std::shared_ptr<StateData> clone() const override { return std::make_shared<Kept>(*this); }
  };
  struct FilterOnly final : StateData {
    std::shared_ptr<StateData> clone() const override { return std::make_shared<FilterOnly>(*this); }
    bool read_after_scheduling() const override { return false; }
  };
  CycleState st;
  auto filter_only = std::make_shared<FilterOnly>();
  std::weak_ptr<FilterOnly> watch = filter_only;
  st.write("PreFilterA", std::move(filter_only));
  st.write("PreBindB", std::make_shared<Kept>());
  st.write("Empty", nullptr);
  st.drop_scheduling_only();
  EXPECT_EQ(st.read<FilterOnly>("PreFilterA"), nullptr);
  EXPECT_TRUE(watch.expired());
  EXPECT_NE(st.read<Kept>("PreBindB"), nullptr);

  st.skip_filter_plugins.insert("A");
  st.skip_score_plugins.insert("B");
  st.drop_scheduling_only();  // the skip sets are Filter's and Score's too
  EXPECT_TRUE(st.skip_filter_plugins.empty());
  EXPECT_TRUE(st.skip_score_plugins.empty());
}

TEST(ThreadPoolParallelizer, CoversEveryIndexOnceAndStopsEarly) {
  using std::chrono::nanoseconds;
  EXPECT_EQ(parallelizer_chunk_size(5000, 16), 70);   // sqrt(5000)=70 < 5000/16+1=313
  EXPECT_EQ(parallelizer_chunk_size(100, 16), 7);     // 100/16+1 = 7 < 10
  EXPECT_EQ(parallelizer_chunk_size(0, 16), 1);
  ThreadPoolParallelizer p(4, nanoseconds(0));
  std::vector<std::atomic<int>> hits(10000);
  p.until(10000, [&](int i) { hits[i].fetch_add(1); });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);

  std::atomic<int> done{0};
  p.until(
      10000, [&](int) { done.fetch_add(1); }, [&] { return done.load() >= 50; });
  EXPECT_LT(done.load(), 10000);
  EXPECT_GE(done.load(), 50);

  // Nested use from inside fn does not deadlock.
  std::atomic<int> inner{0};
  p.until(8, [&](int) { p.until(8, [&](int) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 64);
}

// chunks() hands out until()'s chunks whole: together they cover every index once, none is
// larger than the chunk size, and a chunk that returns false stops the job.
TEST(ThreadPoolParallelizer, ChunksCoverEveryIndexOnceAndStopWhenAsked) {
  ThreadPoolParallelizer p(4, std::chrono::nanoseconds(0));
  const int n = 5000, chunk = parallelizer_chunk_size(n, 4);
  std::vector<std::atomic<int>> hits(n);
  std::atomic<int> calls{0};
  p.chunks(n, [&](int begin, int end) {
    EXPECT_LT(begin, end);
    EXPECT_LE(end - begin, chunk);
    EXPECT_EQ(begin % chunk, 0);
    for (int i = begin; i < end; ++i) hits[i].fetch_add(1);
    calls.fetch_add(1);
    return true;
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  EXPECT_EQ(calls.load(), (n + chunk - 1) / chunk);

  std::atomic<int> started{0};
  p.chunks(n, [&](int, int) { return started.fetch_add(1) + 1 < 3; });
  // The third chunk stops the job; chunks already taken by other threads may still run.
  EXPECT_GE(started.load(), 3);
  EXPECT_LT(started.load(), (n + chunk - 1) / chunk);
}

// Back-to-back jobs of every size, some stopped early: workers drop drained and stopped jobs from
// the queue (instead of re-joining them) and every job still covers each index exactly once:
// with workers woken for every job, after the caller's first chunk, and never.
TEST(ThreadPoolParallelizer, BackToBackJobsEachCoverEveryIndexOnce) {
  using namespace std::chrono;
  for (auto min_work : {nanoseconds(0), nanoseconds(1), nanoseconds(hours(1))}) {
    SCOPED_TRACE(min_work.count());
    ThreadPoolParallelizer p(3, min_work);
    for (int round = 0; round < 2000; ++round) {
      const int n = 1 + round % 97;
      std::vector<std::atomic<int>> hits(n);
      if (round % 5 == 0) {
        std::atomic<int> seen{0};
        p.until(
            n,
            [&](int i) {
              hits[i].fetch_add(1);
              seen.fetch_add(1);
            },
            [&] { return seen.load() >= n / 2; });
        for (auto& h : hits) ASSERT_LE(h.load(), 1);
      } else {
        p.until(n, [&](int i) { hits[i].fetch_add(1); });
        for (int i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "round " << round << " index " << i;
      }
    }
  }
}

// Jobs that end within the threshold never leave the calling thread; longer ones get workers.
TEST(ThreadPoolParallelizer, WakesWorkersOnlyForJobsThatOutlastTheThreshold) {
  using namespace std::chrono;
  ThreadPoolParallelizer cheap(4, hours(1));
  const auto caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  cheap.until(10000, [&](int) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
  });
  EXPECT_EQ(elsewhere.load(), 0);

  ThreadPoolParallelizer eager(4, nanoseconds(0));
  if (eager.workers() == 0) GTEST_SKIP() << "one hardware thread: no workers";
  // Index 0 (the caller's first chunk) waits for an index run by a worker: only a woken worker
  // lets this job finish.
  std::atomic<bool> worker_ran{false};
  eager.until(1000, [&](int i) {
    if (std::this_thread::get_id() != caller) worker_ran.store(true);
    if (i == 0) {
      while (!worker_ran.load()) std::this_thread::yield();
    }
  });
  EXPECT_TRUE(worker_ran.load());
}

}  // namespace
}  // namespace ksched::scheduler::framework
