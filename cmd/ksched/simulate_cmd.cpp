// `ksched simulate`: what-if scheduling of given pods over a cluster dump, offline
// (src/scheduler/simulate).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "scheduler/app/options.h"
#include "scheduler/simulate/simulator.h"
#include "subcommand.h"
#include "util/log.h"

namespace {
using namespace ksched;

int run_simulate(int argc, char** argv) {
  CLI::App app{"Schedule pods offline over a cluster dump (no API server, no network) and report where they land",
               "ksched simulate"};
  std::string dump, pods_file, config_file, output = "text";
  std::uint64_t seed = 1;
  int parallelism = 0, verbosity = 0;
  app.add_option("--cluster", dump,
                 "the cluster: what `kubectl get nodes,pods,pdb,pv,pvc,storageclasses,csinodes,priorityclasses -A -o json` writes")
      ->required();
  app.add_option("--pods", pods_file, "the pods to schedule, in order (YAML documents or JSON)")->required();
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

  scheduler::app::Options flags;
  flags.config_file = config_file;
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
                 "ksched simulate: %s holds no Node (expected what `kubectl get nodes,pods,pdb,pv,pvc,storageclasses,"
                 "csinodes,priorityclasses -A -o json` writes)\n",
                 dump.c_str());
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
