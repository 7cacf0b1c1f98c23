// Failure-domain matrices of the movement report.
#include <algorithm>

#include "osdmap/planning/movement_internal.h"

namespace crushkit::osdmap::internal {
namespace {

constexpr const char* kNewCopy = "(new)";    // a hole filled: no previous holder
constexpr const char* kUnplaced = "(none)";  // an OSD outside every bucket of the type

// Child -> parent over the non-shadow buckets (the first parent by slot).
std::map<std::int32_t, std::int32_t> Parents(const crush::MapModel& map) {
  std::map<std::int32_t, bool> shadow;
  for (const auto& [orig, per_class] : map.class_buckets) {
    for (const auto& [cls, id] : per_class) shadow[id] = true;
  }
  std::map<std::int32_t, std::int32_t> parent;
  for (const crush::Bucket& b : map.buckets) {
    if (b.alg == crush::BucketAlg::kNone || shadow.contains(b.id)) continue;
    for (crush::ItemId item : b.items) parent.emplace(item, b.id);
  }
  return parent;
}

// OSD id -> domain index for every device of `map`, adding names as found
// (`known`: name -> index of `names`).
std::vector<int> IndexOsds(const crush::MapModel& map, const std::string& type,
                           std::vector<std::string>& names, std::map<std::string, int>& known) {
  std::vector<int> index;
  const Ancestry anc(map);
  const std::optional<int> type_id = anc.TypeId(type);
  if (!type_id) return index;
  for (const auto& [item, p] : anc.parents()) {
    if (item < 0) continue;
    const std::string* name = anc.Find(item, *type_id);
    if (name == nullptr) continue;
    const auto [pos, added] = known.emplace(*name, static_cast<int>(names.size()));
    if (added) names.push_back(*name);
    if (static_cast<std::size_t>(item) >= index.size())
      index.resize(static_cast<std::size_t>(item) + 1, -1);
    index[static_cast<std::size_t>(item)] = pos->second;
  }
  return index;
}

int Lookup(const std::vector<int>& index, std::int32_t osd) {
  if (osd < 0 || static_cast<std::size_t>(osd) >= index.size()) return -1;
  return index[static_cast<std::size_t>(osd)];
}

}  // namespace

Ancestry::Ancestry(const crush::MapModel& map) : map_(map), parent_(Parents(map)) {}

std::optional<int> Ancestry::TypeId(const std::string& type) const {
  for (const auto& [id, name] : map_.type_names) {
    if (name == type) return id;
  }
  return std::nullopt;
}

std::optional<std::int32_t> Ancestry::AncestorOfType(std::int32_t item, int type_id) const {
  std::int32_t cur = item;
  for (int guard = 0; guard < 1000; ++guard) {  // a cycle cannot hang the report
    auto it = parent_.find(cur);
    if (it == parent_.end()) return std::nullopt;
    cur = it->second;
    const crush::Bucket* b = map_.FindBucket(cur);
    if (b != nullptr && b->type == type_id) return cur;
  }
  return std::nullopt;
}

const std::string* Ancestry::NameOf(std::int32_t id) const {
  auto n = map_.item_names.find(id);
  return n == map_.item_names.end() ? nullptr : &n->second;
}

const std::string* Ancestry::Find(std::int32_t item, int type_id) const {
  const std::optional<std::int32_t> found = AncestorOfType(item, type_id);
  return found ? NameOf(*found) : nullptr;
}

const std::string* Ancestry::FindAbove(std::int32_t item, int type_id) const {
  const std::optional<std::int32_t> found = AncestorOfType(item, type_id);
  if (!found) return nullptr;
  auto up = parent_.find(*found);
  return up == parent_.end() ? nullptr : NameOf(up->second);
}

std::optional<DomainIndex> DomainIndex::Make(const ClusterState& before, const ClusterState& after,
                                             const std::string& type) {
  DomainIndex d;
  d.type_ = type;
  std::map<std::string, int> known;
  d.before_ = IndexOsds(before.crush, type, d.names_, known);
  d.after_ = IndexOsds(after.crush, type, d.names_, known);
  if (d.before_.empty() && d.after_.empty()) return std::nullopt;
  d.side_ = d.names_.size() + 2;
  return d;
}

DomainIndex::Counts& DomainIndex::Cell(int from, int to) {
  if (side_ * side_ > kMaxDenseCells) return sparse_[{from, to}];
  // Allocated on the first shard: most copies of an index (one per
  // comparing thread and matrix) see some, but not all.
  if (dense_.empty()) dense_.resize(side_ * side_);
  return dense_[static_cast<std::size_t>(from + 2) * side_ + static_cast<std::size_t>(to + 2)];
}

void DomainIndex::Add(std::int32_t from, std::int32_t to, std::uint64_t bytes) {
  const int f = from == crush::kItemNone ? -2 : Lookup(before_, from);
  Counts& c = Cell(f, Lookup(after_, to));
  ++c.shards;
  c.bytes += bytes;
}

void DomainIndex::Merge(const DomainIndex& other) {
  for (const auto& [key, cell] : other.sparse_) {
    Counts& c = sparse_[key];
    c.shards += cell.shards;
    c.bytes += cell.bytes;
  }
  if (other.dense_.empty()) return;
  if (dense_.empty()) dense_.resize(side_ * side_);
  for (std::size_t i = 0; i < dense_.size(); ++i) {
    dense_[i].shards += other.dense_[i].shards;
    dense_[i].bytes += other.dense_[i].bytes;
  }
}

DomainMatrix DomainIndex::Finish() {
  DomainMatrix m;
  m.type = type_;
  auto name = [&](int i) -> std::string {
    if (i == -2) return kNewCopy;
    if (i < 0) return kUnplaced;
    return names_[static_cast<std::size_t>(i)];
  };
  auto add = [&](int from, int to, const Counts& c) {
    m.cells.push_back(DomainCell{name(from), name(to), c.shards, c.bytes});
  };
  for (const auto& [key, c] : sparse_) add(key.first, key.second, c);
  for (std::size_t i = 0; i < dense_.size(); ++i) {
    if (dense_[i].shards == 0) continue;
    add(static_cast<int>(i / side_) - 2, static_cast<int>(i % side_) - 2, dense_[i]);
  }
  std::sort(m.cells.begin(), m.cells.end(), [](const DomainCell& a, const DomainCell& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.shards != b.shards) return a.shards > b.shards;
    return std::tie(a.from, a.to) < std::tie(b.from, b.to);
  });
  m.names = names_;
  std::sort(m.names.begin(), m.names.end());
  return m;
}

}  // namespace crushkit::osdmap::internal
