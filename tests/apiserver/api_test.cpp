// REST semantics through Api::handle (no HTTP): admission, validation messages, conflicts,
// patches, binding, selectors, list/watch resourceVersion rules, graceful pod deletion.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <regex>
#include <set>

#include "api_harness.h"
#include "apiserver/endpoints/handlers.h"
#include "util/clock.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;

class ApiTest : public ApiHarness {
 protected:
  Response create_pod(const std::string& name, const std::string& extra_spec = "") {
    return call("POST", "/api/v1/namespaces/default/pods",
                R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                    R"(","labels":{"app":"web"}},"spec":{)" + extra_spec +
                    R"("containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}})");
  }

};

TEST_F(ApiTest, PodCreateAppliesUpstreamDefaults) {
  auto r = create_pod("web-0");
  ASSERT_EQ(r.status, 201) << r.body;
  auto o = parse(r);
  auto& spec = o["spec"].as_object();
  EXPECT_EQ(spec["schedulerName"], "default-scheduler");
  EXPECT_EQ(spec["restartPolicy"], "Always");
  EXPECT_EQ(spec["dnsPolicy"], "ClusterFirst");
  EXPECT_EQ(spec["terminationGracePeriodSeconds"], 30);
  EXPECT_EQ(spec["enableServiceLinks"], true);
  EXPECT_EQ(spec["priority"], 0);
  auto& c = spec["containers"].as_array()[0].as_object();
  EXPECT_EQ(c["imagePullPolicy"], "Always");  // untagged image
  EXPECT_EQ(c["terminationMessagePath"], "/dev/termination-log");
  ASSERT_EQ(spec["tolerations"].as_array().size(), 2u);
  EXPECT_EQ(spec["tolerations"].as_array()[0].as_object()["tolerationSeconds"], 300);
  EXPECT_EQ(o["status"].as_object()["phase"], "Pending");
  EXPECT_EQ(o["status"].as_object()["qosClass"], "BestEffort");
  EXPECT_FALSE(o["metadata"].as_object()["uid"].as_string().empty());
  EXPECT_FALSE(o["metadata"].as_object()["creationTimestamp"].as_string().empty());
}

TEST_F(ApiTest, CreateErrorsMatchUpstream) {
  ASSERT_EQ(create_pod("a").status, 201);
  auto dup = create_pod("a");
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(reason(dup), "AlreadyExists");
  EXPECT_EQ(message(dup), "pods \"a\" already exists");

  auto bad = create_pod("Bad_Name");
  EXPECT_EQ(bad.status, 422);
  EXPECT_EQ(reason(bad), "Invalid");
  EXPECT_EQ(message(bad).rfind("Pod \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain", 0), 0u)
      << message(bad);
  auto causes = parse(bad)["details"].as_object()["causes"].as_array();
  EXPECT_EQ(causes[0].as_object()["field"], "metadata.name");

  auto nons = call("POST", "/api/v1/namespaces/nowhere/configmaps", R"({"metadata":{"name":"x"}})");
  EXPECT_EQ(nons.status, 404);
  EXPECT_EQ(message(nons), "namespaces \"nowhere\" not found");

  auto noimage = call("POST", "/api/v1/namespaces/default/pods", R"({"metadata":{"name":"x"},"spec":{"containers":[{"name":"c"}]}})");
  EXPECT_EQ(noimage.status, 422);
  EXPECT_NE(message(noimage).find("spec.containers[0].image: Required value"), std::string::npos);

  auto pc = create_pod("prio", R"("priorityClassName":"nope",)");
  EXPECT_EQ(pc.status, 403);
  EXPECT_EQ(message(pc), "pods \"prio\" is forbidden: no PriorityClass with name nope was found");
  auto crit = create_pod("crit", R"("priorityClassName":"system-cluster-critical",)");
  ASSERT_EQ(crit.status, 201);
  EXPECT_EQ(parse(crit)["spec"].as_object()["priority"], 2000000000);

  auto mismatch = call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"x","namespace":"other"}})");
  EXPECT_EQ(mismatch.status, 400);
  EXPECT_EQ(message(mismatch), "the namespace of the provided object does not match the namespace sent on the request");
}

