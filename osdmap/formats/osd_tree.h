// The OSD tree Ceph prints for `osdmaptool --tree` and `ceph osd tree`
// (OSDMap::print_tree with no filter): the crush hierarchy walked from its
// non-shadow roots, children sorted by (device class, name), followed by the
// "stray" OSDs that exist but sit in no bucket, each with its OSD status,
// reweight and primary affinity. Byte-identical with Ceph 16.2.
// Pure functions of a ClusterState; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSD_TREE_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSD_TREE_H_

#include <string>

#include "absl/status/statusor.h"

#include "crush/edit/formatter_sink.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap {

// The plain table (OSDTreePlainDumper rendered through TextTable):
//   ID  CLASS  WEIGHT   TYPE NAME               STATUS  REWEIGHT  PRI-AFF
// Errors: kUnimplemented where Ceph's own output is undefined or it
// crashes (a child bucket without a name, a bucket hierarchy deeper than
// the crush map has buckets, i.e. a cycle).
absl::StatusOr<std::string> FormatOsdTreePlain(const ClusterState& state);

// The same walk as compact JSON (OSDTreeFormattingDumper under Ceph's
// JSONFormatter): {"nodes":[...],"stray":[...]} followed by a newline, as
// `osdmaptool --tree json` prints it. Same errors as FormatOsdTreePlain.
absl::StatusOr<std::string> FormatOsdTreeJson(const ClusterState& state);

// The same under Ceph's pretty JSONFormatter (`osdmaptool --tree
// json-pretty`): four-space indentation, `"key": value`, empty sections
// inline ({} and []), then the formatter's newline and osdmaptool's endl.
// Same errors as FormatOsdTreePlain.
absl::StatusOr<std::string> FormatOsdTreeJsonPretty(const ClusterState& state);

// OSDMap::print_tree(f, nullptr): the "nodes" and "stray" arrays of "item"
// objects (CrushTreeDumper::FormattingDumper with OSDTreeFormattingDumper's
// fields) written to `f`, inside whatever section the caller opened
// (osdmaptool opens "tree"). On error `f` may hold part of the tree. Same
// errors as FormatOsdTreePlain.
absl::Status DumpOsdTree(const ClusterState& state, crush::FormatterSink& f);

// Ceph's weightf_t stream output: "-" below -0.01, "0" below 0.000001,
// otherwise fixed with 5 decimals ("1.00000").
std::string FormatWeightF(float v);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSD_TREE_H_
