// Usage texts printed by `crushkit crushtool --help` / `--help-output`.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_HELP_TEXT_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_HELP_TEXT_H_

#include <string>
#include <string_view>

#include "crush/ceph_release.h"

namespace crushkit::tools::crushtool {

// `crushtool --help` of `release` (stdout, exit 0). Quincy and later list
// --min-rep/--max-rep instead of --ruleset.
std::string UsageText(crush::CephRelease release);

// `crushtool --help-output` (stdout, exit 0).
std::string_view HelpOutputText();

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_HELP_TEXT_H_
