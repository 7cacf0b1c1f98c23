#include "tools/crushtool/display_stage.h"

#include <string>
#include <vector>

#include "crush/edit/display.h"
#include "tools/crushtool/ceph_formatter.h"
#include "tools/crushtool/ceph_io.h"
#include "tools/crushtool/crush_dump.h"

namespace crushkit::tools::crushtool {
namespace {

int Refuse(std::FILE* err, const absl::Status& status) {
  WriteAndFlush(err, "crushkit crushtool: " + std::string(status.message()) + "\n");
  return 1;
}

}  // namespace

std::optional<int> RunDisplayStage(const CrushtoolOptions& o, const crush::MapModel& model,
                                   crush::CephRelease release, std::FILE* out, std::FILE* err) {
  if (o.full_location >= 0) {
    auto loc = crush::FullLocation(model, o.full_location);
    if (!loc.ok()) return Refuse(err, loc.status());
    std::string text;
    for (const auto& [type, name] : *loc) text += type + "\t" + name + "\n";
    WriteAndFlush(out, text);
  }
  if (o.tree) {
    auto tree = FormatCrushTree(model);
    if (!tree.ok()) return Refuse(err, tree.status());
    WriteAndFlush(out, *tree);
  }
  if (o.bucket_tree) {
    if (o.bucket_name.empty()) {
      WriteAndFlush(err, ": error bucket_name is empty\n");
    } else {
      auto leaves = crush::Leaves(model, o.bucket_name);
      if (!leaves.ok()) return Refuse(err, leaves.status());
      std::string text;
      for (crush::ItemId id : *leaves) text += "osd." + std::to_string(id) + "\n";
      WriteAndFlush(out, text);
    }
  }
  if (o.dump) {
    auto f = CephFormatter::Create(o.dump_format);
    std::vector<std::string> warnings;
    f->OpenObject("crush_map");
    DumpCrushMap(model, release, *f, &warnings);
    f->Close();
    for (const std::string& w : warnings)
      WriteAndFlush(err, "crushkit crushtool: warning: " + w + "\n");
    WriteAndFlush(out, f->Flush() + "\n");
  }
  return std::nullopt;
}

std::optional<int> RunCheckStage(const CrushtoolOptions& o, const crush::MapModel& model,
                                 std::FILE* out, std::FILE* err) {
  if (!o.check) return std::nullopt;
  std::string text;
  for (const std::string& line : crush::OverlappedRules(model)) text += line + "\n";
  WriteAndFlush(out, text);
  if (o.max_id >= 0) {
    auto failure = crush::CheckNameMaps(model, static_cast<unsigned>(o.max_id));
    if (!failure.ok()) return Refuse(err, failure.status());
    if (!failure->empty()) {
      WriteAndFlush(out, *failure + "\n");
      return 1;
    }
  }
  return std::nullopt;
}

}  // namespace crushkit::tools::crushtool
