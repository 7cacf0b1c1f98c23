#include "tools/crushtool/mark_down.h"

#include <string>
#include <utility>

namespace crushkit::tools::crushtool {
namespace {

absl::Status Undefined(const std::string& why) {
  return absl::UnimplementedError("--mark-down-ratio: " + why);
}

}  // namespace

absl::Status MarkDevicesDown(const crush::MapModel& map, float device_ratio, float bucket_ratio,
                             std::vector<crush::Weight>& weight, Lrand48& rng) {
  if (!(device_ratio > 0)) return absl::OkStatus();
  // Buckets by index (id -1, -2, ...) with a positive (signed) weight whose
  // first item is a device.
  std::vector<const crush::Bucket*> above_devices;
  for (int i = 0; i < map.max_buckets(); ++i) {
    const crush::Bucket* b = map.FindBucket(-1 - i);
    if (b == nullptr || static_cast<int>(b->weight) <= 0 || b->items.empty()) continue;
    if (b->items[0] >= 0) above_devices.push_back(b);
  }
  std::vector<crush::Weight> out = weight;
  const std::size_t n = above_devices.size();
  if (n == 1) return Undefined("one bucket holds devices (Ceph divides by zero)");
  for (std::size_t i = 0; i < n; ++i) {
    const auto j = static_cast<std::size_t>(rng.Next()) % (n - 1);
    std::swap(above_devices[i], above_devices[j]);
  }
  const auto visit = static_cast<int>(bucket_ratio * static_cast<float>(n));
  if (visit > static_cast<int>(n))
    return Undefined("the bucket ratio is above 1 (Ceph reads past its list)");
  for (int v = 0; v < visit; ++v) {
    const crush::Bucket& b = *above_devices[static_cast<std::size_t>(v)];
    const int size = static_cast<int>(b.items.size());
    if (size == 1) return Undefined("a bucket of one item (Ceph divides by zero)");
    for (int o = 0; o < size; ++o) rng.Next();  // Ceph shuffles a copy it never reads
    const auto down = static_cast<int>(device_ratio * static_cast<float>(size));
    if (down > size) return Undefined("the device ratio is above 1 (Ceph reads past a bucket)");
    for (int o = 0; o < down; ++o) {
      const crush::ItemId item = b.items[static_cast<std::size_t>(o)];
      if (item < 0 || static_cast<std::size_t>(item) >= out.size()) {
        return Undefined("a bucket mixes devices and buckets (Ceph writes out of bounds)");
      }
      out[static_cast<std::size_t>(item)] = 0;
    }
  }
  weight = std::move(out);
  return absl::OkStatus();
}

}  // namespace crushkit::tools::crushtool
