// Workload definitions for `ksched bench`, in the shape of upstream scheduler_perf's
// performance-config.yaml: a list of test cases, each a template of operations (createNodes,
// createNamespaces, createPods, createPodSets, churn, barrier, deletePods, sleep, and DRA's
// createResourceDriver, createAny, allocResourceClaims) whose counts come from per-workload params
// ($initNodes, ...; durations such as "10s" for durationParam). Object templates are YAML files
// next to the config; createAny's may number objects with {{.Index}}.
#pragma once
#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace ksched::perf {

// One operation of a workload template, with $params already resolved.
struct Op {
  std::string opcode;
  int count = 0;  // count / countParam, times countMultiplier / countMultiplierParam (createPods)
  // templateParams (createPods, createAny): named integers the object template refers to as
  // {{.name}} or {{DivideInt .Index .name}} (render_template), each a number or a $param.
  std::map<std::string, int> template_params;
  // templateParams given as text (upstream's `cpuRequest: 3970m`, or a $param written as a string):
  // {{.name}} is replaced by the text as written; arithmetic on one is an error.
  std::map<std::string, std::string> template_text_params;
  // createNodes
  std::string node_template_path;
  std::string label_key;  // labelNodePrepareStrategy
  std::vector<std::string> label_values;
  std::map<std::string, std::string> node_allocatable;  // nodeAllocatableStrategy.nodeAllocatable
  std::map<std::string, int> csi_node_allocatable;      // driver -> count
  // createNamespaces / createPodSets
  std::string prefix;
  std::string namespace_template_path;
  // createPods
  std::string namespace_;  // "" = namespace-<op index>
  std::string pod_template_path;
  // podTemplatePaths: pod i uses template i mod n (mixed signatures); replaces podTemplatePath.
  std::vector<std::string> pod_template_paths;
  bool collect_metrics = false;
  bool skip_wait_to_completion = false;
  std::string pv_template_path;
  std::string pvc_template_path;
  // createPodSets
  std::string namespace_prefix;
  std::vector<Op> create_pods_op;  // exactly one when present
  // churn
  std::string mode;  // recreate | create
  int number = 1;
  std::vector<std::string> template_paths;
  int interval_ms = 500;
  // barrier
  std::string stage_requirement = "Scheduled";  // Scheduled | Attempted
  std::vector<std::string> namespaces;
  // deletePods
  int delete_pods_per_second = 0;
  // sleep; createPods with steadyState (duration / durationParam)
  double duration_seconds = 0;
  // createPods: keep `count` pods, deleting them once all are scheduled and creating the next
  // batch, for duration_seconds (upstream's steadyState)
  bool steady_state = false;
  // createAny: one object per count (default 1) from template_path, in namespace_ when namespaced
  std::string template_path;
  // createResourceDriver: a ResourceSlice of max_claims_per_node devices for each node whose name
  // matches the glob `nodes`
  std::string driver_name;
  std::string nodes;
  int max_claims_per_node = 0;
};

struct Workload {
  std::string name;  // e.g. 500Nodes
  std::vector<std::string> labels;
  double threshold = 0;  // upstream's minimum SchedulingThroughput average (pods/s); 0 = none
  std::map<std::string, int> params;
  std::map<std::string, double> durations;    // params given as durations ("10s"), in seconds
  std::map<std::string, std::string> texts;   // every param given as a string, as written ("3970m")
  std::map<std::string, bool> feature_gates;  // over the test case's
};

struct TestCase {
  std::string name;  // e.g. SchedulingBasic
  std::vector<std::string> labels;
  std::string default_pod_template_path;
  std::string description;
  boost::json::value workload_template;  // raw ops (JSON), resolved per workload
  std::map<std::string, bool> feature_gates;  // the scheduler's, as upstream scheduler_perf's featureGates
  std::vector<Workload> workloads;
};

struct Config {
  std::string base_dir;  // template paths are relative to this
  std::vector<TestCase> test_cases;
};

// Everything a run needs: the test case, the chosen workload (params after overrides), and the
// resolved operations.
struct ResolvedWorkload {
  std::string test_case;
  std::string workload;
  std::string full_name() const { return test_case + "/" + workload; }
  double threshold = 0;
  std::map<std::string, int> params;
  std::map<std::string, double> durations;
  std::map<std::string, std::string> texts;
  std::map<std::string, bool> feature_gates;  // for the in-process scheduler
  std::vector<Op> ops;
  // Whether the workload uses Dynamic Resource Allocation (it has a DRA operation): the bench
  // then runs the ResourceClaim controller, as upstream's scheduler_perf does.
  bool uses_dra() const;
  std::string default_pod_template_path;  // absolute or base_dir-relative, already joined
  std::string base_dir;
};

util::Result<Config> parse_config(const std::string& yaml_text, const std::string& base_dir);
util::Result<Config> load_config(const std::string& path);
// Loads every *.yaml directly inside dir that is a workload list (templates/ is skipped).
util::Result<Config> load_config_dir(const std::string& dir);

// name: "TestCase" (its first workload) or "TestCase/Workload". Overrides replace params
// (initNodes, initPods, measurePods, ...).
util::Result<ResolvedWorkload> resolve(const Config& cfg, const std::string& name,
                                       const std::map<std::string, int>& overrides = {});
// All "TestCase/Workload" names with the given label ("" = all).
std::vector<std::string> workloads_with_label(const Config& cfg, const std::string& label);

// The subset of Go's text/template that scheduler_perf's object templates use, over `text`:
// {{.Index}} (the object's index within its operation), {{.name}} (a templateParams value: a number,
// or a text param substituted as written), integer literals, and scheduler_perf's integer functions
// DivideInt, AddInt and Mod, nested with parentheses as in upstream's
// {{AddInt 8000 (Mod .Index (DivideInt .podsCount .nodesCount))}}; spaces inside the braces are
// allowed. Anything else between {{ }} is an error naming it, as is a param not given, a text param
// given to a function, or a division (or Mod) by 0.
util::Result<std::string> render_template(std::string_view text, long index, const std::map<std::string, int>& params,
                                          const std::map<std::string, std::string>& text_params = {});

// Go's time.ParseDuration for the forms workloads use ("10s", "500ms", "1m30s"); nothing when not one.
std::optional<double> parse_duration(std::string_view s);

// YAML text to JSON: quoted scalars stay strings; plain scalars that look like ints/floats/bools/
// null are typed (Kubernetes manifests rely on this).
util::Result<boost::json::value> yaml_to_json(const std::string& yaml_text);
util::Result<boost::json::value> load_yaml_file(const std::string& path);

}  // namespace ksched::perf
