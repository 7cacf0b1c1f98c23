// crushtool --test --output-csv [--output-name NAME]: the CSV files
// CrushTester::write_data_set_to_csv writes for each (rule, num_rep) into
// the working directory, byte for byte (a later num_rep of the same rule
// overwrites the files, as in Ceph).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_TEST_CSV_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_TEST_CSV_H_

#include <span>
#include <vector>

#include "absl/status/status.h"

#include "crush/model.h"
#include "tools/crushtool/options.h"

namespace crushkit::tools::crushtool {

// What RunCrushTest computed for one (rule, num_rep).
struct CsvRuleRun {
  int rule = 0;
  int num_rep = 0;
  int min_x = 0;
  int max_x = 0;
  std::span<const crush::Weight> weight;        // after --weight/--mark-down-ratio
  std::span<const long long> per;               // results per device
  std::span<const float> num_objects_expected;  // per device
  // Every result of the run, in input order.
  std::span<const std::vector<crush::ItemId>> placements;
};

// Writes "<output-name>-<rule name>-{device_utilization, device_utilization_all,
// placement_information, proportional_weights, proportional_weights_all,
// absolute_weights}.csv" and, with --batches > 1, the two batch files.
// Errors: kUnimplemented for an unnamed rule (Ceph builds
// a std::string from a null name and aborts); file write errors.
absl::Status WriteTestCsv(const crush::MapModel& map, const TestOptions& options,
                          const CsvRuleRun& run);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_TEST_CSV_H_
