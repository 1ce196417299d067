// Scheduler extenders end to end: a fake extender webhook on 127.0.0.1 (Boost.Beast, ephemeral
// port) records what the scheduler sends and answers per test; the scheduling cycle runs over the
// in-tree plugins with an in-memory client/lister, a fake clock and an inline parallelizer.
#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "scheduler/config/defaults.h"
#include "scheduler/extender.h"
#include "scheduler/framework/parallelizer.h"
#include "scheduler/in_tree_registry.h"
#include "scheduler/scheduler.h"
#include "scheduler_testing/testing.h"
#include "serving/secure_serving.h"

namespace ksched::scheduler {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using namespace std::chrono_literals;
using testing::MakeNode;
using testing::MakePod;

// ---------------------------------------------------------------- fake extender webhook

struct Recorded {
  std::string target;
  json::value body;
};

struct Answer {
  int status = 200;
  std::string body;
  bool hang = false;  // never answer (the client's timeout must fire)
};

// Plain HTTP/1.1 server with keep-alive; handlers are keyed by request target.
class FakeExtenderServer {
 public:
  using Handler = std::function<Answer(const json::value& body)>;

  FakeExtenderServer() : acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~FakeExtenderServer() {
    io_.stop();
    thread_.join();
    hung_.clear();
  }

  std::string url(const std::string& prefix = "/ext") const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + prefix;
  }
  void on(const std::string& target, Handler h) {
    std::lock_guard l(mu_);
    handlers_[target] = std::move(h);
  }
  // Answers with this JSON (status 200).
  void reply(const std::string& target, std::string body) {
    on(target, [body](const json::value&) { return Answer{200, body}; });
  }
  std::vector<Recorded> requests(const std::string& target = {}) const {
    std::lock_guard l(mu_);
    std::vector<Recorded> out;
    for (const auto& r : requests_)
      if (target.empty() || r.target == target) out.push_back(r);
    return out;
  }

 private:
  struct Session : std::enable_shared_from_this<Session> {
    Session(FakeExtenderServer& s, asio::ip::tcp::socket sock) : server(s), stream(std::move(sock)) {}
    void read() {
      req = {};
      http::async_read(stream, buf, req, [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (!ec) self->serve();
      });
    }
    void serve() {
      boost::system::error_code ec;
      json::value body = json::parse(req.body(), ec);
      Answer a{404, "{}"};
      {
        std::lock_guard l(server.mu_);
        server.requests_.push_back({std::string(req.target()), ec ? json::value(req.body()) : body});
        if (auto it = server.handlers_.find(std::string(req.target())); it != server.handlers_.end()) {
          a = it->second(body);
        }
      }
      if (a.hang) {  // keep the connection open without answering
        std::lock_guard l(server.mu_);
        server.hung_.push_back(shared_from_this());
        return;
      }
      res = {};
      res.result(a.status);
      res.version(11);
      res.set(http::field::content_type, "application/json");
      res.body() = a.body;
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      http::async_write(stream, res, [self = shared_from_this()](beast::error_code ec, std::size_t) {
        if (!ec) self->read();
      });
    }
    FakeExtenderServer& server;
    beast::tcp_stream stream;
    beast::flat_buffer buf;
    http::request<http::string_body> req;
    http::response<http::string_body> res;
  };

  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, asio::ip::tcp::socket sock) {
      if (ec) return;
      std::make_shared<Session>(*this, std::move(sock))->read();
      accept();
    });
  }

  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::map<std::string, Handler> handlers_;
  std::vector<Recorded> requests_;
  std::vector<std::shared_ptr<Session>> hung_;  // sessions that never answer (closed on stop)
};

// ---------------------------------------------------------------- helpers

config::KubeSchedulerConfiguration base_config() { return config::default_configuration(); }

config::Extender extender_config(const std::string& url) {
  config::Extender x;
  x.urlPrefix = url;
  x.weight = 1;
  x.httpTimeout = std::chrono::seconds(5);
  return x;
}

