#include "osdmap/formats/cluster_check.h"

#include <algorithm>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/status_macros.h"
#include "osdmap/formats/import_internal.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_table.h"

namespace crushkit::osdmap {
namespace {

// 1234567 -> "1,234,567".
std::string Grouped(std::uint64_t n) {
  std::string digits = absl::StrCat(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string SetText(std::span<const std::int32_t> osds) {
  return absl::StrCat("[", absl::StrJoin(osds, ","), "]");
}

absl::StatusOr<std::vector<std::int32_t>> PgDumpOsdList(
    const google::protobuf::RepeatedField<std::int64_t>& ids, const std::string& path) {
  std::vector<std::int32_t> out;
  out.reserve(static_cast<std::size_t>(ids.size()));
  for (int i = 0; i < ids.size(); ++i) {
    const std::int64_t id = ids.Get(i);
    if (id < -1 || id > std::numeric_limits<std::int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, "[", i, "]: ", id, " is not an OSD id (or 2147483647 for none)"));
    }
    out.push_back(static_cast<std::int32_t>(id));
  }
  return out;
}

absl::StatusOr<std::int32_t> PgDumpOsdAt(bool has, std::int64_t id, const std::string& path) {
  if (!has) return -1;  // pgs_brief of old releases may omit it; -1 is "none"
  if (id < -1 || id > std::numeric_limits<std::int32_t>::max())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", id, " is not an OSD id"));
  return static_cast<std::int32_t>(id);
}

// PGMap::stat_pg_add's per-OSD counting of one PG (Nautilus and later: an
// up member counts once, and only when not acting; Mimic: every up slot).
// The counts must equal Ceph's num_pg_by_osd: do not simplify the duplicate
// handling.
void AddPgCounts(std::span<const std::int32_t> up, std::int32_t up_primary,
                 std::span<const std::int32_t> acting, bool every_up_slot,
                 std::map<std::int32_t, OsdPgCount>* counts) {
  for (std::int32_t o : acting) ++(*counts)[o].acting;
  for (std::size_t i = 0; i < up.size(); ++i) {
    const std::int32_t o = up[i];
    if (!every_up_slot) {
      const bool seen = std::find(acting.begin(), acting.end(), o) != acting.end() ||
                        std::find(up.begin(), up.begin() + static_cast<std::ptrdiff_t>(i), o) !=
                            up.begin() + static_cast<std::ptrdiff_t>(i);
      if (seen) continue;
    }
    ++(*counts)[o].up;
  }
  if (up_primary >= 0) ++(*counts)[up_primary].primary;
}

std::string PlacementText(std::span<const std::int32_t> up, std::int32_t up_primary,
                          std::span<const std::int32_t> acting, std::int32_t acting_primary) {
  return absl::StrCat("up ", SetText(up), " p", up_primary, " acting ", SetText(acting), " p",
                      acting_primary);
}

}  // namespace

absl::StatusOr<std::map<PgId, ReportedPg>> ReadPgDumpPlacement(const std::string& pg_dump_json) {
  ceph::PgDumpPlacements dump;
  // Luminous printed `pg dump pgs[_brief]` as a bare array: wrap it.
  const std::size_t first = pg_dump_json.find_first_not_of(" \t\r\n");
  const bool bare = first != std::string::npos && pg_dump_json[first] == '[';
  CRUSH_RETURN_IF_ERROR(internal::ParseCephJson(
      bare ? absl::StrCat("{\"pg_stats\":", pg_dump_json, "}") : pg_dump_json, &dump,
      "pg dump JSON"));
  const bool top = dump.pg_stats_size() > 0;
  const auto& stats = top ? dump.pg_stats() : dump.pg_map().pg_stats();
  const char* base = top ? "pg_stats" : "pg_map.pg_stats";
  std::map<PgId, ReportedPg> out;
  for (int i = 0; i < stats.size(); ++i) {
    const auto& e = stats.Get(i);
    const std::string at = absl::StrCat(base, "[", i, "].");
    CRUSH_ASSIGN_OR_RETURN(const PgId pg,
                           internal::ParsePgIdAt(e.has_pgid(), e.pgid(), at + "pgid"));
    ReportedPg r;
    CRUSH_ASSIGN_OR_RETURN(r.up, PgDumpOsdList(e.up(), at + "up"));
    CRUSH_ASSIGN_OR_RETURN(r.acting, PgDumpOsdList(e.acting(), at + "acting"));
    CRUSH_ASSIGN_OR_RETURN(r.up_primary,
                           PgDumpOsdAt(e.has_up_primary(), e.up_primary(), at + "up_primary"));
    CRUSH_ASSIGN_OR_RETURN(r.acting_primary, PgDumpOsdAt(e.has_acting_primary(), e.acting_primary(),
                                                         at + "acting_primary"));
    r.unknown = e.state() == "unknown";
    if (!out.emplace(pg, std::move(r)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, "pgid: ", FormatPgId(pg), " listed twice"));
    }
  }
  return out;
}

