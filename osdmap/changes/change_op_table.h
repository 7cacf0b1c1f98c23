// Private to the change-op files: the one table that says everything the
// parser, the applier, `crushkit edit` and staged plans need to know about
// each change operation. Adding an operation is one row here plus its parse
// and apply functions; nothing else switches on ChangeOpKind for these
// properties. Not installed; not an API.
#ifndef CRUSHKIT_OSDMAP_CHANGES_CHANGE_OP_TABLE_H_
#define CRUSHKIT_OSDMAP_CHANGES_CHANGE_OP_TABLE_H_

#include <string_view>
#include <vector>

#include "osdmap/changes/change_ops.h"

namespace crushkit::osdmap::internal {

class Args;     // change_ops.cc: the argument words of one command
class Applier;  // apply_change_internal.h: applies ops to a ClusterState

// What an applied op leaves for ApplyChange to finish on the crush map.
enum class CrushEffect {
  kNone,       // osdmap only (OSD states, upmaps, pools)
  kInPlace,    // weights or tunables, adjusted in place as Ceph does: no rebuild
  kStructure,  // buckets, items, classes or rules: the shadow trees are rebuilt
};

struct ChangeOpSpec {
  ChangeOpKind kind;
  // The command words ("osd", "crush", "move") and the usage line of errors.
  std::vector<std::string_view> words;
  std::string_view usage;
  // Reads the arguments after `words` into the op; false after reporting.
  bool (*parse)(Args&, ChangeOp&);
  // Applies the op; false after reporting (the Applier undoes it).
  bool (Applier::*apply)(const ChangeOp&);
  CrushEffect crush_effect;
  // Allowed by `crushkit edit` on a bare crush map.
  bool crush_map_op;
  // Only sets weights: staged plans walk it from its old to its new value.
  bool weight_only;
  // How a staged plan's step 0 writes it so its OSDs join empty
  // (osd_crush_initial_weight = 0); nullptr: as written.
  ChangeOp (*join_empty)(ChangeOp);
};

// Every operation, in the order `crushkit plan --help`-style listings show
// them; several rows may share a kind (aliases such as rm/remove).
const std::vector<ChangeOpSpec>& ChangeOpTable();

// The first row of `kind`.
const ChangeOpSpec& SpecOf(ChangeOpKind kind);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_CHANGES_CHANGE_OP_TABLE_H_