// Paths outside the served group versions are plain 404s, as upstream's mux answers them; under a
// served one, the resource decides.
TEST_F(ApiTest, UnservedGroupVersionsAreNotFound) {
  for (const char* p : {"/apis/nope.io/v1", "/apis/nope.io/v1/things", "/apis/apps/v9/deployments",
                        "/apis/events.k8s.io/v1beta9/namespaces/default/events", "/api/v2/pods", "/nothing"}) {
    auto r = call("GET", p);
    EXPECT_EQ(r.status, 404) << p;
    EXPECT_EQ(r.body, "404 page not found\n") << p;
  }
  EXPECT_EQ(call("GET", "/apis/apps/v1").status, 200);
  EXPECT_EQ(call("GET", "/apis/apps/v1/namespaces/default/deployments").status, 200);
  EXPECT_EQ(call("GET", "/apis/events.k8s.io/v1/namespaces/default/events").status, 200);
  auto unknown = call("GET", "/apis/apps/v1/things");
  EXPECT_EQ(unknown.status, 404);
}

TEST_F(ApiTest, GenerateName) {
  auto r = call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"generateName":"cfg-"}})");
  ASSERT_EQ(r.status, 201);
  std::string name(parse(r)["metadata"].as_object()["name"].as_string());
  EXPECT_EQ(name.size(), 9u);
  EXPECT_EQ(name.rfind("cfg-", 0), 0u);
}

TEST_F(ApiTest, GeneratedNamesAndUidsAreDistinctAndWellFormed) {
  // UIDs are version 4 UUIDs as upstream's uuid.New(); generated suffixes use upstream's alphabet.
  const std::regex uuid_v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> uids;
  for (int i = 0; i < 300; ++i) {
    auto r = call("POST", "/api/v1/namespaces/default/configmaps",
                  R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("}})");
    ASSERT_EQ(r.status, 201) << r.body;
    std::string uid(parse(r)["metadata"].as_object()["uid"].as_string());
    EXPECT_TRUE(std::regex_match(uid, uuid_v4)) << uid;
    uids.insert(uid);
  }
  EXPECT_EQ(uids.size(), 300u);
  const std::regex suffix("gen-[bcdfghjklmnpqrstvwxz2456789]{5}");
  for (int i = 0; i < 5; ++i) {  // few: the server does not retry a clash (27^5 suffixes)
    auto r = call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"generateName":"gen-"}})");
    ASSERT_EQ(r.status, 201) << r.body;
    std::string name(parse(r)["metadata"].as_object()["name"].as_string());
    EXPECT_TRUE(std::regex_match(name, suffix)) << name;
  }
}

TEST_F(ApiTest, StaleUpdateConflicts) {
  auto created = parse(create_pod("web"));
  auto stale = created;
  created["metadata"].as_object()["labels"].as_object()["v"] = "1";
  auto ok = call("PUT", "/api/v1/namespaces/default/pods/web", json::serialize(created));
  ASSERT_EQ(ok.status, 200) << ok.body;
  stale["metadata"].as_object()["labels"].as_object()["v"] = "2";
  auto conflict = call("PUT", "/api/v1/namespaces/default/pods/web", json::serialize(stale));
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(reason(conflict), "Conflict");
  EXPECT_EQ(message(conflict),
            "Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to "
            "the latest version and try again");
  auto wrong_name = call("PUT", "/api/v1/namespaces/default/pods/other", json::serialize(stale));
  EXPECT_EQ(wrong_name.status, 400);
  EXPECT_EQ(message(wrong_name), "the name of the object (web) does not match the name on the URL (other)");
}