namespace {

// Keeps `line` while `list` holds fewer than `max` examples.
void NoteExample(int max, std::vector<std::string>* list, std::string line) {
  if (static_cast<int>(list->size()) < max) list->push_back(std::move(line));
}

// The report's per-OSD PG counts against crushkit's (`ours`).
void CompareOsdCounts(const ClusterPgCounts& counts, const std::map<std::int32_t, OsdPgCount>& ours,
                      int max_examples, MappingCheck* check,
                      std::vector<std::string>* osd_examples) {
  if (counts.num_pg != check->pgs) {
    ++check->differing_osds;  // not an OSD, but the same witness disagreeing
    NoteExample(max_examples, osd_examples,
                absl::StrCat("the report counts ", Grouped(counts.num_pg), " PGs, the osd map has ",
                             Grouped(check->pgs)));
  }
  std::set<std::int32_t> osds;
  for (const auto& [osd, c] : ours) osds.insert(osd);
  for (const auto& [osd, c] : counts.by_osd) osds.insert(osd);
  const char* up_name = counts.up_counts_every_up_slot ? "up" : "up-not-acting";
  for (std::int32_t osd : osds) {
    const auto a = ours.find(osd);
    const auto b = counts.by_osd.find(osd);
    const OsdPgCount mine = a == ours.end() ? OsdPgCount{} : a->second;
    const OsdPgCount theirs = b == counts.by_osd.end() ? OsdPgCount{} : b->second;
    if (mine == theirs) continue;
    ++check->differing_osds;
    const std::string who =
        osd == crush::kItemNone ? std::string("holes (2147483647)") : absl::StrCat("osd.", osd);
    NoteExample(max_examples, osd_examples,
                absl::StrCat(who, ": crushkit ", mine.primary, " primary / ", mine.acting,
                             " acting / ", mine.up, " ", up_name, "; report ", theirs.primary,
                             " / ", theirs.acting, " / ", theirs.up));
  }
  check->sources.push_back(absl::StrCat(
      "the report's per-OSD PG counts",
      counts.num_pg_unknown > 0
          ? absl::StrCat(" (", Grouped(counts.num_pg_unknown), " PGs unknown to the mgr)")
          : ""));
}

}  // namespace

