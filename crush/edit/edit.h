// The one CRUSH map-editing library: CrushWrapper's edits as pure functions
// on a MapModel, giving the bytes Ceph's crushtool 16.2 writes for the same
// edit (weights propagated to ancestors, straw/list/tree derived arrays
// rebuilt by builder.h, choose_args weight sets kept in step, the bucket ids
// Ceph assigns). Used by the crushtool front's editing flags, the change
// planner (osdmap/changes/apply_change.h) and `crushkit strategies`.
//
// Shadow trees: each function rebuilds the device-class shadow trees exactly
// where its CrushWrapper counterpart does (insert_item, update_item,
// remove_item, move_bucket, reweight call rebuild_roots_with_classes()
// internally; adjust_item_weight does not, it adjusts the shadow buckets
// holding the item in place). That is what crushtool 16.2 writes; calling
// RebuildRootsWithClasses() again afterwards is harmless (it keeps shadow ids
// and recomputes the same clones).
//
// Errors carry the errno Ceph returns, recoverable with CephErrno():
// kInvalidArgument EINVAL, kNotFound ENOENT, kAlreadyExists EEXIST,
// kFailedPrecondition ENOTEMPTY, kUnavailable EBUSY, kAborted ELOOP,
// kOutOfRange EOVERFLOW, kUnknown "errno N: ..." any other errno. kInternal
// and kUnimplemented mean Ceph would crash, hang or use memory it does not
// own here (an assertion, a bucket cycle, a short weight set, emptying a
// list, uniform or tree bucket, whose item array builder.c frees and keeps
// using); the map is then unspecified. On any error the map may be partly
// edited, as Ceph leaves it.
//
// After a shadow-tree rebuild on a map with choose_args, Ceph leaves clones
// of buckets without a weight set with an allocated, empty weight set and
// asserts on the next weight adjustment touching them. That state is
// modelled within one call (e.g. update_item's unlink, rebuild, insert gives
// kInternal where Ceph asserts) but is not part of MapModel (it is never
// encoded), so a later call sees such clones without a weight set and goes
// on where Ceph, in one process, would assert. New tree nodes start at 0
// where Ceph leaves them uninitialised (crush/builder.h).
//
// Cost: Ceph's algorithms, kept in shape: an edit scans all buckets per
// touched item (O(buckets x items) and more with choose_args, see
// AdjustItemWeight); a shadow-tree rebuild is O(classes x buckets x items).
// Fine for maps of thousands of buckets; not meant for a hot path.
// Thread-safety: functions on values; thread-compatible.
#ifndef CRUSHKIT_CRUSH_EDIT_EDIT_H_
#define CRUSHKIT_CRUSH_EDIT_EDIT_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::crush {

namespace internal {
class Editor;
}  // namespace internal

// A CRUSH location as Ceph spells it: type name -> bucket name
// ("host" -> "node3", "rack" -> "rack1", "root" -> "default").
using Location = std::map<std::string, std::string>;

// The errno (positive) a Status from this library stands for, as described
// above; EINVAL for codes not listed, 0 for OK.
int CephErrno(const absl::Status& status);

// True for the errors that mean Ceph itself would crash, hang or misuse
// memory on this edit (kInternal, kUnimplemented; see above).
inline bool CephWouldCrash(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInternal ||
         status.code() == absl::StatusCode::kUnimplemented;
}

// The message Ceph prints for `status` (its text without the "errno N: "
// prefix kUnknown statuses carry).
std::string CephErrorText(const absl::Status& status);

// is_valid_crush_name(): non-empty, only [-_.0-9A-Za-z].
bool IsValidCrushName(std::string_view name);

// is_shadow_item(): `id` has a name that is not a valid crush name (the
// device-class clones, "host1~ssd"); an unnamed item is not a shadow.
bool IsShadowItem(const MapModel& map, ItemId id);

// find_nonshadow_roots(): the buckets no bucket holds, shadow roots left
// out, in ascending id order. Cost: O(buckets x items).
std::set<ItemId> FindNonshadowRoots(const MapModel& map);

