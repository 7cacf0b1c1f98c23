// crushtool --test --simulate: CrushTester::random_placement() and
// check_valid_placement(), the "RNG" placements crushtool compares CRUSH
// with: up to 100 draws of min(num_rep, maximum affected) devices from
// lrand48() % max_devices, kept when they pass Ceph's own validity check
// (no zero-weight or repeated device, no two devices in the same bucket of
// any type the rule chooses, quirks included).
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_RANDOM_PLACEMENT_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_RANDOM_PLACEMENT_H_

#include <map>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/model.h"
#include "tools/crushtool/lrand48.h"

namespace crushkit::tools::crushtool {

class RandomPlacer {
 public:
  // The placer of rule `rule`; `max_affected` is get_maximum_affected_by_rule.
  // Errors (kUnimplemented) where Ceph aborts or edits the map: a chosen
  // type without a name, an empty type table.
  static absl::StatusOr<RandomPlacer> ForRule(const crush::MapModel& map, int rule,
                                              int max_affected);

  // random_placement(rule, out, num_rep, weight): `out` gets the accepted
  // draw, or stays empty (no weight, no device, 100 rejected draws).
  // kUnimplemented where Ceph's answer is undefined (a negative draw size,
  // a location walk Ceph aborts on).
  absl::Status Place(int num_rep, std::span<const crush::Weight> weight, Lrand48& rng,
                     std::vector<crush::ItemId>& out);

 private:
  RandomPlacer(const crush::MapModel& map, int max_affected)
      : map_(&map), max_affected_(max_affected) {}

  absl::StatusOr<bool> Valid(std::span<const crush::ItemId> trial,
                             std::span<const crush::Weight> weight);

  const crush::MapModel* map_;
  int max_affected_;
  std::vector<std::string> affected_types_;  // one per choosing step
  bool only_osd_affected_ = false;
  std::map<crush::ItemId, std::map<std::string, std::string>> locations_;  // cache
};

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_RANDOM_PLACEMENT_H_
