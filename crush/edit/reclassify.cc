// CrushWrapper::reclassify() and set_subtree_class() (Ceph 16.2). The phases
// and their scan orders follow Ceph's exactly: the ids handed out, the order
// of the log lines and of the inserts are all visible in crushtool's output
// and written map.
#include "crush/edit/reclassify.h"

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/edit/edit.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"
#include "crush/util/text_format.h"

namespace crushkit::crush {
namespace {

using internal::Editor;
using internal::ErrnoStatus;
using Names = std::map<std::int32_t, std::string>;
using util::CppStrerror;

bool CephWouldCrash(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInternal || s.code() == absl::StatusCode::kUnimplemented;
}

// name_exists() / get_item_id() on a given name map (Ceph's reverse map
// keeps the highest id of a repeated name).
bool NameIn(const Names& names, const std::string& name) {
  for (const auto& [id, n] : names) {
    if (n == name) return true;
  }
  return false;
}

ItemId IdIn(const Names& names, const std::string& name) {
  ItemId id = 0;
  for (const auto& [i, n] : names) {
    if (n == name) id = i;
  }
  return id;
}

// Ceph builds std::strings from get_item_name()/get_type_name() here; a
// missing name is a null char* and a std::logic_error (abort).
absl::StatusOr<std::string> NameOf(const Names& names, std::int32_t id, const char* what) {
  auto it = names.find(id);
  if (it == names.end()) {
    return absl::InternalError(std::string(what) + " " + std::to_string(id) +
                               " has no name; Ceph builds a std::string from a null pointer");
  }
  return it->second;
}

// get_new_bucket_id(): the first empty slot, else a new one at the end
// (max_buckets grows by one). *grew tells which.
ItemId NewBucketId(MapModel& m, bool* grew) {
  ItemId id = -1;
  while (BucketSlot(id) < m.max_buckets() &&
         m.buckets[static_cast<std::size_t>(BucketSlot(id))].alg != BucketAlg::kNone) {
    --id;
  }
  *grew = BucketSlot(id) == m.max_buckets();
  if (*grew) m.buckets.emplace_back();
  return id;
}

// crush_make_bucket(alg, hash, type, 0 items) stored straight into slot `id`
// (no crush_add_bucket, no choose_args bookkeeping), as reclassify does.
absl::Status PlaceEmptyBucket(MapModel& m, ItemId id, BucketAlg alg, std::uint8_t hash,
                              std::uint16_t type) {
  auto made = MakeBucket(alg, hash, type, {}, {}, m.tunables.straw_calc_version);
  if (!made.ok()) return absl::InternalError("crush_make_bucket fails here; Ceph crashes");
  made->id = id;
  m.buckets[static_cast<std::size_t>(BucketSlot(id))] = std::move(*made);
  return absl::OkStatus();
}

// Ceph's operator<< for map<string,string>: "{k=v,k=v}".
std::string FormatLocation(const Location& loc) {
  std::string s = "{";
  for (auto it = loc.begin(); it != loc.end(); ++it) {
    if (it != loc.begin()) s += ",";
    s += it->first + "=" + it->second;
  }
  return s + "}";
}

class Reclassifier {
 public:
  Reclassifier(MapModel& map, std::string* log) : ed_(map), m_(map), log_(*log) {}

  absl::Status Run(const ReclassifySpec& spec);

 private:
  absl::Status ClassifyRoot(const std::string& root, const std::string& class_name);
  absl::Status CheckRulesForRoot(const std::string& root, ItemId root_id);
  absl::Status ClassifyBuckets(const std::string& match, const std::string& class_name,
                               const std::string& default_parent);
  absl::StatusOr<bool> MatchBasename(const std::string& match, const std::string& name,
                                     const std::string& default_parent, std::string* basename);
  absl::Status MoveItems(ItemId from_id, ItemId to_id);
  absl::Status LinkBucket(ItemId id, const Location& loc);
  absl::Status LinkOrphanBases();
  int ItemWeightInLoc(ItemId id, const Location& loc) const;
  bool HasNonShadowParent(ItemId id) const;
  absl::Status Rebuild();
  absl::Status InsertFailed(const absl::Status& s);

