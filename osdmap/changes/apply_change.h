// Applies a parsed change file (osdmap/changes/change_ops.h) to a ClusterState, the
// way Ceph's monitor would apply the same commands, for `crushkit plan`.
//
// Every CRUSH edit goes through crush/edit/edit.h (CrushWrapper's edits); after
// all of a change's edits the device-class shadow trees are rebuilt once
// (RebuildRootsWithClasses), max_devices is finalized and the result must
// pass ValidateState() and CrushMap::Build().
//
// What each operation does (N: an OSD id; errors point at the offending word):
//   osd crush add-bucket NAME TYPE [LOC]  CreateBucket; NAME must be new.
//   osd crush add osd.N W [LOC]   OSD N is created in the osdmap if absent
//                                 (exists, up, in: Ceph would refuse; the
//                                 planner creates it for you); then UpdateItem
//                                 if N already sits in LOC's lowest bucket
//                                 (Ceph's check_item_loc), else InsertItem.
//   osd crush set osd.N W [LOC]   UpdateItem; N must exist in the osdmap and
//                                 be named in the crush map.
//   osd crush remove|rm NAME      RemoveItem (a bucket must be empty).
//   osd crush unlink NAME         RemoveItem(unlink_only).
//   osd crush reweight NAME W     AdjustItemWeightF; NAME must be a device.
//   osd crush reweight-subtree NAME W  AdjustItemWeightF on each device under
//                                 bucket NAME (everywhere it is linked:
//                                 crush/edit/edit.h has no per-bucket adjust).
//   osd crush move NAME LOC       MoveBucket for a bucket; a device is
//                                 relinked with its current weight (Ceph's
//                                 create_or_move_item, through UpdateItem).
//   osd crush swap-bucket SRC DST [--yes-i-really-mean-it]  SwapBucket: a
//                                 replacement host takes an old one's place;
//                                 without the flag SRC must be an orphan and
//                                 both of one algorithm (the monitor's EPERM).
//   osd crush set-device-class C osd.N ...  SetDeviceClass per OSD; each must
//                                 exist in the osdmap and be named in the crush
//                                 map, and have no other class (Ceph's EBUSY).
//   osd crush rule create-replicated NAME ROOT TYPE [CLASS]  a new rule as
//                                 CrushWrapper::add_simple_rule(..., "firstn")
//                                 writes it: lowest free rule id, ruleset =
//                                 id, sizes 1..10, take ROOT (its CLASS shadow
//                                 tree) / chooseleaf firstn 0 type TYPE (choose
//                                 for type 0) / emit. NAME must be new.
//   osd crush tunables PROFILE    crush::TunablesFor(PROFILE, current).
//   osd crush set-tunable T V     sets that tunable.
//   osd out|in|down|up N ...      out: reweight 0; in: reweight 1.0 if out
//                                 (a partial reweight stays); down/up: the
//                                 up bit. N must exist.
//   osd reweight N W              reweight = (int)(W * 0x10000), as Ceph.
//   osd primary-affinity N A      primary affinity = (int)(A * 0x10000).
//   osd pg-upmap PGID N ...       pg_upmap[PGID] = the OSDs (repeats dropped);
//                                 PGID must exist (pool, seed < pg_num), the
//                                 count be within the pool's min_size..size,
//                                 every OSD exist (OSDMonitor's checks).
//   osd pg-upmap-items PGID F T ...  pg_upmap_items[PGID] = the pairs (F == T
//                                 and repeats dropped, as Ceph); at most size
//                                 pairs; every OSD must exist.
//   osd rm-pg-upmap[-items] PGID  erases that entry (none is fine).
//   osd purge N                   N must be down (Ceph refuses up OSDs):
//                                 removed from the crush map (if named there)
//                                 and from the osdmap (state 0, primary
//                                 affinity reset; max_osd unchanged), and its
//                                 osd_usage entry dropped.
//   osd pool set POOL VAR V       POOL by name, else by id. size: 1..10, not
//                                 for erasure-coded pools, min_size becomes
//                                 size - size/2 (Pacific's default); min_size:
//                                 1..size (k..size for EC); pg_num: sets
//                                 pg_num and pgp_num (the end state the mgr
//                                 walks pgp_num to since Nautilus); pgp_num:
//                                 1..pg_num; crush_rule: a rule by name, else
//                                 id, of the pool's type whose min/max size
//                                 admits the pool size.
//   add-host NAME osds=K weight=W [class=C] [LOC]  CreateBucket(NAME, host,
//                                 LOC), then K OSDs: each takes the lowest id
//                                 that exists neither in the osdmap nor as a
//                                 crush device (Ceph's _allocate_osd_id() reuses
//                                 the lowest free id below max_osd, else
//                                 max_osd), is created up and in and inserted
//                                 as osd.<id> under NAME with weight W (and
//                                 class C).
//   drain NAME                    AdjustItemWeight 0 on device NAME or on every
//                                 device under bucket NAME (everywhere linked).
// LOC words (TYPE=NAME) must name known types above the item's type (never
// the device type) and, for existing names, buckets of that type.
// A change with at least one op bumps the epoch once.
// Thread-safety: a pure function over values.
#ifndef CRUSHKIT_OSDMAP_CHANGES_APPLY_CHANGE_H_
#define CRUSHKIT_OSDMAP_CHANGES_APPLY_CHANGE_H_

#include <memory>

#include "absl/status/statusor.h"

#include "crush/map.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

// Returns `before` with every op of `change` applied in order, or an error
// and nothing applied. Each failing op is reported (gcc-style diagnostics as
// ParseChange's, up to kMaxChangeErrors, against change.file_name/lines) and
// skipped, so later ops are still checked against the state as it would be.
// REQUIRES: `change` came from ParseChange() (ops built by hand must fill the
// fields ParseChange fills for their kind: osd_ids, weights, names).
// Errors: kInvalidArgument with the diagnostics; kInternal if the edited
// crush map or state fails validation (a crushkit bug).
// Cost: a copy of `before` plus the edits; each op copies the crush model
// and OSD list once (to undo it on failure).
absl::StatusOr<ClusterState> ApplyChange(const ClusterState& before, const ChangeList& change);

// ApplyChange() and, when the change edits the crush map, that map built
// (ApplyChange builds it to check the edit anyway), so the caller maps the
// changed state without building it again; crush_map is null when the crush
// map is unchanged. Errors as ApplyChange.
struct AppliedChange {
  ClusterState state;
  std::shared_ptr<const crush::CrushMap> crush_map;
};

absl::StatusOr<AppliedChange> ApplyChangeBuilt(const ClusterState& before,
                                               const ChangeList& change);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CHANGES_APPLY_CHANGE_H_
