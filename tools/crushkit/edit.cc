// `crushkit edit MAP [OPS] [--do OP ...] -o OUT`: several crush-map edits in
// one atomic invocation, in the change-file language `crushkit plan` reads
// (osdmap/changes/change_ops.h), applied by osdmap::EditCrushMap.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compiler/compile.h"
#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/crush_map_edit.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/ceph_release_option.h"
#include "tools/crushkit/change_input.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/crush_loading.h"

namespace crushkit::tools {
namespace {

struct EditArgs {
  std::string map;
  std::string ops;
  std::vector<std::string> do_ops;
  std::string output;
  std::string ceph_release;
  bool text = false;
};

int RunEdit(const EditArgs& a) {
  absl::StatusOr<crush::CephRelease> release = ResolveCephRelease(a.ceph_release);
  if (!release.ok()) return CommandFailed("edit", std::string(release.status().message()));
  std::optional<osdmap::ChangeList> change = LoadChange("edit", a.ops, a.do_ops);
  if (!change) return 1;
  absl::StatusOr<std::string> bytes = LoadCrushMapBytes(a.map, *release);
  if (!bytes.ok())
    return CommandFailed("edit", a.map + ": " + std::string(bytes.status().message()));
  absl::StatusOr<crush::MapModel> map = crush::DecodeCrushMap(*bytes);
  if (!map.ok())
    return CommandFailed("edit", a.map + ": cannot decode: " + std::string(map.status().message()));
  absl::StatusOr<crush::MapModel> edited = osdmap::EditCrushMap(*map, *change, *release);
  if (!edited.ok()) {
    if (edited.status().code() == absl::StatusCode::kInvalidArgument) {
      std::cerr << edited.status().message();  // located diagnostics
      return 1;
    }
    return CommandFailed("edit", std::string(edited.status().message()));
  }
  std::string out;
  if (a.text) {
    absl::StatusOr<std::string> decompiled = compiler::Decompile(*edited, *release);
    if (!decompiled.ok()) return CommandFailed("edit", std::string(decompiled.status().message()));
    out = *std::move(decompiled);
  } else {
    out = crush::EncodeCrushMapAs(*std::move(edited), *release);
  }
  if (absl::Status s = WriteFileAtomically(a.output, out); !s.ok()) {
    return CommandFailed("edit", "cannot write " + a.output + ": " + std::string(s.message()));
  }
  std::cerr << "crushkit edit: " << change->ops.size() << " operation(s) applied, wrote "
            << a.output << "\n";
  return 0;
}

}  // namespace

void AddEditCommand(CLI::App& app) {
  auto args = std::make_shared<EditArgs>();
  CLI::App* cmd = app.add_subcommand(
      "edit",
      "Edit a crush map with Ceph's CLI commands, all or nothing\n"
      "  example: crushkit edit map.bin -o new.bin \\\n"
      "             --do 'osd crush add-bucket rack4 rack root=default' \\\n"
      "             --do 'add-host node13 osds=4 weight=3.638 class=hdd rack=rack4'");
  cmd->add_option("map", args->map, "crush map (Ceph binary or text)")->required();
  cmd->add_option("ops", args->ops, "change file: one operation per line (as `crushkit plan`)");
  cmd->add_option("--do", args->do_ops, "an operation, instead of a change file (repeatable)");
  cmd->add_option("-o,--output", args->output, "where to write the edited map (atomically)")
      ->required();
  cmd->add_flag("--text", args->text, "write the decompiled text instead of the binary map");
  AddCephReleaseOption(cmd, &args->ceph_release);
  cmd->callback([args] {
    if (const int rc = RunEdit(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
