// `crushkit import`: Ceph's JSON osd dump + binary crush map (+ optional pg
// dump) -> a crushkit state file (.pb binary, .json protobuf JSON).
#include <iostream>
#include <memory>
#include <string>

#include "osdmap/import.h"
#include "osdmap/state_codec.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"

namespace crushkit::tools {
namespace {

struct ImportArgs {
  std::string osdmap;
  std::string crush;
  std::string pg_stats;
  std::string output;
};

bool LooksLikeBinaryCrush(const std::string& bytes) {
  // CRUSH_MAGIC 0x00010000, little-endian.
  return bytes.size() >= 4 && bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 1 && bytes[3] == 0;
}

int RunImport(const ImportArgs& a) {
  auto json = ReadFileBytes(a.osdmap);
  if (!json.ok()) {
    std::cerr << "crushkit import: " << a.osdmap << ": " << json.status().message() << "\n";
    return 1;
  }
  auto crush = ReadFileBytes(a.crush);
  if (!crush.ok()) {
    std::cerr << "crushkit import: " << a.crush << ": " << crush.status().message() << "\n";
    return 1;
  }
  if (!LooksLikeBinaryCrush(*crush)) {
    std::cerr << "crushkit import: " << a.crush
              << ": not a binary crush map (no CRUSH magic); text maps must be compiled first "
                 "with `crushkit compile` or `crushtool -c`\n";
    return 1;
  }
  auto state = osdmap::ImportCephOsdDump(*json, *crush);
  if (!state.ok()) {
    std::cerr << "crushkit import: " << state.status().message() << "\n";
    return 1;
  }
  if (!a.pg_stats.empty()) {
    auto pg = ReadFileBytes(a.pg_stats);
    if (!pg.ok()) {
      std::cerr << "crushkit import: " << a.pg_stats << ": " << pg.status().message() << "\n";
      return 1;
    }
    if (auto s = osdmap::ImportCephPgDump(*pg, &*state); !s.ok()) {
      std::cerr << "crushkit import: " << a.pg_stats << ": " << s.message() << "\n";
      return 1;
    }
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
      "Import a cluster state from `ceph osd dump -f json` (or `osdmaptool --dump json`) and the "
      "binary crush map (`ceph osd getcrushmap` / `osdmaptool --export-crush`). Ceph's binary "
      "osdmap itself is not decoded.");
  cmd->add_option("--osdmap", args->osdmap, "OSD map as JSON (ceph osd dump -f json)")->required();
  cmd->add_option("--crush", args->crush, "binary crush map")->required();
  cmd->add_option("--pg-stats", args->pg_stats, "optional `ceph pg dump pgs -f json` output");
  cmd->add_option("-o,--output", args->output,
                  "state file to write (.json: protobuf JSON, otherwise binary protobuf)")
      ->required();
  cmd->callback([args]() {
    if (const int rc = RunImport(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
