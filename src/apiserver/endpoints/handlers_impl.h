// Private to the API server's request handling: Api::Impl (the verbs) and the helpers they share.
// The verbs live by group, as upstream's endpoint handlers: handlers_write.cpp (create, update,
// patch), handlers_read.cpp (get, list, watch), handlers_delete.cpp (delete, delete collection,
// eviction), handlers_subresources.cpp (binding, scale, token and access reviews), handlers.cpp
// (routing and the shared helpers), bootstrap.cpp (built-in objects and simulated nodes).
#pragma once
#include "apiserver/endpoints/handlers.h"

#include <openssl/rand.h>

#include <array>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "api/yaml_json.h"
#include "apiserver/write/body_codec.h"
#include "apiserver/json_access.h"
#include "apiserver/write/write_pipeline.h"
#include "apiserver/auth/auth.h"
#include "apiserver/storage/continue_token.h"
#include "apiserver/endpoints/discovery.h"
#include "apiserver/auth/authorization.h"
#include "apiserver/auth/rbac_authorizer.h"
#include "apiserver/auth/rbac_escalation.h"
#include "apiserver/conversion.h"
#include "apiserver/endpoints/openapi.h"
#include "apiserver/endpoints/patch.h"
#include "apiserver/registry/core/pod_strategy.h"
#include "apiserver/endpoints/protobuf.h"
#include "apiserver/endpoints/request_options.h"
#include "apiserver/status.h"
#include "apiserver/timeutil.h"
#include "util/go_format.h"
#include "util/log.h"

namespace ksched::apiserver {

namespace json = boost::json;

// ---------------------------------------------------------------- helpers (handlers.cpp)
std::string new_uid();
std::string random_suffix();
json::object& meta_of(json::object& o);
std::string meta_str(const json::object& o, std::string_view k);
const json::object* obj_at(const json::object& o, std::string_view k);
void type_meta_first(const ResourceInfo& r, json::object& obj);
Response json_response(int status, std::string body);
Response error_response(const ApiError& e);
Response plain(int status, std::string body);
ApiError not_found(const ResourceInfo& r, const std::string& name);
ApiError conflict_modified(const ResourceInfo& r, const std::string& name);
ApiError conflict(const std::string& what, const ResourceInfo& r, const std::string& name, const std::string& msg);
std::string success_status(int code, const std::string& name, const ResourceInfo* r, const std::string& uid);
Response discovery_root(const Request& req, bool core, const std::string& server_address,
                        const FeatureGates& gates);
bool is_table_accept(std::string_view accept);
std::optional<std::int64_t> parse_rv(const std::string& s);

// ---------------------------------------------------------------- the verbs
struct Api::Impl {
  Api& api;
  Store& store;
  // The request's user; null for the server's own writes (bootstrap), which no RBAC check stops.
  const UserInfo* user = nullptr;

  // The authorization filter: nullopt when the request may go on, else the answer (403).
  std::optional<Response> authorize(const Request& req);
  // RBAC's escalation checks on a write of a role or a binding by the request's user.
  std::optional<ApiError> check_escalation(const ResourceInfo& r, const std::string& ns, const std::string& url_name,
                                           const json::object& obj, const json::object* old);

  std::int64_t now() const { return api.now_unix(); }
  std::string now_ts() const { return format_rfc3339(now()); }

  static int res_id(std::string_view group, std::string_view plural) {
    return find_resource(group, "v1", plural)->id;
  }

  std::optional<ApiError> check_namespace(const std::string& ns);

  // ------------------------------------------------------------ create
  Response create(const ResourceInfo& r, const std::string& ns, const Request& req);

  struct CreateResult {
    std::optional<std::string> body;
    std::optional<ApiError> err;
    explicit operator bool() const { return body.has_value(); }
    const std::string& operator*() const { return *body; }
  };

  CreateResult fail(ApiError e);

  // Decodes `obj` as `decode` says (nullptr: as a body without options, for the server's own
  // objects), then creates it.
  CreateResult do_create(const ResourceInfo& r, const std::string& ns, json::object& obj, bool dry,
                         const DecodeRequest* decode = nullptr);

  // ------------------------------------------------------------ get
  Response get(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req);

