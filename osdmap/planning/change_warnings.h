// Warnings about a change that Ceph would accept but that likely does not do
// what the operator meant, for `crushkit plan` and `crushkit diff`:
//
//   * kNewBucket: a location word (TYPE=NAME) of the change names a bucket
//     that exists neither in the state nor as an earlier op's creation. Ceph
//     creates it (CrushWrapper::insert_item / move_bucket do), so this is not
//     an error, but a typo (`rack=rack9` for `rack=rack2`) ends up as a new
//     bucket. The warning names the closest existing bucket of that type
//     (the change file's did-you-mean, change_ops.h) and where the new bucket
//     hangs: under the next location word's bucket, or attached to nothing.
//   * kDetached: OSDs (or buckets that held placements before) that sit, after
//     the change, outside every subtree a pool's rule takes (its take steps,
//     device-class shadow trees included), while before they were inside one
//     or did not exist: a host moved out of its root, a rack unlinked, a new
//     host added under a new unattached bucket or without the class the rules
//     take. Those OSDs receive no data. The warning names their CRUSH weight
//     and, when `ceph osd df` was imported, their capacity and the data they
//     hold. What was outside before as well is not reported (a spare root is
//     deliberate).
//
// Both are values a report carries; FormatPlanWarning() prints one line.
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_CHANGE_WARNINGS_H_
#define CRUSHKIT_OSDMAP_PLANNING_CHANGE_WARNINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

struct PlanWarning {
  enum class Kind { kNewBucket, kDetached };
  Kind kind = Kind::kNewBucket;
  // One sentence: lowercase, no trailing period, without `where`.
  std::string message;
  // "FILE:LINE:COL" of the location word (kNewBucket); "" otherwise.
  std::string where;
  // kNewBucket: the bucket Ceph would create. kDetached: the top bucket of
  // the tree the OSDs now hang in (the host itself if it hangs from nothing).
  std::string bucket;
  // kNewBucket: the closest existing bucket of that type, or "".
  std::string suggestion;
  // kDetached: what left the rules' subtrees (the highest buckets that were
  // inside before; for new OSDs, their hosts), and the OSDs under them.
  std::vector<std::string> buckets;
  std::vector<std::int32_t> osds;
  double crush_weight = 0;            // Σ the OSDs' CRUSH weights (after)
  std::uint64_t capacity_bytes = 0;   // Σ `ceph osd df` kb (0: not imported)
  std::uint64_t used_bytes = 0;       // Σ `ceph osd df` kb_used: data that moves off
  bool capacity_from_osd_df = false;  // capacity_bytes/used_bytes are known
};

// kNewBucket warnings of `change` applied to `before`, in op order.
// REQUIRES: ApplyChange(before, change) succeeded (types and existing names
// are valid). Cost: O(ops x buckets).
std::vector<PlanWarning> NewBucketWarnings(const ClusterState& before, const ChangeList& change);

// kDetached warnings of `before` -> `after`, one per top bucket, largest
// CRUSH weight first. Rules are each pool's rule of that state (find_rule
// as the mapper picks it); a state without pools gives none.
// Cost: O(buckets + devices) per rule plus O(devices x tree height).
std::vector<PlanWarning> DetachedWarnings(const ClusterState& before, const ClusterState& after);

// "WHERE: MESSAGE", or MESSAGE when `where` is empty.
std::string FormatPlanWarning(const PlanWarning& w);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_CHANGE_WARNINGS_H_
