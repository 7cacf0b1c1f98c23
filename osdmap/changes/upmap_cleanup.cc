#include "osdmap/changes/upmap_cleanup.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"

#include "crush/map.h"
#include "crush/status_macros.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/rule_weights.h"
#include "osdmap/model/upmap_verify.h"

namespace crushkit::osdmap {
namespace {

std::optional<UpmapCancelReason> FromVerdict(UpmapVerdict v) {
  switch (v) {
    case UpmapVerdict::kOk:
      return std::nullopt;
    case UpmapVerdict::kRuleMissing:
      return UpmapCancelReason::kRuleMissing;
    case UpmapVerdict::kSameFailureDomain:
      return UpmapCancelReason::kSameFailureDomain;
    case UpmapVerdict::kTooManyBuckets:
      return UpmapCancelReason::kTooManyBuckets;
    case UpmapVerdict::kOutsideTakeRoot:
      return UpmapCancelReason::kOutsideTakeRoot;
  }
  return std::nullopt;
}

// One PG's share of OSDMap::check_pg_upmaps(). Holds the per-call caches.
class Checker {
 public:
  Checker(const ClusterState& state, PgMapper& mapper)
      : state_(state), mapper_(mapper), verifier_(state.crush) {}

  // Records the PG's outcome in `out`.
  absl::Status Check(const PgId& pg, UpmapCleanup* out) {
    const Pool* pool = state_.FindPool(pg.pool);
    // ps >= pg_num_pending (a merge source or gone), then is_pending_merge.
    if (pool == nullptr || pg.ps >= pool->PgNumPending() || pool->IsPendingMerge(pg.ps)) {
      out->cancelled.emplace(pg, UpmapCancelReason::kPgGone);
      return absl::OkStatus();
    }
    OsdList raw;
    OsdList up;
    mapper_.PgToRawUpmap(pg, &raw, &up);
    // get_pg_pool_crush_rule(): the pool's crush_rule as a rule id.
    const int rule = pool->crush_rule;
    const int size = static_cast<int>(pool->size);
    if (auto r = FromVerdict(verifier_.Verify(rule, size, up.span()))) {
      out->cancelled.emplace(pg, *r);
      return absl::OkStatus();
    }
    CRUSH_ASSIGN_OR_RETURN(const auto* weights, RuleWeights(rule));
    for (std::int32_t osd : up.span()) {
      auto it = weights->find(osd);
      if (it == weights->end()) {
        out->cancelled.emplace(pg, UpmapCancelReason::kOsdNotInRule);
        return absl::OkStatus();
      }
      // get_weightf(osd) * share, in float; a NaN share (a take whose
      // subtree weighs 0) is never 0, so such OSDs pass.
      if (ReweightF(osd) * it->second == 0.0f) {
        out->cancelled.emplace(pg, UpmapCancelReason::kOsdZeroWeight);
        return absl::OkStatus();
      }
    }
    if (auto i = state_.pg_upmap.find(pg); i != state_.pg_upmap.end()) {
      if (std::ranges::equal(i->second, raw.span())) {
        out->cancelled.emplace(pg, UpmapCancelReason::kRedundantPgUpmap);
        return absl::OkStatus();
      }
      if (static_cast<long long>(i->second.size()) != size) {
        out->cancelled.emplace(pg, UpmapCancelReason::kPgUpmapSizeMismatch);
        return absl::OkStatus();
      }
    }
    if (auto j = state_.pg_upmap_items.find(pg); j != state_.pg_upmap_items.end()) {
      UpmapItems kept;
      for (const auto& [from, to] : j->second) {
        if (std::ranges::find(raw.span(), from) == raw.span().end()) continue;  // stale source
        if (to != crush::kItemNone && to >= 0 && to < state_.max_osd() &&
            state_.osds[static_cast<std::size_t>(to)].weight == 0) {
          continue;  // target marked out
        }
        kept.emplace_back(from, to);
      }
      if (kept.empty()) {
        out->cancelled.emplace(pg, UpmapCancelReason::kNoOpPgUpmapItems);
      } else if (kept != j->second) {
        out->trimmed_items.emplace(pg, std::move(kept));
      }
    }
    // Tentacle: a primary outside the raw CRUSH set, or already its first
    // OSD, goes (check_pg_upmaps' to_cancel_upmap_primary_only).
    if (!primaries_) return absl::OkStatus();
    if (auto k = state_.pg_upmap_primaries.find(pg); k != state_.pg_upmap_primaries.end()) {
      const auto r = raw.span();
      const bool valid = std::ranges::find(r, k->second) != r.end() && k->second != r.front();
      if (!valid) primaries_dropped_.insert(pg);
    }
    return absl::OkStatus();
  }

