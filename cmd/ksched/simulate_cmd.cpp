// `ksched simulate`: what-if scheduling of given pods over a cluster dump, offline
// (src/scheduler/simulate).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "scheduler/app/options.h"
#include "scheduler/config/features.h"
#include "scheduler/simulate/simulator.h"
#include "subcommand.h"
#include "util/log.h"

namespace {
using namespace ksched;

// What a dump for --cluster holds: every kind the scheduler reads.
constexpr std::string_view kDumpKinds =
    "nodes,pods,pdb,pv,pvc,storageclasses,csinodes,priorityclasses,deviceclasses,resourceslices,resourceclaims,"
    "resourceclaimtemplates";

int run_simulate(int argc, char** argv) {
  CLI::App app{"Schedule pods offline over a cluster dump (no API server, no network) and report where they land",
               "ksched simulate"};
  std::string dump, pods_file, config_file, output = "text";
  std::uint64_t seed = 1;
  int parallelism = 0, verbosity = 0;
  app.add_option("--cluster", dump,
                 "the cluster: what `kubectl get " + std::string(kDumpKinds) + " -A -o json` writes")
      ->required();
  app.add_option("--pods", pods_file,
                 "the pods to schedule, in order (YAML documents or JSON); may hold the Workloads its pods name")
      ->required();
  std::string feature_gates;
  app.add_option("--feature-gates", feature_gates,
                 "the scheduler's feature gates, as kube-scheduler's flag (GenericWorkload=true,GangScheduling=true: "
                 "gangs are placed all or nothing)");
  app.add_option("--config", config_file, "KubeSchedulerConfiguration (default: the default profile)");
  app.add_option("-o,--output", output, "text or json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--seed", seed, "seed of the tie-breaks among equal scores (same inputs and seed, same placements)");
  app.add_option("--parallelism", parallelism, "Filter/Score workers (default: the hardware threads)");
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
    std::fprintf(stderr, "ksched simulate: %s\n", gates.error().c_str());
    return 1;
  }
  for (const auto& w : gate_warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());

  // Before the configuration is defaulted: GangScheduling joins the default profile with its gate.
  scheduler::config::set_features(scheduler::config::features_from_gates(*gates));
  scheduler::app::Options flags;
  flags.config_file = config_file;
  flags.feature_gates = *gates;
  auto cfg = scheduler::app::effective_config(flags);
  if (!cfg) {
    std::fprintf(stderr, "ksched simulate: %s\n", cfg.error().c_str());
    return 1;
  }
  const auto load_start = std::chrono::steady_clock::now();
  auto cluster = scheduler::simulate::load_objects_file(dump);
  if (!cluster) {
    std::fprintf(stderr, "ksched simulate: %s\n", cluster.error().c_str());
    return 1;
  }
  auto given = scheduler::simulate::load_objects_file(pods_file);
  if (!given) {
    std::fprintf(stderr, "ksched simulate: %s\n", given.error().c_str());
    return 1;
  }
  const double load_secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count();
  if (cluster->nodes.empty()) {
    // An empty file, `{}` or a dump of the wrong kinds: nothing could ever be placed.
    std::fprintf(stderr,
                 "ksched simulate: %s holds no Node (expected what `kubectl get %s -A -o json` writes)\n", dump.c_str(),
                 std::string(kDumpKinds).c_str());
    return 1;
  }
  if (given->pods.empty()) {
    std::fprintf(stderr, "ksched simulate: %s holds no Pod\n", pods_file.c_str());
    return 1;
  }
  for (const auto& [kind, n] : cluster->skippedKinds) {
    std::fprintf(stderr, "note: %zu %s object(s) of the dump are not read by the scheduler\n", n, kind.c_str());
  }
  std::fprintf(stderr, "loaded %zu nodes and %zu pods in %.2f s\n", cluster->nodes.size(), cluster->pods.size(), load_secs);

  // A gang's Workload or PodGroup is submitted with its pods: those of the pods file join the dump's.
  cluster->workloads.insert(cluster->workloads.end(), given->workloads.begin(), given->workloads.end());
  cluster->podGroups.insert(cluster->podGroups.end(), given->podGroups.begin(), given->podGroups.end());
  if (!scheduler::config::features().gangScheduling) {
    std::size_t members = 0;
    for (const auto& p : given->pods) members += p->spec.workloadRef || p->spec.schedulingGroup ? 1 : 0;
    if (members > 0) {
      std::fprintf(stderr,
                   "note: %zu of the pods name a Workload or PodGroup (spec.workloadRef, spec.schedulingGroup); "
                   "without --feature-gates "
                   "GenericWorkload=true,GangScheduling=true each is scheduled on its own, as kube-scheduler v1.35 "
                   "does with its default gates\n",
                   members);
    }
  }
  scheduler::simulate::SimulateOptions so;
  so.cfg = *cfg;
  so.seed = seed;
  so.parallelism = parallelism;
  auto report = scheduler::simulate::simulate(*cluster, given->pods, so);
  if (!report) {
    std::fprintf(stderr, "ksched simulate: %s\n", report.error().c_str());
    return 1;
  }
  std::cout << (output == "json" ? scheduler::simulate::to_json(*report) : scheduler::simulate::to_text(*report));
  return 0;
}

const cmd::RegisterSubcommand reg("simulate", "schedule pods offline over a cluster dump and report the placements",
                                  run_simulate);

}  // namespace
