#include "tools/crushtool/random_placement.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>

#include "crush/edit/display.h"
#include "tools/crushtool/test_batches.h"

namespace crushkit::tools::crushtool {

using crush::ItemId;

absl::StatusOr<RandomPlacer> RandomPlacer::ForRule(const crush::MapModel& map, int rule,
                                                   int max_affected) {
  if (map.type_names.empty()) {
    return absl::UnimplementedError("--simulate on a map without types (Ceph inserts a type)");
  }
  RandomPlacer placer(map, max_affected);
  for (const crush::RuleStep& s : map.rules[static_cast<std::size_t>(rule)].steps) {
    const auto op = static_cast<std::uint32_t>(s.op);
    if (op < 2 || op == 4) continue;  // as get_maximum_affected_by_rule: set_* steps too
    auto name = map.type_names.find(s.arg2);
    if (name == map.type_names.end()) {
      return absl::UnimplementedError("--simulate: rule " + std::to_string(rule) +
                                      " chooses type " + std::to_string(s.arg2) +
                                      ", which has no name (Ceph aborts on a null string)");
    }
    placer.affected_types_.push_back(name->second);
  }
  // The lowest type id's name ("osd" in every sane map).
  const std::string& min_type_name = map.type_names.begin()->second;
  placer.only_osd_affected_ = placer.affected_types_.size() == 1 &&
                              placer.affected_types_.back() == min_type_name &&
                              min_type_name == "osd";
  return placer;
}

absl::StatusOr<bool> RandomPlacer::Valid(std::span<const ItemId> trial,
                                         std::span<const crush::Weight> weight) {
  std::vector<ItemId> included;
  for (ItemId d : trial) {
    if (weight[static_cast<std::size_t>(d)] == 0) return false;
    included.push_back(d);
  }
  for (ItemId d : included) {
    if (std::count(included.begin(), included.end(), d) > 1) return false;
  }
  if (only_osd_affected_) return true;
  // No two devices under one bucket of a chosen type; a device with no
  // ancestor of that type counts as being under "" (Ceph's map lookup).
  std::set<std::string> seen;
  for (ItemId d : included) {
    auto loc = locations_.find(d);
    if (loc == locations_.end()) {
      absl::StatusOr<std::map<std::string, std::string>> full = crush::FullLocation(*map_, d);
      if (!full.ok()) return full.status();
      loc = locations_.emplace(d, *std::move(full)).first;
    }
    for (const std::string& type : affected_types_) {
      auto it = loc->second.find(type);
      const std::string bucket = it == loc->second.end() ? std::string() : it->second;
      if (!seen.insert(bucket).second) return false;
    }
  }
  return true;
}

absl::Status RandomPlacer::Place(int num_rep, std::span<const crush::Weight> weight, Lrand48& rng,
                                 std::vector<ItemId>& out) {
  out.clear();
  int total_weight = 0;
  for (crush::Weight w : weight) total_weight = WrapAdd(total_weight, static_cast<int>(w));
  const int max_devices = map_->max_devices;
  if (total_weight == 0 || max_devices <= 0) return absl::OkStatus();  // -EINVAL, out empty
  const int requested = std::min(num_rep, max_affected_);
  if (requested < 0) {
    return absl::UnimplementedError(
        "--simulate with a negative draw size (Ceph sizes a vector with it)");
  }
  std::vector<ItemId> trial(static_cast<std::size_t>(requested));
  for (int attempt = 0; attempt < 100; ++attempt) {
    for (ItemId& d : trial) d = static_cast<ItemId>(rng.Next() % max_devices);
    absl::StatusOr<bool> valid = Valid(trial, weight);
    if (!valid.ok()) return valid.status();
    if (*valid) {
      out = trial;
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

}  // namespace crushkit::tools::crushtool
