// What a request may ask, through Api::handle (no HTTP), as upstream answers it: query parameters
// decoded and validated before anything is done (400 for numbers that do not parse, 422 naming
// the options kind), bodies in media types the server does not read (415), amplification in YAML
// aliases and JSON patches, and objects larger than etcd would store.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "api_harness.h"

namespace ksched::apiserver {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

class RequestLimitsTest : public ApiHarness {
 protected:
  static std::string configmap(const std::string& name, const std::string& value = "v") {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"k":")" + value +
           R"("}})";
  }
  bool exists(const std::string& path) { return call("GET", path).status == 200; }
  static json::object cause(const Response& r, std::size_t i = 0) {
    return parse(r).at("details").at("causes").at(i).as_object();
  }
};

TEST_F(RequestLimitsTest, DryRunAcceptsOnlyAll) {
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  auto bogus = call("POST", cms + "?dryRun=Bogus", configmap("a"));
  ASSERT_EQ(bogus.status, 422) << bogus.body;
  EXPECT_EQ(reason(bogus), "Invalid");
  EXPECT_EQ(message(bogus),
            R"(CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All")");
  EXPECT_EQ(cause(bogus).at("reason"), "FieldValueNotSupported");
  EXPECT_EQ(cause(bogus).at("field"), "dryRun");
  EXPECT_EQ(parse(bogus).at("details").at("kind"), "CreateOptions");
  EXPECT_EQ(parse(bogus).at("details").at("group"), "meta.k8s.io");
  EXPECT_FALSE(exists(cms + "/a")) << "dryRun=Bogus stored the object";
  // Every value counts, and a bare ?dryRun is the value "".
  EXPECT_EQ(call("POST", cms + "?dryRun=All&dryRun=x", configmap("a")).status, 422);
  auto bare = call("POST", cms + "?dryRun", configmap("a"));
  EXPECT_THAT(message(bare), HasSubstr(R"(Unsupported value: []string{""})"));
  EXPECT_FALSE(exists(cms + "/a"));

  // All is a dry run: answered as created, stored nowhere.
  EXPECT_EQ(call("POST", cms + "?dryRun=All", configmap("a")).status, 201);
  EXPECT_FALSE(exists(cms + "/a"));
  ASSERT_EQ(call("POST", cms, configmap("a")).status, 201);

  auto update = call("PUT", cms + "/a?dryRun=Nope", configmap("a", "changed"));
  EXPECT_EQ(update.status, 422);
  EXPECT_THAT(message(update), HasSubstr(R"(UpdateOptions.meta.k8s.io "" is invalid: dryRun: )"));
  auto patch = call("PATCH", cms + "/a?dryRun=Nope", R"({"data":{"k":"patched"}})", "application/merge-patch+json");
  EXPECT_EQ(patch.status, 422);
  EXPECT_THAT(message(patch), HasSubstr(R"(PatchOptions.meta.k8s.io "" is invalid: dryRun: )"));
  auto del = call("DELETE", cms + "/a?dryRun=Nope");
  EXPECT_EQ(del.status, 422);
  EXPECT_THAT(message(del), HasSubstr(R"(DeleteOptions.meta.k8s.io "" is invalid: dryRun: )"));
  auto body_del = call("DELETE", cms + "/a", R"({"dryRun":["Sometimes"]})");
  EXPECT_EQ(body_del.status, 422) << body_del.body;
  EXPECT_EQ(parse(call("GET", cms + "/a")).at("data").at("k"), "v") << "a refused option changed the object";
}

TEST_F(RequestLimitsTest, WriteOptionsAreValidatedAsUpstream) {
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(call("POST", cms, configmap("a")).status, 201);
  auto force = call("PATCH", cms + "/a?force=false", R"({"data":{"k":"x"}})", "application/merge-patch+json");
  ASSERT_EQ(force.status, 422);
  EXPECT_EQ(message(force),
            R"(PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch)");
  auto long_manager = call("POST", cms + "?fieldManager=" + std::string(129, 'm'), configmap("b"));
  ASSERT_EQ(long_manager.status, 422);
  EXPECT_EQ(cause(long_manager).at("message"), "Too long: may not be more than 128 bytes");
  auto control = call("POST", cms + "?fieldManager=a%01b", configmap("b"));
  ASSERT_EQ(control.status, 422);
  EXPECT_EQ(cause(control).at("message"), R"(Invalid value: "a\x01b": invalid character U+0001 (at position 1))");
  // Several errors are reported together.
  auto both = call("POST", cms + "?fieldManager=a%01b&dryRun=x", configmap("b"));
  ASSERT_EQ(both.status, 422);
  EXPECT_EQ(parse(both).at("details").at("causes").as_array().size(), 2u);
  EXPECT_THAT(message(both), HasSubstr(R"(is invalid: [fieldManager: Invalid value: )"));
  EXPECT_FALSE(exists(cms + "/b"));
  EXPECT_EQ(call("POST", cms + "?fieldManager=kubectl-client-side-apply", configmap("b")).status, 201);
}

