// Random CRUSH hierarchies for the structured mapper fuzz targets
// (mapper_fuzzer, msr_mapper_fuzzer): devices with random weights grouped
// level by level into buckets of every algorithm, with empty slots between
// them, up to a single root. Everything is drawn from a ByteSource, so a
// corpus input always builds the same map.
#ifndef CRUSHKIT_TESTS_FUZZ_RANDOM_HIERARCHY_H_
#define CRUSHKIT_TESTS_FUZZ_RANDOM_HIERARCHY_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "crush/builder.h"
#include "crush/model.h"
#include "crush/types.h"
#include "tests/fuzz/fuzz_check.h"

namespace crushkit::fuzz {

// 0, a weight below 1.0, one up to 4.0, or (most often) exactly 1.0.
inline crush::Weight RandomWeight(ByteSource& in) {
  switch (in.Range(0, 7)) {
    case 0:
      return 0;
    case 1:
      return static_cast<crush::Weight>(in.Range(1, 0xffff));
    case 2:
      return static_cast<crush::Weight>(in.Range(0, 0x40000));
    default:
      return crush::kWeightOne;
  }
}

// Appends `b` to the slot array (after 0..1 empty slots) and returns its id.
inline crush::ItemId PlaceBucket(ByteSource& in, crush::MapModel& m, crush::Bucket b) {
  if (in.Range(0, 7) == 0) m.buckets.emplace_back();  // a hole
  const crush::ItemId id = crush::BucketIdOfSlot(static_cast<int>(m.buckets.size()));
  b.id = id;
  m.buckets.push_back(std::move(b));
  return id;
}

// Groups `children` (with weights) into buckets of `type` holding 1..max_group
// items each (all of them if max_group is 0) and replaces `children` with the
// new level. False if the builder refused (then the input is skipped).
inline bool BuildLevel(ByteSource& in, crush::MapModel& m, int type, int max_group,
                       std::vector<crush::ItemId>& children, std::vector<crush::Weight>& weights) {
  std::vector<crush::ItemId> level;
  std::vector<crush::Weight> level_weights;
  std::size_t i = 0;
  while (i < children.size()) {
    const auto n = max_group == 0
                       ? children.size()
                       : std::min<std::size_t>(children.size() - i,
                                               static_cast<std::size_t>(in.Range(1, max_group)));
    const auto alg = static_cast<crush::BucketAlg>(in.Range(1, 5));
    auto b = crush::MakeBucket(alg, crush::kHashRjenkins1, static_cast<std::uint16_t>(type),
                               std::span<const crush::ItemId>(children.data() + i, n),
                               std::span<const crush::Weight>(weights.data() + i, n),
                               m.tunables.straw_calc_version);
    if (!b.ok()) return false;
    level_weights.push_back(b->weight);
    level.push_back(PlaceBucket(in, m, *std::move(b)));
    i += n;
  }
  children = std::move(level);
  weights = std::move(level_weights);
  return true;
}

// Reweights for devices 0..max_devices-1, or one fewer (the last device is
// then out); most stay 1.0, some become 0 or a random fraction.
inline std::vector<crush::Weight> RandomReweights(ByteSource& in, int max_devices) {
  auto n = static_cast<std::size_t>(max_devices);
  if (n > 0 && in.Range(0, 3) == 0) --n;
  std::vector<crush::Weight> reweights(n, crush::kWeightOne);
  for (auto& w : reweights) {
    if (in.Range(0, 5) == 0) w = in.Bool() ? 0 : static_cast<crush::Weight>(in.Range(0, 0x10000));
  }
  return reweights;
}

struct Hierarchy {
  int num_devices = 0;  // devices 0..num_devices-1
  crush::ItemId root = 0;
  int top_type = 0;  // the root's type; levels are types 1..top_type
};

// 1..max_devices devices under 1..4 levels of buckets (each of 1..max_group
// children), the last level a single root. nullopt if the builder refused.
inline std::optional<Hierarchy> BuildRandomHierarchy(ByteSource& in, crush::MapModel& m,
                                                     int max_devices, int max_group) {
  Hierarchy h;
  h.num_devices = static_cast<int>(in.Range(1, max_devices));
  const int levels = static_cast<int>(in.Range(1, 4));
  std::vector<crush::ItemId> children;
  std::vector<crush::Weight> weights;
  for (int d = 0; d < h.num_devices; ++d) {
    children.push_back(d);
    weights.push_back(RandomWeight(in));
  }
  int type = 0;
  for (int level = 1; level < levels; ++level) {
    if (!BuildLevel(in, m, ++type, static_cast<int>(in.Range(1, max_group)), children, weights)) {
      return std::nullopt;
    }
  }
  if (!BuildLevel(in, m, ++type, /*max_group=*/0, children, weights)) return std::nullopt;
  h.root = children[0];
  h.top_type = type;
  return h;
}

}  // namespace crushkit::fuzz

#endif  // CRUSHKIT_TESTS_FUZZ_RANDOM_HIERARCHY_H_
