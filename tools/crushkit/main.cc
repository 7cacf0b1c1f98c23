// crushkit: one binary, many subcommands. The `crushtool` and `osdmaptool`
// fronts take Ceph's own flag syntax (dash/underscore-insensitive, multi-value
// flags), which CLI11 cannot express, so they bypass CLI11 entirely.
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "crush/version.h"
#include "tools/common/ceph_release_env.h"
#include "tools/crushkit/commands.h"

namespace {

int RunCommand(int argc, char** argv) {
  using namespace crushkit::tools;  // NOLINT(google-build-using-namespace)
  if (argc >= 2) {
    const std::string first = argv[1];
    std::vector<std::string> rest(argv + 2, argv + argc);
    if (first == "crushtool") return RunCrushtool(rest);
    if (first == "osdmaptool") return RunOsdmaptool(rest);
  }
  CLI::App app{
      "crushkit: Ceph-compatible CRUSH placement engine.\n"
      "Also: `crushkit crushtool ARGS...` and `crushkit osdmaptool STATE ARGS...` accept\n"
      "Ceph's own flags and print byte-identical output."};
  // The second line says which release the commands without a cluster state
  // behave as, and why (tools/common/ceph_release_env.h).
  app.set_version_flag("--version", std::function<std::string()>([] {
                         return "crushkit " CRUSHKIT_VERSION_STRING "\n" +
                                DescribeDefaultCephRelease();
                       }));
  app.require_subcommand(1);
  for (auto* add : {&AddBalanceCommand, &AddCalibrateCommand, &AddCheckCommand, &AddCompileCommand,
                    &AddDecompileCommand, &AddDiffCommand, &AddEditCommand, &AddImportCommand,
                    &AddMapObjectCommand, &AddMapPgsCommand, &AddPlanCommand, &AddStrategiesCommand,
                    &AddTestCommand, &AddTreeCommand}) {
    add(app);
  }
  CLI11_PARSE(app, argc, argv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return RunCommand(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "crushkit: internal error: " << e.what() << "\n";
    return 70;
  }
}
