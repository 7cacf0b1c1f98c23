// `crushkit import`: Ceph's JSON osd dump + crush map (binary, text that is
// compiled as `crushtool -c` would, or a crush dump), a binary osdmap, a
// whole `ceph report`, or a live cluster through its `ceph` CLI (+ optional
// pg dump, osd df and ceph df) -> a crushkit state file (.pb binary, .json
// protobuf JSON), after re-mapping every PG and comparing with what the
// inputs say the cluster does (osdmap/formats/cluster_check.h).
#include "osdmap/formats/import.h"

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/match.h"

#include "osdmap/formats/cluster_check.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/report_import.h"
#include "osdmap/formats/state_codec.h"
#include "tools/common/ceph_cli.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/common/undefined_mappings.h"
#include "tools/crushkit/ceph_release_option.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"

namespace crushkit::tools {
namespace {

struct ImportArgs {
  std::string osdmap;
  std::string crush;
  std::string report;
  bool from_cluster = false;
  CephCliOptions cli;
  std::string save_dumps;
  std::string pg_stats;
  std::string osd_df;
  std::string df;
  std::string output;
  std::string ceph_release;
};

// One input in memory, with the name its errors carry (a file, or the ceph
// command that printed it); `name` empty when not given.
struct Input {
  std::string name;
  std::string bytes;
};

struct ImportInputs {
  Input osdmap;
  Input report;
  Input pg_dump;
  Input osd_df;
  Input df;
};

// Reads the file at `path` into `in` (nothing when `path` is empty).
// Returns false after printing an error naming the file.
bool ReadInput(const std::string& path, Input* in) {
  if (path.empty()) return true;
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    std::cerr << "crushkit import: " << path << ": " << bytes.status().message() << "\n";
    return false;
  }
  *in = Input{path, std::move(*bytes)};
  return true;
}

// The cluster's dumps through its CLI (saved to --save-dumps when given).
bool FetchInputs(const ImportArgs& a, ImportInputs* in) {
  absl::StatusOr<ClusterDumps> dumps = FetchClusterDumps(a.cli, osdmap::ReportOsdMapEpoch);
  if (!dumps.ok()) {
    std::cerr << "crushkit import: --from-cluster: " << dumps.status().message() << "\n";
    return false;
  }
  if (!a.save_dumps.empty()) {
    if (absl::Status s = SaveClusterDumps(*dumps, a.save_dumps); !s.ok()) {
      std::cerr << "crushkit import: --save-dumps: " << s.message() << "\n";
      return false;
    }
  }
  in->report = Input{"'ceph report'", std::move(dumps->report)};
  in->osdmap = Input{"'ceph osd getmap'", std::move(dumps->osdmap)};
  in->pg_dump = Input{"'ceph pg dump -f json'", std::move(dumps->pg_dump)};
  in->osd_df = Input{"'ceph osd df -f json'", std::move(dumps->osd_df)};
  in->df = Input{"'ceph df -f json'", std::move(dumps->df)};
  return true;
}

// Hands an optional input to `import`; errors name it. Returns false after
// printing an error.
bool ImportOptional(const Input& in, osdmap::ClusterState* state,
                    absl::Status (*import)(const std::string&, osdmap::ClusterState*)) {
  if (in.name.empty()) return true;
  if (auto s = import(in.bytes, state); !s.ok()) {
    std::cerr << "crushkit import: " << in.name << ": " << s.message() << "\n";
    return false;
  }
  return true;
}

// The state from --osdmap: Ceph's binary osdmap (its embedded crush map,
// unless --crush replaces it) or the JSON dump with --crush. Sniffed by
// content. A text --crush is compiled as `release` when given (--ceph-release,
// CRUSHKIT_CEPH_RELEASE), else as the cluster's release (its
// require_osd_release), so that it gives the state its binary would.
// Returns nullopt after printing an error naming the file.
std::optional<osdmap::ClusterState> LoadOsdMap(const ImportArgs& a, const Input& in,
                                               std::optional<crush::CephRelease> release) {
  const std::string* bytes = &in.bytes;
  // Other dumps, state files, crush maps are refused saying what they are;
  // other JSON goes to the parser, which locates its errors.
  const osdmap::InputKind kind = osdmap::SniffInput(*bytes);
  if (absl::Status s = osdmap::CheckInputKind(osdmap::InputRole::kImportOsdMap, kind, *bytes);
      !s.ok()) {
    std::cerr << "crushkit import: " << in.name << ": " << s.message() << "\n";
    return std::nullopt;
  }
  const bool binary = kind == osdmap::InputKind::kCephBinaryOsdMap;
  if (!binary && a.crush.empty()) {
    std::cerr << "crushkit import: " << in.name
              << ": a JSON osd dump needs --crush (the crush map is not in it)\n";
    return std::nullopt;
  }
  // A text map is compiled to the bytes `crushtool -c` of `cluster_release`
  // would write, so the state holds the same crush map as importing that
  // binary.
  std::optional<std::string> crush_bytes;
  auto load_crush = [&](crush::CephRelease cluster_release) {
    absl::StatusOr<std::string> loaded =
        LoadCrushMapBytes(a.crush, release.value_or(cluster_release));
    if (!loaded.ok()) {
      std::cerr << "crushkit import: " << a.crush << ": " << loaded.status().message() << "\n";
      return false;
    }
    crush_bytes = std::move(*loaded);
    return true;
  };
  if (!binary && !load_crush(osdmap::ReleaseOfOsdDump(*bytes))) return std::nullopt;
  absl::StatusOr<osdmap::ClusterState> state =
      binary ? osdmap::ImportCephBinaryOsdMap(*bytes)
             : osdmap::ImportCephOsdDump(*bytes, *crush_bytes);
  if (state.ok() && binary && !a.crush.empty()) {
    if (!load_crush(state->ceph_release)) return std::nullopt;
    absl::Status replaced = osdmap::ReplaceCrushMap(*crush_bytes, &*state);
    if (!replaced.ok()) state = replaced;
  }
  if (!state.ok()) {
    // The importers prefix crush decoding errors with "crush map: "; every
    // other error is about --osdmap.
    const bool crush_error = absl::StartsWith(state.status().message(), "crush map: ");
    std::cerr << "crushkit import: " << (crush_error ? a.crush : in.name) << ": "
              << state.status().message() << "\n";
    return std::nullopt;
  }
  return std::move(*state);
}

// The state from the inputs: the osd map (binary or JSON) when there is
// one, else the report's. Also the report's per-OSD PG counts, when it has
// them. nullopt after printing an error.
std::optional<osdmap::ClusterState> LoadBaseState(const ImportArgs& a, const ImportInputs& in,
                                                  std::optional<crush::CephRelease> release,
                                                  std::optional<osdmap::ClusterPgCounts>* counts) {
  std::optional<osdmap::ImportedReport> report;
  if (!in.report.name.empty()) {
    absl::StatusOr<osdmap::ImportedReport> r = osdmap::ImportCephReport(in.report.bytes, release);
    if (!r.ok()) {
      std::cerr << "crushkit import: " << in.report.name << ": " << r.status().message() << "\n";
      return std::nullopt;
    }
    *counts = std::move(r->pg_counts);
    report = std::move(*r);
  }
  if (in.osdmap.name.empty()) return std::move(report->state);
  return LoadOsdMap(a, in.osdmap, release);
}

// The self-check against whatever the inputs say about PG placement; kept in
// the state and printed. False after printing an error.
bool SelfCheck(const ImportInputs& in, const std::optional<osdmap::ClusterPgCounts>& counts,
               osdmap::ClusterState* state) {
  std::optional<std::map<osdmap::PgId, osdmap::ReportedPg>> pgs;
  if (!in.pg_dump.name.empty()) {
    auto read = osdmap::ReadPgDumpPlacement(in.pg_dump.bytes);
    if (!read.ok()) {
      std::cerr << "crushkit import: " << in.pg_dump.name << ": " << read.status().message()
                << "\n";
      return false;
    }
    pgs = std::move(*read);
  }
  if (!counts && !pgs) {
    std::cerr << "crushkit import: mapping not checked against the cluster: give --pg-stats "
                 "('ceph pg dump -f json'), or import a 'ceph report'\n";
    return true;
  }
  absl::StatusOr<osdmap::MappingCheck> check = osdmap::CheckMappingAgainstCluster(
      *state, counts ? &*counts : nullptr, pgs ? &*pgs : nullptr);
  if (!check.ok()) {
    std::cerr << "crushkit import: cannot map the state: " << check.status().message() << "\n";
    return false;
  }
  for (const std::string& line : osdmap::FormatMappingCheck(*check))
    std::cerr << "crushkit import: " << line << "\n";
  state->mapping_check = std::move(*check);
  return true;
}

int RunImport(const ImportArgs& a) {
  // The release whose rules map the PGs and whose compiler reads a text
  // --crush: --ceph-release, else CRUSHKIT_CEPH_RELEASE, else what the
  // dump's require_osd_release implies (not the Ceph installed here: the
  // cluster decides).
  absl::StatusOr<std::optional<crush::CephRelease>> release = CephReleaseOverride(a.ceph_release);
  if (!release.ok()) {
    std::cerr << "crushkit import: " << release.status().message() << "\n";
    return 1;
  }
  if (static_cast<int>(!a.osdmap.empty()) + static_cast<int>(!a.report.empty()) +
          static_cast<int>(a.from_cluster) !=
      1) {
    std::cerr << "crushkit import: give one of --osdmap, --report and --from-cluster\n";
    return 1;
  }
  ImportInputs in;
  if (a.from_cluster) {
    if (!FetchInputs(a, &in)) return 1;
  }
  // Files given with --from-cluster replace what the cluster printed.
  if (!ReadInput(a.osdmap, &in.osdmap) || !ReadInput(a.report, &in.report) ||
      !ReadInput(a.pg_stats, &in.pg_dump) || !ReadInput(a.osd_df, &in.osd_df) ||
      !ReadInput(a.df, &in.df)) {
    return 1;
  }
  std::optional<osdmap::ClusterPgCounts> counts;
  std::optional<osdmap::ClusterState> state = LoadBaseState(a, in, *release, &counts);
  if (!state) return 1;
  if (*release) state->ceph_release = **release;
  for (const std::string& w : osdmap::ImportWarnings(*state))
    std::cerr << "crushkit import: warning: " << w << "\n";
  if (!ImportOptional(in.pg_dump, &*state, osdmap::ImportCephPgDump) ||
      !ImportOptional(in.osd_df, &*state, osdmap::ImportCephOsdDf) ||
      !ImportOptional(in.df, &*state, osdmap::ImportCephDf)) {
    return 1;
  }
  if (!in.report.name.empty() && in.osd_df.name.empty()) {
    std::cerr << "crushkit import: note: a report has no per-OSD capacity; --osd-df ('ceph osd "
                 "df -f json') adds it for fill projections\n";
  }
  if (!SelfCheck(in, counts, &*state)) return 1;
  auto bytes = osdmap::SerializeState(*state, osdmap::StateFormatForPath(a.output));
  if (!bytes.ok()) {
    std::cerr << "crushkit import: " << bytes.status().message() << "\n";
    return 1;
  }
  if (auto s = WriteFileAtomically(a.output, *bytes); !s.ok()) {
    std::cerr << "crushkit import: " << a.output << ": " << s.message() << "\n";
    return 1;
  }
  if (state->mapping_check)
    std::cerr << UndefinedMappingsWarning(state->mapping_check->diverged_from_ceph);
  return 0;
}

}  // namespace

