// The operations of `crushkit plan` and `crushkit edit`: a change file, or
// --do operations (one per flag), parsed with osdmap::ParseChange.
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_CHANGE_INPUT_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_CHANGE_INPUT_H_

#include <optional>
#include <string>
#include <vector>

#include "osdmap/changes/change_ops.h"

namespace crushkit::tools {

// Reads `file` or joins `do_ops` (exactly one of them must be given) and
// parses the operations. On error prints "crushkit COMMAND: reason" or the
// located diagnostics on stderr and returns nullopt; an empty list is an
// error too.
std::optional<osdmap::ChangeList> LoadChange(const std::string& command, const std::string& file,
                                             const std::vector<std::string>& do_ops);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_CHANGE_INPUT_H_