// get_default_bucket_alg(): the first allowed of straw2, straw, tree, list,
// uniform; kNone if allowed_bucket_algs allows none of them.
BucketAlg DefaultBucketAlg(const MapModel& map);

// check_item_loc(): true if `item` is directly in the bucket named for the
// lowest type of `loc` that names a type of the map (higher levels are not
// checked); `weight` (optional) receives its weight there. False if that
// name is unknown or a device, or no type of `loc` exists.
bool CheckItemLoc(const MapModel& map, ItemId item, const Location& loc, Weight* weight = nullptr);

// The item (device or bucket, shadow buckets included) named `name`; with
// duplicate names the highest id, as Ceph's reverse name map. Errors:
// kNotFound. Cost: O(names).
absl::StatusOr<ItemId> FindItem(const MapModel& map, std::string_view name);

// CrushWrapper::adjust_item_weight: sets `id`'s weight (its first position)
// in every bucket that holds it, shadow buckets included, and propagates
// each bucket's new weight to its parents. Straw (v1) buckets get their
// straws recomputed with the map's straw_calc_version. With choose_args,
// Ceph's weight-set bookkeeping is reproduced step by step: the item's
// weight-set entries are set too, every bucket lacking a weight set in a
// choose_args map gets one (its CRUSH item weights), and the per-position
// sums are propagated upwards. Returns the number of buckets changed (0: the
// item is in no bucket; Ceph's -ENOENT, not an error here). No shadow-tree
// rebuild. Cost: O(buckets^2 x height x positions) with choose_args, as in
// Ceph. Errors: kInternal for a bucket cycle; kUnimplemented where Ceph reads
// past a weight set shorter than its bucket.
absl::StatusOr<int> AdjustItemWeight(MapModel& map, ItemId id, Weight weight);
// CrushWrapper::adjust_item_weightf: validate_weightf() first, then
// AdjustItemWeight((int)(weight * 0x10000)), both conversions as Ceph's
// x86-64 build does them: validation converts the product to uint64 and
// refuses values above INT_MAX (so NaN, -inf and weights below -1/65536 are
// refused but +inf passes and becomes INT_MIN). Errors: kOutOfRange when
// validation refuses (map unchanged), else as AdjustItemWeight.
absl::StatusOr<int> AdjustItemWeightF(MapModel& map, ItemId id, float weight);

// CrushWrapper::insert_item (crushtool --add-item ID WEIGHT NAME --loc ...):
// names `id` `name` and links it, with weight 0, under the bucket named for
// the lowest type of `loc` that exists, creating the missing lower buckets
// (default algorithm, rjenkins1; they also get zero weight-set entries); then
// sets its weight in every bucket of `loc` (weight sets too for devices),
// grows max_devices and rebuilds the shadow trees. Errors: kInvalidArgument
// for an invalid name/location, a location naming a device or a bucket of
// another type, an item already below the target, or nowhere to link it;
// kAlreadyExists if `name` belongs to another id; kAborted (ELOOP) if the
// target is below the item; kOutOfRange for a weight validate_weightf refuses.
absl::Status InsertItem(MapModel& map, ItemId id, float weight, std::string_view name,
                        const Location& loc);

// CrushWrapper::update_item (crushtool --update-item): if CheckItemLoc()
// finds the item at `loc`, adjusts its weight there (when the 16.16 value
// differs; shadow trees rebuilt) and its name; otherwise unlinks it
// everywhere (if it has a name) and InsertItem()s it. Errors as InsertItem.
absl::Status UpdateItem(MapModel& map, ItemId id, float weight, std::string_view name,
                        const Location& loc);

// CrushWrapper::remove_item (crushtool --remove-item NAME): unlinks `id`
// from every bucket holding it (weights of ancestors and weight sets
// adjusted; tree buckets keep a zero leaf, as builder.c does) and, when no
// link is left, forgets its name and class (a bucket is deleted unless
// `unlink_only`), then rebuilds the shadow trees (ignoring the rebuild's
// failure, as Ceph does). A device id found nowhere succeeds (Ceph's 0).
// Errors (unless unlink_only): kNotFound if the bucket does not exist,
// kFailedPrecondition (ENOTEMPTY) if it is not empty, kUnavailable (EBUSY)
// if a rule or the shadow table uses it.
absl::Status RemoveItem(MapModel& map, ItemId id, bool unlink_only = false);