TEST_F(ApiTest, PatchTypes) {
  ASSERT_EQ(create_pod("web").status, 201);
  // strategic: containers merge by name, ports by containerPort; a pod's ports may not change
  auto smp_ports = call("PATCH", "/api/v1/namespaces/default/pods/web",
                        R"({"spec":{"containers":[{"name":"c","image":"nginx:2","ports":[{"containerPort":443}]}]}})",
                        "application/strategic-merge-patch+json");
  ASSERT_EQ(smp_ports.status, 422) << smp_ports.body;
  EXPECT_THAT(message(smp_ports), ::testing::StartsWith("Pod \"web\" is invalid: spec: Forbidden: pod updates may not "
                                                        "change fields other than `spec.containers[*].image`"));
  EXPECT_THAT(message(smp_ports), ::testing::HasSubstr("+ spec.containers[0].ports: [{\"containerPort\":443"));
  auto smp = call("PATCH", "/api/v1/namespaces/default/pods/web",
                  R"({"spec":{"containers":[{"name":"c","image":"nginx:2"}]}})",
                  "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200) << smp.body;
  auto c = parse(smp)["spec"].as_object()["containers"].as_array();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].as_object()["image"], "nginx:2");
  EXPECT_EQ(c[0].as_object()["ports"].as_array().size(), 1u);
  EXPECT_EQ(c[0].as_object()["imagePullPolicy"], "Always");  // untouched field kept
  // merge: null deletes
  auto mp = call("PATCH", "/api/v1/namespaces/default/pods/web", R"({"metadata":{"labels":{"app":null,"x":"y"}}})",
                 "application/merge-patch+json");
  ASSERT_EQ(mp.status, 200);
  auto labels = parse(mp)["metadata"].as_object()["labels"].as_object();
  EXPECT_FALSE(labels.contains("app"));
  EXPECT_EQ(labels["x"], "y");
  // json patch
  auto jp = call("PATCH", "/api/v1/namespaces/default/pods/web",
                 R"([{"op":"replace","path":"/metadata/labels/x","value":"z"},{"op":"add","path":"/metadata/labels/y","value":"1"}])",
                 "application/json-patch+json");
  ASSERT_EQ(jp.status, 200) << jp.body;
  EXPECT_EQ(parse(jp)["metadata"].as_object()["labels"].as_object()["x"], "z");
  // a resourceVersion inside a patch is a precondition
  auto pre = call("PATCH", "/api/v1/namespaces/default/pods/web", R"({"metadata":{"resourceVersion":"1"}})",
                  "application/merge-patch+json");
  EXPECT_EQ(pre.status, 409);
  auto apply = call("PATCH", "/api/v1/namespaces/default/pods/web", "{}", "application/apply-patch+yaml");
  EXPECT_EQ(apply.status, 415);
  // pods/status patch keeps the spec, conditions merge by type
  auto st = call("PATCH", "/api/v1/namespaces/default/pods/web/status",
                 R"({"spec":{"nodeName":"ignored"},"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}],"nominatedNodeName":"n1"}})",
                 "application/strategic-merge-patch+json");
  ASSERT_EQ(st.status, 200) << st.body;
  auto so = parse(st);
  EXPECT_FALSE(so["spec"].as_object().contains("nodeName"));
  EXPECT_EQ(so["status"].as_object()["nominatedNodeName"], "n1");
  auto st2 = call("PATCH", "/api/v1/namespaces/default/pods/web/status",
                  R"({"status":{"conditions":[{"type":"PodScheduled","message":"m"}],"nominatedNodeName":null}})",
                  "application/strategic-merge-patch+json");
  auto conds = parse(st2)["status"].as_object()["conditions"].as_array();
  ASSERT_EQ(conds.size(), 1u);
  EXPECT_EQ(conds[0].as_object()["reason"], "Unschedulable");
  EXPECT_EQ(conds[0].as_object()["message"], "m");
  EXPECT_FALSE(parse(st2)["status"].as_object().contains("nominatedNodeName"));
}

