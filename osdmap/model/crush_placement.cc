#include "osdmap/model/crush_placement.h"

#include <algorithm>

namespace crushkit::osdmap {

int FindCrushRule(const crush::MapModel& model, int ruleset, int type, int size,
                  crush::CephRelease release) {
  if (!crush::HasRulesets(release)) {
    const auto idx = static_cast<std::size_t>(ruleset);
    return ruleset >= 0 && idx < model.rule_exists.size() && model.rule_exists[idx] ? ruleset : -1;
  }
  // Pacific's find_rule() first tries rule id == ruleset when all rules are
  // "uniform" (ruleset == id) and otherwise scans crush_find_rule(); both
  // return the lowest matching rule id, so one scan reproduces them.
  const int n = model.max_rules();
  for (int i = 0; i < n; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    if (idx >= model.rule_exists.size() || !model.rule_exists[idx]) continue;
    const crush::Rule& r = model.rules[idx];
    if (r.ruleset == ruleset && static_cast<int>(r.type) == type && r.min_size <= size &&
        r.max_size >= size) {
      return i;
    }
  }
  return -1;
}

namespace {

// The weight of the item in slot `pos` of `b`, as the bucket stores it.
crush::Weight WeightAt(const crush::Bucket& b, std::size_t pos) {
  switch (b.alg) {
    case crush::BucketAlg::kUniform:
      return b.uniform_item_weight;
    case crush::BucketAlg::kTree: {
      const std::size_t node = ((pos + 1) << 1) - 1;
      return node < b.node_weights.size() ? b.node_weights[node] : 0;
    }
    default:
      return pos < b.item_weights.size() ? b.item_weights[pos] : 0;
  }
}

}  // namespace

std::optional<crush::Weight> CrushItemWeight(const crush::MapModel& model, crush::ItemId id) {
  for (const crush::Bucket& b : model.buckets) {
    if (b.alg == crush::BucketAlg::kNone) continue;
    if (b.id == id) return b.weight;  // a bucket's own slot before its parent's
    for (std::size_t pos = 0; pos < b.items.size(); ++pos) {
      if (b.items[pos] == id) return WeightAt(b, pos);
    }
  }
  return std::nullopt;
}

std::vector<std::optional<crush::Weight>> DeviceCrushWeights(const crush::MapModel& model) {
  std::vector<std::optional<crush::Weight>> out(
      static_cast<std::size_t>(std::max(model.max_devices, 0)));
  for (const crush::Bucket& b : model.buckets) {
    if (b.alg == crush::BucketAlg::kNone) continue;
    for (std::size_t pos = 0; pos < b.items.size(); ++pos) {
      if (b.items[pos] < 0) continue;
      const auto d = static_cast<std::size_t>(b.items[pos]);
      if (d >= out.size()) out.resize(d + 1);
      if (!out[d]) out[d] = WeightAt(b, pos);
    }
  }
  return out;
}

CrushPlacement::CrushPlacement(const crush::CrushMap& map, crush::CephRelease release)
    : map_(map), release_(release), ws_(map, kMaxPgOsds) {}

int CrushPlacement::FindRule(int ruleset, int type, int size) const {
  return FindCrushRule(map_.model(), ruleset, type, size, release_);
}

bool CrushPlacement::RecordedChoicesHold(const crush::ChoiceDelta& delta,
                                         std::span<const crush::RecordedChoice> choices,
                                         std::uint32_t x, std::int64_t args_key,
                                         std::int64_t pool) {
  ResolveArgs(pool);
  return crush::RecordedChoicesHold(map_, delta, choices, x, args_key, ws_, cached_args_);
}

void CrushPlacement::ResolveArgs(std::int64_t pool) {
  if (!have_cache_ || cached_pool_ != pool) {
    cached_args_ = map_.ResolveChooseArgs(pool);
    cached_pool_ = pool;
    have_cache_ = true;
  }
}

int CrushPlacement::DoRule(int rule, std::uint32_t x, std::span<const crush::Weight> weights,
                           std::int64_t pool, std::span<std::int32_t> out) {
  ResolveArgs(pool);
  const int n = crush::DoRule(map_, rule, x, weights, ws_, out, cached_args_);
  if (ws_.diverged_from_ceph()) [[unlikely]] {
    ++diverged_;
  }
  return n;
}

}  // namespace crushkit::osdmap