std::vector<std::string> node_names_of(const json::value& args) {
  std::vector<std::string> out;
  const auto& o = args.as_object();
  if (auto* names = o.if_contains("nodenames")) {
    for (const auto& n : names->as_array()) out.emplace_back(n.as_string());
  } else if (auto* nodes = o.if_contains("nodes")) {
    for (const auto& n : nodes->as_object().at("items").as_array()) {
      out.emplace_back(n.at("metadata").at("name").as_string());
    }
  }
  return out;
}

// ExtenderFilterResult keeping `keep` (as a NodeList) and failing the rest with `reason`.
std::string filter_answer(const json::value& args, const std::vector<std::string>& keep,
                          const std::string& reason, const std::vector<std::string>& unresolvable = {}) {
  json::object res;
  json::array items;
  json::object failed, failed_unresolvable;
  for (const auto& n : node_names_of(args)) {
    if (std::find(keep.begin(), keep.end(), n) != keep.end()) {
      items.push_back(json::object{{"metadata", json::object{{"name", n}}}});
    } else if (std::find(unresolvable.begin(), unresolvable.end(), n) != unresolvable.end()) {
      failed_unresolvable[n] = "node(s) cannot ever run this pod";
    } else {
      failed[n] = reason;
    }
  }
  res["nodes"] = json::object{{"items", std::move(items)}};
  res["failedNodes"] = std::move(failed);
  if (!failed_unresolvable.empty()) res["failedAndUnresolvableNodes"] = std::move(failed_unresolvable);
  return json::serialize(res);
}

class ExtenderTest : public ::testing::Test {
 protected:
  // `cfg` is already defaulted (base_config); extender_config fills what defaulting would.
  void start(const config::KubeSchedulerConfiguration& cfg,
             std::shared_ptr<framework::Parallelizer> parallelizer = std::make_shared<testing::InlineParallelizer>()) {
    SchedulerOptions o;
    o.clock = &clock;
    o.parallelizer = std::move(parallelizer);
    o.seed = 7;
    o.binding_workers = 2;
    auto reg = new_in_tree_registry();
    auto s = Scheduler::create(cfg, reg, client, lister, o);
    ASSERT_TRUE(s.ok()) << s.error();
    sched = std::move(*s);
  }
  void start_with(std::vector<config::Extender> extenders) {
    auto cfg = base_config();
    cfg.extenders = std::move(extenders);
    start(std::move(cfg));
  }
  void add_node(const api::Node& n) { sched->on_node_add(std::make_shared<const api::Node>(n)); }
  void add_nodes(std::initializer_list<std::string> names) {
    for (const auto& n : names)
      add_node(MakeNode().Name(n).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "10"}}).Obj());
  }
  framework::PodPtr add_pod(api::Pod p) {
    if (p.spec.schedulerName.empty()) p.spec.schedulerName = "default-scheduler";
    auto ptr = std::make_shared<const api::Pod>(std::move(p));
    lister.add_pod(ptr);
    sched->on_pod_add(ptr);
    return ptr;
  }
  // One scheduling cycle, then its binding cycle and any asynchronous preemption it started.
  bool cycle() {
    bool ran = sched->schedule_one_if_pending();
    EXPECT_TRUE(sched->wait_for_bindings(10s));
    sched->wait_for_preemptions();
    return ran;
  }
  std::vector<testing::FakeClusterClient::Event> events_with(const std::string& reason) {
    std::vector<testing::FakeClusterClient::Event> out;
    for (auto& e : client.events())
      if (e.reason == reason) out.push_back(e);
    return out;
  }
  std::string bound_node(const std::string& pod = "default/p") {
    for (const auto& b : client.binds())
      if (b.pod == pod) return b.node;
    return {};
  }

  FakeExtenderServer server;
  util::FakeClock clock;
  testing::FakeClusterLister lister;
  testing::FakeClusterClient client;
  std::unique_ptr<Scheduler> sched;
};

