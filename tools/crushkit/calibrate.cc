// `crushkit calibrate BEFORE AFTER (--seconds S | --result result.json)`:
// the per-PG backfill figures that make the simulated backfill of a finished
// change match what it took (osdmap/planning/backfill_calibrate.h), written as a file
// `plan` and `diff` take with --calibration.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

#include "osdmap/planning/backfill_calibrate.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct CalibrateArgs {
  std::string before;
  std::string after;
  double seconds = 0;
  std::string result;
  std::string output = "-";
  std::string device_class;
  int max_backfills = 1;
  std::string scheduler;
  std::string profile;
  std::string reservations = "all-at-once";
};

int RunCalibrate(const CalibrateArgs& a) {
  if ((a.seconds > 0) == !a.result.empty()) {
    return CommandFailed(
        "calibrate",
        "give the measured duration: --seconds S or --result result.json, one of them");
  }
  osdmap::ChangeMeasurement measured;
  if (!a.result.empty()) {
    absl::StatusOr<std::string> text = ReadFileBytes(a.result);
    if (!text.ok())
      return CommandFailed("calibrate", a.result + ": " + std::string(text.status().message()));
    absl::StatusOr<osdmap::ChangeMeasurement> m = osdmap::ParseChangeResultJson(*text);
    if (!m.ok())
      return CommandFailed("calibrate", a.result + ": " + std::string(m.status().message()));
    measured = *std::move(m);
  } else {
    measured.seconds = a.seconds;
  }
  osdmap::BackfillCostSettings settings;
  if (!a.scheduler.empty()) {
    absl::StatusOr<osdmap::RecoveryScheduler> s = osdmap::ParseScheduler(a.scheduler);
    if (!s.ok()) return CommandFailed("calibrate", std::string(s.status().message()));
    settings.scheduler = *s;
  }
  if (!a.profile.empty()) {
    absl::StatusOr<osdmap::MclockProfile> p = osdmap::ParseProfile(a.profile);
    if (!p.ok()) return CommandFailed("calibrate", std::string(p.status().message()));
    settings.profile = *p;
  }
  std::optional<osdmap::ClusterState> before = LoadState("calibrate", a.before);
  if (!before) return 1;
  std::optional<osdmap::ClusterState> after = LoadState("calibrate", a.after);
  if (!after) return 1;
  absl::StatusOr<osdmap::ChangeCalibration> c =
      osdmap::CalibrateChange(*std::move(before), *std::move(after), measured, settings,
                              a.max_backfills, a.device_class, a.reservations == "hold-and-wait");
  if (!c.ok()) return CommandFailed("calibrate", std::string(c.status().message()));
  const std::string file = osdmap::CalibrationFile(
      *c, absl::StrCat(a.before, " -> ", a.after, a.result.empty() ? "" : ", ", a.result));
  if (absl::Status s = WriteFileAtomically(a.output, file); !s.ok()) {
    return CommandFailed("calibrate", a.output + ": " + std::string(s.message()));
  }
  if (a.output != "-") std::cout << file;
  std::cout.flush();
  return std::cout.good() ? 0 : 1;
}

}  // namespace

void AddCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "fit the backfill figures (per-PG hold, per object, bytes/s) to a finished change of the "
      "cluster: the states before and after it and how long it took");
  cmd->add_option("before", args->before, "state file before the change")->required();
  cmd->add_option("after", args->after, "state file after the change")->required();
  cmd->add_option("--seconds", args->seconds,
                  "measured duration, from the change to the last pg_temp dropped");
  cmd->add_option("--result", args->result,
                  "loopback-change.py's result.json: the duration and every PG's end");
  cmd->add_option("-o,--output", args->output, "write the calibration here (default stdout)");
  cmd->add_option("--class", args->device_class,
                  "device class the figures are for (default: that of most targets)");
  cmd->add_option("--max-backfills", args->max_backfills,
                  "osd_max_backfills during the change (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--recovery-scheduler", args->scheduler,
                  "wpq or mclock for the model the fit starts from (default: the release's)");
  cmd->add_option("--mclock-profile", args->profile, "osd_mclock_profile (default balanced)");
  cmd->add_option("--reservations", args->reservations,
                  "the simulation's reservation order, as plan's --reservations (default "
                  "all-at-once)")
      ->check(CLI::IsMember({"all-at-once", "hold-and-wait"}));
  cmd->callback([args]() {
    if (const int rc = RunCalibrate(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
