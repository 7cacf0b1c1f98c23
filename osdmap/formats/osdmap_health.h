// The health checks Ceph 16.2 derives from an OSDMap alone
// (OSDMap::check_health, what `osdmaptool --health` prints): OSDs and CRUSH
// subtrees down, orphans, full ratios out of order, full OSDs, map and OSD
// flags, legacy tunables, cache pools without hit sets, sortbitwise, the
// pending require_osd_release, full pools, non-power-of-two pg_num, pools
// without redundancy and degraded stretch mode.
//
// Configuration comes from HealthConfig (Ceph's defaults unless the caller
// has a ceph.conf saying otherwise). Thread-safety: a pure function.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSDMAP_HEALTH_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSDMAP_HEALTH_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "osdmap/formats/osdmap_binary.h"

namespace crushkit::osdmap {

// health_check_t: severity "HEALTH_OK" | "HEALTH_WARN" | "HEALTH_ERR".
struct HealthCheck {
  std::string severity;
  std::string summary;
  std::int64_t count = 0;
  std::vector<std::string> detail;
};

// health_check_map_t: code ("OSD_DOWN", "OSD_HOST_DOWN", ...) -> check.
using HealthChecks = std::map<std::string, HealthCheck>;

// The monitor options check_health reads, at Ceph 16.2's defaults.
struct HealthConfig {
  float osd_failsafe_full_ratio = 0.97f;
  bool mon_warn_on_legacy_crush_tunables = true;
  std::string mon_crush_min_required_version = "hammer";
  bool mon_warn_on_crush_straw_calc_version_zero = true;
  bool mon_warn_on_cache_pools_without_hit_sets = true;
  bool mon_warn_on_pool_pg_num_not_power_of_two = true;
  bool mon_warn_on_pool_no_redundancy = true;
  bool mon_warn_on_degraded_stretch_mode = true;
  // The release whose check_health runs. Tentacle's differs from 16.2's and
  // 18.2's in two places: a never-booted (`new`) OSD counts as up when a
  // subtree is walked for OSD_DOWN / OSD_<type>_DOWN, and uneven stretch
  // sites raise STRETCH_MODE_BUCKET_WEIGHT_IMBALANCE only when they differ
  // by more than 10% of the lighter one (16.2/18.2: UNEVEN_WEIGHTS_STRETCH_MODE
  // on any difference).
  crush::CephRelease release = crush::CephRelease::kPacific;
};

// The checks for `map`. kInternal where Ceph aborts or never returns (a
// bucket cycle, an ancestor without a name, an unknown cache mode).
// Cost: O(OSDs x CRUSH depth x buckets x items) in the worst case.
// `features_from`: the map whose up OSDs' features OSD_UPGRADE_FINISHED
// reads, when not `map` itself: Ceph caches them when it decodes a map,
// and osdmaptool's --mark-* edits do not refresh the cache.
absl::StatusOr<HealthChecks> CheckHealth(const OsdMapBinary& map,
                                         const HealthConfig& config = HealthConfig(),
                                         const OsdMapBinary* features_from = nullptr);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSDMAP_HEALTH_H_
