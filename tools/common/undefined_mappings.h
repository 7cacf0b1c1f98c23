// The one warning the crushkit commands print on stderr when a mapping's
// result is crushkit's documented answer where Ceph's is undefined (a tree
// bucket descent past its last item, where Ceph reads out of bounds, or the
// mapper's work budget; crush/mapper.h). The count travels in the
// libraries' results (PgTable, UpmapCleanup, BalanceResult, PlanReport, ...);
// the `crushtool` front words its own (tools/crushtool/test_report.h).
#ifndef CRUSHKIT_TOOLS_COMMON_UNDEFINED_MAPPINGS_H_
#define CRUSHKIT_TOOLS_COMMON_UNDEFINED_MAPPINGS_H_

#include <cstdint>
#include <string>

namespace crushkit::tools {

// The warning line for `n` such mappings (newline included); "" for 0.
inline std::string UndefinedMappingsWarning(std::uint64_t n) {
  if (n == 0) return "";
  return "crushkit: warning: " + std::to_string(n) +
         " mapping(s) hit a tree bucket descent past its last item (Ceph reads out of bounds "
         "there) or the mapper's work budget; those results are crushkit's documented answers "
         "(crush/mapper.h), not Ceph's\n";
}

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_UNDEFINED_MAPPINGS_H_