  // Whether pg_upmap_primaries are cleaned (Tentacle and later).
  void set_primaries(bool on) { primaries_ = on; }

  // Primary-only cancellations found so far.
  const std::set<PgId>& primaries_dropped() const { return primaries_dropped_; }

 private:
  // CrushWrapper::get_rule_weight_osd_map(), once per rule, as the state's
  // release computes it: Tentacle's normalises once over all take steps, so
  // a device a later take reaches through a zero-weight item gets share 0
  // and its upmaps (and pg_upmap_primaries) go.
  absl::StatusOr<const std::map<std::int32_t, float>*> RuleWeights(int rule) {
    auto it = rule_weights_.find(rule);
    if (it == rule_weights_.end()) {
      auto w = RuleWeightOsdMap(state_.crush, rule, state_.ceph_release);
      if (!w.ok()) return w.status();
      it = rule_weights_.emplace(rule, std::move(*w)).first;
    }
    return &it->second;
  }

  // OSDMap::get_weightf(); ids past max_osd (Ceph would read out of bounds)
  // count as out.
  float ReweightF(std::int32_t osd) const {
    if (osd < 0 || osd >= state_.max_osd()) return 0.0f;
    return static_cast<float>(state_.osds[static_cast<std::size_t>(osd)].weight) /
           static_cast<float>(0x10000);
  }

  const ClusterState& state_;
  PgMapper& mapper_;
  UpmapVerifier verifier_;
  std::map<int, std::map<std::int32_t, float>> rule_weights_;
  bool primaries_ = false;
  std::set<PgId> primaries_dropped_;
};

// OSDMap::rm_all_upmap_prims(pool): the pool's PGs whose up set has a
// primary and that have a pg_upmap_primaries entry.
void DropPoolPrimaries(const ClusterState& state, const Pool& pool, PgMapper& mapper,
                       std::set<PgId>* dropped) {
  PgMapping m;
  for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
    const PgId pg{pool.id, ps};
    if (!state.pg_upmap_primaries.count(pg)) continue;
    mapper.MapPg(pool, ps, &m);
    if (!m.up.empty() && m.up_primary != crush::kItemNone) dropped->insert(pg);
  }
}

}  // namespace

std::string_view UpmapCancelReasonName(UpmapCancelReason reason) {
  switch (reason) {
    case UpmapCancelReason::kPgGone:
      return "pg gone";
    case UpmapCancelReason::kRuleMissing:
      return "rule missing";
    case UpmapCancelReason::kSameFailureDomain:
      return "same failure domain";
    case UpmapCancelReason::kTooManyBuckets:
      return "too many buckets";
    case UpmapCancelReason::kOutsideTakeRoot:
      return "outside take root";
    case UpmapCancelReason::kOsdNotInRule:
      return "osd not in rule";
    case UpmapCancelReason::kOsdZeroWeight:
      return "osd zero weight";
    case UpmapCancelReason::kRedundantPgUpmap:
      return "redundant pg_upmap";
    case UpmapCancelReason::kPgUpmapSizeMismatch:
      return "pg_upmap size mismatch";
    case UpmapCancelReason::kNoOpPgUpmapItems:
      return "no-op pg_upmap_items";
  }
  return "unknown";
}

absl::StatusOr<UpmapCleanup> CheckPgUpmaps(const ClusterState& state, PgMapper& mapper) {
  // get_upmap_pgs() lists pg_upmap keys, then pg_upmap_items keys; a PG in
  // both is checked twice with the same outcome, so one pass over the union
  // in pg order decides the same cancellations and rewrites.
  // Tentacle adds pg_upmap_primaries keys to the list.
  const bool primaries = state.ceph_release >= crush::CephRelease::kTentacle;
  std::set<PgId> pgs;
  for (const auto& [pg, osds] : state.pg_upmap) pgs.insert(pg);
  for (const auto& [pg, items] : state.pg_upmap_items) pgs.insert(pg);
  if (primaries) {
    for (const auto& [pg, osd] : state.pg_upmap_primaries) pgs.insert(pg);
  }
  UpmapCleanup out;
  const std::uint64_t diverged_before = mapper.diverged_from_ceph();
  Checker checker(state, mapper);
  checker.set_primaries(primaries);
  for (const PgId& pg : pgs) {
    CRUSH_RETURN_IF_ERROR(checker.Check(pg, &out));
  }
  std::set<PgId> primaries_dropped = checker.primaries_dropped();
  std::set<std::int64_t> affected_pools;
  for (const auto& [pg, reason] : out.cancelled) {
    if (state.pg_upmap.count(pg)) out.removed_pg_upmap.push_back(pg);
    if (state.pg_upmap_items.count(pg)) out.removed_pg_upmap_items.push_back(pg);
    if (primaries && state.pg_upmap_primaries.count(pg)) primaries_dropped.insert(pg);
    if (reason == UpmapCancelReason::kPgGone) affected_pools.insert(pg.pool);
  }
  if (primaries) {
    // clean_pg_upmaps: every primary entry of a pool with a PG gone or
    // merging ("since pg_num changed"). A deleted pool has none to map.
    for (std::int64_t id : affected_pools) {
      if (const Pool* pool = state.FindPool(id)) {
        DropPoolPrimaries(state, *pool, mapper, &primaries_dropped);
      }
    }
  }
  out.removed_pg_upmap_primaries.assign(primaries_dropped.begin(), primaries_dropped.end());
  out.diverged_from_ceph = mapper.diverged_from_ceph() - diverged_before;
  return out;
}