  static IncludeObject include_param(const Request& req);

  // ------------------------------------------------------------ update / patch
  // Builds the new state from the stored one; `mutate` returns an error to abort.
  using Mutator = std::function<std::optional<ApiError>(json::object& cur, json::object& next)>;

  // The response carries the updated object unless `with_object` is false (a binding answers with
  // a Status of its own, so copying the pod into the response would be wasted).
  Response guaranteed_update(const ResourceInfo& r, const std::string& ns, const std::string& name,
                             const std::string& sub, bool dry, const Mutator& mutate, bool with_object = true,
                             std::vector<std::string>* warnings = nullptr);

  static std::int64_t deadline_of(const ResourceInfo& r, const json::object& obj);

  // Carries over what clients may not change and applies the status split.
  std::optional<ApiError> finish_update(const ResourceInfo& r, const std::string& sub, json::object& cur,
                                        json::object& next);

  Response update(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& sub,
                  const Request& req);

  Response patch(const ResourceInfo& r, const std::string& ns, const std::string& name, const std::string& sub,
                 const Request& req);

  // ------------------------------------------------------------ scale
  static std::string selector_string(const json::object& obj);

  static json::object scale_of(const ResourceInfo& r, const json::object& obj);

  Response scale(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req);

  // ------------------------------------------------------------ binding
  Response binding(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req);

  // ------------------------------------------------------------ delete
  struct DeleteOptions {
    std::optional<std::int64_t> grace;
    std::string propagation;
    std::string pre_uid, pre_rv;
    bool dry = false;
  };

  util::Result<DeleteOptions, ApiError> delete_options(const Request& req, const json::object* body_override = nullptr);

  Response remove(const ResourceInfo& r, const std::string& ns, const std::string& name, const DeleteOptions& opt);

  // Namespaces go Terminating; with a controller manager the namespace controller empties and
  // finalizes them, without one their content is deleted here and they disappear at once.
  Response delete_namespace(const ResourceInfo& r, const std::string& name, json::object obj, std::int64_t rv);
  // Sets the garbage collector's finalizers the delete asks for; true when they changed.
  static bool gc_finalizers(const ResourceInfo& r, json::object& meta, const DeleteOptions& opt);

  Response delete_one(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req);

  Response eviction(const ResourceInfo& r, const std::string& ns, const std::string& name, const Request& req);

  // A label selector (metav1.LabelSelector JSON) in the string grammar.
  static std::optional<LabelSelector> selector_of(const json::object* sel);

  static bool pod_healthy(const json::object& pod);

  // PodDisruptionBudget check of pods/eviction, computed from the current pods (there is no
  // disruption controller): 429 when evicting would leave fewer healthy pods than the budget.
  std::optional<ApiError> pdb_blocks_eviction(const ResourceInfo& r, const std::string& ns, const std::string& name);

  // ------------------------------------------------------------ list / watch
  struct Selectors {
    LabelSelector labels;
    FieldSelector fields;
  };

  std::optional<ApiError> parse_selectors(const ResourceInfo& r, const Request& req, Selectors& s);

  std::string list_kind(const ResourceInfo& r) { return r.kind + "List"; }

  Response list(const ResourceInfo& r, const std::string& ns, const Request& req);

  Response watch(const ResourceInfo& r, const std::string& ns, const Request& req, Selectors sel);

  Response delete_collection(const ResourceInfo& r, const std::string& ns, const Request& req);

  static constexpr std::size_t kMaxPending = 50000;

  // ------------------------------------------------------------ reviews (answered, not stored)
  static json::object review_shell(const ResourceInfo& r, json::object& body);

  Response token_review(const ResourceInfo& r, const Request& req);

  // SubjectAccessReview, LocalSubjectAccessReview (ns set) and SelfSubjectAccessReview (self):
  // the same evaluator as every request.
  Response subject_access_review(const ResourceInfo& r, const std::string& ns, const Request& req);
  Response self_subject_rules_review(const ResourceInfo& r, const Request& req);
  Response self_subject_review(const ResourceInfo& r, const Request& req);

  // ------------------------------------------------------------ routing
  Response route(const Request& req);

  static Response not_found_resource();
  static Response method_not_allowed();
};

}  // namespace ksched::apiserver