void AddImportCommand(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Import a cluster state from Ceph's binary osdmap (`ceph osd getmap`), which carries its "
      "crush map; from `ceph osd dump -f json` (or `osdmaptool --dump json`) plus the crush map: "
      "binary (`ceph osd getcrushmap`), text (compiled as `crushtool -c` does) or `ceph osd crush "
      "dump -f json`; from a whole `ceph report`; or from a running cluster through its `ceph` "
      "CLI. Every PG is then re-mapped and compared with what the inputs say the cluster does "
      "(the report's per-OSD PG counts, the pg dump's up/acting): one line says it agrees, or a "
      "warning, kept in the state, that plan and diff repeat.\n"
      "  example: ceph osd getmap -o om; crushkit import --osdmap om -o state.pb\n"
      "           ceph report > report.json; crushkit import --report report.json -o state.pb\n"
      "           crushkit import --from-cluster --save-dumps dumps/ -o state.pb");
  CLI::Option* osdmap_opt =
      cmd->add_option("--osdmap", args->osdmap,
                      "OSD map: binary (ceph osd getmap) or JSON (ceph osd dump -f json)");
  CLI::Option* crush_opt = cmd->add_option(
      "--crush", args->crush,
      "crush map, binary, text or crush dump JSON; required with a JSON dump, replaces a binary "
      "osdmap's own");
  CLI::Option* report_opt = cmd->add_option(
      "--report", args->report,
      "`ceph report` output: its osd dump, crush dump, pool usage and per-OSD PG counts");
  CLI::Option* live = cmd->add_flag(
      "--from-cluster", args->from_cluster,
      "ask the running cluster: ceph report, osd getmap (the report's epoch), pg dump, osd df, df");
  cmd->add_option("--conf", args->cli.conf, "with --from-cluster: ceph.conf to use")->needs(live);
  cmd->add_option("--name", args->cli.name, "with --from-cluster: client name (client.X)")
      ->needs(live);
  cmd->add_option("--keyring", args->cli.keyring, "with --from-cluster: keyring file")->needs(live);
  cmd->add_option("--ceph", args->cli.ceph, "with --from-cluster: the ceph CLI to run")
      ->capture_default_str()
      ->needs(live);
  cmd->add_option("--timeout", args->cli.timeout_seconds,
                  "with --from-cluster: seconds to connect (each command is killed after twice "
                  "this)")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600))
      ->needs(live);
  cmd->add_option("--save-dumps", args->save_dumps,
                  "with --from-cluster: keep what the cluster printed in DIR (report.json, "
                  "osdmap.bin, pg-dump.json, osd-df.json, df.json)")
      ->needs(live);
  osdmap_opt->excludes(report_opt)->excludes(live);
  report_opt->excludes(live)->excludes(crush_opt);
  live->excludes(crush_opt);
  cmd->add_option("--pg-stats", args->pg_stats,
                  "optional `ceph pg dump -f json` (or `ceph pg dump pgs -f json`) output: per-PG "
                  "bytes and objects");
  cmd->add_option("--osd-df", args->osd_df,
                  "optional `ceph osd df -f json` (or `ceph osd df tree -f json`) output: per-OSD "
                  "kb and kb_used");
  cmd->add_option("--df", args->df,
                  "optional `ceph df -f json` output: per-pool stored bytes "
                  "and objects");
  cmd->add_option("-o,--output", args->output,
                  "state file to write (.json: protobuf JSON, otherwise binary protobuf)")
      ->required();
  AddCephReleaseOption(cmd, &args->ceph_release, CephReleaseFallback::kCluster);
  cmd->callback([args]() {
    if (const int rc = RunImport(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
