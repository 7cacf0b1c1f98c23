// Converting a legacy CRUSH map, where each device class had its own
// parallel hierarchy ("host1" and "host1-ssd" under roots "default" and
// "ssd"), to device classes without moving data: CrushWrapper::reclassify()
// and CrushWrapper::set_subtree_class() of Ceph 16.2, as `crushtool
// --reclassify` and `--set-subtree-class` run them, giving the bytes
// crushtool writes and the progress lines it prints.
//
// The trick Ceph plays (and this reproduces id for id): a reclassified
// bucket moves to a new id and its old id becomes the id of its shadow
// bucket for the class ("default~hdd"), so rules that took the old bucket
// now take the class's shadow tree with the same ids, hence the same
// straw2 draws. Buckets matched by a --reclassify-bucket pattern
// ("%-ssd") hand their items to a base bucket ("host1", created if
// missing) and their ids to its shadow bucket.
//
// Errors carry the errno Ceph returns (crush/edit/edit.h's conventions, readable
// with CephErrno()); kInternal means Ceph crashes or asserts on this input
// (a null name streamed, a device used as a base bucket, a bucket cycle),
// kUnimplemented that it reads uninitialised memory. On error the map is
// partly edited, as Ceph leaves it.
// Cost: a shadow-tree rebuild per reclassified root and one per inserted
// item (O(classes x buckets x items) each, crush/edit/edit.h).
// Thread-safety: functions on values; thread-compatible.
#ifndef CRUSHKIT_CRUSH_EDIT_RECLASSIFY_H_
#define CRUSHKIT_CRUSH_EDIT_RECLASSIFY_H_

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"

#include "crush/model.h"

namespace crushkit::crush {

// What to convert (crushtool's --reclassify-root and --reclassify-bucket),
// processed in key order as Ceph's std::maps are.
struct ReclassifySpec {
  // Root bucket name -> the class its devices form: the whole subtree keeps
  // its ids as the class's shadow tree and gets new ids itself.
  std::map<std::string, std::string> roots;
  // Match -> (class, default parent). A match is "prefix%", "%suffix" or a
  // bucket name; the rest of a matching bucket's name (or, for a plain name,
  // the default parent) names its base bucket, created under the default
  // parent when it does not exist.
  std::map<std::string, std::pair<std::string, std::string>> buckets;
};

// CrushWrapper::reclassify(). Appends to *log the lines Ceph prints on
// stdout ("classify_root default (-1) as hdd", "  renumbering bucket -1 ->
// -5", "match %-ssd to node1-ssd basename node1", "moving items from ...",
// and the messages of the failures Ceph explains: "root R does not exist",
// "  rule N includes take on root R class C", "default parent P does not
// exist", "reclassify err from insert_item: (22) Invalid argument", ...).
// Errors: kInvalidArgument for the refusals above and a rule's take of an
// unnamed item; the errno of a failed insert or shadow-tree rebuild.
absl::Status Reclassify(MapModel& map, const ReclassifySpec& spec, std::string* log);

// CrushWrapper::set_subtree_class(): every device below the bucket named
// `subtree` (any depth) gets class `class_name`, replacing its class; the
// class is created first (even when `subtree` turns out to be a device).
// The shadow trees are not rebuilt. Errors: kNotFound for an unknown name,
// a device, or a missing bucket below it (devices reached before that keep
// their new class); kInternal for a bucket cycle (Ceph loops forever).
// crushtool ignores this status except for kInternal.
absl::Status SetSubtreeClass(MapModel& map, std::string_view subtree, std::string_view class_name);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_RECLASSIFY_H_
