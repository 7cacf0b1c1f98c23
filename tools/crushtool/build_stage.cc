#include "tools/crushtool/build_stage.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

#include "crush/edit/edit.h"
#include "crush/edit/layered_map.h"
#include "tools/crushtool/ceph_io.h"

namespace crushkit::tools::crushtool {

std::optional<int> RunBuildStage(const CrushtoolOptions& o, crush::CephRelease release,
                                 crush::MapModel& model, std::FILE* err) {
  const std::string me = kMe;
  if (o.layers.empty()) {
    WriteAndFlush(err, me + ": must specify at least one layer\n");
    return 1;
  }
  std::vector<crush::MapLayer> layers;
  for (const BuildLayer& l : o.layers) layers.push_back({l.name, l.bucket_type, l.size});
  auto built = crush::BuildLayeredMap(o.num_osds, layers);
  if (!built.ok()) {
    if (built.status().code() == absl::StatusCode::kInvalidArgument) {
      WriteAndFlush(err, std::string(built.status().message()) + "\n");
    } else {
      WriteAndFlush(err, "crushkit crushtool: undefined in Ceph: " +
                             std::string(built.status().message()) + "\n");
    }
    return 1;
  }
  if (built->signed_weight_overflow) {
    WriteAndFlush(err,
                  "crushkit crushtool: warning: a bucket weight overflows Ceph's 32-bit "
                  "signed sum (undefined in Ceph; wrapped as Ceph does in practice)\n");
  }
  if (built->lone_percent_format) {
    WriteAndFlush(err,
                  "crushkit crushtool: warning: a 17-byte layer name leaves a lone '%' in "
                  "Ceph's bucket name format (undefined in Ceph; glibc drops it)\n");
  }
  if (built->roots > 1) {
    // Quincy renamed rulesets to rules in this warning too.
    const std::string rules = crush::HasRulesets(release) ? "rulesets" : "rules";
    WriteAndFlush(err, "The crush " + rules + " will use the root " + built->root +
                           "\nand ignore the others.\nThere are " + std::to_string(built->roots) +
                           " roots, they can be\ngrouped into a single root by appending "
                           "something like:\n  root straw 0\n\n");
  }
  // CrushWrapper::create() replaces the crush_map (buckets, rules,
  // tunables) but keeps the wrapper's name, type, rule-name and class tables
  // of an -i map: the build's names overwrite, the rest stays.
  crush::MapModel& map = built->map;
  for (const auto& [id, name] : model.type_names) map.type_names.emplace(id, name);
  for (const auto& [id, name] : model.item_names) map.item_names.emplace(id, name);
  map.rule_names = std::move(model.rule_names);
  map.class_map = std::move(model.class_map);
  map.class_names = std::move(model.class_names);
  map.class_buckets = std::move(model.class_buckets);
  model = std::move(map);
  if (auto s = crush::BuildSimpleCrushRules(model, built->root); !s.ok()) {
    if (s.code() == absl::StatusCode::kInternal) {
      WriteAndFlush(err,
                    "crushkit crushtool: undefined in Ceph: " + std::string(s.message()) + "\n");
    } else {
      WriteAndFlush(err, crush::CephErrorText(s));  // Ceph prints it without a newline
    }
    return 1;
  }
  return std::nullopt;
}

}  // namespace crushkit::tools::crushtool
