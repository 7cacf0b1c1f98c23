#include "tools/crushkit/report_options.h"

#include <iostream>

#include "osdmap/movement_html.h"
#include "osdmap/movement_report.h"
#include "tools/common/file_io.h"

namespace crushkit::tools {

void AddReportOptions(CLI::App* cmd, ReportArgs* args, const std::vector<std::string>& formats) {
  std::vector<std::string> allowed = {"summary", "json"};
  allowed.insert(allowed.end(), formats.begin(), formats.end());
  std::string help =
      "output: summary (default), json (the report as JSON; schema: osdmap/proto/movement.proto)";
  for (const std::string& f : formats) {
    if (f == "crushdiff") {
      help +=
          ", crushdiff (the five lines of Ceph's `crushdiff compare` for the same osdmap, crush "
          "maps and pg dump: acting sets, upmaps kept, its undersized warnings on stderr)";
    }
  }
  CLI::Option* format =
      cmd->add_option("--format", args->format, help)->check(CLI::IsMember(allowed));
  cmd->add_flag("--json", args->json, "same as --format json")->excludes(format);
  cmd->add_option("--html", args->html, "also write a self-contained HTML report to this file");
  cmd->add_option("--by", args->by,
                  "bucket types for the from -> to matrices (default: host rack)");
  cmd->add_option("--top", args->top, "entries per list in the summary (default 5)");
  cmd->add_option("--threads", args->threads, "mapping threads (default: number of CPUs)");
  cmd->add_flag("--keep-upmaps", args->keep_upmaps,
                "keep upmap entries the change makes invalid (osdmaptool's behaviour) instead of "
                "dropping them as the monitor does");
  cmd->add_flag("--no-schedule", args->no_schedule, "skip the backfill simulation");
  cmd->add_option("--max-backfills", args->max_backfills,
                  "osd_max_backfills for the backfill simulation (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option(
      "--backfill-rate", args->rates,
      "CLASS=RATE (e.g. hdd=150MiB, nvme=2GiB): bytes per second one backfill writes to a "
      "target OSD of that device class; RATE alone sets every class");
}

absl::StatusOr<osdmap::PlanOptions> MakePlanOptions(const ReportArgs& a) {
  osdmap::PlanOptions plan;
  plan.keep_upmaps = a.keep_upmaps;
  plan.movement.threads = a.threads;
  if (!a.by.empty()) plan.movement.domain_types = a.by;
  plan.schedule = !a.no_schedule;
  plan.backfill.max_backfills = a.max_backfills;
  if (absl::Status s = osdmap::ParseBackfillRates(a.rates, &plan.backfill); !s.ok()) return s;
  return plan;
}

int PrintReport(const std::string& cmd, const std::string& title, const ReportArgs& a,
                const osdmap::PlanReport& report) {
  if (!a.html.empty()) {
    osdmap::HtmlExtras extras;
    extras.title = title;
    if (absl::Status s = WriteFileAtomically(a.html, osdmap::ReportHtml(report, extras)); !s.ok()) {
      std::cerr << "crushkit " << cmd << ": " << a.html << ": " << s.message() << "\n";
      return 1;
    }
  }
  if (a.json || a.format == "json") {
    absl::StatusOr<std::string> json = osdmap::ReportToJson(report);
    if (!json.ok()) {
      std::cerr << "crushkit " << cmd << ": " << json.status().message() << "\n";
      return 1;
    }
    std::cout << *json;
  } else {
    std::cout << osdmap::ReportSummary(report, a.top);
  }
  std::cout.flush();
  return std::cout.good() ? 0 : 1;
}

}  // namespace crushkit::tools
