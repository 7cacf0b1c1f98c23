// The upmap way's internals (upmap_pinning.h): its batches
// (upmap_pin_batches.cc). Not installed.
// Thread-safety: plain functions of their arguments.
#ifndef CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_INTERNAL_H_
#define CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"

#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table_replay.h"
#include "osdmap/planning/backfill_schedule.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/upmap_pinning.h"

namespace crushkit::osdmap::internal {

// Batches `plan`'s pins (plan->pins, their unpin commands filled): the moves
// of PGs without a pin go at once (plan->immediate), the pins are removed
// in greedy batches in PG order, each under `max_misplaced` of the cluster
// and, when `at_once` has `ceph osd df` capacities and max_fill > 0,
// keeping every target under `max_fill` (fill_limit.h); every batch's
// backfill simulated with `backfill`. Sets the plan's batches, immediate,
// fill fields and total_seconds. Errors: the simulation's.
absl::Status MakePinBatches(const Movement& at_once, const BackfillOptions& backfill,
                            double max_misplaced, double max_fill, UpmapPinPlan* plan);

// The before state's raw sets with upmaps applied (PgMapper::PgToRawUpmap,
// what the pins return to), their CRUSH step taken from the before state's
// recording when it records that state and no PG of it diverged from Ceph
// (then the result and diverged_from_ceph() are exactly CRUSH's), else
// mapped by CRUSH. Upmap_pin_before.cc. Thread-compatible: one thread.
class BeforeRawSets {
 public:
  // `recorded` may be null; both must outlive this object.
  BeforeRawSets(const MappingSession& before, const RecordedMapping* recorded);

  // PG `ps` of `pool` (a pool of the before state).
  std::vector<std::int32_t> RawUpmap(const Pool& pool, std::uint32_t ps);

  // Whether the recording serves (else every set is mapped by CRUSH).
  bool uses_recording() const { return recorded_ != nullptr; }

  // Divergences of the PGs mapped by CRUSH here (RawPlacement).
  std::uint64_t diverged_from_ceph() const;

 private:
  std::unique_ptr<MappingSession::Worker> worker_;
  const RecordedMapping* recorded_ = nullptr;  // null: it does not serve
};

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_PLANNING_UPMAP_PINNING_INTERNAL_H_
