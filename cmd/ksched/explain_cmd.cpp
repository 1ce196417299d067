// `ksched explain POD`: one scheduling cycle for a pod against the cluster as it is now, without
// binding, with every plugin's verdict and score (src/scheduler/explain).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "api/codec.h"
#include "client/config.h"
#include "client/rest.h"
#include "scheduler/app/app.h"
#include "scheduler/app/options.h"
#include "scheduler/explain/explain.h"
#include "scheduler/scheduler.h"
#include "subcommand.h"
#include "util/log.h"

namespace {
using namespace ksched;

int run_explain(int argc, char** argv) {
  CLI::App app{"Explain where the scheduler would place a pod, plugin by plugin, without binding it", "ksched explain"};
  std::string pod_name, ns, kubeconfig, config_file, context, output = "text";
  std::vector<std::string> nodes;
  std::size_t top = 3;
  int verbosity = 0;
  app.add_option("pod", pod_name, "the pod: NAME or pod/NAME")->required();
  app.add_option("-n,--namespace", ns, "the pod's namespace (default: the kubeconfig context's)");
  app.add_option("--kubeconfig", kubeconfig, "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)");
  app.add_option("--context", context, "kubeconfig context to use");
  app.add_option("--config", config_file,
                 "KubeSchedulerConfiguration whose profiles to explain with (default: the default profile)");
  app.add_option("-o,--output", output, "text, wide (every node, every plugin) or json")
      ->check(CLI::IsMember({"text", "wide", "json"}));
  app.add_option("--node", nodes, "also show every verdict and score of this node (repeatable, or comma-separated)")
      ->delimiter(',');
  app.add_option("--top", top, "how many of the best feasible nodes' scores the text shows")->check(CLI::PositiveNumber);
  std::string feature_gates;
  app.add_option("--feature-gates", feature_gates,
                 "the scheduler's feature gates, as kube-scheduler's flag (GangScheduling=true,GenericWorkload=true: "
                 "a gang member's explanation says its group's state and tries the group's placement as the pod-group cycle would)");
  app.add_option("-v,--v", verbosity, "log verbosity");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  log::init(verbosity);
  std::vector<std::string> gate_warnings;
  auto gates = scheduler::app::parse_feature_gates(feature_gates, gate_warnings);
  if (!gates) {
    std::fprintf(stderr, "ksched explain: %s\n", gates.error().c_str());
    return 1;
  }
  // kubectl's TYPE/NAME habit: pod/web, pods/web, po/web; another type is a mistake worth naming.
  if (const auto slash = pod_name.find('/'); slash != std::string::npos) {
    const std::string type = pod_name.substr(0, slash);
    if (type != "pod" && type != "pods" && type != "po") {
      std::fprintf(stderr, "ksched explain: explains pods, not \"%s\" (give NAME or pod/NAME)\n", type.c_str());
      return 1;
    }
    pod_name.erase(0, slash + 1);
    if (pod_name.empty()) {
      std::fprintf(stderr, "ksched explain: no pod name after \"%s/\"\n", type.c_str());
      return 1;
    }
  }

  client::KubeconfigOptions ko;
  ko.explicit_path = kubeconfig;
  ko.context = context;
  auto rest = client::load_kubeconfig(ko);
  if (!rest) {
    std::fprintf(stderr, "ksched explain: %s\n", rest.error().c_str());
    return 1;
  }
  if (ns.empty()) ns = rest->namespace_.empty() ? "default" : rest->namespace_;

  auto rc = client::RestClient::create(*rest);
  if (!rc) {
    std::fprintf(stderr, "ksched explain: %s\n", rc.error().c_str());
    return 1;
  }
  auto pod = (*rc)->get<api::Pod>(ns, pod_name);
  if (!pod) {
    std::fprintf(stderr, "ksched explain: getting pod %s/%s: %s\n", ns.c_str(), pod_name.c_str(), pod.error().message.c_str());
    return 1;
  }

  // The scheduler's own start-up path (flags, config, informers, cache), minus the loop.
  auto sched_app = scheduler::app::start_inspector(*rest, config_file, *gates);
  if (!sched_app) {
    std::fprintf(stderr, "ksched explain: %s\n", sched_app.error().c_str());
    return 1;
  }
  auto* sched = (*sched_app)->scheduler();
  auto* fwk = sched->profile(pod->spec.schedulerName);
  if (fwk == nullptr) {
    std::fprintf(stderr, "ksched explain: pod %s/%s asks for scheduler \"%s\", which is not a profile of this configuration\n",
                 ns.c_str(), pod_name.c_str(), pod->spec.schedulerName.c_str());
    return 1;
  }
  if (auto r = sched->refresh_snapshot(); !r) {
    std::fprintf(stderr, "ksched explain: %s\n", r.error().c_str());
    return 1;
  }
  auto e = scheduler::explain::explain_with_group(*sched, *fwk, *pod);
  if (!e) {
    std::fprintf(stderr, "ksched explain: %s\n", e.error().c_str());
    return 1;
  }
  if (output == "json") {
    std::cout << scheduler::explain::to_json(*e);
    return 0;
  }
  scheduler::explain::TextOptions to;
  to.nodes = nodes;
  to.top = top;
  to.wide = output == "wide";
  auto text = scheduler::explain::to_text(*e, to);
  if (!text) {
    std::fprintf(stderr, "ksched explain: %s\n", text.error().c_str());
    return 1;
  }
  std::cout << *text;
  return 0;
}

const cmd::RegisterSubcommand reg("explain", "explain where a pod would be placed and why, plugin by plugin", run_explain);

}  // namespace