  Editor ed_;
  MapModel& m_;
  std::string& log_;

  // classify_bucket state, as in Ceph: source bucket -> base bucket, the
  // class mappings and names applied at the end, and the bases created.
  std::map<ItemId, ItemId> send_to_;
  std::map<ItemId, std::map<std::int32_t, ItemId>> new_class_bucket_;
  std::map<ItemId, std::string> new_bucket_names_;
  std::map<ItemId, Location> new_buckets_;
  std::map<std::string, ItemId> new_bucket_by_name_;
  // Ceph's reverse name map during classify_bucket: built before the first
  // lookup and not told about the bases created meanwhile (reclassify sets
  // name_map[] directly), so a base created for one bucket is "already
  // creating", not "have", for the next.
  Names names_at_start_;
};

absl::Status Reclassifier::Run(const ReclassifySpec& spec) {
  for (const auto& [root, class_name] : spec.roots) {
    CRUSH_RETURN_IF_ERROR(ClassifyRoot(root, class_name));
  }
  names_at_start_ = m_.item_names;
  for (const auto& [match, target] : spec.buckets) {
    CRUSH_RETURN_IF_ERROR(ClassifyBuckets(match, target.first, target.second));
  }
  for (const auto& [from, to] : send_to_) CRUSH_RETURN_IF_ERROR(MoveItems(from, to));
  CRUSH_RETURN_IF_ERROR(LinkOrphanBases());
  for (const auto& [base, by_class] : new_class_bucket_) {
    for (const auto& [cls, id] : by_class) m_.class_buckets[base][cls] = id;
  }
  for (const auto& [id, name] : new_bucket_names_) m_.item_names[id] = name;
  return Rebuild();
}

absl::Status Reclassifier::Rebuild() {
  absl::Status s = ed_.RebuildRootsWithClasses();
  if (!s.ok() && !CephWouldCrash(s)) {
    log_ += "failed to rebuild_roots_with_classes: " + CppStrerror(CephErrno(s)) + "\n";
  }
  return s;
}

absl::Status Reclassifier::InsertFailed(const absl::Status& s) {
  if (!CephWouldCrash(s)) {
    log_ += "reclassify err from insert_item: " + CppStrerror(CephErrno(s)) + "\n";
  }
  return s;
}

absl::Status Reclassifier::CheckRulesForRoot(const std::string& root, ItemId root_id) {
  for (std::size_t r = 0; r < m_.rules.size(); ++r) {
    if (!m_.rule_exists[r]) continue;
    for (const RuleStep& step : m_.rules[r].steps) {
      if (step.op != RuleOp::kTake) continue;
      ItemId original = 0;
      std::int32_t cls = -1;
      if (!ed_.SplitIdClass(step.arg1, &original, &cls)) {
        // Ceph returns split_id_class()'s error without a message.
        return ErrnoStatus(22, "rule " + std::to_string(r) + " takes an item with no valid name");
      }
      if (cls >= 0 && original == root_id) {
        log_ += "  rule " + std::to_string(r) + " includes take on root " + root + " class " +
                std::to_string(cls) + "\n";
        return ErrnoStatus(22, "a rule takes a class of root " + root);
      }
    }
  }
  return absl::OkStatus();
}

// Moves every bucket below `root` (breadth first, last child first) to a
// new id and leaves an empty bucket named "<name>~<class>" at the old id,
// recorded as the shadow of the moved bucket; the rebuild then clones the
// moved tree into those old ids.
absl::Status Reclassifier::ClassifyRoot(const std::string& root, const std::string& class_name) {
  if (!ed_.NameExists(root)) {
    log_ += "root " + root + " does not exist\n";
    return ErrnoStatus(22, "root " + root + " does not exist");
  }
  const ItemId root_id = ed_.ItemIdOf(root);
  const std::int32_t class_id = ed_.GetOrCreateClassId(class_name);
  log_ += "classify_root " + root + " (" + std::to_string(root_id) + ") as " + class_name + "\n";
  CRUSH_RETURN_IF_ERROR(CheckRulesForRoot(root, root_id));

  std::map<ItemId, ItemId> renumber;
  std::deque<ItemId> queue = {root_id};
  while (!queue.empty()) {
    const ItemId id = queue.front();
    queue.pop_front();
    if (m_.FindBucket(id) == nullptr) {
      log_ += "cannot find bucket " + std::to_string(id) + ": " + CppStrerror(2) + "\n";
      return ErrnoStatus(2, "cannot find bucket " + std::to_string(id));
    }
    bool grew = false;
    const ItemId new_id = NewBucketId(m_, &grew);
    log_ += "  renumbering bucket " + std::to_string(id) + " -> " + std::to_string(new_id) + "\n";
    renumber[id] = new_id;
    Bucket moved = std::move(m_.buckets[static_cast<std::size_t>(BucketSlot(id))]);
    moved.id = new_id;
    const std::vector<ItemId> children = moved.items;
    const BucketAlg alg = moved.alg;
    const std::uint8_t hash = moved.hash;
    const std::uint16_t type = moved.type;
    m_.buckets[static_cast<std::size_t>(BucketSlot(new_id))] = std::move(moved);
    CRUSH_RETURN_IF_ERROR(PlaceEmptyBucket(m_, id, alg, hash, type));
    for (auto& [index, cmap] : m_.choose_args) {
      auto it = cmap.find(id);
      if (it == cmap.end()) {
        cmap.erase(new_id);
        continue;
      }
      ChooseArg arg = std::move(it->second);
      cmap.erase(it);
      cmap[new_id] = std::move(arg);
    }
    m_.class_buckets.erase(id);
    m_.class_buckets[new_id][class_id] = id;
    CRUSH_ASSIGN_OR_RETURN(std::string name, NameOf(m_.item_names, id, "bucket"));
    m_.item_names[new_id] = name;
    m_.item_names[id] = name + "~" + class_name;
    for (ItemId child : children) {
      if (child < 0) queue.push_front(child);
    }
  }
  for (Bucket& b : m_.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    for (ItemId& item : b.items) {
      if (auto it = renumber.find(item); it != renumber.end()) item = it->second;
    }
  }
  return Rebuild();
}

// Ceph's pattern test: "%suffix", "prefix%", or the whole name (whose base
// is then the default parent). Returns false for no match.
absl::StatusOr<bool> Reclassifier::MatchBasename(const std::string& match, const std::string& name,
                                                 const std::string& default_parent,
                                                 std::string* basename) {
  if (match.empty()) {
    return absl::InternalError("an empty --reclassify-bucket match; Ceph reads match[-1]");
  }
  if (match.front() == '%') {
    const std::size_t keep = name.size() - match.size() + 1;
    if (match.substr(1) != name.substr(keep)) return false;
    *basename = name.substr(0, keep);
  } else if (match.back() == '%') {
    if (match.substr(0, match.size() - 1) != name.substr(0, match.size() - 1)) return false;
    *basename = name.substr(match.size() - 1);
  } else if (match == name) {
    *basename = default_parent;
  } else {
    return false;
  }
  return true;
}

absl::Status Reclassifier::ClassifyBuckets(const std::string& match, const std::string& class_name,
                                           const std::string& default_parent) {
  const Names& names = names_at_start_;
  if (!NameIn(names, default_parent)) {
    log_ += "default parent " + default_parent + " does not exist\n";
    return ErrnoStatus(22, "default parent " + default_parent + " does not exist");
  }
  const ItemId parent_id = IdIn(names, default_parent);
  const Bucket* parent = m_.FindBucket(parent_id);
  if (parent == nullptr) {
    return absl::InternalError("default parent " + default_parent +
                               " is not a bucket; Ceph dereferences an error pointer");
  }
  CRUSH_ASSIGN_OR_RETURN(const std::string parent_type,
                         NameOf(m_.type_names, parent->type, "bucket type"));
  log_ += "classify_bucket " + match + " as " + class_name + " default bucket " + default_parent +
          " (" + parent_type + ")\n";
  const std::int32_t class_id = ed_.GetOrCreateClassId(class_name);

  // max_buckets is re-read: bases created below can extend the scan.
  for (int slot = 0; slot < m_.max_buckets(); ++slot) {
    if (m_.buckets[static_cast<std::size_t>(slot)].alg == BucketAlg::kNone) continue;
    const ItemId bid = -1 - slot;
    if (ed_.IsShadow(bid)) continue;
    CRUSH_ASSIGN_OR_RETURN(const std::string name, NameOf(m_.item_names, bid, "bucket"));
    if (name.size() < match.size()) continue;
    std::string basename;
    CRUSH_ASSIGN_OR_RETURN(bool matched, MatchBasename(match, name, default_parent, &basename));
    if (!matched) continue;
    log_ += "match " + match + " to " + name + " basename " + basename + "\n";
    ItemId base_id = 0;
    if (NameIn(names, basename)) {
      base_id = IdIn(names, basename);
      log_ += "  have base " + std::to_string(base_id) + "\n";
    } else if (auto it = new_bucket_by_name_.find(basename); it != new_bucket_by_name_.end()) {
      base_id = it->second;
      log_ += "  already creating base " + std::to_string(base_id) + "\n";
    } else {
      bool grew = false;
      base_id = NewBucketId(m_, &grew);
      if (grew && !m_.choose_args.empty()) {
        return absl::UnimplementedError(
            "a new bucket slot with choose_args; Ceph leaves its choose_args uninitialised "
            "(realloc) and reads them");
      }
      const Bucket& b = m_.buckets[static_cast<std::size_t>(slot)];
      CRUSH_RETURN_IF_ERROR(PlaceEmptyBucket(m_, base_id, b.alg, b.hash, b.type));
      m_.item_names[base_id] = basename;
      new_bucket_by_name_[basename] = base_id;
      log_ += "  created base " + std::to_string(base_id) + "\n";
      new_buckets_[base_id][parent_type] = default_parent;
    }
    send_to_[bid] = base_id;
    new_class_bucket_[base_id][class_id] = bid;
    new_bucket_names_[bid] = basename + "~" + m_.class_names[class_id];
    for (ItemId item : m_.buckets[static_cast<std::size_t>(slot)].items) {
      if (item >= 0) m_.class_map[item] = class_id;
    }
  }
  return absl::OkStatus();
}

// get_item_weight_in_loc(): the item's weight in the first bucket of `loc`
// holding it, else -ENOENT.
int Reclassifier::ItemWeightInLoc(ItemId id, const Location& loc) const {
  for (const auto& [type, name] : loc) {
    const Bucket* b = m_.FindBucket(ed_.ItemIdOf(name));
    if (b == nullptr) continue;
    for (std::size_t i = 0; i < b->items.size(); ++i) {
      if (b->items[i] == id) return static_cast<int>(BucketItemWeight(*b, i));
    }
  }
  return -2;
}

// link_bucket(): insert_item() of the bucket with its own weight.
absl::Status Reclassifier::LinkBucket(ItemId id, const Location& loc) {
  if (id >= 0) return ErrnoStatus(22, "link_bucket of a device");
  if (!ed_.ItemExists(id)) return ErrnoStatus(2, "bucket has no name");
  const std::string name = m_.item_names.at(id);
  const Bucket* b = m_.FindBucket(id);
  if (b == nullptr) {
    return absl::InternalError("link_bucket of missing bucket " + std::to_string(id) +
                               "; Ceph dereferences an error pointer");
  }
  const float weight = static_cast<float>(b->weight) / static_cast<float>(0x10000);
  return ed_.InsertItem(id, weight, name, loc, true);
}

// Copies the items of bucket `from_id` into its base `to_id`: devices with
// their weight there, child buckets as the bases they were sent to.
absl::Status Reclassifier::MoveItems(ItemId from_id, ItemId to_id) {
  if (m_.FindBucket(to_id) == nullptr) {
    return absl::InternalError("base " + std::to_string(to_id) +
                               " is not a bucket; Ceph dereferences an error pointer");
  }
  CRUSH_ASSIGN_OR_RETURN(const std::string from_name, NameOf(m_.item_names, from_id, "bucket"));
  CRUSH_ASSIGN_OR_RETURN(const std::string to_name, NameOf(m_.item_names, to_id, "bucket"));
  log_ += "moving items from " + std::to_string(from_id) + " (" + from_name + ") to " +
          std::to_string(to_id) + " (" + to_name + ")\n";
  // Buckets are re-found each time: inserts may create buckets and move the
  // slot array; `from` may even grow (when it is its own base).
  for (std::size_t j = 0; j < m_.FindBucket(from_id)->items.size(); ++j) {
    const ItemId item = m_.FindBucket(from_id)->items[j];
    CRUSH_ASSIGN_OR_RETURN(const std::string to_type,
                           NameOf(m_.type_names, m_.FindBucket(to_id)->type, "bucket type"));
    const Location to_loc = {{to_type, m_.item_names[to_id]}};
    absl::Status s;
    if (item >= 0) {
      if (ed_.SubtreeContains(to_id, item)) continue;
      CRUSH_ASSIGN_OR_RETURN(const std::string from_type,
                             NameOf(m_.type_names, m_.FindBucket(from_id)->type, "bucket type"));
      const Location from_loc = {{from_type, m_.item_names[from_id]}};
      const float weight =
          static_cast<float>(ItemWeightInLoc(item, from_loc)) / static_cast<float>(0x10000);
      CRUSH_ASSIGN_OR_RETURN(const std::string item_name, NameOf(m_.item_names, item, "device"));
      s = ed_.InsertItem(item, weight, item_name, to_loc, true);
    } else {
      auto sent = send_to_.find(item);
      if (sent == send_to_.end()) {
        // Ceph says so only in its debug log (lderr), then fails.
        return ErrnoStatus(22, "item " + std::to_string(item) + " in bucket " +
                                   std::to_string(from_id) + " is not also a reclassified bucket");
      }
      if (ed_.SubtreeContains(to_id, sent->second)) continue;
      s = LinkBucket(sent->second, to_loc);
    }
    if (!s.ok()) return InsertFailed(s);
  }
  return absl::OkStatus();
}

// get_immediate_parent_id() >= 0: some non-shadow bucket holds `id`.
bool Reclassifier::HasNonShadowParent(ItemId id) const {
  for (std::size_t slot = 0; slot < m_.buckets.size(); ++slot) {
    const Bucket& b = m_.buckets[slot];
    if (b.alg == BucketAlg::kNone || ed_.IsShadow(-1 - static_cast<ItemId>(slot))) continue;
    for (ItemId item : b.items) {
      if (item == id) return true;
    }
  }
  return false;
}

absl::Status Reclassifier::LinkOrphanBases() {
  for (const auto& [id, loc] : new_buckets_) {
    if (HasNonShadowParent(id)) continue;
    log_ += "new bucket " + std::to_string(id) + " missing parent, adding at " +
            FormatLocation(loc) + "\n";
    if (absl::Status s = LinkBucket(id, loc); !s.ok()) return InsertFailed(s);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Reclassify(MapModel& map, const ReclassifySpec& spec, std::string* log) {
  CRUSH_RETURN_IF_ERROR(internal::Editor(map).CheckAcyclic());
  return Reclassifier(map, log).Run(spec);
}

absl::Status SetSubtreeClass(MapModel& map, std::string_view subtree, std::string_view class_name) {
  Editor ed(map);
  if (!ed.NameExists(subtree)) return ErrnoStatus(2, "no item named " + std::string(subtree));
  const std::int32_t class_id = ed.GetOrCreateClassId(std::string(class_name));
  CRUSH_RETURN_IF_ERROR(ed.CheckAcyclic());
  std::deque<ItemId> queue = {ed.ItemIdOf(subtree)};
  while (!queue.empty()) {
    const Bucket* b = map.FindBucket(queue.front());
    if (b == nullptr) return ErrnoStatus(2, "bucket " + std::to_string(queue.front()) + " dne");
    queue.pop_front();
    for (ItemId item : b->items) {
      if (item >= 0) {
        map.class_map[item] = class_id;
      } else {
        queue.push_back(item);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace crushkit::crush
