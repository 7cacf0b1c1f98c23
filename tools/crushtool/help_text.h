// Usage texts printed by `crushkit crushtool --help` / `--help-output`.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_HELP_TEXT_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_HELP_TEXT_H_

#include <string_view>

namespace crushkit::tools::crushtool {

// `crushtool --help` (stdout, exit 0).
std::string_view UsageText();

// `crushtool --help-output` (stdout, exit 0).
std::string_view HelpOutputText();

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_HELP_TEXT_H_
