// The upmap way's before raw sets (upmap_pinning_internal.h BeforeRawSets).
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/planning/upmap_pinning_internal.h"

namespace crushkit::osdmap::internal {

BeforeRawSets::BeforeRawSets(const MappingSession& before, const RecordedMapping* recorded)
    : worker_(before.NewWorker()) {
  // A recording whose PGs all mapped as Ceph does gives the CRUSH step's
  // result CRUSH would give here, divergences (none) included.
  if (recorded != nullptr && recorded->table().diverged_from_ceph == 0 &&
      recorded->Records(before.state())) {
    recorded_ = recorded;
  }
}

std::vector<std::int32_t> BeforeRawSets::RawUpmap(const Pool& pool, std::uint32_t ps) {
  OsdList raw_upmap;
  const RecordedMapping::PoolRecord* rec =
      recorded_ != nullptr ? recorded_->Find(pool.id) : nullptr;
  // crush_len 0: not recorded (longer than the record's width) or empty;
  // CRUSH decides either way.
  if (rec != nullptr && ps < rec->pg_num && rec->crush_len[ps] > 0) {
    OsdList crush;
    const std::int32_t* src =
        rec->crush.data() + static_cast<std::size_t>(ps) * static_cast<std::size_t>(rec->width);
    for (int i = 0; i < rec->crush_len[ps]; ++i) crush.push_back(src[i]);
    worker_->mapper().RawUpmapFromCrush(pool, ps, crush, &raw_upmap);
    return raw_upmap.ToVector();
  }
  OsdList raw;
  worker_->mapper().PgToRawUpmap(PgId{pool.id, ps}, &raw, &raw_upmap);
  return raw_upmap.ToVector();
}

std::uint64_t BeforeRawSets::diverged_from_ceph() const {
  return worker_->placement().DivergedFromCeph();
}

}  // namespace crushkit::osdmap::internal
