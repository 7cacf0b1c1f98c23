// Ceph's CrushWrapper::verify_upmap(): does an upmapped PG's OSD list still
// satisfy the failure domains and take roots of its pool's CRUSH rule? The
// monitor cancels every upmap whose result fails it (upmap_cleanup.h).
// An UpmapVerifier memoizes CrushWrapper::get_parent_of_type() and
// subtree_contains() answers over one crush map, so checking thousands of
// PGs costs one tree walk per (rule, type) and per take root.
// Not thread-safe (the memo tables); use one per thread. The model must
// outlive it and stay unchanged.
#ifndef CRUSHKIT_OSDMAP_MODEL_UPMAP_VERIFY_H_
#define CRUSHKIT_OSDMAP_MODEL_UPMAP_VERIFY_H_

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "crush/model.h"

namespace crushkit::osdmap {

// Why verify_upmap() refused a list (kOk: it did not).
enum class UpmapVerdict : std::uint8_t {
  kOk,
  kRuleMissing,        // the pool's crush_rule is not a rule id (-ENOENT)
  kSameFailureDomain,  // chooseleaf: two OSDs share a parent of the leaf type
  kTooManyBuckets,     // choose: more distinct parents than the step's count
  kOutsideTakeRoot,    // emit: an OSD (or a hole) is not under the take root
};

class UpmapVerifier {
 public:
  // REQUIRES: `map` has no bucket cycles (CrushMap::Build checks that).
  explicit UpmapVerifier(const crush::MapModel& map) : map_(map) {}

  UpmapVerifier(const UpmapVerifier&) = delete;
  UpmapVerifier& operator=(const UpmapVerifier&) = delete;

  // CrushWrapper::verify_upmap(rule, pool_size, up), step by step:
  //   take: remembers the root;
  //   choose[leaf] firstn|indep N type T (N <= 0 means pool_size + N):
  //     records (T, N) unless T was already recorded for this emit; for
  //     T > 0, looks up each OSD's type-T parent among the buckets under
  //     the rule's take roots (OSDs without one are skipped, as Ceph logs
  //     and skips them); chooseleaf fails if two OSDs share a parent,
  //     choose if there are more distinct parents than N;
  //   emit: if the root is a bucket, the next (product of the recorded N)
  //     entries of `up` must lie under it (holes never do);
  //   other steps are ignored.
  // `rule` is the pool's crush_rule used as a rule id, as Pacific's
  // check_pg_upmaps() passes it (not resolved through find_rule()).
  UpmapVerdict Verify(int rule, int pool_size, std::span<const std::int32_t> up);

  // CrushWrapper::get_parent_of_type(item, type, rule) for rule >= 0: the
  // first bucket of `type` (take roots in ascending id order, each walked
  // depth first, not descending below a bucket of that type) whose subtree
  // holds `item`; 0 if none (including a missing rule).
  int ParentOfType(std::int32_t item, int type, int rule);

  // CrushWrapper::subtree_contains(root, item).
  bool SubtreeContains(std::int32_t root, std::int32_t item);

 private:
  void ChildrenOfType(std::int32_t id, int type, std::vector<std::int32_t>* out) const;
  const std::set<std::int32_t>& Contents(std::int32_t bucket);

  const crush::MapModel& map_;
  // (rule, type) -> item -> its get_parent_of_type() answer, for every item
  // that has one.
  std::map<std::pair<int, int>, std::unordered_map<std::int32_t, int>> parents_;
  // bucket -> every item (devices and buckets) below it.
  std::map<std::int32_t, std::set<std::int32_t>> contents_;
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_UPMAP_VERIFY_H_
