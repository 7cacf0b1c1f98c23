#include "osdmap/model/pg_mapping_incremental.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "absl/strings/str_cat.h"

#include "crush/mapper.h"
#include "osdmap/model/crush_placement.h"

namespace crushkit::osdmap {
namespace {

const crush::Bucket* SlotBucket(const crush::MapModel& m, std::size_t slot) {
  if (slot >= m.buckets.size() || m.buckets[slot].alg == crush::BucketAlg::kNone) return nullptr;
  return &m.buckets[slot];
}

// The type a bucket's parent sees for item `id`: 0 for a device, the
// bucket's type, or -1 when there is no such bucket.
int ItemType(const crush::MapModel& m, crush::ItemId id) {
  if (id >= 0) return 0;
  const crush::Bucket* b = SlotBucket(m, static_cast<std::size_t>(crush::BucketSlot(id)));
  return b == nullptr ? -1 : b->type;
}

// True iff an item of `a`'s bucket in `slot` is a bucket whose type differs
// in `b`.
bool ItemTypesChanged(const crush::MapModel& a, const crush::MapModel& b, const crush::Bucket& ba) {
  for (crush::ItemId item : ba.items) {
    if (item < 0 && ItemType(a, item) != ItemType(b, item)) return true;
  }
  return false;
}

// Bucket `slot` draws differently, or its descent continues differently:
// the bucket itself, the types of its items, or its choose_args entry in
// any index differ.
bool BucketChanged(const crush::MapModel& a, const crush::MapModel& b, std::size_t slot) {
  const crush::Bucket* ba = SlotBucket(a, slot);
  const crush::Bucket* bb = SlotBucket(b, slot);
  if (ba == nullptr || bb == nullptr) return ba != bb;
  if (!(*ba == *bb)) return true;
  if (ItemTypesChanged(a, b, *ba)) return true;
  for (const auto& [index, args] : a.choose_args) {
    const auto other = b.choose_args.find(index);
    const auto ea = args.find(ba->id);
    if (other == b.choose_args.end()) {
      if (ea != args.end()) return true;
      continue;
    }
    const auto eb = other->second.find(ba->id);
    if ((ea == args.end()) != (eb == other->second.end())) return true;
    if (ea != args.end() && !(ea->second == eb->second)) return true;
  }
  for (const auto& [index, args] : b.choose_args) {
    if (!a.choose_args.contains(index) && args.contains(ba->id)) return true;
  }
  return false;
}

bool SameKeys(const std::map<std::int64_t, crush::ChooseArgMap>& a,
              const std::map<std::int64_t, crush::ChooseArgMap>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(),
                    [](const auto& x, const auto& y) { return x.first == y.first; });
}

bool TakeValid(const crush::MapModel& m, crush::ItemId id) {
  if (id >= 0) return id < m.max_devices;
  return SlotBucket(m, static_cast<std::size_t>(crush::BucketSlot(id))) != nullptr;
}

// The pool's CRUSH step may differ: its pps inputs, size or type, or the
// rule it maps with (which rule, its steps, the validity of its takes).
bool PoolChanged(const ClusterState& sb, const Pool& pb, const ClusterState& sa, const Pool& pa) {
  if (pb.pg_num != pa.pg_num || pb.pgp_num != pa.pgp_num || pb.size != pa.size ||
      pb.type != pa.type || pb.crush_rule != pa.crush_rule ||
      (pb.flags & kPoolFlagHashPsPool) != (pa.flags & kPoolFlagHashPsPool)) {
    return true;
  }
  const int size = static_cast<int>(pb.size);
  const int rb =
      FindCrushRule(sb.crush, pb.crush_rule, static_cast<int>(pb.type), size, sb.ceph_release);
  const int ra =
      FindCrushRule(sa.crush, pa.crush_rule, static_cast<int>(pa.type), size, sa.ceph_release);
  if (rb != ra) return true;
  if (rb < 0) return false;
  const crush::Rule& rule = sb.crush.rules[static_cast<std::size_t>(rb)];
  if (!(rule == sa.crush.rules[static_cast<std::size_t>(ra)])) return true;
  for (const crush::RuleStep& step : rule.steps) {
    if (step.op == crush::RuleOp::kTake &&
        TakeValid(sb.crush, step.arg1) != TakeValid(sa.crush, step.arg1)) {
      return true;
    }
  }
  return false;
}

}  // namespace

CrushChangeFilter::CrushChangeFilter(const ClusterState& before, const crush::CrushMap& before_map,
                                     const ClusterState& after, const crush::CrushMap& after_map,
                                     const crush::ChoiceMemo* memo) {
  Compare(before, before_map, after, after_map,
          [memo](int slot) { return memo != nullptr && memo->SlotPartiallyShared(slot); });
}