TEST_F(ApiTest, BindingSubresource) {
  ASSERT_EQ(create_pod("web").status, 201);
  std::string b = R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"n1"}})";
  auto r = call("POST", "/api/v1/namespaces/default/pods/web/binding", b);
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(parse(r)["status"], "Success");
  auto pod = parse(call("GET", "/api/v1/namespaces/default/pods/web"));
  EXPECT_EQ(pod["spec"].as_object()["nodeName"], "n1");
  auto cond = pod["status"].as_object()["conditions"].as_array()[0].as_object();
  EXPECT_EQ(cond["type"], "PodScheduled");
  EXPECT_EQ(cond["status"], "True");
  auto again = call("POST", "/api/v1/namespaces/default/pods/web/binding", b);
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(message(again), "Operation cannot be fulfilled on pods/binding \"web\": pod web is already assigned to node \"n1\"");
  auto missing = call("POST", "/api/v1/namespaces/default/pods/nope/binding",
                      R"({"metadata":{"name":"nope"},"target":{"name":"n1"}})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(message(missing), "pods \"nope\" not found");
  auto put = call("PUT", "/api/v1/namespaces/default/pods/web/binding", b);
  EXPECT_EQ(put.status, 405);
}

// A binding changes nodeName and the PodScheduled condition (replaced where it was, the others
// kept) and nothing else of the pod: its metadata stays as stored, with a new resourceVersion.
TEST_F(ApiTest, BindingKeepsTheRestOfThePod) {
  ASSERT_EQ(create_pod("db").status, 201);
  auto st = call("PATCH", "/api/v1/namespaces/default/pods/db/status",
                 R"({"status":{"conditions":[{"type":"Custom","status":"True"},{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}})",
                 "application/strategic-merge-patch+json");
  ASSERT_EQ(st.status, 200) << st.body;
  auto before = parse(call("GET", "/api/v1/namespaces/default/pods/db"));
  auto r = call("POST", "/api/v1/namespaces/default/pods/db/binding",
                R"({"metadata":{"name":"db","annotations":{"bound-by":"test"}},"target":{"kind":"Node","name":"n2"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto after = parse(call("GET", "/api/v1/namespaces/default/pods/db"));
  auto& bm = before["metadata"].as_object();
  auto& am = after["metadata"].as_object();
  for (const char* k : {"name", "namespace", "uid", "creationTimestamp", "labels"}) EXPECT_EQ(am[k], bm[k]) << k;
  EXPECT_NE(am["resourceVersion"], bm["resourceVersion"]);
  EXPECT_EQ(am["annotations"].as_object()["bound-by"], "test");
  EXPECT_EQ(after["spec"].as_object()["nodeName"], "n2");
  after["spec"].as_object().erase("nodeName");
  EXPECT_EQ(after["spec"], before["spec"]);
  auto conds = after["status"].as_object()["conditions"].as_array();
  ASSERT_EQ(conds.size(), 2u);
  EXPECT_EQ(conds[0].as_object()["type"], "Custom");
  EXPECT_EQ(conds[1].as_object()["type"], "PodScheduled");
  EXPECT_EQ(conds[1].as_object()["status"], "True");
  EXPECT_FALSE(conds[1].as_object().contains("reason"));
}

TEST_F(ApiTest, ListSelectorsAndResourceVersionRules) {
  ASSERT_EQ(create_pod("a").status, 201);
  ASSERT_EQ(create_pod("b").status, 201);
  auto l = parse(call("GET", "/api/v1/pods?fieldSelector=metadata.name%3Db"));
  EXPECT_EQ(l["kind"], "PodList");
  ASSERT_EQ(l["items"].as_array().size(), 1u);
  auto phase = parse(call("GET", "/api/v1/pods?fieldSelector=status.phase!%3DSucceeded,status.phase!%3DFailed"));
  EXPECT_EQ(phase["items"].as_array().size(), 2u);
  auto bad = call("GET", "/api/v1/pods?fieldSelector=foo%3Dbar");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(message(bad), "field label not supported: foo");
  auto badl = call("GET", "/api/v1/pods?labelSelector=a%20in%20b");
  EXPECT_EQ(badl.status, 400);
  auto rvm = call("GET", "/api/v1/pods?resourceVersionMatch=Exact");
  EXPECT_EQ(rvm.status, 422);
  EXPECT_EQ(message(rvm), "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");
  auto limited = parse(call("GET", "/api/v1/namespaces/default/pods?limit=1"));
  ASSERT_EQ(limited["items"].as_array().size(), 1u);
  std::string cont(limited["metadata"].as_object()["continue"].as_string());
  auto rest = parse(call("GET", "/api/v1/namespaces/default/pods?limit=1&continue=" + cont));
  ASSERT_EQ(rest["items"].as_array().size(), 1u);
  EXPECT_EQ(rest["items"].as_array()[0].as_object()["metadata"].as_object()["name"], "b");
  EXPECT_EQ(rest["metadata"].as_object()["resourceVersion"], limited["metadata"].as_object()["resourceVersion"]);
  auto garbage = call("GET", "/api/v1/namespaces/default/pods?limit=1&continue=%21%21");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(message(garbage), "invalid continue token: continue key is not valid: illegal base64 data at input byte 0");
  auto empty = parse(call("GET", "/api/v1/namespaces/nowhere/pods"));
  EXPECT_EQ(empty["items"].as_array().size(), 0u);
  auto unknown = call("GET", "/api/v1/widgets");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(message(unknown), "the server could not find the requested resource");
}

// A watch from a revision the store has not reached (the client saw an earlier incarnation of the
// server) is refused with upstream's 504 "Too large resource version", so the client relists
// rather than waiting on a stream that would never replay what it missed.
TEST_F(ApiTest, WatchFromAFutureRevisionIsTooLarge) {
  ASSERT_EQ(create_pod("a").status, 201);
  const auto current = api_.store().revision();
  auto w = call("GET", "/api/v1/pods?watch=true&resourceVersion=" + std::to_string(current + 100));
  EXPECT_EQ(w.status, 504);
  EXPECT_FALSE(w.watcher);
  auto st = json::parse(w.body).as_object();
  EXPECT_EQ(st["reason"], "Timeout");
  EXPECT_EQ(st["message"].as_string(), "Timeout: Too large resource version: " + std::to_string(current + 100) +
                                           ", current: " + std::to_string(current));
  EXPECT_EQ(st["details"].as_object()["causes"].as_array()[0].as_object()["reason"], "ResourceVersionTooLarge");
  // The current revision itself is fine: nothing to replay, the stream waits for new events.
  auto ok = call("GET", "/api/v1/pods?watch=true&resourceVersion=" + std::to_string(current));
  EXPECT_TRUE(ok.watcher);
}

TEST_F(ApiTest, ExpiredWatchIsAnErrorEvent) {
  ASSERT_EQ(create_pod("a").status, 201);
  api_.store().compact(api_.store().revision());
  auto w = call("GET", "/api/v1/pods?watch=true&resourceVersion=1");
  EXPECT_EQ(w.status, 200);
  EXPECT_FALSE(w.watcher);
  auto ev = json::parse(w.body).as_object();
  EXPECT_EQ(ev["type"], "ERROR");
  EXPECT_EQ(ev["object"].as_object()["code"], 410);
  EXPECT_EQ(ev["object"].as_object()["reason"], "Expired");
  auto live = call("GET", "/api/v1/pods?watch=1&resourceVersion=0");
  ASSERT_TRUE(live.watcher);
  bool closed = false;
  auto items = live.watcher->drain(closed);
  ASSERT_EQ(items.size(), 1u);  // synthetic ADDED for the existing pod
  bool cols = false;
  std::string line = api_.format_watch_item(*live.watch_resource, items[0], false, IncludeObject::Metadata, cols);
  EXPECT_EQ(line.rfind("{\"type\":\"ADDED\",\"object\":{", 0), 0u);
  EXPECT_EQ(line.back(), '\n');
  auto forbidden = call("GET", "/api/v1/pods?watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=1");
  EXPECT_EQ(forbidden.status, 422);
}

TEST_F(ApiTest, GracefulPodDeletion) {
  ASSERT_EQ(call("POST", "/api/v1/nodes", R"({"metadata":{"name":"n1"}})").status, 201);
  ASSERT_EQ(create_pod("bound").status, 201);
  ASSERT_EQ(create_pod("unbound").status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods/bound/binding", R"({"metadata":{"name":"bound"},"target":{"name":"n1"}})").status, 201);
  // Unbound: gone at once.
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/unbound").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/unbound").status, 404);
  // Bound: deletionTimestamp + grace, completed after the grace period.
  auto d = call("DELETE", "/api/v1/namespaces/default/pods/bound", R"({"gracePeriodSeconds":10})");
  ASSERT_EQ(d.status, 200);
  auto meta = parse(d)["metadata"].as_object();
  EXPECT_TRUE(meta.contains("deletionTimestamp"));
  EXPECT_EQ(meta["deletionGracePeriodSeconds"], 10);
  api_.reap_deletions();
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/bound").status, 200);
  clock_.step(std::chrono::seconds(11));
  api_.reap_deletions();
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/bound").status, 404);
}

