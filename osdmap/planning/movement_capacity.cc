// PG sizes, expected shares, capacity, fill and risks of the movement report.
#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "osdmap/model/crush_placement.h"
#include "osdmap/model/rule_weights.h"
#include "osdmap/planning/movement_internal.h"

namespace crushkit::osdmap::internal {
namespace {

// A CRUSH weight of 1.0 stands for 1 TiB when `ceph osd df` is not known
// (ceph-volume's convention).
constexpr double kBytesPerWeightUnit = 1099511627776.0;

double Ratio(std::uint64_t used, std::uint64_t capacity) {
  return capacity == 0 ? 0.0 : static_cast<double>(used) / static_cast<double>(capacity);
}

}  // namespace

PgSizer::PgSizer(const ClusterState& state) : state_(state) {
  if (!state.pg_stats.empty()) {
    source_ = BytesSource::kPgStats;
  } else if (!state.pool_usage.empty()) {
    source_ = BytesSource::kPoolTotals;
  } else {
    source_ = BytesSource::kUnknown;
  }
}

PgSize PgSizer::Size(const Pool& pool, std::uint32_t ps) const {
  switch (source_) {
    case BytesSource::kPgStats: {
      auto it = state_.pg_stats.find(PgId{pool.id, ps});
      if (it == state_.pg_stats.end()) return {};
      return {it->second.num_objects, it->second.num_bytes + it->second.num_omap_bytes};
    }
    case BytesSource::kPoolTotals: {
      auto it = state_.pool_usage.find(pool.id);
      if (it == state_.pool_usage.end() || pool.pg_num == 0) return {};
      return {it->second.objects / pool.pg_num, it->second.stored_bytes / pool.pg_num};
    }
    case BytesSource::kUnknown:
      break;
  }
  return {};
}

PgSizer::Cursor::Cursor(const PgSizer& sizer, const Pool& pool) : sizer_(sizer), pool_(pool) {}

PgSize PgSizer::Cursor::Size(std::uint32_t ps) {
  if (sizer_.source_ != BytesSource::kPgStats) return sizer_.Size(pool_, ps);
  const std::map<PgId, PgStat>& stats = sizer_.state_.pg_stats;
  const PgId id{pool_.id, ps};
  if (!positioned_ || ps != expect_) next_ = stats.lower_bound(id);
  positioned_ = true;
  expect_ = ps + 1;
  // next_ is the first entry at or after `id`; after this PG, the first at
  // or after the next one.
  if (next_ == stats.end() || next_->first != id) return {};
  const PgStat& st = (next_++)->second;
  return {st.num_objects, st.num_bytes + st.num_omap_bytes};
}

std::map<std::int32_t, double> ExpectedShares(const ClusterState& state, const Pool& pool) {
  std::map<std::int32_t, double> shares;
  const crush::MapModel& map = state.crush;
  const int rule = FindCrushRule(map, pool.crush_rule, static_cast<int>(pool.type),
                                 static_cast<int>(pool.size), state.ceph_release);
  if (rule < 0) return shares;
  absl::StatusOr<std::map<std::int32_t, float>> weights = RuleWeightOsdMap(map, rule);
  if (!weights.ok()) return shares;
  for (const auto& [osd, w] : *weights) {
    if (std::isfinite(w) && w > 0) shares[osd] = w;
  }
  double total = 0;
  for (auto& [osd, w] : shares) {
    w = state.Exists(osd) ? w * state.osds[static_cast<std::size_t>(osd)].weight / 65536.0 : 0;
    total += w;
  }
  for (auto& [osd, w] : shares) w = total > 0 ? w / total : 0;
  return shares;
}

LevelShares SharesByLevel(const crush::MapModel& map,
                          const std::map<std::int32_t, double>& shares) {
  const Ancestry anc(map);
  LevelShares out;
  const auto osd_type = map.type_names.find(0);
  const std::string osd_level = osd_type == map.type_names.end() ? "osd" : osd_type->second;
  // Each OSD's ancestors, nearest first, one per level (bucket type), as
  // (type, bucket) ids: the levels an OSD lacks count it under "(none)",
  // so an OSD leaving every rack still counts at the rack level.
  std::vector<std::vector<std::pair<int, std::int32_t>>> chains;
  chains.reserve(shares.size());
  std::map<int, const std::string*> levels;  // type id -> its name
  std::map<std::string, double>& osds = out[osd_level];
  for (const auto& [osd, share] : shares) {
    std::vector<std::pair<int, std::int32_t>>& chain = chains.emplace_back();
    std::int32_t cur = osd;
    for (int guard = 0; guard < 1000; ++guard) {  // a cycle cannot hang the report
      auto p = anc.parents().find(cur);
      if (p == anc.parents().end()) break;
      cur = p->second;
      const crush::Bucket* b = map.FindBucket(cur);
      auto type = b == nullptr ? map.type_names.end() : map.type_names.find(b->type);
      if (type == map.type_names.end() || !map.item_names.contains(cur)) continue;
      const auto same = [&](const auto& e) { return e.first == b->type; };
      if (std::none_of(chain.begin(), chain.end(), same)) chain.emplace_back(b->type, cur);
      levels.emplace(b->type, &type->second);
    }
    osds[absl::StrCat("osd.", osd)] += share;
  }
  // Per level, each bucket's sum over its OSDs in id order (the order the
  // shares are added in does not change with the way they are indexed).
  for (const auto& [type, name] : levels) {
    std::map<std::int32_t, double> sums;
    double none = 0;
    bool any_none = false;
    std::size_t i = 0;
    for (const auto& [osd, share] : shares) {
      const std::vector<std::pair<int, std::int32_t>>& chain = chains[i++];
      auto it =
          std::find_if(chain.begin(), chain.end(), [&](const auto& e) { return e.first == type; });
      if (it == chain.end()) {
        none += share;
        any_none = true;
      } else {
        sums[it->second] += share;
      }
    }
    std::map<std::string, double>& level = out[*name];
    for (const auto& [id, sum] : sums) level[map.item_names.at(id)] += sum;
    if (any_none) level["(none)"] += none;
  }
  return out;
}

double MinimumShareMoved(const LevelShares& before, const LevelShares& after, std::string* level) {
  // Float rule weights (rule_weights.h) make equal shares differ in the
  // seventh digit; growth below this is not a change.
  constexpr double kNoise = 1e-6;
  double best = 0;
  level->clear();
  for (const auto& [name, buckets] : after) {
    const auto was_level = before.find(name);
    double grown = 0;
    for (const auto& [bucket, share] : buckets) {
      double was = 0;
      if (was_level != before.end()) {
        auto it = was_level->second.find(bucket);
        if (it != was_level->second.end()) was = it->second;
      }
      grown += std::max(0.0, share - was);
    }
    if (grown > kNoise && grown > best) {
      best = grown;
      *level = name;
    }
  }
  return best;
}

namespace {

// Amplifications above this are not a measure of anything: the floor is a
// sliver of what moves (a weight nudge beside a reshuffle).
constexpr double kMaxMeaningfulAmplification = 1000;

// The pool's pg_upmap and pg_upmap_items entries, comparable.
std::pair<std::map<PgId, std::vector<std::int32_t>>,
          std::map<PgId, std::vector<std::pair<std::int32_t, std::int32_t>>>>
UpmapsOf(const ClusterState& s, std::int64_t pool) {
  std::pair<std::map<PgId, std::vector<std::int32_t>>,
            std::map<PgId, std::vector<std::pair<std::int32_t, std::int32_t>>>>
      out;
  for (const auto& [pg, osds] : s.pg_upmap) {
    if (pg.pool == pool) out.first.emplace(pg, osds);
  }
  for (const auto& [pg, items] : s.pg_upmap_items) {
    if (pg.pool == pool) out.second.emplace(pg, items);
  }
  return out;
}

// Why nothing in the expected shares explains what moves.
std::string NoFloorReason(const ClusterState& before, const ClusterState& after,
                          const Pool& pool_before, const Pool& pool_after) {
  std::vector<std::string> causes;
  if (pool_before.pg_num != pool_after.pg_num || pool_before.pgp_num != pool_after.pgp_num)
    causes.push_back("pg_num/pgp_num changed");
  if (pool_before.crush_rule != pool_after.crush_rule) causes.push_back("the pool's rule changed");
  if (before.crush.tunables != after.crush.tunables) causes.push_back("the tunables changed");
  if (UpmapsOf(before, pool_after.id) != UpmapsOf(after, pool_after.id))
    causes.push_back("its upmaps changed");
  std::string reason =
      "n/a: no OSD's or bucket's expected share changes (CRUSH weights x reweights at every "
      "level), so the floor is 0";
  if (causes.empty()) {
    absl::StrAppend(&reason,
                    "; what moves is CRUSH choosing differently (rules, bucket "
                    "algorithms or ids, upmaps), not data that has to move");
  } else {
    absl::StrAppend(&reason, "; what moves comes from elsewhere: ", absl::StrJoin(causes, ", "));
  }
  return reason;
}

}  // namespace

PoolFloor ComputePoolFloor(const ClusterState& before, const ClusterState& after,
                           const Pool& pool_before, const Pool& pool_after) {
  const auto sb = ExpectedShares(before, pool_before);
  const auto sa = ExpectedShares(after, pool_after);
  PoolFloor f;
  f.share =
      MinimumShareMoved(SharesByLevel(before.crush, sb), SharesByLevel(after.crush, sa), &f.level);
  return f;
}

void SetMinimum(const ClusterState& before, const ClusterState& after, const Pool& pool_before,
                const Pool& pool_after, const PoolFloor& floor, bool bytes_known,
                MovementCounters* c) {
  // The same data before and after: what the pool stores, in the unit moved.
  const double amount =
      bytes_known ? static_cast<double>(c->bytes_total) : static_cast<double>(c->shards_total);
  c->minimum_to_move = floor.share * amount;
  c->minimum_level = floor.level;
  // Copies a size increase adds are written somewhere whatever the shares.
  if (pool_after.size > pool_before.size && pool_after.size > 0) {
    const double added = amount * (pool_after.size - pool_before.size) / pool_after.size;
    if (added > c->minimum_to_move) {
      c->minimum_to_move = added;
      c->minimum_level = "size";
    }
  }
  const double moved =
      bytes_known ? static_cast<double>(c->bytes_to_move) : static_cast<double>(c->shards_moved);
  c->amplification = 0;
  c->amplification_note.clear();
  if (moved <= 0) return;
  if (c->minimum_to_move <= 0.5) {
    c->minimum_to_move = 0;
    c->minimum_level.clear();
    c->amplification_note = NoFloorReason(before, after, pool_before, pool_after);
  } else if (moved / c->minimum_to_move > kMaxMeaningfulAmplification) {
    c->amplification_note = absl::StrCat(
        "n/a: the floor (", c->minimum_level,
        " level) is under 1/1000 of what moves; the movement is CRUSH choosing differently, not "
        "the weight change");
  } else {
    c->amplification = moved / c->minimum_to_move;
  }
}

void SetTotalAmplification(const std::vector<MovementCounters>& pools, bool bytes_known,
                           MovementCounters* totals) {
  double moved = 0;
  double floor = 0;
  double largest = 0;
  std::string note;
  totals->minimum_level.clear();
  for (const MovementCounters& c : pools) {
    if (c.minimum_to_move > largest) {
      largest = c.minimum_to_move;
      totals->minimum_level = c.minimum_level;
    }
    if (c.amplification > 0) {
      moved += bytes_known ? static_cast<double>(c.bytes_to_move) : c.shards_moved;
      floor += c.minimum_to_move;
    } else if (note.empty()) {
      note = c.amplification_note;
    }
  }
  totals->amplification = floor > 0 ? moved / floor : 0;
  totals->amplification_note.clear();
  if (floor > 0) {
    // Pools without a meaningful floor are left out of the ratio.
    if (!note.empty()) totals->amplification_note = "over the pools with a floor (others are n/a)";
  } else {
    totals->amplification_note = note;
  }
}

void FillCapacity(const ClusterState& before, const ClusterState& after, bool bytes_known,
                  std::vector<OsdMovement>* osds) {
  const Ancestry anc_after(after.crush), anc_before(before.crush);
  const std::optional<int> host_after = anc_after.TypeId("host");
  const std::optional<int> host_before = anc_before.TypeId("host");
  const std::vector<std::optional<crush::Weight>> weights_after = DeviceCrushWeights(after.crush);
  const std::vector<std::optional<crush::Weight>> weights_before = DeviceCrushWeights(before.crush);
  for (OsdMovement& m : *osds) {
    const std::string* host = host_after ? anc_after.Find(m.osd, *host_after) : nullptr;
    if (host == nullptr && host_before) host = anc_before.Find(m.osd, *host_before);
    if (host != nullptr) m.host = *host;
    const std::string* domain = host_after ? anc_after.FindAbove(m.osd, *host_after) : nullptr;
    if (domain == nullptr && host_before) domain = anc_before.FindAbove(m.osd, *host_before);
    if (domain != nullptr) m.domain = *domain;
    const crush::MapModel& map = after.crush.class_map.contains(m.osd) ? after.crush : before.crush;
    if (auto c = map.class_map.find(m.osd); c != map.class_map.end()) {
      if (auto n = map.class_names.find(c->second); n != map.class_names.end())
        m.device_class = n->second;
    }
    const OsdUsage* usage = nullptr;
    if (auto it = after.osd_usage.find(m.osd); it != after.osd_usage.end()) {
      usage = &it->second;
    } else if (auto was = before.osd_usage.find(m.osd); was != before.osd_usage.end()) {
      usage = &was->second;
    }
    if (usage != nullptr && usage->kb > 0) {
      m.capacity_from_osd_df = true;
      m.capacity_bytes = usage->kb * 1024;
      m.used_before = usage->kb_used * 1024;
    } else {
      const auto d = static_cast<std::size_t>(m.osd);
      std::optional<crush::Weight> w = d < weights_after.size() ? weights_after[d] : std::nullopt;
      if (!w && d < weights_before.size()) w = weights_before[d];
      m.capacity_bytes = static_cast<std::uint64_t>(w.value_or(0) / 65536.0 * kBytesPerWeightUnit);
      if (!bytes_known) m.used_before = 0;
    }
    const std::uint64_t in_total = m.used_before + m.bytes_in;
    m.used_after = in_total > m.bytes_out ? in_total - m.bytes_out : 0;
    m.fill_before = Ratio(m.used_before, m.capacity_bytes);
    m.fill_after = Ratio(m.used_after, m.capacity_bytes);
  }
}

MovementRisks AssessRisks(const ClusterState& after, const Movement& m) {
  MovementRisks r;
  r.nearfull_ratio = after.nearfull_ratio;
  r.backfillfull_ratio = after.backfillfull_ratio;
  r.full_ratio = after.full_ratio;
  if (r.nearfull_ratio <= 0 || r.backfillfull_ratio <= 0 || r.full_ratio <= 0) {
    // Maps made by osdmaptool carry 0; a monitor always sets them.
    const ClusterState defaults;
    r.nearfull_ratio = defaults.nearfull_ratio;
    r.backfillfull_ratio = defaults.backfillfull_ratio;
    r.full_ratio = defaults.full_ratio;
    r.notes.push_back("the osdmap sets no full ratios: Ceph's defaults 0.85/0.90/0.95 used");
  }
  r.pgs_degraded_after = m.totals.pgs_degraded_after;
  r.pgs_inactive_after = m.totals.pgs_inactive_after;
  const bool fill_known = m.bytes_source != BytesSource::kUnknown;
  for (const OsdMovement& o : m.osds) {
    if (!fill_known && !o.capacity_from_osd_df) continue;
    const char* level = o.fill_after >= r.full_ratio           ? "full"
                        : o.fill_after >= r.backfillfull_ratio ? "backfillfull"
                        : o.fill_after >= r.nearfull_ratio     ? "nearfull"
                                                               : nullptr;
    if (level != nullptr) r.osds.push_back({o.osd, o.fill_before, o.fill_after, level});
  }
  std::sort(r.osds.begin(), r.osds.end(), [](const OsdRisk& a, const OsdRisk& b) {
    return a.fill_after != b.fill_after ? a.fill_after > b.fill_after : a.osd < b.osd;
  });
  if (!fill_known) {
    r.notes.push_back(
        "bytes are unknown: import `ceph pg dump -f json` (--pg-stats) or `ceph df -f json` (--df) "
        "for byte figures");
  }
  const MovementCounters& t = m.totals;
  if (r.pgs_inactive_after > 0) {
    r.notes.push_back(absl::StrCat(
        r.pgs_inactive_after, " PGs would have fewer OSDs than min_size and stop serving I/O (",
        t.pgs_inactive_before, " before the change)"));
  }
  if (r.pgs_degraded_after > 0) {
    r.notes.push_back(absl::StrCat(r.pgs_degraded_after,
                                   " PGs would have fewer OSDs than the pool size (",
                                   t.pgs_degraded_before, " before the change)"));
  }
  return r;
}

}  // namespace crushkit::osdmap::internal
