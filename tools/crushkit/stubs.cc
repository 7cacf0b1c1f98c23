// Temporary stand-ins for subcommands whose modules are not built yet; each
// is deleted when the real command file lands.
#include <iostream>

#include "tools/crushkit/commands.h"

namespace crushkit::tools {

int RunOsdmaptool(const std::vector<std::string>&) {
  std::cerr << "crushkit osdmaptool: not implemented yet\n";
  return 1;
}

void AddCompileCommand(CLI::App&) {}
void AddDecompileCommand(CLI::App&) {}
void AddImportCommand(CLI::App&) {}
void AddMapObjectCommand(CLI::App&) {}
void AddMapPgsCommand(CLI::App&) {}
void AddStrategiesCommand(CLI::App&) {}

}  // namespace crushkit::tools
