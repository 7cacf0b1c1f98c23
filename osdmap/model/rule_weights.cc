#include "osdmap/model/rule_weights.h"

#include <cstddef>
#include <deque>

#include "absl/strings/str_cat.h"

#include "crush/builder.h"
#include "crush/status_macros.h"

namespace crushkit::osdmap {
namespace {

constexpr std::size_t kMaxBucketVisits = std::size_t{1} << 24;

// CrushWrapper::_get_take_weight_osd_map(): breadth first from `root`,
// without de-duplication. Returns the float sum of every device weight met.
absl::StatusOr<float> TakeWeights(const crush::MapModel& map, crush::ItemId root,
                                  std::map<std::int32_t, float>* weights) {
  float sum = 0.0f;
  std::deque<crush::ItemId> queue{root};
  std::size_t visits = 0;
  while (!queue.empty()) {
    const crush::ItemId id = queue.front();
    queue.pop_front();
    if (++visits > kMaxBucketVisits) {
      return absl::ResourceExhaustedError(absl::StrCat("rule weights: more than ", kMaxBucketVisits,
                                                       " bucket visits under bucket ", root));
    }
    const crush::Bucket* b = map.FindBucket(id);
    if (b == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("rule weights: bucket ", id, " does not exist"));
    }
    for (std::size_t j = 0; j < b->items.size(); ++j) {
      const crush::ItemId item = b->items[j];
      if (item >= 0) {
        // A 16.16 weight converted to float as an integer, not divided by
        // 0x10000: only the ratios matter, and Ceph's rounding is this one.
        const auto w = static_cast<float>(crush::BucketItemWeight(*b, j));
        (*weights)[item] = w;
        sum += w;
      } else {
        queue.push_back(item);
      }
    }
  }
  return sum;
}

}  // namespace

absl::StatusOr<std::map<std::int32_t, float>> RuleWeightOsdMap(const crush::MapModel& map,
                                                               int rule) {
  const auto r = static_cast<std::size_t>(rule);
  if (rule < 0 || r >= map.rules.size() || r >= map.rule_exists.size() || !map.rule_exists[r]) {
    return absl::NotFoundError(absl::StrCat("rule ", rule, " does not exist"));
  }
  std::map<std::int32_t, float> result;
  for (const crush::RuleStep& step : map.rules[r].steps) {
    if (step.op != crush::RuleOp::kTake) continue;
    std::map<std::int32_t, float> take;
    float sum = 0.0f;
    if (step.arg1 >= 0) {
      take[step.arg1] = 1.0f;
      sum = 1.0f;
    } else {
      CRUSH_ASSIGN_OR_RETURN(sum, TakeWeights(map, step.arg1, &take));
    }
    // CrushWrapper::_normalize_weight_map(): a zero sum gives 0/0 = NaN (or
    // inf), which Ceph keeps; the upmap check then never sees "weight 0".
    for (const auto& [osd, w] : take) result[osd] += w / sum;
  }
  return result;
}

absl::StatusOr<std::map<std::int32_t, float>> RuleWeightOsdMap(const crush::MapModel& map, int rule,
                                                               crush::CephRelease release) {
  if (release != crush::CephRelease::kTentacle) return RuleWeightOsdMap(map, rule);
  const auto r = static_cast<std::size_t>(rule);
  if (rule < 0 || r >= map.rules.size() || r >= map.rule_exists.size() || !map.rule_exists[r]) {
    return absl::NotFoundError(absl::StrCat("rule ", rule, " does not exist"));
  }
  std::map<std::int32_t, float> walked;
  float sum = 0.0f;
  for (const crush::RuleStep& step : map.rules[r].steps) {
    if (step.op != crush::RuleOp::kTake) continue;
    if (step.arg1 >= 0) {
      walked[step.arg1] = 1.0f;
      sum = 1.0f;
    } else {
      CRUSH_ASSIGN_OR_RETURN(const float take_sum, TakeWeights(map, step.arg1, &walked));
      sum += take_sum;
    }
  }
  std::map<std::int32_t, float> result;
  for (const auto& [osd, w] : walked) result[osd] = w / sum;
  return result;
}

}  // namespace crushkit::osdmap
