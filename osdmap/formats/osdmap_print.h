// Ceph 16.2's plain-text rendering of a binary OSDMap, as `osdmaptool
// --print` (= `--dump plain`) writes it (OSDMap::print, print_pools,
// print_osd, pg_pool_t and osd_info_t operator<< in src/osd/): the header,
// the pools, the existing OSDs, then upmaps and temps. Layout and quirks:
// /work/shared/reference/ceph-osdmap-encoding.md section 11.
//
// Timestamps are printed in local time, as Ceph's utime_t does (TZ applies).
// Blocklists print in Ceph's hash-table order (osdmap/formats/entity_addr.h), pool
// options by name, HitSet parameters (osdmap/formats/hit_set_params.h), pool
// snapshots and removed-snap queues. Not rendered yet (kUnimplemented,
// never a wrong line): legacy (pre-msgr2) OSD addresses.
// Pure function; thread-safe except for localtime's TZ lookup.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSDMAP_PRINT_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSDMAP_PRINT_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/read_balance.h"

namespace crushkit::osdmap {

// What the printers of the releases after 16.2 add: Reef (18.2) and
// Tentacle (20.2) print each replicated pool's read balance score
// (read_balance.h; the caller computes it, since it maps every PG) and dump
// allow_crimson and pg_upmap_primaries; Tentacle dumps a few pool fields
// more. The default is 16.2's output.
struct PrintRelease {
  crush::CephRelease release = crush::CephRelease::kPacific;
  // Pool id -> CalcReadBalanceScore of that pool; pools missing here (and
  // erasure-coded ones) get no score, as Ceph prints none for them.
  std::map<std::int64_t, ReadBalanceScore> read_balance;
};

// The PrintRelease of `release` for `state` (the map being printed, as a
// ClusterState): for Reef and later, CalcReadBalanceScore of every
// replicated pool. Errors: CalcReadBalanceScore's.
// Cost: one PG mapping per PG of the replicated pools (none for Pacific).
absl::StatusOr<PrintRelease> PrintReleaseFor(const ClusterState& state, crush::CephRelease release);

// The text `osdmaptool --print` writes for `map` (after its banner line)
// as the osdmaptool of `as.release` writes it.
// Errors: CheckPerOsdVectors' errors; kDataLoss for an OSD
// address that does not parse; ParseHitSetParams' errors for HitSet
// parameters Ceph itself cannot decode.
absl::StatusOr<std::string> FormatOsdMapPlain(const OsdMapBinary& map, const PrintRelease& as = {});

// kInvalidArgument unless max_osd >= 0 and every per-OSD vector the
// printers index (states, weights, osd_info, osd_xinfo, the four address
// lists) has max_osd entries, as every map Ceph writes has; a decoded map
// need not (each count is its own on the wire).
absl::Status CheckPerOsdVectors(const OsdMapBinary& map);

// Ceph's utime_t operator<<: "YYYY-MM-DDTHH:MM:SS.uuuuuu+hhmm" in local
// time, or "sec.uuuuuu" below ten years.
std::string FormatUtime(const binary::Utime& t);

// The release `OSDMap::get_min_compat_client()` reports for `map`
// ("argonaut" ... "luminous").
std::string MinCompatClient(const OsdMapBinary& map);

// The same as `release`'s OSDMap reports it: Reef and later also require
// reef clients for pg_upmap_primaries (Pacific never decodes them).
std::string MinCompatClient(const OsdMapBinary& map, crush::CephRelease release);

// The names osdmaptool's outputs share with `--dump json`
// (tools/osdmaptool/osdmap_dump.h): OSDMap::get_flag_string (fixed order),
// the single-bit names of the map flags (get_flag_set: "" for unnamed bits),
// pg_pool_t::get_flags_string, cache and autoscale mode names ("" for an
// unknown mode), the sorted OSD state names, a uuid, an interval set
// "[start~len,...]" (snapid_t's hex).
std::string MapFlagString(std::uint32_t flags);
std::vector<std::string> MapFlagSet(std::uint32_t flags);
std::string PoolFlagString(std::uint64_t flags);
std::string CacheModeName(std::uint8_t mode);
std::string AutoscaleModeName(std::uint8_t mode);
std::vector<std::string> OsdStateNames(std::uint32_t state);
std::string FormatUuid(const std::array<std::uint8_t, 16>& uuid);
std::string FormatIntervals(const binary::IntervalSet& s);

// An interval set as Ceph holds it after decoding: start -> len, sorted,
// the first of duplicate starts kept.
std::map<std::uint64_t, std::uint64_t> SortedIntervals(const binary::IntervalSet& s);

// snapid_t operator<<: lower-case hex, "head" for CEPH_NOSNAP (2^64 - 2),
// "snapdir" for CEPH_SNAPDIR (2^64 - 1).
std::string FormatSnapId(std::uint64_t id);

// pool_opts_t's options Ceph 16.2 knows (opt_mapping), in its name order:
// the set ones of `opts` with their names. An option whose key 16.2 does
// not know is left out, as Ceph leaves it out. `type_ok` says whether the
// value has the type 16.2 declares for the name (0 string, 1 int,
// 2 double); Ceph prints and dumps the value by its own type either way
// (pool_opts_dumper_t visits the stored variant).
struct NamedPoolOpt {
  const char* name;
  const binary::PoolOpt* opt;
  bool type_ok;
};

// Tentacle (`release`) also knows read_ratio (key 24) and pct_update_delay
// (25), both int.
std::vector<NamedPoolOpt> NamedPoolOpts(const binary::PoolOpts& opts,
                                        crush::CephRelease release = crush::CephRelease::kPacific);

// A pool option's value as pool_opts_t's operator<< prints it.
std::string FormatPoolOptValue(const binary::PoolOpt& opt);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSDMAP_PRINT_H_
