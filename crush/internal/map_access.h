// Private to crush_core and its tests (not installed): the mapper's view of a
// CrushMap's flat arrays. CrushMap keeps these raw pointers private and
// befriends MapAccess, so the installed map.h offers only the validated,
// stable surface while mapper.cc reads the arrays without a copy.
// Thread-safety: const reads of an immutable CrushMap.
#ifndef CRUSHKIT_CRUSH_INTERNAL_MAP_ACCESS_H_
#define CRUSHKIT_CRUSH_INTERNAL_MAP_ACCESS_H_

#include <cstddef>

#include "crush/internal/straw2_draw.h"
#include "crush/map.h"
#include "crush/types.h"

namespace crushkit::crush::internal {

class MapAccess {
 public:
  // Bucket slot i (id -1-i); max_buckets() entries.
  static const FlatBucket* BucketSlots(const CrushMap& m) { return m.buckets_.data(); }

  static const ItemId* Items(const CrushMap& m) { return m.items_.data(); }

  // Item weights, tree node weights, list sums and straws (FlatBucket offsets).
  static const Weight* Weights(const CrushMap& m) { return m.weights_.data(); }

  // Parallel to Weights(): straw2 reciprocals (set for straw2 buckets only).
  static const Straw2Divisor* Divisors(const CrushMap& m) { return m.divisors_.data(); }

  // REQUIRES: m.RuleExists(rule).
  static const FlatRule& Rule(const CrushMap& m, int rule) {
    return m.rules_[static_cast<std::size_t>(rule)];
  }

  static const RuleStep* Steps(const CrushMap& m) { return m.steps_.data(); }

  // The selected choose_args, or nullptr for none or a ref of another map.
  static const FlatChooseArgs* ChooseArgs(const CrushMap& m, ChooseArgsRef ref) {
    return m.FlatChooseArgsOf(ref);
  }
};

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_MAP_ACCESS_H_
