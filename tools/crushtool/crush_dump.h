// What crushtool 16.2 prints for `--dump` (CrushWrapper::dump into a
// "crush_map" section) and `--tree` (CrushWrapper::dump_tree with Ceph's
// plain-text TextTable, shadow trees shown).
// Thread-safety: pure functions.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_CRUSH_DUMP_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_CRUSH_DUMP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "crush/model.h"
#include "tools/crushtool/ceph_formatter.h"

namespace crushkit::tools::crushtool {

// CrushWrapper::dump(f): devices, types, buckets, rules, tunables and
// choose_args, in `release`'s order and spelling (Pacific's rules carry
// ruleset/min_size/max_size; Tentacle adds the MSR tunables, has_msr_rules
// and names the MSR steps). Where Ceph's output is
// undefined (a rule step naming a type without a name, which Ceph turns into
// a string from a null pointer, or type ids Ceph's loop never reaches) the
// dump prints "" or leaves the type out and adds a line to `warnings`.
void DumpCrushMap(const crush::MapModel& map, crush::CephRelease release, CephFormatter& f,
                  std::vector<std::string>* warnings);

// The `--tree` text: columns ID, CLASS, WEIGHT, one per choose_args index
// ("(compat)" for the compat weight set) and "TYPE NAME", as TextTable
// prints them. kInternal where Ceph crashes (see crush::WalkTree).
absl::StatusOr<std::string> FormatCrushTree(const crush::MapModel& map);

// weightf_t's stream form: "-" below -0.01, "0" below 1e-6, else %.5f.
std::string WeightfText(float w);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_CRUSH_DUMP_H_
