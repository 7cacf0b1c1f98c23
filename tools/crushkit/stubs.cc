// Temporary stand-ins for subcommands whose modules are not built yet; each
// is deleted when the real command file lands.
#include <iostream>

#include "tools/crushkit/commands.h"

namespace crushkit::tools {
}  // namespace crushkit::tools
