// `crushkit import`: Ceph's JSON osd dump + crush map (binary, or text that
// is compiled as `crushtool -c` would) (+ optional pg dump, osd df and ceph
// df) -> a crushkit state file (.pb binary, .json protobuf JSON).
#include "osdmap/import.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"

#include "osdmap/input_sniff.h"
#include "osdmap/osdmap_binary_state.h"
#include "osdmap/state_codec.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/ceph_release_option.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"

namespace crushkit::tools {
namespace {

struct ImportArgs {
  std::string osdmap;
  std::string crush;
  std::string pg_stats;
  std::string osd_df;
  std::string df;
  std::string output;
  std::string ceph_release;
};

// Reads the optional file at `path` (skipped when empty) and hands it to
// `import`; errors name the file. Returns false after printing an error.
bool ImportOptional(const std::string& path, osdmap::ClusterState* state,
                    absl::Status (*import)(const std::string&, osdmap::ClusterState*)) {
  if (path.empty()) return true;
  auto json = ReadFileBytes(path);
  if (!json.ok()) {
    std::cerr << "crushkit import: " << path << ": " << json.status().message() << "\n";
    return false;
  }
  if (auto s = import(*json, state); !s.ok()) {
    std::cerr << "crushkit import: " << path << ": " << s.message() << "\n";
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
std::optional<osdmap::ClusterState> LoadOsdMap(const ImportArgs& a,
                                               std::optional<crush::CephRelease> release) {
  auto bytes = ReadFileBytes(a.osdmap);
  if (!bytes.ok()) {
    std::cerr << "crushkit import: " << a.osdmap << ": " << bytes.status().message() << "\n";
    return std::nullopt;
  }
  // Other dumps, state files, crush maps are refused saying what they are;
  // other JSON goes to the parser, which locates its errors.
  const osdmap::InputKind kind = osdmap::SniffInput(*bytes);
  if (absl::Status s = osdmap::CheckInputKind(osdmap::InputRole::kImportOsdMap, kind, *bytes);
      !s.ok()) {
    std::cerr << "crushkit import: " << a.osdmap << ": " << s.message() << "\n";
    return std::nullopt;
  }
  const bool binary = kind == osdmap::InputKind::kCephBinaryOsdMap;
  if (!binary && a.crush.empty()) {
    std::cerr << "crushkit import: " << a.osdmap
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
    std::cerr << "crushkit import: " << (crush_error ? a.crush : a.osdmap) << ": "
              << state.status().message() << "\n";
    return std::nullopt;
  }
  return std::move(*state);
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
  std::optional<osdmap::ClusterState> state = LoadOsdMap(a, *release);
  if (!state) return 1;
  if (*release) state->ceph_release = **release;
  for (const std::string& w : osdmap::ImportWarnings(*state))
    std::cerr << "crushkit import: warning: " << w << "\n";
  if (!ImportOptional(a.pg_stats, &*state, osdmap::ImportCephPgDump) ||
      !ImportOptional(a.osd_df, &*state, osdmap::ImportCephOsdDf) ||
      !ImportOptional(a.df, &*state, osdmap::ImportCephDf)) {
    return 1;
  }
  auto bytes = osdmap::SerializeState(*state, osdmap::StateFormatForPath(a.output));
  if (!bytes.ok()) {
    std::cerr << "crushkit import: " << bytes.status().message() << "\n";
    return 1;
  }
  if (auto s = WriteFileAtomically(a.output, *bytes); !s.ok()) {
    std::cerr << "crushkit import: " << a.output << ": " << s.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

void AddImportCommand(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Import a cluster state from Ceph's binary osdmap (`ceph osd getmap`, `osdmaptool "
      "--createsimple`), which carries its crush map, or from `ceph osd dump -f json` (or "
      "`osdmaptool --dump json`) plus the crush map: binary (`ceph osd getcrushmap` / `osdmaptool "
      "--export-crush`) or text (compiled as `crushtool -c` does). Both detected by content.\n"
      "  example: ceph osd getmap -o om; crushkit import --osdmap om -o state.pb\n"
      "           ceph osd dump -f json > dump.json; ceph osd getcrushmap -o crush.bin\n"
      "           crushkit import --osdmap dump.json --crush crush.bin -o state.pb");
  cmd->add_option("--osdmap", args->osdmap,
                  "OSD map: binary (ceph osd getmap) or JSON (ceph osd dump -f json)")
      ->required();
  cmd->add_option(
      "--crush", args->crush,
      "crush map, binary or text; required with a JSON dump, replaces a binary osdmap's own");
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