// crushtool --add-bucket NAME TYPE [--loc ...] (do_add_bucket): a new empty
// bucket of the map's default algorithm in the first free slot, named
// `name`, then MoveBucket()d to `loc` unless `loc` is empty or it is already
// there. Returns its id. Errors: kAlreadyExists if the name exists;
// kInvalidArgument for an unknown type or type 0, no allowed default
// algorithm, or an invalid name; else as MoveBucket.
absl::StatusOr<ItemId> CreateBucket(MapModel& map, std::string_view name, std::string_view type,
                                    const Location& loc = {});

// CrushWrapper::move_bucket (crushtool --move NAME --loc ... for buckets):
// detaches the bucket from its first non-shadow parent and InsertItem()s it
// at `loc` with its weight (via float, as Ceph) without touching its own
// weight-set entries. Errors: kInvalidArgument for a device id, kNotFound
// for an unnamed id, else as InsertItem.
absl::Status MoveBucket(MapModel& map, ItemId id, const Location& loc);

// CrushWrapper::swap_bucket (OSDMonitor "osd crush swap-bucket"): buckets
// `src` and `dst` trade weights in their parents, then contents (dst gets
// src's items in id order, src gets dst's in their order) and names; the
// shadow trees are rebuilt. The monitor's own checks (src an orphan, equal
// algorithms, unless --yes-i-really-mean-it) are the caller's. Errors:
// kInvalidArgument (EINVAL) for a device, an unnamed id, or one bucket
// inside the other; kInternal where Ceph asserts (a tree bucket with more
// than one item); else as RebuildRootsWithClasses.
absl::Status SwapBucket(MapModel& map, ItemId src, ItemId dst);

// CrushWrapper::create_or_move_item (crushtool --move for devices, weight
// 0): unless already at `loc`, unlinks the item (keeping its current weight
// if linked) and InsertItem()s it there. Returns true if the map changed.
// Errors as InsertItem.
absl::StatusOr<bool> CreateOrMoveItem(MapModel& map, ItemId id, float weight, std::string_view name,
                                      const Location& loc);

// CrushWrapper::update_device_class: device `id` gets class `class_name`
// (created if new) and the shadow trees are rebuilt. Errors: kUnavailable
// (EBUSY) if it already has another class, kInvalidArgument for a bucket.
absl::Status SetDeviceClass(MapModel& map, ItemId id, std::string_view class_name);

// Many edits of one map in a row (the change planner's add-host inserts
// hundreds of devices) through one editor: each call does and returns what
// the free function of its name does on the map as it is then, but name
// lookups use an index kept across the calls (O(1) instead of a scan of
// every name, several per InsertItem) and the map's acyclicity is checked
// once. REQUIRES: nothing else changes the map while the session lives;
// `map` outlives it. Thread-compatible.
class EditSession {
 public:
  explicit EditSession(MapModel& map);
  ~EditSession();
  EditSession(const EditSession&) = delete;
  EditSession& operator=(const EditSession&) = delete;

  absl::StatusOr<ItemId> FindItem(std::string_view name) const;
  absl::Status InsertItem(ItemId id, float weight, std::string_view name, const Location& loc);
  absl::Status SetDeviceClass(ItemId id, std::string_view class_name);

 private:
  std::unique_ptr<internal::Editor> editor_;
};

// CrushWrapper::rebuild_roots_with_classes: drops classes no device or rule
// uses, deletes every shadow tree, then clones each non-shadow root per class
// (children first, item order; new ids: the old shadow id, else the lowest
// id free in the map and never a shadow id before), weight sets included.
// Errors: kInvalidArgument when a clone cannot be built (e.g. a uniform
// bucket with devices of differing weights), kUnknown (ECHILD) for an
// unnamed bucket, kInternal for a cycle.
absl::Status RebuildRootsWithClasses(MapModel& map);

// Where PopulateShadowTrees stopped: the clone whose id was already taken.
struct ShadowCloneConflict {
  ItemId original = 0;  // the bucket being cloned
  std::int32_t device_class = 0;
  ItemId shadow_id = 0;  // the id it was to get
};

