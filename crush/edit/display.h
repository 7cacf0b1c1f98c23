// Read-only views of a CRUSH map that Ceph's crushtool 16.2 prints: an
// item's full location (CrushWrapper::get_full_location), the order in which
// CrushTreeDumper walks the hierarchy (used by `--tree` and by the name-map
// check), the name-map check (CrushTester::check_name_maps), the overlapping
// rules warning (CrushTester::check_overlapped_rules) and the tunables
// summary of CrushWrapper::dump_tunables (profile, minimum version, feature
// bits).
//
// Where Ceph would crash on a map (an unnamed bucket met by the walk, an
// ancestor without a name or type name), these functions return kInternal
// with a message saying so, instead of guessing.
// Thread-safety: pure functions of a const MapModel.
#ifndef CRUSHKIT_CRUSH_EDIT_DISPLAY_H_
#define CRUSHKIT_CRUSH_EDIT_DISPLAY_H_

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {

// get_immediate_parent_id(id): the first non-shadow bucket (in slot order)
// holding `id`, or nullptr. Cost: O(buckets x items).
const Bucket* ImmediateParent(const MapModel& map, ItemId id);

// get_full_location(id): type name -> bucket name of every ancestor of `id`,
// following the first non-shadow bucket (in slot order) holding each item,
// up to a bucket nobody holds. Empty when `id` has no name or no parent.
// kInternal where Ceph aborts (an ancestor without a name or a type name)
// or would loop forever (a cycle through duplicate names).
// Cost: O(depth x buckets x items).
absl::StatusOr<std::map<std::string, std::string>> FullLocation(const MapModel& map, ItemId id);

// get_full_location_ordered(id): the same walk as (type name, bucket name)
// pairs, nearest ancestor first (duplicate types kept).
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> FullLocationOrdered(
    const MapModel& map, ItemId id);

// get_full_location_ordered_string(): "root=default,host=h1" (root first).
std::string FullLocationOrderedString(const std::vector<std::pair<std::string, std::string>>& path);

// get_leaves(name): the devices under the item called `name` (itself for a
// device), ascending; empty when the name is unknown or the walk meets a
// missing bucket (Ceph then returns -ENOENT with no leaves). kInternal for
// a bucket cycle, where Ceph recurses until its stack overflows.
absl::StatusOr<std::set<ItemId>> Leaves(const MapModel& map, const std::string& name);

// find_roots(): every bucket no bucket holds, shadow roots included, in
// ascending id order. Cost: O(buckets x items).
std::set<ItemId> FindAllRoots(const MapModel& map);

// One line of CrushTreeDumper's walk: the item, the bucket it was reached
// from (0 for a root), its depth and weight (its weight in that bucket,
// 16.16 converted to float as get_bucket_item_weightf does).
struct TreeItem {
  ItemId id = 0;
  ItemId parent = 0;
  int depth = 0;
  float weight = 0;
};

// CrushTreeDumper::Dumper::dump(): depth first from each root (all roots
// when `show_shadow`, else the non-shadow ones), children ordered by
// (class, "osd.%08d") for devices and by name for buckets, buckets first.
// kInternal where Ceph crashes (a child bucket without a name).
// Cost: O(items x log items) plus the root search.
absl::StatusOr<std::vector<TreeItem>> WalkTree(const MapModel& map, bool show_shadow);

// get_item_class(): the class name of `id`, or nullptr.
const std::string* ItemClassName(const MapModel& map, ItemId id);

// CrushTester::check_name_maps(max_id): walks the non-shadow tree and then
// osd.0; the first bucket without a name ("unknown item name"), device id
// >= max_id when max_id > 0 ("item id too large") or item whose type has no
// name ("unknown type name") is reported as "<what>: item#<id>". Returns ""
// when the map passes; kInternal where the walk crashes Ceph first.
absl::StatusOr<std::string> CheckNameMaps(const MapModel& map, unsigned max_id);

// CrushTester::check_overlapped_rules(): one line per size range covered by
// more than one rule of the same (ruleset, type), "overlapped rules in
// ruleset R: a, b, c" (names sorted; "rule<N>" for unnamed rules).
std::vector<std::string> OverlappedRules(const MapModel& map);

// dump_tunables()'s derived fields. `msr` selects Squid and later (Tentacle):
// a profile then also requires the default MSR tunables (100, 100), and the
// minimum version is "squid" for MSR rules or non-default MSR tunables.
std::string TunablesProfileName(const Tunables& t, bool msr);  // "jewel" ... "unknown"
bool HasOptimalTunables(const Tunables& t, bool msr);          // jewel
bool HasLegacyTunables(const Tunables& t, bool msr);           // argonaut
bool HasRuleOp(const MapModel& map, std::initializer_list<RuleOp> ops);
bool HasV2Rules(const MapModel& map);
bool HasV3Rules(const MapModel& map);
bool HasV4Buckets(const MapModel& map);
bool HasV5Rules(const MapModel& map);
bool HasMsrRules(const MapModel& map);  // a rule of type msr_firstn/msr_indep
std::string MinRequiredVersion(const MapModel& map, bool msr);  // "argonaut" ... "squid"

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_DISPLAY_H_