// ---------------------------------------------------------------- filter

TEST_F(ExtenderTest, FilterRemovesNodesAndSendsFullNodeList) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  start_with({x});
  server.on("/ext/filter", [](const json::value& a) {
    return Answer{200, filter_answer(a, {"n2"}, "not n2")};
  });
  add_nodes({"n1", "n2", "n3"});
  add_pod(MakePod().Name("p").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(bound_node(), "n2");

  auto reqs = server.requests("/ext/filter");
  ASSERT_EQ(reqs.size(), 1u);
  const auto& args = reqs[0].body.as_object();
  EXPECT_EQ(args.at("pod").at("metadata").at("name").as_string(), "p");
  EXPECT_FALSE(args.contains("nodenames"));
  auto names = node_names_of(reqs[0].body);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"n1", "n2", "n3"}));
  // Full Node objects, not just names.
  EXPECT_TRUE(args.at("nodes").at("items").as_array()[0].at("status").as_object().contains("capacity"));
}

TEST_F(ExtenderTest, FilterReasonsAppearInFitErrorAndAnyEventRequeues) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  start_with({x});
  server.on("/ext/filter", [](const json::value& a) {
    return Answer{200, filter_answer(a, {}, "extender says no", {"n3"})};
  });
  add_nodes({"n1", "n2", "n3"});
  auto pod = add_pod(MakePod().Name("p").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  const std::string fit_text =
      "0/3 nodes are available: 1 node(s) cannot ever run this pod, 2 extender says no.";
  EXPECT_EQ(failed[0].note.substr(0, fit_text.size()), fit_text) << failed[0].note;
  ASSERT_FALSE(client.patches().empty());
  EXPECT_EQ(client.patches().back().condition->reason, "Unschedulable");
  // Rejected by the extender: parked until some event, and then any event requeues it.
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Unschedulable);
  add_nodes({"n4"});
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Backoff);
}

TEST_F(ExtenderTest, NodeCacheCapableGetsNodeNamesOnly) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  x.nodeCacheCapable = true;
  start_with({x});
  server.reply("/ext/filter", R"({"nodenames":["n3"],"failedNodes":{"n1":"busy","n2":"busy"}})");
  add_nodes({"n1", "n2", "n3"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(bound_node(), "n3");
  auto reqs = server.requests("/ext/filter");
  ASSERT_EQ(reqs.size(), 1u);
  const auto& args = reqs[0].body.as_object();
  EXPECT_FALSE(args.contains("nodes"));
  auto names = node_names_of(reqs[0].body);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"n1", "n2", "n3"}));
}

TEST_F(ExtenderTest, FilterClaimingAnUnknownNodeIsAnError) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  x.nodeCacheCapable = true;
  start_with({x});
  server.reply("/ext/filter", R"({"nodenames":["ghost"]})");
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note,
            "extender \"" + server.url() +
                "\" claims a filtered node \"ghost\" which is not found in the input node list");
}

// ---------------------------------------------------------------- errors and ignorable

TEST_F(ExtenderTest, NonIgnorableFailureFailsThePod) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  start_with({x});
  server.on("/ext/filter", [](const json::value&) { return Answer{500, "boom"}; });
  add_nodes({"n1", "n2"});
  auto pod = add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].note, "failed filter with extender at URL " + server.url() + "/filter, code 500");
  EXPECT_EQ(client.patches().back().condition->reason, "SchedulerError");
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Backoff);
}

TEST_F(ExtenderTest, ErrorInFilterResultFailsThePod) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  start_with({x});
  server.reply("/ext/filter", R"({"error":"cache not ready"})");
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  ASSERT_EQ(events_with("FailedScheduling").size(), 1u);
  EXPECT_EQ(events_with("FailedScheduling")[0].note, "cache not ready");
}

