// `crushkit calibrate BEFORE AFTER (--seconds S | --result result.json)
//  [--and BEFORE2 AFTER2 SECONDS|result.json ...]`:
// the per-PG backfill figures that make the simulated backfill of finished
// changes match what they took (osdmap/planning/backfill_calibrate.h; several
// changes are fitted together, with the concurrency slowdown k from three or
// more, and the EC hold factor from the PG state samples), written as a file
// `plan` and `diff` take with --calibration.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "osdmap/planning/backfill_calibrate.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/report_options.h"
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
  bool hold_and_wait = osdmap::BackfillOptions{}.hold_and_wait;
  bool no_slowdown = false;
  bool no_ec_factor = false;
  std::vector<std::string> more;  // --and: BEFORE AFTER SECONDS|RESULT, by threes
};

// A duration in seconds, or a result.json to read it (and the PG ends) from.
std::optional<osdmap::ChangeMeasurement> Measurement(const std::string& seconds_or_result) {
  char* end = nullptr;
  const double s = std::strtod(seconds_or_result.c_str(), &end);
  if (end != seconds_or_result.c_str() && *end == '\0') {
    if (!(s > 0)) {
      CommandFailed("calibrate", "duration " + seconds_or_result + ": expected seconds > 0");
      return std::nullopt;
    }
    osdmap::ChangeMeasurement m;
    m.seconds = s;
    return m;
  }
  absl::StatusOr<std::string> text = ReadFileBytes(seconds_or_result);
  if (!text.ok()) {
    CommandFailed("calibrate", seconds_or_result + ": " + std::string(text.status().message()));
    return std::nullopt;
  }
  absl::StatusOr<osdmap::ChangeMeasurement> m = osdmap::ParseChangeResultJson(*text);
  if (!m.ok()) {
    CommandFailed("calibrate", seconds_or_result + ": " + std::string(m.status().message()));
    return std::nullopt;
  }
  return *std::move(m);
}

// One change: its two states, what it took, and its name in the file.
std::optional<osdmap::ChangeToCalibrate> LoadChange(const std::string& before,
                                                    const std::string& after,
                                                    const std::string& measured) {
  std::optional<osdmap::ChangeMeasurement> m = Measurement(measured);
  if (!m) return std::nullopt;
  std::optional<osdmap::ClusterState> b = LoadState("calibrate", before);
  if (!b) return std::nullopt;
  std::optional<osdmap::ClusterState> a = LoadState("calibrate", after);
  if (!a) return std::nullopt;
  return osdmap::ChangeToCalibrate{*std::move(b), *std::move(a), *std::move(m),
                                   absl::StrCat(before, " -> ", after, ", ", measured)};
}

int RunCalibrate(const CalibrateArgs& a) {
  if ((a.seconds > 0) == !a.result.empty()) {
    return CommandFailed(
        "calibrate",
        "give the measured duration: --seconds S or --result result.json, one of them");
  }
  if (a.more.size() % 3 != 0) {
    return CommandFailed("calibrate", "--and takes three values: BEFORE AFTER SECONDS|RESULT");
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
  std::vector<osdmap::ChangeToCalibrate> changes;
  std::optional<osdmap::ChangeToCalibrate> first =
      LoadChange(a.before, a.after, a.result.empty() ? absl::StrCat(a.seconds) : a.result);
  if (!first) return 1;
  changes.push_back(*std::move(first));
  for (std::size_t i = 0; i + 2 < a.more.size(); i += 3) {
    std::optional<osdmap::ChangeToCalibrate> c =
        LoadChange(a.more[i], a.more[i + 1], a.more[i + 2]);
    if (!c) return 1;
    changes.push_back(*std::move(c));
  }
  const std::string what = changes[0].name;
  absl::StatusOr<osdmap::ChangeCalibration> c = osdmap::CalibrateChanges(
      std::move(changes), settings, a.max_backfills, a.device_class, a.hold_and_wait,
      /*fit_slowdown=*/!a.no_slowdown, /*fit_ec_factor=*/!a.no_ec_factor);
  if (!c.ok()) return CommandFailed("calibrate", std::string(c.status().message()));
  const std::string file = osdmap::CalibrationFile(*c, what);
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
  cmd->add_option("--and", args->more,
                  "another finished change, fitted together with the first: BEFORE AFTER and "
                  "SECONDS or result.json (repeatable; one change funnelled through an OSD and "
                  "one spread over all of them tell the figures apart)")
      ->expected(3)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("-o,--output", args->output, "write the calibration here (default stdout)");
  cmd->add_option("--class", args->device_class,
                  "device class the figures are for (default: that of most targets)");
  cmd->add_option("--max-backfills", args->max_backfills,
                  "osd_max_backfills during the change (default 1)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--recovery-scheduler", args->scheduler,
                  "wpq or mclock for the model the fit starts from (default: the release's)");
  cmd->add_option("--mclock-profile", args->profile, "osd_mclock_profile (default balanced)");
  cmd->add_flag("--no-slowdown", args->no_slowdown,
                "keep the concurrency slowdown k at 0 (it is fitted with the figures from three "
                "or more changes, at least one funnelled and one spread)");
  cmd->add_flag("--no-ec-factor", args->no_ec_factor,
                "keep the EC hold factor at 1 (it is fitted from result.json's PG state samples "
                "when they hold enough sampled backfills of EC and replicated PGs)");
  AddReservationsOption(cmd, &args->hold_and_wait,
                        "the simulation's reservation order, as plan's --reservations");
  cmd->callback([args]() {
    if (const int rc = RunCalibrate(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
