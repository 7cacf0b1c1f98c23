// The crushkit subcommands. main.cc dispatches; each command lives in its own
// file and only parses options, calls one library function and prints.
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_COMMANDS_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_COMMANDS_H_

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace crushkit::tools {

// `crushkit crushtool ARGS...`: Ceph crushtool's flags and byte-identical
// output. `args` excludes the program and "crushtool" words. Returns the exit code.
int RunCrushtool(const std::vector<std::string>& args);

// `crushkit osdmaptool STATE ARGS...`: Ceph osdmaptool's flags on a state file.
int RunOsdmaptool(const std::vector<std::string>& args);

// Each registers one CLI11 subcommand on `app`.
void AddBalanceCommand(CLI::App& app);
void AddCalibrateCommand(CLI::App& app);
void AddCheckCommand(CLI::App& app);
void AddCompileCommand(CLI::App& app);
void AddDecompileCommand(CLI::App& app);
void AddDiffCommand(CLI::App& app);
void AddEditCommand(CLI::App& app);
void AddImportCommand(CLI::App& app);
void AddMapObjectCommand(CLI::App& app);
void AddMapPgsCommand(CLI::App& app);
void AddPlanCommand(CLI::App& app);
void AddStrategiesCommand(CLI::App& app);
void AddTestCommand(CLI::App& app);
void AddTreeCommand(CLI::App& app);

// Prints "crushkit COMMAND: MESSAGE" on stderr and returns 1, the exit code of
// a failed command.
inline int CommandFailed(std::string_view command, std::string_view message) {
  std::cerr << "crushkit " << command << ": " << message << "\n";
  return 1;
}

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_COMMANDS_H_
