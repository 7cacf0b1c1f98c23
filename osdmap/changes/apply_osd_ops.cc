// The osdmap operations of a change file (osdmap/changes/change_ops.h): OSD states
// and weights, upmaps, purge and pool settings, as OSDMonitor applies them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/model.h"
#include "osdmap/changes/apply_change_internal.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/change_ops_internal.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap::internal {

bool Applier::MarkOsds(const ChangeOp& op) {
  bool ok = true;
  for (std::size_t i = 0; i < op.osd_ids.size(); ++i) {
    if (!OsdExists(op, i)) {
      ok = false;
      continue;
    }
    OsdInfo& osd = st_.osds[static_cast<std::size_t>(op.osd_ids[i])];
    switch (op.kind) {
      case ChangeOpKind::kMarkOut:
        osd.weight = 0;
        break;
      case ChangeOpKind::kMarkIn:
        // OSDMonitor "osd in": only an out OSD gets CEPH_OSD_IN.
        if (osd.weight == 0) osd.weight = kWeightIn;
        break;
      case ChangeOpKind::kMarkDown:
        osd.state &= ~kOsdUp;
        break;
      default:
        osd.state |= kOsdUp;
        break;
    }
  }
  return ok;
}

bool Applier::OsdReweight(const ChangeOp& op) {
  if (!OsdExists(op, 0)) return false;
  // OSDMonitor "osd reweight": (int)((double)CEPH_OSD_IN * w).
  st_.osds[static_cast<std::size_t>(op.osd_ids[0])].weight =
      static_cast<crush::Weight>(static_cast<int>(static_cast<double>(kWeightIn) * op.weight));
  return true;
}

bool Applier::PrimaryAffinity(const ChangeOp& op) {
  if (!OsdExists(op, 0)) return false;
  // OSDMonitor "osd primary-affinity": (int)((double)CEPH_OSD_MAX_PRIMARY_AFFINITY * w).
  st_.osds[static_cast<std::size_t>(op.osd_ids[0])].primary_affinity = static_cast<std::uint32_t>(
      static_cast<int>(static_cast<double>(kDefaultPrimaryAffinity) * op.weight));
  return true;
}

// OSDMonitor's common pg-upmap checks: the pool exists and the seed is below
// its pg_num (OSDMap::pg_exists()).
const Pool* Applier::ExistingPg(const ChangeOp& op) {
  const Pool* pool = st_.FindPool(op.pg.pool);
  if (pool == nullptr) {
    Fail(op.pg_word,
         "pg " + op.pg_word.text + ": pool " + std::to_string(op.pg.pool) + " does not exist");
    return nullptr;
  }
  if (op.pg.ps >= pool->pg_num) {
    Fail(op.pg_word, "pg " + FormatPgId(op.pg) + " does not exist (pool '" + pool->name +
                         "' has pg_num " + std::to_string(pool->pg_num) + ")");
    return nullptr;
  }
  return pool;
}

// OSDMonitor "osd pg-upmap": between min_size and size OSDs, each existing;
// repeated OSDs are dropped as Ceph drops them.
bool Applier::PgUpmap(const ChangeOp& op) {
  const Pool* pool = ExistingPg(op);
  if (pool == nullptr) return false;
  const std::size_t n = op.osd_ids.size();
  if (n < pool->min_size || n > pool->size) {
    return Fail(op.pg_word, std::to_string(n) + " OSDs for pg " + FormatPgId(op.pg) + "; pool '" +
                                pool->name + "' needs " + std::to_string(pool->min_size) + ".." +
                                std::to_string(pool->size));
  }
  std::vector<std::int32_t> osds;
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!OsdExists(op, i)) {
      ok = false;
    } else if (std::find(osds.begin(), osds.end(), op.osd_ids[i]) == osds.end()) {
      osds.push_back(op.osd_ids[i]);
    }
  }
  if (!ok) return false;
  st_.pg_upmap[op.pg] = std::move(osds);
  return true;
}

