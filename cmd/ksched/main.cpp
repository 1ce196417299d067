// ksched: the multi-tool (apiserver, up, bench, simulate, ...). Each subcommand is its own file.
#include <cstdio>
#include <cstring>
#include <string>

#include "subcommand.h"
#include "util/huge_page_region.h"

namespace ksched::cmd {
std::map<std::string, Subcommand>& subcommands() {
  static std::map<std::string, Subcommand> m;
  return m;
}
}  // namespace ksched::cmd

static void usage(FILE* out) {
  std::fprintf(out, "Usage: ksched <command> [flags]\n\nCommands:\n");
  for (const auto& [name, sc] : ksched::cmd::subcommands()) {
    std::fprintf(out, "  %-12s %s\n", name.c_str(), sc.summary.c_str());
  }
  std::fprintf(out, "\nRun 'ksched <command> --help' for a command's flags.\n");
}

int main(int argc, char** argv) {
  // The server, the local cluster and the bench: CPU first (docs/architecture.md).
  ksched::util::use_huge_pages_for_heap(/*by_default=*/true);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "version")) {
    std::printf("ksched v%s\n", KSCHED_VERSION);
    return 0;
  }
  auto& cmds = ksched::cmd::subcommands();
  auto it = cmds.find(argv[1]);
  if (it == cmds.end()) {
    std::fprintf(stderr, "ksched: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 1;
  }
  return it->second.run(argc - 1, argv + 1);
}