TEST_F(ApiTest, EvictionRespectsDisruptionBudgets) {
  auto make_running = [&](const std::string& name) {
    ASSERT_EQ(create_pod(name).status, 201);
    auto st = call("PATCH", "/api/v1/namespaces/default/pods/" + name + "/status",
                   R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})",
                   "application/merge-patch+json");
    ASSERT_EQ(st.status, 200) << st.body;
  };
  make_running("a");
  ASSERT_EQ(call("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
                 R"({"metadata":{"name":"pdb1"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}})")
                .status,
            201);
  std::string ev = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"a","namespace":"default"}})";
  auto blocked = call("POST", "/api/v1/namespaces/default/pods/a/eviction", ev);
  EXPECT_EQ(blocked.status, 429);
  EXPECT_EQ(message(blocked), "Cannot evict pod as it would violate the pod's disruption budget.");
  EXPECT_EQ(parse(blocked)["details"].as_object()["causes"].as_array()[0].as_object()["message"],
            "The disruption budget pdb1 needs 1 healthy pods and has 1 currently");
  make_running("b");
  auto ok = call("POST", "/api/v1/namespaces/default/pods/a/eviction", ev);
  EXPECT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/a").status, 404);  // unbound: deleted at once
}

TEST_F(ApiTest, FinalizersHoldDeletion) {
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c","finalizers":["x/y"]}})").status, 201);
  auto d = call("DELETE", "/api/v1/namespaces/default/configmaps/c");
  ASSERT_EQ(d.status, 200);
  EXPECT_TRUE(parse(d)["metadata"].as_object().contains("deletionTimestamp"));
  auto add = call("PATCH", "/api/v1/namespaces/default/configmaps/c", R"({"metadata":{"finalizers":["x/y","z/w"]}})",
                  "application/merge-patch+json");
  EXPECT_EQ(add.status, 422);
  auto clear = call("PATCH", "/api/v1/namespaces/default/configmaps/c", R"({"metadata":{"finalizers":null}})",
                    "application/merge-patch+json");
  EXPECT_EQ(clear.status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/c").status, 404);
}

