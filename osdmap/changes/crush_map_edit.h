// `crushkit edit`: the crush-map operations of the change-file language
// (osdmap/changes/change_ops.h) applied to a crush map alone, with the planner's
// semantics (osdmap/changes/apply_change.h, i.e. what Ceph's monitor does for each
// command) and its located diagnostics. Several operations form one atomic
// edit: all apply, or none.
// Thread-safety: a pure function over values.
#ifndef CRUSHKIT_OSDMAP_CHANGES_CRUSH_MAP_EDIT_H_
#define CRUSHKIT_OSDMAP_CHANGES_CRUSH_MAP_EDIT_H_

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "crush/model.h"
#include "osdmap/changes/change_ops.h"

namespace crushkit::osdmap {

// Applies every op of `change` to `map` as ApplyChange would to a cluster
// whose OSDs are the map's devices (existing, up and in). Allowed: the
// `osd crush ...` commands, `add-host`, `drain` and `osd purge`; any other
// op (out/in/down/up, reweight, primary-affinity, upmaps, pool settings) is
// an error at its command word, since a crush map has no such state.
// Errors: kInvalidArgument with gcc-style diagnostics (all of them, as
// ApplyChange); kInternal if the result fails validation.
absl::StatusOr<crush::MapModel> EditCrushMap(const crush::MapModel& map, const ChangeList& change,
                                             crush::CephRelease release);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CHANGES_CRUSH_MAP_EDIT_H_
