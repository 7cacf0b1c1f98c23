#include "osdmap/model/pg_mapping.h"

#include <cstdio>

#include "crush/hash.h"
#include "osdmap/model/object_hash.h"

namespace crushkit::osdmap {

std::string FormatOsdList(std::span<const std::int32_t> osds) {
  std::string s = "[";
  char buf[16];
  for (std::size_t i = 0; i < osds.size(); ++i) {
    if (i) s += ',';
    std::snprintf(buf, sizeof(buf), "%d", osds[i]);
    s += buf;
  }
  s += ']';
  return s;
}

PgMapper::PgMapper(const ClusterState& state, RawPlacement& placement, StateUse use)
    : state_(state), placement_(placement), max_osd_(state.max_osd()) {
  weights_.reserve(state.osds.size());
  if (use == StateUse::kFixed) osd_state_.reserve(state.osds.size());
  any_affinity_ = false;
  for (const OsdInfo& o : state.osds) {
    weights_.push_back(o.weight);
    if (use == StateUse::kFixed) {
      osd_state_.push_back(static_cast<std::uint8_t>(o.state & (kOsdExists | kOsdUp)));
    }
    if (o.primary_affinity != kDefaultPrimaryAffinity) any_affinity_ = true;
  }
}

bool PgMapper::ObjectToRawPg(std::int64_t pool_id, std::string_view name, std::string_view nspace,
                             PgId* pg) const {
  const Pool* pool = state_.FindPool(pool_id);
  if (pool == nullptr) return false;
  pg->pool = pool_id;
  pg->ps = HashObjectKey(pool->object_hash, name, nspace);
  return true;
}

std::uint32_t PgMapper::RawPgToPps(const Pool& pool, std::uint32_t ps) {
  // PLACEMENT-STABLE: pg_pool_t::raw_pg_to_pps(); pgp_num, not pg_num, and
  // the pool id truncated to 32 bits.
  const std::uint32_t folded = StableMod(ps, pool.pgp_num, pool.pgp_num_mask());
  const auto pool32 = static_cast<std::uint32_t>(pool.id);
  if (pool.flags & kPoolFlagHashPsPool) return crush::Hash32_2(folded, pool32);
  return folded + pool32;
}

bool PgMapper::CrushStep(const Pool& pool, std::uint32_t pps, OsdList* raw) {
  // OSDMap::_pg_to_raw_osds().
  raw->clear();
  const int size = static_cast<int>(pool.size);
  const int rule = placement_.FindRule(pool.crush_rule, static_cast<int>(pool.type), size);
  if (rule < 0) return false;
  const int n = placement_.DoRule(rule, pps, weights_, pool.id,
                                  raw->full().subspan(0, static_cast<std::size_t>(size)));
  raw->resize(n < 0 ? 0 : n);
  return true;
}

void PgMapper::PgToRawOsdsInternal(const Pool& pool, const PgId& pg, OsdList* raw,
                                   std::uint32_t* pps) {
  // OSDMap::_pg_to_raw_osds() + _remove_nonexistent_osds().
  *pps = RawPgToPps(pool, pg.ps);
  CrushStep(pool, *pps, raw);
  RemoveNonexistent(pool, raw);
}

void PgMapper::RemoveNonexistent(const Pool& pool, OsdList* raw) const {
  if (!osd_state_.empty()) {
    RemoveNonexistentBy(pool, raw, [this](std::int32_t o) {
      return static_cast<std::uint32_t>(o) < osd_state_.size() &&
             (osd_state_[static_cast<std::uint32_t>(o)] & kOsdExists) != 0;
    });
    return;
  }
  // ClusterState::Exists on the table itself: one compare covers both
  // bounds.
  const OsdInfo* const osds = state_.osds.data();
  const auto max_osd = static_cast<std::uint32_t>(state_.osds.size());
  RemoveNonexistentBy(pool, raw, [osds, max_osd](std::int32_t o) {
    return static_cast<std::uint32_t>(o) < max_osd &&
           (osds[static_cast<std::uint32_t>(o)].state & kOsdExists) != 0;
  });
}

template <typename Exists>
void PgMapper::RemoveNonexistentBy(const Pool& pool, OsdList* raw, Exists exists) {
  // A set whose OSDs all exist (nearly every PG) is not written.
  int i = 0;
  while (i < raw->size() && exists((*raw)[i])) ++i;
  if (i == raw->size()) return;
  if (pool.CanShiftOsds()) {
    int kept = i;
    for (; i < raw->size(); ++i) {
      if (exists((*raw)[i])) (*raw)[kept++] = (*raw)[i];
    }
    raw->resize(kept);
  } else {
    for (; i < raw->size(); ++i) {
      if (!exists((*raw)[i])) (*raw)[i] = crush::kItemNone;
    }
  }
}

namespace {

int PickPrimary(const OsdList& osds) {
  for (int i = 0; i < osds.size(); ++i) {
    if (osds[i] != crush::kItemNone) return osds[i];
  }
  return -1;
}

}  // namespace

void PgMapper::PgToRawOsds(const PgId& pg, OsdList* raw, int* primary) {
  const Pool* pool = state_.FindPool(pg.pool);
  if (pool == nullptr) {
    raw->clear();
    *primary = -1;
    return;
  }
  std::uint32_t pps = 0;
  PgToRawOsdsInternal(*pool, pg, raw, &pps);
  *primary = PickPrimary(*raw);
}

void PgMapper::ApplyUpmap(const Pool& /*pool*/, const PgId& folded, OsdList* raw) const {
  // OSDMap::_apply_upmap(); keyed by the folded pg.
  if (!state_.pg_upmap.empty()) {
    auto p = state_.pg_upmap.find(folded);
    if (p != state_.pg_upmap.end()) {
      for (std::int32_t osd : p->second) {
        // A target that is marked out voids the explicit mapping, and Ceph
        // returns at once: the PG's pg_upmap_items are not applied either.
        if (osd != crush::kItemNone && IsOut(osd)) return;
      }
      raw->assign(p->second);
    }
  }
  if (!state_.pg_upmap_items.empty()) {
    auto q = state_.pg_upmap_items.find(folded);
    if (q != state_.pg_upmap_items.end()) {
      // Each pair is applied only if its target is not already present, so
      // [(1,2),(2,1)] on [0,1,2] is a no-op (Ceph's comment says the same).
      for (const auto& [from, to] : q->second) {
        bool exists = false;
        int pos = -1;
        for (int i = 0; i < raw->size(); ++i) {
          const std::int32_t osd = (*raw)[i];
          if (osd == to) {
            exists = true;
            break;
          }
          if (osd == from && pos < 0 && !(to != crush::kItemNone && IsOut(to))) pos = i;
        }
        if (!exists && pos >= 0) (*raw)[pos] = to;
      }
    }
  }
  if (!state_.pg_upmap_primaries.empty()) {
    // Reef's read balancer: swap the requested primary to the front.
    auto r = state_.pg_upmap_primaries.find(folded);
    if (r != state_.pg_upmap_primaries.end()) {
      const std::int32_t p = r->second;
      if (p != crush::kItemNone && p >= 0 && p < max_osd_ && !IsOut(p)) {
        for (int i = 1; i < raw->size(); ++i) {
          if ((*raw)[i] == p) {
            (*raw)[i] = (*raw)[0];
            (*raw)[0] = p;
            break;
          }
        }
      }
    }
  }
}

bool PgMapper::IsUp(std::int32_t osd) const {
  if (osd_state_.empty()) return state_.IsUp(osd);
  // ClusterState::IsUp: exists and up.
  return static_cast<std::uint32_t>(osd) < osd_state_.size() &&
         (osd_state_[static_cast<std::uint32_t>(osd)] & (kOsdExists | kOsdUp)) ==
             (kOsdExists | kOsdUp);
}

void PgMapper::RawToUp(const Pool& pool, const OsdList& raw, OsdList* up) const {
  // OSDMap::_raw_to_up_osds().
  up->clear();
  if (pool.CanShiftOsds()) {
    for (int i = 0; i < raw.size(); ++i) {
      if (IsUp(raw[i])) up->push_back(raw[i]);
    }
  } else {
    for (int i = 0; i < raw.size(); ++i) {
      up->push_back(IsUp(raw[i]) ? raw[i] : crush::kItemNone);
    }
  }
}

void PgMapper::ApplyPrimaryAffinity(std::uint32_t pps, const Pool& pool, OsdList* osds,
                                    int* primary) const {
  // OSDMap::_apply_primary_affinity().
  if (!any_affinity_) return;
  bool any = false;
  for (int i = 0; i < osds->size(); ++i) {
    const std::int32_t o = (*osds)[i];
    if (o != crush::kItemNone &&
        state_.osds[static_cast<std::size_t>(o)].primary_affinity != kDefaultPrimaryAffinity) {
      any = true;
      break;
    }
  }
  if (!any) return;
  int pos = -1;
  for (int i = 0; i < osds->size(); ++i) {
    const std::int32_t o = (*osds)[i];
    if (o == crush::kItemNone) continue;
    const std::uint32_t a = state_.osds[static_cast<std::size_t>(o)].primary_affinity;
    if (a < 0x10000 && (crush::Hash32_2(pps, static_cast<std::uint32_t>(o)) >> 16) >= a) {
      // Rejected; remember it as a fallback and keep looking.
      if (pos < 0) pos = i;
    } else {
      pos = i;
      break;
    }
  }
  if (pos < 0) return;
  *primary = (*osds)[pos];
  if (pool.CanShiftOsds() && pos > 0) {
    for (int i = pos; i > 0; --i) (*osds)[i] = (*osds)[i - 1];
    (*osds)[0] = *primary;
  }
}

void PgMapper::GetTempOsds(const Pool& pool, const PgId& folded, OsdList* temp,
                           int* temp_primary) const {
  // OSDMap::_get_temp_osds().
  temp->clear();
  if (!state_.pg_temp.empty()) {
    auto p = state_.pg_temp.find(folded);
    if (p != state_.pg_temp.end()) {
      for (std::int32_t o : p->second) {
        if (!IsUp(o)) {
          if (!pool.CanShiftOsds()) temp->push_back(crush::kItemNone);
        } else {
          temp->push_back(o);
        }
      }
    }
  }
  *temp_primary = -1;
  auto pp = state_.primary_temp.find(folded);
  if (pp != state_.primary_temp.end()) {
    *temp_primary = pp->second;
  } else {
    *temp_primary = PickPrimary(*temp);
  }
}

void PgMapper::MapPg(const Pool& pool, std::uint32_t ps, PgMapping* out, CrushResult* crush) {
  // OSDMap::pg_to_raw_osds() for out->raw, then _pg_to_up_acting_osds().
  // Pacific calls the latter with raw_pg_to_pg = true, so a seed >= pg_num
  // is mapped too (upmap/temp lookups use the folded pg); the oracle
  // confirms this (osdmaptool --test-map-pg 1.1ff on a 128-PG pool).
  const std::uint32_t pps = RawPgToPps(pool, ps);
  const bool ran = CrushStep(pool, pps, &out->raw);
  if (crush != nullptr) {
    crush->osds = out->raw;
    crush->visited = ran ? placement_.LastVisitedBuckets() : 0;
  }
  RemoveNonexistent(pool, &out->raw);
  FinishMapPg(pool, ps, pps, out);
}

void PgMapper::MapPgFromCrush(const Pool& pool, std::uint32_t ps, const OsdList& crush,
                              PgMapping* out) {
  out->raw = crush;
  RemoveNonexistent(pool, &out->raw);
  FinishMapPg(pool, ps, RawPgToPps(pool, ps), out);
}

void PgMapper::FinishMapPg(const Pool& pool, std::uint32_t ps, std::uint32_t pps,
                           PgMapping* out) const {
  out->raw_primary = PickPrimary(out->raw);
  const PgId folded{pool.id, pool.FoldPs(ps)};
  GetTempOsds(pool, folded, &out->acting, &out->acting_primary);
  OsdList upmapped = out->raw;
  ApplyUpmap(pool, folded, &upmapped);
  RawToUp(pool, upmapped, &out->up);
  out->up_primary = PickPrimary(out->up);
  ApplyPrimaryAffinity(pps, pool, &out->up, &out->up_primary);
  if (out->acting.empty()) {
    out->acting = out->up;
    if (out->acting_primary == -1) out->acting_primary = out->up_primary;
  }
}

void PgMapper::PgToRawUpmap(const PgId& pg, OsdList* raw, OsdList* raw_upmap) {
  const Pool* pool = state_.FindPool(pg.pool);
  if (pool == nullptr) {
    raw->clear();
    raw_upmap->clear();
    return;
  }
  std::uint32_t pps = 0;
  PgToRawOsdsInternal(*pool, pg, raw, &pps);
  *raw_upmap = *raw;
  ApplyUpmap(*pool, PgId{pool->id, pool->FoldPs(pg.ps)}, raw_upmap);
}

void PgMapper::RawUpmapFromCrush(const Pool& pool, std::uint32_t ps, const OsdList& crush,
                                 OsdList* raw_upmap) const {
  *raw_upmap = crush;
  RemoveNonexistent(pool, raw_upmap);
  ApplyUpmap(pool, PgId{pool.id, pool.FoldPs(ps)}, raw_upmap);
}

void PgMapper::PgToUpActing(const PgId& pg, PgMapping* out) {
  const Pool* pool = state_.FindPool(pg.pool);
  if (pool == nullptr) {
    out->raw.clear();
    out->up.clear();
    out->acting.clear();
    out->raw_primary = out->up_primary = out->acting_primary = -1;
    return;
  }
  MapPg(*pool, pg.ps, out);
}

}  // namespace crushkit::osdmap