TEST_F(ApiTest, DeleteCollectionAnswersTheDeletedList) {
  for (const char* n : {"a", "b"}) {
    ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps",
                   std::string(R"({"metadata":{"name":")") + n + R"(","labels":{"tier":"x"}}})")
                  .status,
              201);
  }
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"keep"}})").status, 201);
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps",
                 R"({"metadata":{"name":"held","labels":{"tier":"x"},"finalizers":["x/y"]}})")
                .status,
            201);
  auto d = call("DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dx");
  ASSERT_EQ(d.status, 200) << d.body;
  auto list = parse(d);
  EXPECT_EQ(list["kind"], "ConfigMapList");
  EXPECT_EQ(list["apiVersion"], "v1");
  EXPECT_TRUE(list["metadata"].as_object().contains("resourceVersion"));
  std::vector<std::string> names;
  for (const auto& it : list["items"].as_array()) {
    const auto& meta = it.as_object().at("metadata").as_object();
    names.emplace_back(meta.at("name").as_string());
    EXPECT_FALSE(meta.contains("deletionTimestamp"));  // as listed before the deletes
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "held"}));
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/a").status, 404);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/keep").status, 200);
  auto held = call("GET", "/api/v1/namespaces/default/configmaps/held");  // its finalizer holds it
  ASSERT_EQ(held.status, 200);
  EXPECT_TRUE(parse(held)["metadata"].as_object().contains("deletionTimestamp"));
}