TEST_F(ExtenderTest, IgnorableFailureIsSkipped) {
  auto broken = extender_config(server.url("/broken"));
  broken.filterVerb = "filter";
  broken.ignorable = true;
  auto good = extender_config(server.url("/good"));
  good.filterVerb = "filter";
  // The ignorable one is listed first but runs last.
  start_with({broken, good});
  ASSERT_EQ(sched->extenders().size(), 2u);
  EXPECT_EQ(sched->extenders()[0]->name(), server.url("/good"));
  EXPECT_TRUE(sched->extenders()[1]->is_ignorable());
  server.on("/broken/filter", [](const json::value&) { return Answer{503, ""}; });
  server.on("/good/filter", [](const json::value& a) { return Answer{200, filter_answer(a, {"n1"}, "no")}; });
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(bound_node(), "n1");
  EXPECT_EQ(server.requests("/broken/filter").size(), 1u);
  // The second extender only saw what the first left.
  auto reqs = server.requests("/broken/filter");
  EXPECT_EQ(node_names_of(reqs[0].body), (std::vector<std::string>{"n1"}));
}

TEST_F(ExtenderTest, IgnorableTimeoutIsSkippedWithinHttpTimeout) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  x.ignorable = true;
  x.httpTimeout = 200ms;
  start_with({x});
  server.on("/ext/filter", [](const json::value&) { return Answer{200, "", true}; });
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(cycle());
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(elapsed, 190ms);  // it waited for the timeout, not for an early error
  EXPECT_LT(elapsed, 4s);
  EXPECT_FALSE(bound_node().empty());
  EXPECT_EQ(server.requests("/ext/filter").size(), 1u);
}

// ---------------------------------------------------------------- prioritize

TEST_F(ExtenderTest, PrioritizeScoresAreWeighted) {
  // A prefers n1 (10 * weight 1 * 10 = 100), B prefers n2 (10 * weight 2 * 10 = 200): n2 wins; with
  // the weights swapped n1 wins. The nodes are identical, so the plugins' scores tie.
  for (bool swap : {false, true}) {
    SCOPED_TRACE(swap);
    FakeExtenderServer srv;
    auto a = extender_config(srv.url("/a"));
    a.prioritizeVerb = "prioritize";
    a.weight = swap ? 2 : 1;
    auto b = extender_config(srv.url("/b"));
    b.prioritizeVerb = "prioritize";
    b.weight = swap ? 1 : 2;
    start_with({a, b});
    srv.reply("/a/prioritize", R"([{"host":"n1","score":10},{"host":"n2","score":0}])");
    srv.reply("/b/prioritize", R"([{"host":"n1","score":0},{"host":"n2","score":10}])");
    add_nodes({"n1", "n2"});
    const std::string name = swap ? "swapped" : "plain";
    add_pod(MakePod().Name(name).Obj());
    ASSERT_TRUE(cycle());
    EXPECT_EQ(bound_node("default/" + name), swap ? "n1" : "n2");
    ASSERT_EQ(srv.requests("/a/prioritize").size(), 1u);
    EXPECT_EQ(node_names_of(srv.requests("/a/prioritize")[0].body).size(), 2u);
    sched.reset();
  }
}

// Prioritizers are asked at the same time (upstream: a goroutine each): each of two extenders
// (separate servers) waits for the other's request before answering. Asked one after the other,
// the first would give up waiting after 3 s and report it.
TEST_F(ExtenderTest, PrioritizersAreAskedConcurrently) {
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::vector<bool> saw_other;
  auto meet = [&](const json::value&) {
    std::unique_lock l(mu);
    ++arrived;
    cv.notify_all();
    saw_other.push_back(cv.wait_for(l, 3s, [&] { return arrived >= 2; }));
    return Answer{200, R"([{"host":"n1","score":1}])"};
  };
  FakeExtenderServer a_srv, b_srv;
  a_srv.on("/a/prioritize", meet);
  b_srv.on("/b/prioritize", meet);
  auto a = extender_config(a_srv.url("/a"));
  a.prioritizeVerb = "prioritize";
  auto b = extender_config(b_srv.url("/b"));
  b.prioritizeVerb = "prioritize";
  auto cfg = base_config();
  cfg.extenders = {a, b};
  start(cfg, std::make_shared<framework::ThreadPoolParallelizer>(4));
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(saw_other, (std::vector<bool>{true, true}));
  EXPECT_EQ(bound_node(), "n1");  // both extenders' scores were added
}

