#include "crush/model.h"

namespace crushkit::crush {

Tunables TunablesFor(TunablesProfile profile, const Tunables& base) {
  Tunables t = base;
  // Matches CrushWrapper::set_tunables_{legacy,bobtail,firefly,hammer,jewel}.
  switch (profile) {
    case TunablesProfile::kLegacy:
    case TunablesProfile::kArgonaut:
      t = Tunables{};
      t.msr_descents = base.msr_descents;
      t.msr_collision_tries = base.msr_collision_tries;
      t.straw_calc_version = 0;
      break;
    case TunablesProfile::kBobtail:
    case TunablesProfile::kFirefly:
    case TunablesProfile::kHammer:
    case TunablesProfile::kJewel:
    case TunablesProfile::kOptimal:
    case TunablesProfile::kDefault:
      t.choose_local_tries = 0;
      t.choose_local_fallback_tries = 0;
      t.choose_total_tries = 50;
      t.chooseleaf_descend_once = 1;
      t.chooseleaf_vary_r = profile == TunablesProfile::kBobtail ? 0 : 1;
      t.chooseleaf_stable = profile >= TunablesProfile::kJewel ? 1 : 0;
      t.allowed_bucket_algs = profile >= TunablesProfile::kHammer ? 54 : 22;
      if (profile >= TunablesProfile::kJewel) t.straw_calc_version = 1;
      break;
  }
  t.msr_descents = 100;
  t.msr_collision_tries = 100;
  return t;
}

const Bucket* MapModel::FindBucket(ItemId id) const {
  if (id >= 0) return nullptr;
  const int slot = BucketSlot(id);
  if (slot >= max_buckets()) return nullptr;
  const Bucket& b = buckets[static_cast<std::size_t>(slot)];
  return b.alg == BucketAlg::kNone ? nullptr : &b;
}

Bucket* MapModel::FindBucket(ItemId id) {
  return const_cast<Bucket*>(static_cast<const MapModel&>(*this).FindBucket(id));
}

std::int64_t FinalizedMaxDevices(const MapModel& map) {
  std::int64_t max_devices = 0;
  for (const Bucket& b : map.buckets) {
    if (b.alg == BucketAlg::kNone) continue;  // an empty slot (NULL in Ceph)
    for (ItemId item : b.items) {
      if (item >= max_devices) max_devices = std::int64_t{item} + 1;
    }
  }
  if (!map.item_names.empty() && map.item_names.rbegin()->first >= max_devices) {
    max_devices = std::int64_t{map.item_names.rbegin()->first} + 1;
  }
  return max_devices;
}

}  // namespace crushkit::crush