// OSDMonitor "osd pg-upmap-items": at most `size` pairs of existing OSDs;
// FROM == TO and repeated pairs are dropped as Ceph drops them.
bool Applier::PgUpmapItems(const ChangeOp& op) {
  const Pool* pool = ExistingPg(op);
  if (pool == nullptr) return false;
  const std::size_t pairs = op.osd_ids.size() / 2;
  if (pairs > pool->size) {
    return Fail(op.pg_word, std::to_string(pairs) + " pairs for pg " + FormatPgId(op.pg) +
                                "; pool '" + pool->name + "' has size " +
                                std::to_string(pool->size));
  }
  std::vector<std::pair<std::int32_t, std::int32_t>> items;
  bool ok = true;
  for (std::size_t i = 0; i + 1 < op.osd_ids.size(); i += 2) {
    const std::pair<std::int32_t, std::int32_t> item{op.osd_ids[i], op.osd_ids[i + 1]};
    if (item.first == item.second) continue;
    const bool from = OsdExists(op, i);
    const bool to = OsdExists(op, i + 1);
    if (!from || !to) {
      ok = false;
    } else if (std::find(items.begin(), items.end(), item) == items.end()) {
      items.push_back(item);
    }
  }
  if (!ok) return false;
  if (items.empty()) return Fail(op.pg_word, "no valid FROM TO pair for pg " + FormatPgId(op.pg));
  st_.pg_upmap_items[op.pg] = std::move(items);
  return true;
}

bool Applier::RemoveUpmap(const ChangeOp& op) {
  if (ExistingPg(op) == nullptr) return false;
  if (op.kind == ChangeOpKind::kRmPgUpmap) {
    st_.pg_upmap.erase(op.pg);
  } else {
    st_.pg_upmap_items.erase(op.pg);
  }
  return true;
}

// OSDMonitor "osd pg-upmap-primary" (Reef and later): a replicated pool,
// an existing OSD of the PG's acting set that is not its primary already.
bool Applier::PgUpmapPrimary(const ChangeOp& op) {
  if (st_.ceph_release < crush::CephRelease::kReef) {
    return Fail(op.pg_word, "pg-upmap-primary needs Reef (18.2) or later; this state maps as " +
                                std::string(crush::CephReleaseName(st_.ceph_release)));
  }
  const Pool* pool = ExistingPg(op);
  if (pool == nullptr || !OsdExists(op, 0)) return false;
  if (pool->type != PoolType::kReplicated) {
    return Fail(op.pg_word, "pg-upmap-primary is only supported for replicated pools (pool '" +
                                pool->name + "' is erasure-coded)");
  }
  const std::int32_t id = op.osd_ids[0];
  // The acting set as it is now: earlier ops of the change included.
  auto map = crush::CrushMap::Build(st_.crush);
  if (!map.ok()) return EditFailed(op.pg_word, "cannot map pg " + FormatPgId(op.pg), map.status());
  CrushPlacement placement(*map, st_.ceph_release);
  PgMapper mapper(st_, placement);
  PgMapping m;
  mapper.MapPg(*pool, op.pg.ps, &m);
  if (id == m.acting_primary) {
    return Fail(op.osd_words[0], OsdName(id) + " is already primary for pg " + FormatPgId(op.pg));
  }
  const auto acting = m.acting.span();
  if (std::find(acting.begin(), acting.end(), id) == acting.end()) {
    return Fail(op.osd_words[0],
                OsdName(id) + " is not in the acting set of pg " + FormatPgId(op.pg));
  }
  st_.pg_upmap_primaries[op.pg] = id;
  return true;
}

bool Applier::RemoveUpmapPrimary(const ChangeOp& op) {
  if (ExistingPg(op) == nullptr) return false;
  st_.pg_upmap_primaries.erase(op.pg);
  return true;
}

// OSDMonitor::prepare_command_osd_purge(): crush remove, destroy, remove.
bool Applier::Purge(const ChangeOp& op) {
  const std::int32_t id = op.osd_ids[0];
  if (!OsdExists(op, 0)) return false;
  if (st_.IsUp(id)) {
    return Fail(op.osd_words[0], OsdName(id) +
                                     " is up; Ceph purges only down OSDs (add 'osd down " +
                                     std::to_string(id) + "' first)");
  }
  if (st_.crush.item_names.count(id) != 0) {
    const absl::Status s = crush::RemoveItem(st_.crush, id, false);
    if (!s.ok())
      return EditFailed(op.osd_words[0], "cannot remove " + OsdName(id) + " from the crush map", s);
    ++crush_edits_;
  }
  // OSDMap::apply_incremental() on a removed OSD: state cleared, primary
  // affinity back to default; the reweight stays as it was.
  OsdInfo& osd = st_.osds[static_cast<std::size_t>(id)];
  osd.state = 0;
  osd.primary_affinity = kDefaultPrimaryAffinity;
  purged_.push_back(id);
  return true;
}

