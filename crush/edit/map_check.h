// Everything crushkit knows to check in a crush map before it is injected:
// structural errors that make rules map nothing or crash Ceph's tools,
// rules that cannot place the requested number of replicas, and the legacy
// settings and weight layouts that cost capacity or balance. Each finding
// names where it is and how to fix it (the fix as a `ceph osd crush ...`
// command, which `crushkit edit --do` also accepts). Used by `crushkit check`.
// Thread-safety: pure functions.
#ifndef CRUSHKIT_CRUSH_EDIT_MAP_CHECK_H_
#define CRUSHKIT_CRUSH_EDIT_MAP_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crush/model.h"

namespace crushkit::crush {

enum class FindingSeverity { kError, kWarning, kInfo };

struct Finding {
  FindingSeverity severity = FindingSeverity::kInfo;
  std::string code;     // stable identifier, e.g. "rule-unsatisfiable"
  std::string subject;  // what it is about: "rule replicated_rule", "host node3", "map"
  std::string message;
  std::string hint;  // how to fix it; empty when nothing needs doing
};

struct CheckOptions {
  // Replicas each rule is checked for; 0: 3 for replicated rules, max_size
  // (k+m as Ceph creates them) for erasure and MSR rules.
  int num_rep = 0;
  std::uint32_t test_inputs = 1024;  // inputs mapped per rule for the short-mapping check
  bool msr = true;                   // Squid and later tunables semantics (MSR tunables)
};

// All findings, errors first, then warnings, then informational notes; each
// group in map order (rules by id, buckets by id). Never fails: a map the
// mapper cannot build yields an error finding.
// Cost: O(items) plus test_inputs mappings per rule.
std::vector<Finding> CheckMap(const MapModel& map, const CheckOptions& options);

const char* SeverityName(FindingSeverity severity);  // "error", "warning", "info"

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_MAP_CHECK_H_
