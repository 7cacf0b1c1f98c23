// The size of an OSD that `ceph osd df` shows without one, so that a change
// bringing it in (`osd in N`) has a fill to project.
//
// The mgr keeps an empty osd_stat_t for every OSD that is not in (mgr
// ClusterState::ingest_pgstats records the OSD's report only while
// osdmap.is_in(); PGMapUpdater::check_osd_map zeroes one that goes out), so
// an out OSD shows kb 0 in `ceph osd df`, `ceph pg dump osds` and `ceph
// report` alike, up or down. Measured on a Pacific loopback cluster
// (tools/dev/README.md, "Fill of an OSD coming in"): all three print 0 for
// an up, out memstore OSD, and `ceph osd metadata` has no size for memstore
// (BlueStore's bluestore_bdev_size is there, not imported yet).
//
// What an operator's map says instead is the OSD's CRUSH weight: ceph-volume
// and the monitor's osd_crush_initial_weight (-1) give a new OSD its size in
// TiB, and clusters keep weights proportional to size. So the estimate is
// the OSD's CRUSH weight times the capacity per CRUSH weight unit of the
// OSDs that do show a size: the median over those of its device class, or
// over all when none of its class has one. Its use is taken as 0 (an out
// OSD that finished its backfill deleted every PG; what remains is its
// store's own metadata: 0.2 MiB of osdmaps on a 256 MiB memstore OSD).
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_PLANNING_FILL_CAPACITY_H_
#define CRUSHKIT_OSDMAP_PLANNING_FILL_CAPACITY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

struct EstimatedCapacity {
  std::int32_t osd = 0;
  std::uint64_t kb = 0;        // the estimate
  double crush_weight = 0;     // the OSD's, in CRUSH units
  double kb_per_weight = 0;    // the peers' median
  std::string device_class;    // the OSD's ("" without one)
  std::uint32_t peers = 0;     // OSDs the median is over
  bool peers_of_class = true;  // false: no OSD of its class had a size
};

// Gives every OSD of `state` that is in, has a positive CRUSH weight and has
// no size in state->osd_usage (no entry, or kb 0) the estimate above:
// osd_usage[osd] = {kb, 0, kb}. Does nothing without any OSD that has a
// size (no `ceph osd df` imported). Returns what it estimated, by OSD id.
// Cost: O(OSDs log OSDs + crush buckets).
std::vector<EstimatedCapacity> EstimateUnreportedCapacity(ClusterState* state);

// The reports' sentences, one per group of estimates made alike ("osd.4
// shows no size in `ceph osd df` (out: ...): 256 MiB assumed, its CRUSH
// weight 1 x 256 MiB per weight unit (the median of 5 hdd OSDs), nothing
// used"; "osd.188-199 (12 new OSDs) show ...": a host addition is one line,
// not one per OSD). An OSD not in `before` is new, not out. By first OSD id.
std::vector<std::string> DescribeEstimates(const std::vector<EstimatedCapacity>& estimates,
                                           const ClusterState& before);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PLANNING_FILL_CAPACITY_H_