bool Applier::CheckRuleFits(const Word& w, const Pool& pool, int rule, std::uint32_t size) {
  const crush::MapModel& map = st_.crush;
  if (rule < 0 || rule >= map.max_rules() || !map.rule_exists[static_cast<std::size_t>(rule)]) {
    return Fail(w, "crush rule " + std::to_string(rule) + " does not exist");
  }
  const crush::Rule& r = map.rules[static_cast<std::size_t>(rule)];
  if (static_cast<int>(r.type) != static_cast<int>(pool.type)) {
    return Fail(w, "rule " + std::to_string(rule) + " is not of the pool's type (" +
                       (pool.type == PoolType::kErasure ? "erasure" : "replicated") + ")");
  }
  if (size < r.min_size || size > r.max_size) {
    return Fail(w, "pool size " + std::to_string(size) + " is outside rule " +
                       std::to_string(rule) + "'s sizes " + std::to_string(r.min_size) + ".." +
                       std::to_string(r.max_size));
  }
  return true;
}

bool Applier::PoolSet(const ChangeOp& op) {
  Pool* pool = nullptr;
  for (auto& [id, p] : st_.pools) {
    if (p.name == op.name.text) pool = &p;
  }
  if (pool == nullptr) {
    if (const auto id = internal::ParseDecimal(op.name.text);
        id && st_.pools.count(static_cast<std::int64_t>(*id))) {
      pool = &st_.pools.at(static_cast<std::int64_t>(*id));
    }
  }
  if (pool == nullptr) {
    std::vector<std::string> names;
    for (const auto& [id, p] : st_.pools) names.push_back(p.name);
    return Fail(op.name,
                "unknown pool '" + op.name.text + "'" + internal::DidYouMean(op.name.text, names));
  }
  const std::string& var = op.type.text;
  const auto n = static_cast<std::uint32_t>(op.value);
  if (var == "size") {
    if (pool->type == PoolType::kErasure) {
      return Fail(op.type, "cannot change the size of erasure-coded pool '" + pool->name + "'");
    }
    if (!CheckRuleFits(op.value_word, *pool, pool->crush_rule, n)) return false;
    pool->size = n;
    pool->min_size = n - n / 2;
  } else if (var == "min_size") {
    const std::uint32_t lo = pool->type == PoolType::kErasure ? pool->ec_k : 1;
    if (n < lo || n > pool->size) {
      return Fail(op.value_word, "min_size " + std::to_string(n) + " is out of range; expected " +
                                     std::to_string(lo) + ".." + std::to_string(pool->size));
    }
    pool->min_size = n;
  } else if (var == "pg_num") {
    pool->pg_num = n;
    pool->pgp_num = n;
  } else if (var == "pgp_num") {
    if (n > pool->pg_num) {
      return Fail(op.value_word, "pgp_num " + std::to_string(n) + " is above pg_num " +
                                     std::to_string(pool->pg_num));
    }
    pool->pgp_num = n;
  } else {
    std::optional<int> rule;
    for (const auto& [id, name] : st_.crush.rule_names) {
      if (name == op.value_word.text) rule = id;
    }
    if (!rule) {
      const auto id = internal::ParseDecimal(op.value_word.text);
      if (!id) {
        std::vector<std::string> names;
        for (const auto& [rid, name] : st_.crush.rule_names) names.push_back(name);
        return Fail(op.value_word, "unknown crush rule '" + op.value_word.text + "'" +
                                       internal::DidYouMean(op.value_word.text, names));
      }
      rule = *id > 0xffff ? 0xffff : static_cast<int>(*id);
    }
    if (!CheckRuleFits(op.value_word, *pool, *rule, pool->size)) return false;
    pool->crush_rule = *rule;
  }
  return true;
}

}  // namespace crushkit::osdmap::internal