TEST_F(RequestLimitsTest, NumbersInTheQueryMustParse) {
  auto limit = call("GET", "/api/v1/namespaces/default/configmaps?limit=abc");
  ASSERT_EQ(limit.status, 400) << limit.body;
  EXPECT_EQ(reason(limit), "BadRequest");
  EXPECT_EQ(message(limit), R"(strconv.ParseInt: parsing "abc": invalid syntax)");
  EXPECT_EQ(message(call("GET", "/api/v1/pods?limit=")), R"(strconv.ParseInt: parsing "": invalid syntax)");
  EXPECT_EQ(message(call("GET", "/api/v1/pods?limit=99999999999999999999")),
            R"(strconv.ParseInt: parsing "99999999999999999999": value out of range)");
  EXPECT_EQ(call("GET", "/api/v1/pods?limit=-1").status, 200);  // no limit, as upstream
  auto timeout = call("GET", "/api/v1/pods?watch=1&timeoutSeconds=soon");
  ASSERT_EQ(timeout.status, 400);
  EXPECT_EQ(message(timeout), R"(strconv.ParseInt: parsing "soon": invalid syntax)");
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps", configmap("a")).status, 201);
  auto grace = call("DELETE", "/api/v1/namespaces/default/configmaps/a?gracePeriodSeconds=1.5");
  ASSERT_EQ(grace.status, 400);
  EXPECT_EQ(message(grace), R"(strconv.ParseInt: parsing "1.5": invalid syntax)");
  EXPECT_TRUE(exists("/api/v1/namespaces/default/configmaps/a"));
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/configmaps?limit=x").status, 400);
}

TEST_F(RequestLimitsTest, DeleteOptionsAreValidatedAsUpstream) {
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  ASSERT_EQ(call("POST", cms, configmap("a")).status, 201);
  auto policy = call("DELETE", cms + "/a?propagationPolicy=Bogus");
  ASSERT_EQ(policy.status, 422);
  EXPECT_EQ(message(policy),
            R"(DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil")");
  auto both = call("DELETE", cms + "/a?propagationPolicy=Orphan&orphanDependents=true");
  ASSERT_EQ(both.status, 422);
  EXPECT_EQ(cause(both).at("message"),
            R"(Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set)");
  // A body carries the options; the query is then not read, as upstream.
  auto body = call("DELETE", cms + "/a?propagationPolicy=Bogus", R"({"propagationPolicy":"Background"})");
  EXPECT_EQ(body.status, 200) << body.body;
  EXPECT_FALSE(exists(cms + "/a"));
}

TEST_F(RequestLimitsTest, ListAndWatchOptionsAreValidatedTogether) {
  auto two = call("GET", "/api/v1/pods?resourceVersionMatch=Sometimes&continue=abc");
  ASSERT_EQ(two.status, 422);
  EXPECT_EQ(message(two),
            R"(ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, )"
            R"(resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, )"
            R"(resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""])");
  EXPECT_EQ(parse(two).at("details").at("causes").as_array().size(), 3u);
  auto initial = call("GET", "/api/v1/pods?sendInitialEvents=false");
  ASSERT_EQ(initial.status, 422);
  EXPECT_EQ(cause(initial).at("field"), "sendInitialEvents");
  auto watch = call("GET", "/api/v1/pods?watch=1&resourceVersionMatch=Exact");
  ASSERT_EQ(watch.status, 422);
  EXPECT_EQ(message(watch),
            R"(ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, )"
            R"(resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"])");
  // A watch list: sendInitialEvents with NotOlderThan (allowWatchBookmarks is not required in v1.35).
  auto list = call("GET", "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan");
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_NE(list.watcher, nullptr);
  auto table = call("GET", "/api/v1/pods?includeObject=Everything", "", "application/json",
                    "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 400);
  EXPECT_EQ(message(table), R"(includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty)");
}

