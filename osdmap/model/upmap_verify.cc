#include "osdmap/model/upmap_verify.h"

#include <cstddef>

namespace crushkit::osdmap {
namespace {

const crush::Rule* FindRule(const crush::MapModel& map, int rule) {
  const auto r = static_cast<std::size_t>(rule);
  if (rule < 0 || r >= map.rules.size() || r >= map.rule_exists.size() || !map.rule_exists[r]) {
    return nullptr;
  }
  return &map.rules[r];
}

}  // namespace

void UpmapVerifier::ChildrenOfType(std::int32_t id, int type,
                                   std::vector<std::int32_t>* out) const {
  // CrushWrapper::get_children_of_type(..., exclude_shadow = false).
  if (id >= 0) {
    if (type == 0) out->push_back(id);
    return;
  }
  const crush::Bucket* b = map_.FindBucket(id);
  if (b == nullptr) return;
  const int btype = b->type;
  if (btype < type) return;
  if (btype == type) {
    out->push_back(id);
    return;
  }
  for (crush::ItemId item : b->items) ChildrenOfType(item, type, out);
}

const std::set<std::int32_t>& UpmapVerifier::Contents(std::int32_t bucket) {
  auto it = contents_.find(bucket);
  if (it != contents_.end()) return it->second;
  std::set<std::int32_t> seen;
  std::vector<std::int32_t> stack{bucket};
  while (!stack.empty()) {
    const std::int32_t id = stack.back();
    stack.pop_back();
    const crush::Bucket* b = map_.FindBucket(id);
    if (b == nullptr) continue;
    for (crush::ItemId item : b->items) {
      if (seen.insert(item).second && item < 0) stack.push_back(item);
    }
  }
  return contents_.emplace(bucket, std::move(seen)).first->second;
}

bool UpmapVerifier::SubtreeContains(std::int32_t root, std::int32_t item) {
  // Ceph recurses through every path; the set of items reached is the same.
  if (root == item) return true;
  if (root >= 0) return false;
  return Contents(root).count(item) != 0;
}

int UpmapVerifier::ParentOfType(std::int32_t item, int type, int rule) {
  auto table = parents_.find({rule, type});
  if (table == parents_.end()) {
    std::vector<std::int32_t> candidates;
    if (const crush::Rule* r = FindRule(map_, rule)) {
      // find_takes_by_rule() collects the take arguments into a std::set.
      std::set<std::int32_t> roots;
      for (const crush::RuleStep& s : r->steps) {
        if (s.op == crush::RuleOp::kTake) roots.insert(s.arg1);
      }
      for (std::int32_t root : roots) ChildrenOfType(root, type, &candidates);
    }
    // An item's parent is the first candidate whose subtree holds it
    // (SubtreeContains: the candidate itself or anything below it), so
    // walking the candidates in order and keeping the first claim answers
    // every item in one pass over their subtrees.
    std::unordered_map<std::int32_t, int> parent_of;
    for (std::int32_t c : candidates) {
      parent_of.emplace(c, c);
      if (c >= 0) continue;
      for (std::int32_t below : Contents(c)) parent_of.emplace(below, c);
    }
    table = parents_.emplace(std::make_pair(rule, type), std::move(parent_of)).first;
  }
  auto it = table->second.find(item);
  return it == table->second.end() ? 0 : it->second;
}

UpmapVerdict UpmapVerifier::Verify(int rule, int pool_size, std::span<const std::int32_t> up) {
  const crush::Rule* r = FindRule(map_, rule);
  if (r == nullptr) return UpmapVerdict::kRuleMissing;
  std::int32_t root = 0;
  std::size_t cursor = 0;
  // type -> count; emplace keeps the first count of a repeated type.
  std::map<int, int> type_stack;
  for (const crush::RuleStep& step : r->steps) {
    switch (step.op) {
      case crush::RuleOp::kTake:
        root = step.arg1;
        break;
      case crush::RuleOp::kChooseleafFirstn:
      case crush::RuleOp::kChooseleafIndep:
      case crush::RuleOp::kChooseFirstn:
      case crush::RuleOp::kChooseIndep: {
        const bool leaf = step.op == crush::RuleOp::kChooseleafFirstn ||
                          step.op == crush::RuleOp::kChooseleafIndep;
        int numrep = step.arg1;
        const int type = step.arg2;
        if (numrep <= 0) numrep += pool_size;
        type_stack.emplace(type, numrep);
        if (type == 0) break;
        std::map<int, std::set<std::int32_t>> by_parent;
        for (std::int32_t osd : up) {
          const int parent = ParentOfType(osd, type, rule);
          if (parent < 0) by_parent[parent].insert(osd);
        }
        if (leaf) {
          for (const auto& [parent, osds] : by_parent) {
            if (osds.size() > 1) return UpmapVerdict::kSameFailureDomain;
          }
        } else if (static_cast<long long>(by_parent.size()) > numrep) {
          return UpmapVerdict::kTooManyBuckets;
        }
        break;
      }
      case crush::RuleOp::kEmit: {
        if (root < 0) {
          // Ceph multiplies ints; wrap as two's complement would.
          std::uint32_t product = 1;
          for (const auto& [type, n] : type_stack) product *= static_cast<std::uint32_t>(n);
          const auto num_osds = static_cast<std::int32_t>(product);
          for (std::int32_t c = 0; cursor < up.size() && c < num_osds; ++cursor, ++c) {
            if (!SubtreeContains(root, up[cursor])) return UpmapVerdict::kOutsideTakeRoot;
          }
        }
        type_stack.clear();
        root = 0;
        break;
      }
      default:
        break;
    }
  }
  return UpmapVerdict::kOk;
}

}  // namespace crushkit::osdmap
