// Temporary stand-ins for subcommands whose modules are not built yet; each
// is deleted when the real command file lands.
#include <iostream>

#include "tools/crushkit/commands.h"

namespace crushkit::tools {

int RunOsdmaptool(const std::vector<std::string>&) {
  std::cerr << "crushkit osdmaptool: not implemented yet\n";
  return 1;
}

void AddImportCommand(CLI::App&) {}
void AddMapObjectCommand(CLI::App&) {}
void AddMapPgsCommand(CLI::App&) {}

}  // namespace crushkit::tools