absl::StatusOr<MappingCheck> CheckMappingAgainstCluster(const ClusterState& state,
                                                        const ClusterPgCounts* counts,
                                                        const std::map<PgId, ReportedPg>* pgs,
                                                        int max_examples) {
  CRUSH_ASSIGN_OR_RETURN(std::unique_ptr<MappingSession> session, MappingSession::Create(state));
  const PgTable table = MapAllPgs(*session);
  MappingCheck check;
  check.pgs = table.total_pgs();
  check.diverged_from_ceph = table.diverged_from_ceph;
  std::vector<std::string> pg_examples;
  std::vector<std::string> osd_examples;
  const auto note = [max_examples](std::vector<std::string>* list, std::string line) {
    if (static_cast<int>(list->size()) < max_examples) list->push_back(std::move(line));
  };

  std::map<std::int32_t, OsdPgCount> ours;
  std::uint64_t unknown = 0;
  for (const PoolPgTable& pool : table.pools) {
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      const std::span<const std::int32_t> up = pool.Up(ps);
      const std::span<const std::int32_t> acting = pool.Acting(ps);
      if (counts != nullptr) {
        AddPgCounts(up, pool.up_primary[ps], acting, counts->up_counts_every_up_slot, &ours);
      }
      if (pgs == nullptr) continue;
      const PgId pg{pool.pool_id, ps};
      const auto it = pgs->find(pg);
      if (it == pgs->end()) {
        ++check.differing_pgs;
        note(&pg_examples, absl::StrCat("pg ", FormatPgId(pg), ": not in the pg dump"));
        continue;
      }
      const ReportedPg& r = it->second;
      if (r.unknown) {
        ++unknown;
        continue;
      }
      const bool same =
          std::equal(up.begin(), up.end(), r.up.begin(), r.up.end()) &&
          std::equal(acting.begin(), acting.end(), r.acting.begin(), r.acting.end()) &&
          pool.up_primary[ps] == r.up_primary && pool.acting_primary[ps] == r.acting_primary;
      if (!same) {
        ++check.differing_pgs;
        note(&pg_examples,
             absl::StrCat("pg ", FormatPgId(pg), ": crushkit ",
                          PlacementText(up, pool.up_primary[ps], acting, pool.acting_primary[ps]),
                          "; cluster ",
                          PlacementText(r.up, r.up_primary, r.acting, r.acting_primary)));
      }
    }
  }
  if (pgs != nullptr) {
    for (const auto& [pg, r] : *pgs) {
      const PoolPgTable* pool = table.Find(pg.pool);
      if (pool != nullptr && pg.ps < pool->pg_num) continue;
      ++check.differing_pgs;
      note(&pg_examples,
           absl::StrCat("pg ", FormatPgId(pg), ": in the pg dump but not in the osd map"));
    }
    check.sources.push_back(absl::StrCat(
        "the pg dump's up/acting of every PG",
        unknown > 0 ? absl::StrCat(" (", Grouped(unknown), " unknown to the mgr, skipped)") : ""));
  }
  if (counts != nullptr) {
    CompareOsdCounts(*counts, ours, max_examples, &check, &osd_examples);
  }
  check.agrees = check.differing_pgs == 0 && check.differing_osds == 0;
  for (std::string& e : pg_examples) {
    if (static_cast<int>(check.examples.size()) < max_examples) check.examples.push_back(e);
  }
  for (std::string& e : osd_examples) {
    if (static_cast<int>(check.examples.size()) < max_examples) check.examples.push_back(e);
  }
  return check;
}

std::vector<std::string> FormatMappingCheck(const MappingCheck& check) {
  const std::string against = absl::StrJoin(check.sources, " and ");
  if (check.agrees) {
    return {absl::StrCat("mapping agrees with the cluster: ", Grouped(check.pgs), " PGs",
                         against.empty() ? "" : absl::StrCat(" (", against, ")"))};
  }
  std::vector<std::string> parts;
  if (check.differing_pgs > 0) {
    parts.push_back(absl::StrCat(Grouped(check.differing_pgs), " of ", Grouped(check.pgs),
                                 " PGs differ from the pg dump"));
  }
  if (check.differing_osds > 0) {
    parts.push_back(
        absl::StrCat(Grouped(check.differing_osds), " per-OSD PG counts differ from the report"));
  }
  std::vector<std::string> lines = {
      absl::StrCat("WARNING: crushkit maps this state DIFFERENTLY from the cluster: ",
                   absl::StrJoin(parts, "; "), " (compared with ", against, ")")};
  for (const std::string& e : check.examples) lines.push_back("  " + e);
  lines.push_back(
      "  plans from this state do not describe the cluster; were the inputs taken at one moment "
      "(one osdmap epoch, PGs settled)? If they were, please report a crushkit bug with them");
  return lines;
}

}  // namespace crushkit::osdmap