TEST_F(RequestLimitsTest, BodiesInOtherMediaTypesAre415) {
  const std::string cms = "/api/v1/namespaces/default/configmaps";
  const std::string expected =
      "the body of the request was in an unknown format - accepted media types include: application/json, "
      "application/yaml, application/vnd.kubernetes.protobuf";
  for (const char* type : {"text/plain", "application/xml", "application/cbor", "application/x-www-form-urlencoded"}) {
    auto r = call("POST", cms, configmap("a"), type);
    ASSERT_EQ(r.status, 415) << type;
    EXPECT_EQ(reason(r), "UnsupportedMediaType");
    EXPECT_EQ(message(r), expected);
  }
  EXPECT_FALSE(exists(cms + "/a"));
  // Parameters and case do not matter; no Content-Type at all is JSON.
  EXPECT_EQ(call("POST", cms, configmap("a"), "Application/JSON; charset=utf-8").status, 201);
  EXPECT_EQ(call("POST", cms, configmap("b"), "").status, 201);
  EXPECT_EQ(call("PUT", cms + "/a", configmap("a", "x"), "text/plain").status, 415);
  EXPECT_EQ(call("DELETE", cms + "/a", R"({"gracePeriodSeconds":0})", "text/xml").status, 415);
  EXPECT_TRUE(exists(cms + "/a"));
  EXPECT_EQ(call("POST", "/api/v1/namespaces/default/pods/x/binding", "{}", "text/plain").status, 415);
}

TEST_F(RequestLimitsTest, YamlAliasBombRefusedQuickly) {
  std::string bomb =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-bomb\ndata:\n"
      "  a: &a [\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\",\"web\"]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += std::string("  ") + c + ": &" + c + " [";
    for (int k = 0; k < 9; ++k) bomb += std::string(k ? "," : "") + "*" + static_cast<char>(c - 1);
    bomb += "]\n";
  }
  auto r = call("POST", "/api/v1/namespaces/default/configmaps", bomb, "application/yaml");
  ASSERT_EQ(r.status, 400) << r.body.substr(0, 300);
  EXPECT_EQ(reason(r), "BadRequest");
  EXPECT_THAT(message(r), HasSubstr("yaml: document contains excessive aliasing"));
  EXPECT_FALSE(exists("/api/v1/namespaces/default/configmaps/yaml-bomb"));
}

TEST_F(RequestLimitsTest, JsonPatchAmplificationIsBounded) {
  const std::string cm = "/api/v1/namespaces/default/configmaps/a";
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/configmaps", configmap("a", std::string(1000, 'v'))).status, 201);
  json::array copies;
  for (int i = 0; i < 30; ++i)
    copies.push_back(json::object{{"op", "copy"}, {"from", "/data"}, {"path", "/data/x" + std::to_string(i)}});
  auto r = call("PATCH", cm, json::serialize(copies), "application/json-patch+json");
  ASSERT_EQ(r.status, 422) << r.body.substr(0, 300);
  EXPECT_EQ(reason(r), "Invalid");
  EXPECT_THAT(message(r), HasSubstr("exceeding the limit 3145728"));
  EXPECT_EQ(parse(call("GET", cm)).at("data").as_object().size(), 1u);

  json::array many;
  for (int i = 0; i < 10001; ++i) many.push_back(json::object{{"op", "test"}, {"path", "/kind"}, {"value", "ConfigMap"}});
  auto ops = call("PATCH", cm, json::serialize(many), "application/json-patch+json");
  ASSERT_EQ(ops.status, 413);
  EXPECT_EQ(reason(ops), "RequestEntityTooLarge");
  EXPECT_EQ(message(ops),
            "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001");
  many.pop_back();
  EXPECT_EQ(call("PATCH", cm, json::serialize(many), "application/json-patch+json").status, 200);
}

TEST_F(RequestLimitsTest, ObjectsLargerThanEtcdStoresAreRefused) {
  // A PriorityClass description has no length limit of its own: only storage bounds it.
  auto pc = [](const std::string& name, std::size_t n) {
    return R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":")" + name +
           R"("},"value":5,"description":")" + std::string(n, 'd') + R"("})";
  };
  const std::string pcs = "/apis/scheduling.k8s.io/v1/priorityclasses";
  auto big = call("POST", pcs, pc("big", 1600000));
  ASSERT_EQ(big.status, 500) << big.body.substr(0, 300);
  EXPECT_EQ(message(big), "etcdserver: request is too large");
  EXPECT_FALSE(parse(big).contains("reason"));
  EXPECT_FALSE(exists(pcs + "/big"));
  ASSERT_EQ(call("POST", pcs, pc("fits", 1500000)).status, 201);
  // Growing a stored object past the limit is refused the same way, and changes nothing.
  auto grow = call("PATCH", pcs + "/fits", R"({"description":")" + std::string(1600000, 'e') + R"("})",
                   "application/merge-patch+json");
  EXPECT_EQ(grow.status, 500);
  EXPECT_EQ(std::string(parse(call("GET", pcs + "/fits")).at("description").as_string()).substr(0, 1), "d");
}

}  // namespace
}  // namespace ksched::apiserver
