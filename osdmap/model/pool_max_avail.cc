#include "osdmap/model/pool_max_avail.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

#include "osdmap/model/crush_placement.h"
#include "osdmap/model/rule_weights.h"

namespace crushkit::osdmap {
namespace {

// The x86-64 conversion Ceph's `(int64_t)(avail / w)` compiles to
// (cvttsd2si): a NaN (a take whose subtree weighs nothing) or a value out of
// range becomes INT64_MIN, which then wins the minimum and reads as 0.
std::int64_t TruncateLikeX86(double v) {
  if (!(v > -9.223372036854775808e18 && v < 9.223372036854775808e18)) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

absl::StatusOr<MaxAvailModel> MaxAvailModel::Create(const ClusterState& state) {
  MaxAvailModel m;
  if (state.full_ratio > 0) m.full_ratio_ = state.full_ratio;
  m.in_.resize(state.osds.size());
  for (int o = 0; o < state.max_osd(); ++o) m.in_[static_cast<std::size_t>(o)] = state.IsIn(o);
  for (const auto& [id, pool] : state.pools) {
    PoolEntry& e = m.pools_.emplace_back();
    e.id = id;
    e.name = pool.name;
    e.raw_used_rate = pool.RawUsedRate();
    // Pacific's PGMap looks the rule up with find_rule(ruleset, type, size),
    // later releases take crush_rule as the rule id: the mapping's choice.
    e.rule = FindCrushRule(state.crush, pool.crush_rule, static_cast<int>(pool.type),
                           static_cast<int>(pool.size), state.ceph_release);
    if (e.rule < 0 || m.rule_weights_.contains(e.rule)) continue;
    absl::StatusOr<std::map<std::int32_t, float>> wm = RuleWeightOsdMap(state.crush, e.rule);
    if (!wm.ok()) {
      if (wm.status().code() == absl::StatusCode::kNotFound) continue;
      return absl::Status(wm.status().code(), absl::StrCat("pool ", id, " '", pool.name, "' rule ",
                                                           e.rule, ": ", wm.status().message()));
    }
    m.rule_weights_[e.rule].assign(wm->begin(), wm->end());
  }
  return m;
}

std::vector<PoolMaxAvail> MaxAvailModel::Compute(
    const std::map<std::int32_t, OsdUsage>& usage) const {
  // PGMap::get_rule_avail per rule, once (get_rules_avail caches by rule).
  struct RuleAvail {
    std::int64_t raw = -1;
    std::int32_t limiting = crush::kItemNone;
  };

  std::map<int, RuleAvail> by_rule;
  // fratio is float; 1.0 - fratio is evaluated in double, as in Ceph.
  const float fratio = full_ratio_;
  for (const auto& [rule, weights] : rule_weights_) {
    RuleAvail r;
    if (weights.empty()) r.raw = 0;  // "if (wm.empty()) return 0"
    for (const auto& [osd, w] : weights) {
      const auto it = usage.find(osd);
      if (it == usage.end()) continue;  // no stats yet: skipped
      const auto idx = static_cast<std::size_t>(osd);
      const bool in = osd >= 0 && idx < in_.size() && in_[idx];
      // An out OSD's stats are zeroed by the mgr (PGMapUpdater's
      // stat_osd_out), so Ceph sees total 0 and skips it.
      if (!in || it->second.kb == 0 || w == 0) continue;
      const OsdUsage& u = it->second;
      const std::uint64_t kb_avail = u.kb_avail ? *u.kb_avail : u.kb - std::min(u.kb, u.kb_used);
      const double unusable = static_cast<double>(u.kb) * (1.0 - fratio);
      double avail = std::max(0.0, static_cast<double>(kb_avail) - unusable);
      avail *= 1024.0;
      const std::int64_t proj = TruncateLikeX86(avail / static_cast<double>(w));
      if (r.raw < 0 || proj < r.raw) {
        r.raw = proj;
        r.limiting = osd;
      }
    }
    by_rule[rule] = r;
  }
  std::vector<PoolMaxAvail> out;
  out.reserve(pools_.size());
  for (const PoolEntry& e : pools_) {
    PoolMaxAvail p;
    p.pool_id = e.id;
    p.pool_name = e.name;
    p.rule = e.rule;
    p.raw_used_rate = e.raw_used_rate;
    if (auto it = by_rule.find(e.rule); it != by_rule.end()) {
      // dump_pool_stats_full: "if (avail < 0) avail = 0".
      p.raw_avail_bytes = it->second.raw < 0 ? 0 : static_cast<std::uint64_t>(it->second.raw);
      p.limiting_osd = it->second.limiting;
    }
    // dump_object_stat_sum: `avail / raw_used_rate` divides a uint64_t by a
    // float, so in float; the float is truncated by dump_unsigned. Do not
    // widen to double: max_avail would differ from `ceph df` in the low bits.
    if (e.raw_used_rate != 0) {
      const float res = static_cast<float>(p.raw_avail_bytes) / e.raw_used_rate;
      p.max_avail_bytes = static_cast<std::uint64_t>(res);
    }
    out.push_back(std::move(p));
  }
  return out;
}

absl::StatusOr<std::vector<PoolMaxAvail>> ComputePoolMaxAvail(const ClusterState& state) {
  absl::StatusOr<MaxAvailModel> model = MaxAvailModel::Create(state);
  if (!model.ok()) return model.status();
  return model->Compute(state.osd_usage);
}

std::map<std::int32_t, OsdUsage> ShiftUsage(
    const std::map<std::int32_t, OsdUsage>& usage,
    const std::map<std::int32_t, std::int64_t>& delta_bytes) {
  std::map<std::int32_t, OsdUsage> out = usage;
  for (const auto& [osd, delta] : delta_bytes) {
    auto it = out.find(osd);
    if (it == out.end()) continue;
    OsdUsage& u = it->second;
    const auto kb = static_cast<std::int64_t>(u.kb);
    const std::int64_t dkb =
        static_cast<std::int64_t>(std::llround(static_cast<double>(delta) / 1024.0));
    const std::int64_t used = static_cast<std::int64_t>(u.kb_used);
    const std::int64_t avail =
        u.kb_avail ? static_cast<std::int64_t>(*u.kb_avail) : kb - std::min(kb, used);
    u.kb_used = static_cast<std::uint64_t>(std::clamp<std::int64_t>(used + dkb, 0, kb));
    u.kb_avail = static_cast<std::uint64_t>(std::clamp<std::int64_t>(avail - dkb, 0, kb));
  }
  return out;
}

}  // namespace crushkit::osdmap
