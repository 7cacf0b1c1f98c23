#include "tools/crushtool/reclassify_stage.h"

#include <string>

#include "absl/status/status.h"

#include "crush/edit/edit.h"
#include "crush/edit/reclassify.h"
#include "tools/crushtool/ceph_io.h"

namespace crushkit::tools::crushtool {
namespace {

int Undefined(std::FILE* err, const absl::Status& s) {
  WriteAndFlush(err, "crushkit crushtool: undefined in Ceph: " + std::string(s.message()) + "\n");
  return 1;
}

}  // namespace

std::optional<int> ApplyReclassifyStage(const CrushtoolOptions& o, crush::MapModel& model,
                                        bool* modified, std::FILE* out, std::FILE* err) {
  for (const auto& [bucket, class_name] : o.set_subtree_class) {
    // crushtool ignores set_subtree_class()'s result.
    if (absl::Status s = crush::SetSubtreeClass(model, bucket, class_name);
        crush::CephWouldCrash(s)) {
      return Undefined(err, s);
    }
    *modified = true;
  }
  if (o.reclassify) {
    const crush::ReclassifySpec spec{o.reclassify_root, o.reclassify_bucket};
    std::string log;
    const absl::Status s = crush::Reclassify(model, spec, &log);
    WriteAndFlush(out, log);
    if (crush::CephWouldCrash(s)) return Undefined(err, s);
    if (!s.ok()) {
      WriteAndFlush(err, "failed to reclassify map\n");
      return 1;
    }
    *modified = true;
  }
  return std::nullopt;
}

}  // namespace crushkit::tools::crushtool
