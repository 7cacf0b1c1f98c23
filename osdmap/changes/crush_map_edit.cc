#include "osdmap/changes/crush_map_edit.h"

#include <string>
#include <vector>

#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/change_op_table.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

absl::StatusOr<crush::MapModel> EditCrushMap(const crush::MapModel& map, const ChangeList& change,
                                             crush::CephRelease release) {
  std::vector<ChangeDiagnostic> refused;
  for (const ChangeOp& op : change.ops) {
    if (internal::SpecOf(op.kind).crush_map_op) continue;
    refused.push_back({op.command.line, op.command.column, static_cast<int>(op.command.text.size()),
                       "'" + op.text +
                           "' changes the osdmap, not the crush map; use it with "
                           "`crushkit plan` on a cluster state"});
  }
  if (!refused.empty()) {
    return absl::InvalidArgumentError(
        FormatChangeDiagnostics(change.file_name, change.lines, refused));
  }
  ClusterState st;
  st.ceph_release = release;
  st.crush = map;
  st.osds.resize(static_cast<std::size_t>(map.max_devices > 0 ? map.max_devices : 0));
  for (const auto& [id, name] : map.item_names) {
    if (id < 0 || id >= map.max_devices) continue;
    OsdInfo& osd = st.osds[static_cast<std::size_t>(id)];
    osd.state = kOsdExists | kOsdUp;
    osd.weight = 0x10000;  // CEPH_OSD_IN
  }
  absl::StatusOr<ClusterState> after = ApplyChange(st, change);
  if (!after.ok()) return after.status();
  return std::move(after->crush);
}

}  // namespace crushkit::osdmap
