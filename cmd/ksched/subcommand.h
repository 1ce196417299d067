// `ksched <subcommand>`: each subcommand lives in its own file and registers itself here.
#pragma once
#include <functional>
#include <map>
#include <string>

namespace ksched::cmd {

struct Subcommand {
  std::string summary;
  std::function<int(int argc, char** argv)> run;  // argv[0] is the subcommand name
};

std::map<std::string, Subcommand>& subcommands();

struct RegisterSubcommand {
  RegisterSubcommand(const std::string& name, std::string summary, std::function<int(int, char**)> run) {
    subcommands()[name] = Subcommand{std::move(summary), std::move(run)};
  }
};

}  // namespace ksched::cmd