// CrushWrapper::populate_classes() alone, as CrushCompiler runs it after the
// buckets of a text map: a shadow clone of every non-shadow root for every
// class (children first), clone ids taken from `shadow_ids` (bucket -> class
// -> id: the map's `id -N class C` lines) and new ids never one of those.
// Errors: kAlreadyExists when a wanted id is taken (*conflict says which;
// may be null), kInvalidArgument/kOutOfRange when an item cannot be added to
// a clone. As in Ceph, what was built before the failure stays.
absl::Status PopulateShadowTrees(
    MapModel& map, const std::map<std::int32_t, std::map<std::int32_t, std::int32_t>>& shadow_ids,
    ShadowCloneConflict* conflict = nullptr);

// CrushWrapper::reweight (crushtool --reweight): crush_reweight_bucket() on
// every non-shadow root (each bucket's item weights for child buckets and
// its weight recomputed bottom-up; list prefix sums and inner tree nodes are
// left alone, uniform buckets take the average child weight when they hold
// more buckets than devices), the same for every weight set (position 0
// written, as Ceph does), then RebuildRootsWithClasses(). Errors: kInternal
// where Ceph asserts (a 32-bit overflow, a missing child bucket).
absl::Status ReweightAll(MapModel& map);

// --- Rules ---

// get_rule_id(): the id of the rule named `name`; with repeated names the
// highest id, as Ceph's reverse map. The id may name an empty rule slot
// (a decoded map can name one). Errors: kNotFound. Cost: O(rules).
absl::StatusOr<int> FindRuleByName(const MapModel& map, std::string_view name);

// What CrushWrapper::add_simple_rule_at() builds: `take root[~class];
// chooseleaf <mode> 0 type <failure_domain>; emit` (`choose ... type 0`
// when the failure domain is empty or type 0), indep rules preceded by
// `set_chooseleaf_tries 5` and `set_choose_tries 100`.
struct SimpleRuleSpec {
  std::string name = {};
  std::string root = {};            // an item name (bucket or device)
  std::string failure_domain = {};  // a type name, or "" for type 0
  std::string device_class = {};    // "" for none
  std::string mode = {};            // "firstn" or "indep"
  RuleType type = RuleType::kReplicated;
  int id = -1;  // -1: the lowest id with neither a rule nor a ruleset
};

// CrushWrapper::add_simple_rule_at as Pacific 16.2 writes it (ruleset =
// id, sizes 1..10 for firstn and 3..20 for indep; later releases re-encode
// the header, crush/ceph_release.h). Returns the new rule's id. Errors carry
// Ceph's message: kAlreadyExists "rule NAME exists" / "rule with ruleno N
// exists" / "ruleset N exists"; kNotFound "root item R does not exist";
// kInvalidArgument "unknown type T", "device class C does not exist", "root
// R has no devices with class C", "unknown mode M"; errno 28 (ENOSPC,
// kUnknown) "failed to add rule 256 because (28) No space left on device"
// when 256 rules exist. The map is unchanged on error.
absl::StatusOr<int> AddSimpleRule(MapModel& map, const SimpleRuleSpec& spec);

// CrushWrapper::remove_rule (crushtool --remove-rule): empties rule slot
// `id` (max_rules unchanged), forgets its name and rebuilds the shadow trees
// (so classes no rule or device uses any more are dropped). Errors:
// kNotFound for an empty or out-of-range slot; else RebuildRootsWithClasses'.
absl::Status RemoveRule(MapModel& map, int id);

// OSDMap::build_simple_crush_rules with Ceph's default options: the rule
// "replicated_rule" (firstn, failure domain = the name of type 1) taking
// `root`. Errors as AddSimpleRule.
absl::Status BuildSimpleCrushRules(MapModel& map, std::string_view root);

// crush_finalize() + CrushWrapper::finalize() as crushtool runs them before
// writing: max_devices becomes one more than the highest device in any
// bucket or the highest named id, whichever is larger (so it can shrink).
void FinalizeMaxDevices(MapModel& map);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_EDIT_H_