TEST_F(ExtenderTest, PrioritizerWithoutScorePluginsStillRanksAllNodes) {
  // No Score plugins at all: the extender alone decides, so every feasible node must be found.
  auto cfg = base_config();
  for (auto& prof : cfg.profiles) prof.plugins.score.disabled.push_back(config::Plugin{"*", std::nullopt});
  auto x = extender_config(server.url());
  x.prioritizeVerb = "prioritize";
  cfg.extenders = {x};
  start(cfg);
  ASSERT_FALSE(sched->profile("default-scheduler")->has_score_plugins());
  server.reply("/ext/prioritize", R"([{"host":"n3","score":5}])");
  add_nodes({"n1", "n2", "n3"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(bound_node(), "n3");
  ASSERT_EQ(server.requests("/ext/prioritize").size(), 1u);
  EXPECT_EQ(node_names_of(server.requests("/ext/prioritize")[0].body).size(), 3u);
}

TEST_F(ExtenderTest, PrioritizeErrorOnlyLosesItsSay) {
  auto x = extender_config(server.url());
  x.prioritizeVerb = "prioritize";
  start_with({x});  // not ignorable: prioritize errors never fail the pod
  server.on("/ext/prioritize", [](const json::value&) { return Answer{500, ""}; });
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_FALSE(bound_node().empty());
}

// ---------------------------------------------------------------- managedResources

TEST_F(ExtenderTest, ManagedResourcesDecideInterest) {
  auto x = extender_config(server.url());
  x.filterVerb = "filter";
  x.managedResources = {{"example.com/gpu", true}};
  start_with({x});
  server.on("/ext/filter", [](const json::value& a) {
    return Answer{200, filter_answer(a, {"n2"}, "no gpu")};
  });
  add_nodes({"n1", "n2"});
  // Not interested: the extender is not asked.
  add_pod(MakePod().Name("plain").Req({{"cpu", "1"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_FALSE(bound_node("default/plain").empty());
  EXPECT_TRUE(server.requests().empty());
  // A limit on an init container names the resource: interested. ignoredByScheduler keeps
  // NodeResourcesFit from requiring it on the node.
  auto gpu = MakePod().Name("gpu").Obj();
  api::Container init;
  init.name = "init";
  init.image = "pause";
  init.resources.limits = testing::resource_list({{"example.com/gpu", "1"}});
  gpu.spec.initContainers.push_back(init);
  add_pod(gpu);
  ASSERT_TRUE(cycle());
  EXPECT_EQ(bound_node("default/gpu"), "n2");
  EXPECT_EQ(server.requests("/ext/filter").size(), 1u);
}

TEST(ExtenderConfig, IgnoredBySchedulerResourcesReachNodeResourcesFit) {
  auto cfg = base_config();
  config::Extender x;
  x.urlPrefix = "http://127.0.0.1:1";
  x.managedResources = {{"example.com/a", true}, {"example.com/b", false}};
  auto profiles = cfg.profiles;
  ASSERT_TRUE(apply_extender_ignored_resources({x}, profiles).ok());
  bool seen = false;
  for (const auto& pc : profiles[0].pluginConfig) {
    if (pc.name != "NodeResourcesFit") continue;
    seen = true;
    EXPECT_EQ(std::get<config::NodeResourcesFitArgs>(pc.args).ignoredResources,
              (std::vector<std::string>{"example.com/a"}));
  }
  EXPECT_TRUE(seen);
  profiles[0].pluginConfig.clear();
  auto r = apply_extender_ignored_resources({x}, profiles);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "can't find NodeResourcesFitArgs in plugin config");
}

TEST(ExtenderConfig, BadTlsFilesFailCreation) {
  config::Extender x;
  x.urlPrefix = "https://127.0.0.1:1/ext";
  x.tlsConfig = config::ExtenderTLSConfig{};
  x.tlsConfig->caFile = "/nonexistent/ca.crt";
  auto r = HTTPExtender::create(x);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("/nonexistent/ca.crt"), std::string::npos) << r.error();
  x.tlsConfig->caFile.clear();
  x.urlPrefix = "127.0.0.1:1";
  EXPECT_FALSE(HTTPExtender::create(x).ok());
}

// ---------------------------------------------------------------- bind

TEST_F(ExtenderTest, BindThroughExtender) {
  auto x = extender_config(server.url());
  x.bindVerb = "bind";
  start_with({x});
  server.reply("/ext/bind", "{}");
  add_nodes({"n1"});
  add_pod(MakePod().Name("p").UID("uid-p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());  // not through the API
  auto reqs = server.requests("/ext/bind");
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].body,
            json::parse(R"({"podName":"p","podNamespace":"default","podUID":"uid-p","node":"n1"})"));
  auto scheduled = events_with("Scheduled");
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_EQ(scheduled[0].note, "Successfully assigned default/p to n1");
}

TEST_F(ExtenderTest, BindErrorFromExtenderRequeues) {
  auto x = extender_config(server.url());
  x.bindVerb = "bind";
  start_with({x});
  server.reply("/ext/bind", R"({"error":"node n1 is full"})");
  add_nodes({"n1"});
  auto pod = add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.binds().empty());
  EXPECT_EQ(sched->cache().assumed_pod_count(), 0);
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].note.find("node n1 is full"), std::string::npos) << failed[0].note;
  EXPECT_EQ(sched->queue().where(*pod), queue::QueueName::Backoff);
}

TEST_F(ExtenderTest, UninterestedOrIgnorableFailingBinderFallsBackToBindPlugins) {
  auto x = extender_config(server.url());
  x.bindVerb = "bind";
  x.ignorable = true;
  start_with({x});
  server.on("/ext/bind", [](const json::value&) { return Answer{500, ""}; });
  add_nodes({"n1"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(server.requests("/ext/bind").size(), 1u);
  EXPECT_EQ(bound_node(), "n1");  // DefaultBinder
}

// ---------------------------------------------------------------- preemption

TEST_F(ExtenderTest, PreemptionAsksExtenderAndHonoursItsVictims) {
  auto x = extender_config(server.url());
  x.preemptVerb = "preempt";
  start_with({x});
  ASSERT_TRUE(sched->profile("default-scheduler")->has_post_filter_plugins());  // DefaultPreemption
  // The extender drops n2 and keeps n1 with the victim named by UID.
  server.reply("/ext/preempt",
               R"({"nodeNameToMetaVictims":{"n1":{"pods":[{"uid":"low1"}],"numPDBViolations":0}}})");
  for (const auto& n : {"n1", "n2"})
    add_node(MakeNode().Name(n).Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("low1").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  add_pod(MakePod().Name("low2").Node("n2").Priority(1).Req({{"cpu", "2"}}).Obj());
  add_pod(MakePod().Name("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(client.deletes(), (std::vector<std::string>{"default/low1"}));
  bool nominated = false;
  for (const auto& p : client.patches())
    if (p.pod == "default/high" && p.nominatedNodeName == std::optional<std::string>("n1")) nominated = true;
  EXPECT_TRUE(nominated);
  // Without a node cache the extender got both candidates with full victim pods.
  auto reqs = server.requests("/ext/preempt");
  ASSERT_EQ(reqs.size(), 1u);
  const auto& v = reqs[0].body.at("nodeNameToVictims").as_object();
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v.at("n2").at("pods").as_array()[0].at("metadata").at("name").as_string(), "low2");
  EXPECT_EQ(reqs[0].body.at("pod").at("metadata").at("name").as_string(), "high");
}

TEST_F(ExtenderTest, PreemptionExtenderErrors) {
  auto x = extender_config(server.url());
  x.preemptVerb = "preempt";
  x.nodeCacheCapable = true;
  start_with({x});
  ASSERT_TRUE(sched->profile("default-scheduler")->has_post_filter_plugins());  // DefaultPreemption
  // A victim the snapshot does not have on that node: a non-ignorable extender stops preemption.
  server.reply("/ext/preempt", R"({"nodeNameToMetaVictims":{"n1":{"pods":[{"uid":"nope"}]}}})");
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("low").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  add_pod(MakePod().Name("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.deletes().empty());
  auto reqs = server.requests("/ext/preempt");
  ASSERT_EQ(reqs.size(), 1u);
  // With a node cache only UIDs travel.
  EXPECT_EQ(reqs[0].body.at("nodeNameToMetaVictims"),
            json::parse(R"({"n1":{"pods":[{"uid":"low"}],"numPDBViolations":0}})"));
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].note.find("claims to preempt pod (UID: nope) on node: n1"), std::string::npos)
      << failed[0].note;
}

TEST_F(ExtenderTest, IgnorablePreemptionExtenderWithoutVictimsIsIgnored) {
  auto x = extender_config(server.url());
  x.preemptVerb = "preempt";
  x.ignorable = true;
  start_with({x});
  ASSERT_TRUE(sched->profile("default-scheduler")->has_post_filter_plugins());  // DefaultPreemption
  // n1 without victims is dropped (ignorable), which leaves no candidate.
  server.reply("/ext/preempt", R"({"nodeNameToMetaVictims":{"n1":{"pods":[]}}})");
  add_node(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj());
  add_pod(MakePod().Name("low").Node("n1").Priority(1).Req({{"cpu", "2"}}).Obj());
  add_pod(MakePod().Name("high").Priority(100).Req({{"cpu", "2"}}).Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(client.deletes().empty());
  auto failed = events_with("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].note.find("no candidate node for preemption"), std::string::npos) << failed[0].note;
}

// ---------------------------------------------------------------- HTTPS

TEST_F(ExtenderTest, HttpsWithCaDataAndServerName) {
  serving::SecureServingOptions so;
  so.bind_address = "127.0.0.1";
  so.port = 0;
  so.always_allow_paths = {"/ext/filter"};
  serving::SecureServer tls_server(so);
  tls_server.handle("/ext/filter", [](const serving::HttpRequest&) {
    return serving::HttpResponse{200, "application/json", R"({"nodenames":["n2"]})", {}};
  });
  ASSERT_TRUE(tls_server.start().ok());
  auto x = extender_config("https://127.0.0.1:" + std::to_string(tls_server.port()) + "/ext/");
  x.filterVerb = "filter";
  x.nodeCacheCapable = true;
  x.tlsConfig = config::ExtenderTLSConfig{};
  x.tlsConfig->caData = tls_server.self_signed_ca_pem();
  x.tlsConfig->serverName = "localhost";  // the self-signed certificate's name
  start_with({x});
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("p").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_EQ(bound_node(), "n2");

  // Without the CA the certificate is not trusted: the (non-ignorable) extender fails the pod.
  x.tlsConfig->caData.clear();
  start_with({x});
  add_nodes({"n1", "n2"});
  add_pod(MakePod().Name("q").Obj());
  ASSERT_TRUE(cycle());
  EXPECT_TRUE(bound_node("default/q").empty());
  ASSERT_EQ(events_with("FailedScheduling").size(), 1u);
  EXPECT_NE(events_with("FailedScheduling")[0].note.find("Post \"" + x.urlPrefix + "filter\""),
            std::string::npos)
      << events_with("FailedScheduling")[0].note;
  tls_server.stop();
}

}  // namespace
}  // namespace ksched::scheduler
