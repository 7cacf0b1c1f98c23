// The output and simulation options `crushkit diff` and `crushkit plan`
// share (--format/--json, --html, --by, --top, --threads, --keep-upmaps,
// backfill knobs), registered once and turned into osdmap::PlanOptions, and
// the one way both print a report.
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_REPORT_OPTIONS_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_REPORT_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include <CLI/CLI.hpp>

#include "osdmap/planning/plan_report.h"
#include "osdmap/planning/planner.h"

namespace crushkit::tools {

struct ReportArgs {
  bool json = false;
  std::string format = "summary";  // one of the formats AddReportOptions allows
  std::string html;
  std::vector<std::string> by;
  int threads = 0;
  int top = 5;
  bool keep_upmaps = false;
  bool no_schedule = false;
  int max_backfills = 1;
  bool hold_and_wait = osdmap::BackfillOptions{}.hold_and_wait;  // --reservations
  int request_orders = osdmap::RequestOrderOptions{}.orders;     // --request-orders
  std::vector<std::string> rates;

  std::string recovery_scheduler;  // --recovery-scheduler wpq|mclock
  std::string mclock_profile;      // --mclock-profile
  std::string calibration;         // --calibration FILE (crushkit calibrate)

  bool pgs = false;     // --pgs: every moving PG in the JSON
  std::string pgs_csv;  // --pgs-csv FILE
};

// Registers --reservations hold-and-wait|all-at-once on `cmd`, setting
// `*hold_and_wait`; the default named in the help is the library's
// (osdmap::BackfillOptions). `what` starts the help text.
CLI::Option* AddReservationsOption(CLI::App* cmd, bool* hold_and_wait, const std::string& what);

// Registers the options on `cmd`. `formats` lists what --format accepts
// beyond "summary" and "json" (`crushkit diff` adds "crushdiff", which it
// prints itself); --json is --format json and excludes --format.
void AddReportOptions(CLI::App* cmd, ReportArgs* args,
                      const std::vector<std::string>& formats = {});

// PlanOptions from the flags. Errors: a bad --backfill-rate.
absl::StatusOr<osdmap::PlanOptions> MakePlanOptions(const ReportArgs& a);

// Writes --html (atomically) and prints the summary or --json to stdout.
// Returns the exit code; errors are printed as "crushkit CMD: ...".
int PrintReport(const std::string& cmd, const std::string& title, const ReportArgs& a,
                const osdmap::PlanReport& report);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_REPORT_OPTIONS_H_
