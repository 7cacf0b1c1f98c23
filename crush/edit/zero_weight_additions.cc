#include "crush/edit/zero_weight_additions.h"

#include <algorithm>
#include <cstddef>

namespace crushkit::crush {

namespace {

bool IsPrefix(const std::vector<ItemId>& a, const std::vector<ItemId>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// `after` is `before` plus zero weights at the end.
bool ZeroExtended(const std::vector<Weight>& before, const std::vector<Weight>& after) {
  return before.size() <= after.size() && std::equal(before.begin(), before.end(), after.begin()) &&
         std::all_of(after.begin() + static_cast<std::ptrdiff_t>(before.size()), after.end(),
                     [](Weight w) { return w == 0; });
}

// A bucket of `before` as it is in `after`: identical, or a straw2 bucket
// with zero-weight items appended.
bool BucketOnlyGrew(const Bucket& b, const Bucket& a) {
  if (a == b) return true;
  if (a.id != b.id || a.type != b.type || a.alg != b.alg || a.hash != b.hash) return false;
  if (b.alg != BucketAlg::kStraw2 || b.items.empty() || a.weight != b.weight) return false;
  return IsPrefix(b.items, a.items) && b.item_weights.size() == b.items.size() &&
         a.item_weights.size() == a.items.size() && ZeroExtended(b.item_weights, a.item_weights);
}

bool ChooseArgOnlyGrew(const ChooseArg& b, const ChooseArg& a) {
  if (a == b) return true;
  if (!IsPrefix(b.ids, a.ids) || a.weight_set.size() != b.weight_set.size()) return false;
  for (std::size_t p = 0; p < b.weight_set.size(); ++p) {
    if (!ZeroExtended(b.weight_set[p], a.weight_set[p])) return false;
  }
  return true;
}

bool ChooseArgsOnlyGrew(const MapModel& before, const MapModel& after) {
  if (before.choose_args.size() != after.choose_args.size()) return false;
  for (const auto& [index, b_args] : before.choose_args) {
    auto it = after.choose_args.find(index);
    if (it == after.choose_args.end()) return false;
    const ChooseArgMap& a_args = it->second;
    for (const auto& [bucket, arg] : b_args) {
      auto a = a_args.find(bucket);
      if (a == a_args.end() || !ChooseArgOnlyGrew(arg, a->second)) return false;
    }
    // An override for an old bucket that had none would change its draws.
    for (const auto& [bucket, arg] : a_args) {
      if (!b_args.contains(bucket) && before.FindBucket(bucket) != nullptr) return false;
    }
  }
  return true;
}

}  // namespace

bool OnlyAddsZeroWeightItems(const MapModel& before, const MapModel& after) {
  if (before.tunables != after.tunables || before.rules != after.rules ||
      before.rule_exists != after.rule_exists) {
    return false;
  }
  // Local fallback (legacy tunables) draws from a permutation of a bucket's
  // items whatever their weights (bucket_perm_choose).
  if (before.tunables.choose_local_fallback_tries != 0) return false;
  for (const Rule& r : before.rules) {
    for (const RuleStep& s : r.steps) {
      if (s.op == RuleOp::kTake && s.arg1 < 0 && before.FindBucket(s.arg1) == nullptr) return false;
    }
  }
  for (const Bucket& b : before.buckets) {
    if (b.alg == BucketAlg::kNone) continue;
    const Bucket* a = after.FindBucket(b.id);
    if (a == nullptr || !BucketOnlyGrew(b, *a)) return false;
  }
  return ChooseArgsOnlyGrew(before, after);
}

}  // namespace crushkit::crush