CrushChangeFilter::CrushChangeFilter(const ClusterState& before, const crush::CrushMap& before_map,
                                     const ClusterState& after, const crush::CrushMap& after_map,
                                     const crush::ChoiceDelta& delta) {
  Compare(before, before_map, after, after_map,
          [&delta](int slot) { return delta.SlotChanged(slot); });
}

template <class Partial>
void CrushChangeFilter::Compare(const ClusterState& before, const crush::CrushMap& before_map,
                                const ClusterState& after, const crush::CrushMap& after_map,
                                Partial&& partial_slot) {
  const crush::MapModel& mb = before_map.model();
  const crush::MapModel& ma = after_map.model();
  if (!(mb.tunables == ma.tunables) || before.ceph_release != after.ceph_release ||
      !SameKeys(mb.choose_args, ma.choose_args)) {
    all_ = true;
  }
  for (const auto& [id, pa] : after.pools) {
    const Pool* pb = before.FindPool(id);
    if (all_ || pb == nullptr || PoolChanged(before, *pb, after, pa)) whole_pools_.push_back(id);
  }
  if (all_) return;
  const std::vector<std::uint64_t> bits = crush::BucketVisitBits(before_map);
  // Devices whose reweight (what is_out() reads) differs.
  std::vector<bool> reweighted(before.osds.size(), false);
  bool any_reweighted = false;
  for (std::size_t i = 0; i < before.osds.size() && i < after.osds.size(); ++i) {
    if (before.osds[i].weight != after.osds[i].weight) {
      reweighted[i] = true;
      any_reweighted = true;
    }
  }
  // A device between the old and the new max_devices (mapper.c skips an
  // item >= max_devices) or max_osd (is_out() of an item past the weight
  // vector) is accepted on one side only.
  const int devices_lo = std::min(mb.max_devices, ma.max_devices);
  const int devices_hi = std::max(mb.max_devices, ma.max_devices);
  const int osds_lo = std::min(before.max_osd(), after.max_osd());
  const int osds_hi = std::max(before.max_osd(), after.max_osd());
  const auto device_changed = [&](crush::ItemId item) {
    if ((item >= devices_lo && item < devices_hi) || (item >= osds_lo && item < osds_hi))
      return true;
    return static_cast<std::size_t>(item) < reweighted.size() &&
           reweighted[static_cast<std::size_t>(item)];
  };
  const bool limits_changed = devices_lo != devices_hi || osds_lo != osds_hi;
  for (std::size_t slot = 0; slot < bits.size(); ++slot) {
    const crush::Bucket* b = SlotBucket(mb, slot);
    bool devices = false;
    if (b != nullptr && (any_reweighted || limits_changed)) {
      devices = std::any_of(b->items.begin(), b->items.end(),
                            [&](crush::ItemId item) { return item >= 0 && device_changed(item); });
    }
    if (!BucketChanged(mb, ma, slot)) {
      if (devices) mask_ |= bits[slot];
      continue;
    }
    // The memo (or the replay's check) sees every draw of such a bucket;
    // what it does not see (its items' types, its devices) must be unchanged.
    const bool partial =
        partial_slot(static_cast<int>(slot)) && !devices && !ItemTypesChanged(mb, ma, *b);
    (partial ? partial_mask_ : mask_) |= bits[slot];
  }
}

bool CrushChangeFilter::PoolWhole(std::int64_t pool_id) const {
  return all_ || std::binary_search(whole_pools_.begin(), whole_pools_.end(), pool_id);
}

bool SamePgMapping(const PgMapping& a, const PgMapping& b) {
  return a.raw == b.raw && a.up == b.up && a.acting == b.acting && a.raw_primary == b.raw_primary &&
         a.up_primary == b.up_primary && a.acting_primary == b.acting_primary;
}

std::string DescribePgMappingDifference(const PgId& pg, const PgMapping& incremental,
                                        const PgMapping& full) {
  auto list = [&](std::string_view what, const OsdList& i, const OsdList& f) {
    return absl::StrCat(FormatPgId(pg), ": ", std::string(what), " ", FormatOsdList(i.span()),
                        " (incremental) vs ", FormatOsdList(f.span()), " (full)");
  };
  if (!(incremental.raw == full.raw)) return list("raw", incremental.raw, full.raw);
  if (!(incremental.up == full.up)) return list("up", incremental.up, full.up);
  if (!(incremental.acting == full.acting)) return list("acting", incremental.acting, full.acting);
  return absl::StrCat(FormatPgId(pg), ": primaries ", incremental.raw_primary, "/",
                      incremental.up_primary, "/", incremental.acting_primary, " (incremental) vs ",
                      full.raw_primary, "/", full.up_primary, "/", full.acting_primary, " (full)");
}

bool VerifyIncrementalFromEnvironment() {
  const char* v = std::getenv("CRUSHKIT_VERIFY_INCREMENTAL");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

}  // namespace crushkit::osdmap