TEST_F(ApiTest, ConflictDetailsNameTheResourceAsUpstream) {
  ASSERT_EQ(create_pod("web").status, 201);
  std::string b = R"({"metadata":{"name":"web"},"target":{"kind":"Node","name":"n1"}})";
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods/web/binding", b).status, 201);
  auto again = parse(call("POST", "/api/v1/namespaces/default/pods/web/binding", b));
  EXPECT_EQ(again["details"].as_object()["kind"], "pods/binding");
  EXPECT_EQ(again["details"].as_object()["name"], "web");

  auto created = parse(create_pod("other"));
  std::string uid(created["metadata"].as_object()["uid"].as_string());
  auto wrong_uid = call("DELETE", "/api/v1/namespaces/default/pods/other",
                        R"({"preconditions":{"uid":"00000000-0000-0000-0000-000000000000"}})");
  EXPECT_EQ(wrong_uid.status, 409);
  EXPECT_EQ(message(wrong_uid),
            "Operation cannot be fulfilled on pods \"other\": the UID in the precondition "
            "(00000000-0000-0000-0000-000000000000) does not match the UID in record (" + uid +
                "). The object might have been deleted and then recreated");
  EXPECT_EQ(parse(wrong_uid)["details"].as_object()["kind"], "pods");
}

