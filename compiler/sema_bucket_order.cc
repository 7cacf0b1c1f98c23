// The order of bucket definitions: cycles among them, and the order in which
// Ceph's CrushCompiler lowers them (which decides the ids it assigns).
#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>

#include "compiler/sema_passes.h"

namespace crushkit::compiler::sema {
namespace {

// The names on the DFS stack from `start` on, then `closing`, as
// "'a' -> 'b' -> 'a'"; adds them to `cyclic`.
std::string CyclePath(const std::vector<std::string_view>& stack,
                      std::vector<std::string_view>::const_iterator start, std::string_view closing,
                      std::set<std::string_view>& cyclic) {
  std::string path;
  for (auto it = start; it != stack.end(); ++it) {
    path += Quote(*it) + " -> ";
    cyclic.insert(*it);
  }
  path += Quote(closing);
  return path;
}

}  // namespace

std::set<std::string_view> ReportBucketCycles(SemaContext& ctx,
                                              const std::vector<const ast::Bucket*>& buckets) {
  std::set<std::string_view> cyclic;
  std::unordered_map<std::string_view, const ast::Bucket*> by_name;
  by_name.reserve(buckets.size());
  for (const ast::Bucket* b : buckets) by_name.emplace(b->name.text, b);
  std::unordered_map<std::string_view, int> color;  // 0 new, 1 on stack, 2 done
  color.reserve(buckets.size());
  std::vector<std::string_view> stack;

  // Iterative DFS to survive deep hierarchies.
  struct Frame {
    const ast::Bucket* bucket;
    std::size_t next_item;
  };

  for (const ast::Bucket* root : buckets) {
    if (color[root->name.text] != 0) continue;
    std::vector<Frame> frames{{root, 0}};
    color[root->name.text] = 1;
    stack.push_back(root->name.text);
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.next_item == f.bucket->items.size()) {
        color[f.bucket->name.text] = 2;
        stack.pop_back();
        frames.pop_back();
        continue;
      }
      const ast::BucketItem& item = f.bucket->items[f.next_item++];
      auto child = by_name.find(item.name.text);
      if (child == by_name.end()) continue;
      int& c = color[item.name.text];
      if (c == 1) {
        auto start = std::find(stack.cbegin(), stack.cend(), item.name.text);
        ctx.Error(item.name.range,
                  "cycle in bucket hierarchy: " + CyclePath(stack, start, item.name.text, cyclic));
      } else if (c == 0) {
        c = 1;
        stack.push_back(item.name.text);
        frames.push_back(Frame{child->second, 0});
      }
    }
  }
  return cyclic;
}

// CrushCompiler::adjust_bucket_item_place: for i < j, if bucket i lists
// bucket j as an item, swap the parse-tree nodes at the positions
// recorded for the two names. This is not a topological sort (some
// acyclic files still fail later with "not defined"), but it decides the
// order in which ids are assigned, so it is reproduced as is.
std::vector<std::size_t> CephBucketOrder(const std::vector<const ast::Bucket*>& buckets) {
  const std::size_t n = buckets.size();
  std::vector<std::size_t> content(n);
  std::iota(content.begin(), content.end(), 0);
  std::unordered_map<std::string_view, std::size_t>
      position;  // last definition wins, as in Ceph's map
  std::unordered_map<std::string_view, std::vector<std::size_t>> indices;
  position.reserve(n);
  indices.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    position[buckets[i]->name.text] = i;
    indices[buckets[i]->name.text].push_back(i);
  }
  // Ceph's bucket_items[name]: the item names of every bucket called name.
  auto lists = [&](std::string_view bucket, std::string_view item) {
    for (std::size_t k : indices[bucket]) {
      for (const ast::BucketItem& it : buckets[k]->items) {
        if (it.name.text == item) return true;
      }
    }
    return false;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view ni = buckets[i]->name.text;
    // Only pairs where bucket i lists bucket j matter; visit them in j order.
    std::vector<std::size_t> js;
    for (std::size_t k : indices[ni]) {
      for (const ast::BucketItem& it : buckets[k]->items) {
        if (auto found = indices.find(it.name.text); found != indices.end()) {
          for (std::size_t j : found->second) {
            if (j > i) js.push_back(j);
          }
        }
      }
    }
    std::sort(js.begin(), js.end());
    js.erase(std::unique(js.begin(), js.end()), js.end());
    for (std::size_t j : js) {
      const std::string_view nj = buckets[j]->name.text;
      if (lists(nj, ni)) continue;  // mutual inclusion: reported as a cycle
      std::swap(content[position[ni]], content[position[nj]]);
    }
  }
  return content;
}

}  // namespace crushkit::compiler::sema