namespace {

absl::StatusOr<UpmapCleanup> CheckPgUpmapsOn(const ClusterState& state,
                                             const crush::CrushMap& map) {
  CrushPlacement placement(map, state.ceph_release);
  PgMapper mapper(state, placement);
  return CheckPgUpmaps(state, mapper);
}

}  // namespace

absl::StatusOr<UpmapCleanup> CheckPgUpmaps(const ClusterState& state) {
  auto map = crush::CrushMap::Build(state.crush);
  if (!map.ok()) {
    return absl::Status(map.status().code(), absl::StrCat("crush map: ", map.status().message()));
  }
  return CheckPgUpmapsOn(state, *map);
}

void ApplyUpmapCleanup(const UpmapCleanup& cleanup, ClusterState& state) {
  for (const auto& [pg, reason] : cleanup.cancelled) {
    state.pg_upmap.erase(pg);
    state.pg_upmap_items.erase(pg);
  }
  for (const auto& [pg, items] : cleanup.trimmed_items) state.pg_upmap_items[pg] = items;
  for (const PgId& pg : cleanup.removed_pg_upmap_primaries) state.pg_upmap_primaries.erase(pg);
}

absl::StatusOr<UpmapCleanup> CleanPgUpmaps(ClusterState& state) {
  CRUSH_ASSIGN_OR_RETURN(UpmapCleanup cleanup, CheckPgUpmaps(state));
  ApplyUpmapCleanup(cleanup, state);
  return cleanup;
}

absl::StatusOr<UpmapCleanup> CleanPgUpmaps(ClusterState& state, const crush::CrushMap& map) {
  CRUSH_ASSIGN_OR_RETURN(UpmapCleanup cleanup, CheckPgUpmapsOn(state, map));
  ApplyUpmapCleanup(cleanup, state);
  return cleanup;
}

std::string FormatPgUpmapItemsCommand(const PgId& pg, const UpmapItems& items) {
  std::string out = absl::StrCat("ceph osd pg-upmap-items ", FormatPgId(pg));
  for (const auto& [from, to] : items) absl::StrAppend(&out, " ", from, " ", to);
  return out;
}

std::string FormatPgUpmapCommand(const PgId& pg, const std::vector<std::int32_t>& osds) {
  std::string out = absl::StrCat("ceph osd pg-upmap ", FormatPgId(pg));
  for (std::int32_t osd : osds) absl::StrAppend(&out, " ", osd);
  return out;
}

std::string FormatRmPgUpmapCommand(const PgId& pg) {
  return absl::StrCat("ceph osd rm-pg-upmap ", FormatPgId(pg));
}

std::string FormatRmPgUpmapItemsCommand(const PgId& pg) {
  return absl::StrCat("ceph osd rm-pg-upmap-items ", FormatPgId(pg));
}

std::string FormatUpmapCleanupCommands(const UpmapCleanup& cleanup) {
  std::string out;
  for (const PgId& pg : cleanup.removed_pg_upmap) {
    absl::StrAppend(&out, FormatRmPgUpmapCommand(pg), "\n");
  }
  for (const PgId& pg : cleanup.removed_pg_upmap_items) {
    absl::StrAppend(&out, FormatRmPgUpmapItemsCommand(pg), "\n");
  }
  for (const auto& [pg, items] : cleanup.trimmed_items) {
    absl::StrAppend(&out, FormatPgUpmapItemsCommand(pg, items), "\n");
  }
  for (const PgId& pg : cleanup.removed_pg_upmap_primaries) {
    absl::StrAppend(&out, "ceph osd rm-pg-upmap-primary ", FormatPgId(pg), "\n");
  }
  return out;
}

}  // namespace crushkit::osdmap