TEST_F(ApiTest, TablesAndDiscovery) {
  ASSERT_EQ(create_pod("web").status, 201);
  auto t = call("GET", "/api/v1/namespaces/default/pods", "", "", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  auto tbl = parse(t);
  EXPECT_EQ(tbl["kind"], "Table");
  auto cols = tbl["columnDefinitions"].as_array();
  EXPECT_EQ(cols[0].as_object()["name"], "Name");
  EXPECT_EQ(cols[1].as_object()["name"], "Ready");
  auto cells = tbl["rows"].as_array()[0].as_object()["cells"].as_array();
  EXPECT_EQ(cells[0], "web");
  EXPECT_EQ(cells[1], "0/1");
  EXPECT_EQ(cells[2], "Pending");
  auto disc = parse(call("GET", "/api/v1"));
  bool binding = false;
  for (const auto& r : disc["resources"].as_array())
    if (r.as_object().at("name") == "pods/binding") binding = true;
  EXPECT_TRUE(binding);
  auto groups = parse(call("GET", "/apis"));
  EXPECT_EQ(groups["kind"], "APIGroupList");
  EXPECT_EQ(call("GET", "/apis/nope/v1").status, 404);
  auto oapi = parse(call("GET", "/openapi/v3"));
  EXPECT_TRUE(oapi["paths"].as_object().contains("apis/apps/v1"));
  EXPECT_EQ(call("GET", "/healthz").body, "ok");
}

TEST_F(ApiTest, SimulatedNodesFromTemplate) {
  std::string path = ::testing::TempDir() + "/apiserver_node_template.yaml";
  std::ofstream(path) << "apiVersion: v1\nkind: Node\nmetadata:\n  labels: {zone: z1}\n"
                         "status:\n  capacity: {cpu: \"4\", memory: 8Gi, pods: \"50\"}\n";
  ASSERT_TRUE(api_.create_nodes(2, path));
  auto n = parse(call("GET", "/api/v1/nodes/node-1"));
  auto labels = n["metadata"].as_object()["labels"].as_object();
  EXPECT_EQ(labels["type"], "simulated");
  EXPECT_EQ(labels["zone"], "z1");
  EXPECT_EQ(labels["kubernetes.io/hostname"], "node-1");
  auto st = n["status"].as_object();
  EXPECT_EQ(st["allocatable"].as_object()["cpu"], "4");  // allocatable defaults to capacity
  EXPECT_EQ(st["conditions"].as_array()[0].as_object()["type"], "Ready");
  EXPECT_FALSE(api_.create_nodes(1, "/nonexistent/template.yaml"));
}

TEST_F(ApiTest, WatchStreamsTablesWithColumnsOnce) {
  auto w = call("GET", "/api/v1/namespaces/default/pods?watch=1", "", "",
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  ASSERT_TRUE(w.watcher);
  EXPECT_TRUE(w.watch_table);
  ASSERT_EQ(create_pod("a").status, 201);
  ASSERT_EQ(create_pod("b").status, 201);
  bool closed = false;
  auto items = w.watcher->drain(closed);
  ASSERT_EQ(items.size(), 2u);
  bool cols = false;
  auto first = json::parse(api_.format_watch_item(*w.watch_resource, items[0], true, IncludeObject::Metadata, cols)).as_object();
  auto second = json::parse(api_.format_watch_item(*w.watch_resource, items[1], true, IncludeObject::Metadata, cols)).as_object();
  EXPECT_EQ(first["type"], "ADDED");
  EXPECT_EQ(first["object"].as_object()["kind"], "Table");
  EXPECT_TRUE(first["object"].as_object()["columnDefinitions"].is_array());
  EXPECT_TRUE(second["object"].as_object()["columnDefinitions"].is_null());
  EXPECT_EQ(second["object"].as_object()["rows"].as_array()[0].as_object()["cells"].as_array()[0], "b");
}

TEST_F(ApiTest, ProtobufBodiesAreAccepted) {
  auto read = [](const std::string& name) {
    std::ifstream in(std::string(KSCHED_SOURCE_DIR) + "/fuzz/corpus/protobuf_decode/" + name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string pb = "application/vnd.kubernetes.protobuf";
  ASSERT_EQ(call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"ns1"}})").status, 201);
  auto cm = call("POST", "/api/v1/namespaces/ns1/configmaps", read("configmap.pb"), pb);
  ASSERT_EQ(cm.status, 201) << cm.body;
  EXPECT_EQ(parse(cm)["data"].as_object()["a"], "b");
  // The scheduler's protobuf Binding carries a uid precondition.
  ASSERT_EQ(call("POST", "/api/v1/namespaces/ns1/pods",
                 R"({"metadata":{"name":"web-0"},"spec":{"containers":[{"name":"c","image":"x"}]}})").status,
            201);
  auto b = call("POST", "/api/v1/namespaces/ns1/pods/web-0/binding", read("binding.pb"), pb);
  EXPECT_EQ(b.status, 409);
  EXPECT_NE(message(b).find("Precondition failed: UID in precondition: uid"), std::string::npos) << b.body;
  auto garbage = call("POST", "/api/v1/namespaces/ns1/configmaps", "k8s\0garbage", pb);
  EXPECT_EQ(garbage.status, 415);
}

TEST_F(ApiTest, QueryBooleansFollowUpstream) {
  std::string t = "true", f = "False", z = "0", e;
  EXPECT_TRUE(query_bool(&t));
  EXPECT_FALSE(query_bool(&f));
  EXPECT_FALSE(query_bool(&z));
  EXPECT_TRUE(query_bool(&e));
  EXPECT_FALSE(query_bool(nullptr));
}

}  // namespace
}  // namespace ksched::apiserver

namespace ksched::apiserver {
namespace {

// Typed lists: items carry no kind/apiVersion (upstream's list encoding); a get and a watch event
// carry both, first.
TEST_F(ApiTest, ListItemsCarryNoTypeMeta) {
  ASSERT_EQ(create_pod("a").status, 201);
  auto l = parse(call("GET", "/api/v1/namespaces/default/pods"));
  EXPECT_EQ(l["kind"], "PodList");
  auto item = l["items"].as_array()[0].as_object();
  EXPECT_FALSE(item.contains("kind"));
  EXPECT_FALSE(item.contains("apiVersion"));
  EXPECT_EQ(item["metadata"].as_object()["name"], "a");
  auto g = call("GET", "/api/v1/namespaces/default/pods/a");
  EXPECT_EQ(g.body.rfind(R"({"kind":"Pod","apiVersion":"v1","metadata":)", 0), 0u) << g.body;
}

}  // namespace
}  // namespace ksched::apiserver
