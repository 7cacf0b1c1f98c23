#include "tools/crushkit/report_options.h"

#include <iostream>

#include "absl/strings/str_cat.h"

#include "osdmap/planning/movement_html.h"
#include "osdmap/planning/movement_report.h"
#include "tools/common/file_io.h"
#include "tools/common/undefined_mappings.h"

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
  cmd->add_flag("--pgs", args->pgs,
                "with --json: list every PG that moves (up sets before and after, targets, the "
                "pushing OSD, bytes and objects) as `pgs`");
  cmd->add_option("--pgs-csv", args->pgs_csv, "write the same list of moving PGs to FILE as CSV");
  cmd->add_option("--max-backfills", args->max_backfills,
                  "osd_max_backfills for the backfill simulation (default 1)")
      ->check(CLI::Range(1, 1000));
  AddReservationsOption(cmd, &args->hold_and_wait,
                        "how the backfill simulation takes reservations: hold-and-wait "
                        "(Ceph's state machine, the local slot held while the targets are asked "
                        "one at a time, as the OSD logs show) or all-at-once (a PG starts when "
                        "its primary's local slot and every target's remote slot are free)");
  const osdmap::RequestOrderOptions orders;
  cmd->add_option(
         "--request-orders", args->request_orders,
         absl::StrCat("also simulate the backfill at once in this many orders of the PGs' "
                      "reservation requests (PG id order and shuffles of it, fixed seed; "
                      "Ceph's order is in no dump) and print the duration's range; 0 or 1: "
                      "PG id order only (default ",
                      orders.orders, "; fewer orders, none below ", orders.min_orders,
                      ", when PGs x orders passes ", orders.max_job_simulations, ")"))
      ->check(CLI::Range(0, 1000));
  cmd->add_option(
      "--backfill-rate", args->rates,
      "CLASS=SPEC (e.g. hdd=50MiB,8obj or ssd=400MiB,0.2s): what one backfill on an OSD of "
      "that device class sustains, SPEC a comma list of bytes per second, objects per second "
      "(Nobj) and a fixed hold per PG (Ns); SPEC alone sets every class. Unset figures come from "
      "--calibration, then the per-PG cost model (osdmap/planning/backfill_cost.h)");
  cmd->add_option("--recovery-scheduler", args->recovery_scheduler,
                  "wpq or mclock (default: the state's release: Pacific wpq, later mclock)");
  cmd->add_option("--mclock-profile", args->mclock_profile,
                  "osd_mclock_profile for the mclock model: high_client_ops, balanced (default), "
                  "high_recovery_ops");
  cmd->add_option("--calibration", args->calibration,
                  "backfill figures per device class from `crushkit calibrate`");
}

CLI::Option* AddReservationsOption(CLI::App* cmd, bool* hold_and_wait, const std::string& what) {
  constexpr const char* kHoldAndWait = "hold-and-wait";
  constexpr const char* kAllAtOnce = "all-at-once";
  const bool by_default = osdmap::BackfillOptions{}.hold_and_wait;
  return cmd
      ->add_option_function<std::string>(
          "--reservations",
          [hold_and_wait](const std::string& order) { *hold_and_wait = order == kHoldAndWait; },
          absl::StrCat(what, " (default ", by_default ? kHoldAndWait : kAllAtOnce, ")"))
      ->check(CLI::IsMember({kAllAtOnce, kHoldAndWait}));
}

absl::StatusOr<osdmap::PlanOptions> MakePlanOptions(const ReportArgs& a) {
  osdmap::PlanOptions plan;
  plan.keep_upmaps = a.keep_upmaps;
  plan.movement.threads = a.threads;
  if (!a.by.empty()) plan.movement.domain_types = a.by;
  plan.schedule = !a.no_schedule;
  plan.movement.keep_moves = plan.movement.keep_moves || a.pgs || !a.pgs_csv.empty();
  plan.backfill.max_backfills = a.max_backfills;
  plan.backfill.hold_and_wait = a.hold_and_wait;
  plan.request_orders.orders = a.request_orders;
  osdmap::BackfillCostSettings& cost = plan.backfill_cost.emplace();
  if (absl::Status s = osdmap::ParseBackfillRateWords(a.rates, &cost); !s.ok()) return s;
  if (!a.recovery_scheduler.empty()) {
    absl::StatusOr<osdmap::RecoveryScheduler> s = osdmap::ParseScheduler(a.recovery_scheduler);
    if (!s.ok()) return s.status();
    cost.scheduler = *s;
  }
  if (!a.mclock_profile.empty()) {
    absl::StatusOr<osdmap::MclockProfile> p = osdmap::ParseProfile(a.mclock_profile);
    if (!p.ok()) return p.status();
    cost.profile = *p;
  }
  if (!a.calibration.empty()) {
    absl::StatusOr<std::string> text = ReadFileBytes(a.calibration);
    if (!text.ok()) return text.status();
    auto calibrated = osdmap::ParseCalibration(*text);
    if (!calibrated.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(a.calibration, ": ", calibrated.status().message()));
    }
    cost.calibrated = std::move(calibrated->costs);
    cost.concurrency_slowdown = calibrated->concurrency_slowdown;
    cost.calibration_source = a.calibration;
  }
  return plan;
}

namespace {

int WriteReport(const std::string& cmd, const std::string& title, const ReportArgs& a,
                const osdmap::PlanReport& report) {
  if (!a.html.empty()) {
    osdmap::HtmlExtras extras;
    extras.title = title;
    extras.chart_library = osdmap::DefaultChartLibrary();
    if (absl::Status s = WriteFileAtomically(a.html, osdmap::ReportHtml(report, extras)); !s.ok()) {
      std::cerr << "crushkit " << cmd << ": " << a.html << ": " << s.message() << "\n";
      return 1;
    }
  }
  if (!a.pgs_csv.empty()) {
    if (absl::Status s = WriteFileAtomically(a.pgs_csv, osdmap::PgMovesCsv(report.movement));
        !s.ok()) {
      std::cerr << "crushkit " << cmd << ": " << a.pgs_csv << ": " << s.message() << "\n";
      return 1;
    }
  }
  if (a.json || a.format == "json") {
    absl::StatusOr<std::string> json = osdmap::ReportToJson(report, a.pgs);
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

}  // namespace

int PrintReport(const std::string& cmd, const std::string& title, const ReportArgs& a,
                const osdmap::PlanReport& report) {
  const int rc = WriteReport(cmd, title, a, report);
  std::cerr << UndefinedMappingsWarning(report.mappings_diverged_from_ceph);
  return rc;
}

}  // namespace crushkit::tools
