// The real raw step of the PG pipeline: crushkit's CRUSH mapper with one
// reused Workspace, and the CrushWrapper lookups osdmaptool needs (rule
// selection, device CRUSH weights).
// A CrushPlacement is not thread-safe (it owns a Workspace); the CrushMap it
// refers to may be shared.
#ifndef CRUSHKIT_OSDMAP_MODEL_CRUSH_PLACEMENT_H_
#define CRUSHKIT_OSDMAP_MODEL_CRUSH_PLACEMENT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "crush/ceph_release.h"
#include "crush/choice_memo.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap {

// The rule OSDMap::_pg_to_raw_osds() maps a pool with. Pacific calls
// CrushWrapper::find_rule(): the first rule whose ruleset byte, type and
// [min_size, max_size] match; Quincy and later take `ruleset` as the rule id
// (no type or size check). -1 if there is none.
int FindCrushRule(const crush::MapModel& model, int ruleset, int type, int size,
                  crush::CephRelease release);

// CrushWrapper::get_item_weight(): in slot order, a bucket's own weight if
// it is `id`, else the weight of `id` in the first bucket that holds it;
// nullopt if neither.
std::optional<crush::Weight> CrushItemWeight(const crush::MapModel& model, crush::ItemId id);

// CrushItemWeight() of every device, indexed by id (nullopt: in no bucket),
// in one pass over the buckets instead of one per device.
std::vector<std::optional<crush::Weight>> DeviceCrushWeights(const crush::MapModel& model);

class CrushPlacement final : public RawPlacement {
 public:
  // `map` must outlive this object. `release` decides the rule lookup
  // (FindCrushRule).
  CrushPlacement(const crush::CrushMap& map, crush::CephRelease release);

  // Bucket items one DoRule() call may examine (crush::Workspace::budget;
  // default crush::kDefaultWorkBudget). Lower it to bound the cost of
  // mapping untrusted maps more tightly.
  void set_work_budget(std::uint64_t budget) { ws_.set_budget(budget); }

  // The CRUSH map this placement maps on.
  const crush::CrushMap& map() const { return map_; }

  // Straw2 choice memo of the workspace (crush/choice_memo.h,
  // crush::Workspace::RecordChoicesInto and friends), for mapping every PG
  // on two cluster states in pairs: the "before" placement records into a
  // memo built for (before map, after map), the "after" placement replays
  // it, and each PG is mapped on before, then on after. Results are
  // unchanged; the after mapping skips the straw2 draws of the buckets both
  // maps share. `memo` is not owned; nullptr or ClearMemo() turns it off.
  void RecordChoicesInto(crush::ChoiceMemo* memo) { ws_.RecordChoicesInto(memo); }

  void ReplayChoicesFrom(const crush::ChoiceMemo* memo) { ws_.ReplayChoicesFrom(memo); }

  void ClearMemo() { ws_.ClearMemo(); }

  // The workspace's ChoiceLog recording and replay (crush::Workspace::
  // RecordChoicesInto(ChoiceLog*), ReplayChoices): a state's mapping
  // recorded once and replayed by many others (pg_table_replay.h).
  void RecordChoicesInto(crush::ChoiceLog* log) { ws_.RecordChoicesInto(log); }

  void ReplayChoices(const crush::ChoiceDelta* delta,
                     std::span<const crush::RecordedChoice> choices, std::uint32_t x,
                     std::int64_t args_key) {
    ws_.ReplayChoices(delta, choices, x, args_key);
  }

  // Straw2 choices the last DoRule() took from a replayed memo.
  std::uint32_t memo_hits() const { return ws_.memo_hits(); }

  // crush::RecordedChoicesHold() on this placement's map for input `x` of
  // pool `pool` (its choose_args, as DoRule resolves them).
  // REQUIRES: no memo set (ClearMemo()).
  bool RecordedChoicesHold(const crush::ChoiceDelta& delta,
                           std::span<const crush::RecordedChoice> choices, std::uint32_t x,
                           std::int64_t args_key, std::int64_t pool);

  int FindRule(int ruleset, int type, int size) const override;
  int DoRule(int rule, std::uint32_t x, std::span<const crush::Weight> weights, std::int64_t pool,
             std::span<std::int32_t> out) override;

  std::uint64_t LastVisitedBuckets() const override { return ws_.visited_buckets(); }

  // DoRule() calls of this placement whose result is crushkit's documented
  // answer where Ceph's is undefined (crush::Workspace::diverged_from_ceph:
  // a tree bucket descent past its last item, where Ceph reads out of
  // bounds, e.g. through node weights Ceph's builder left uninitialised; or
  // the work budget ran out). Results carry the sum (PgTable,
  // UpmapCleanup, ...) and the tools say so on stderr.
  std::uint64_t DivergedFromCeph() const override { return diverged_; }

 private:
  const crush::CrushMap& map_;
  const crush::CephRelease release_;
  crush::Workspace ws_;
  // choose_args resolution per pool id, cached (pools are few).
  std::int64_t cached_pool_ = -1;
  crush::ChooseArgsRef cached_args_;
  bool have_cache_ = false;
  std::uint64_t diverged_ = 0;

  void ResolveArgs(std::int64_t pool);
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_CRUSH_PLACEMENT_H_
