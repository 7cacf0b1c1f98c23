// crushtool --build's bucket layers (src/tools/crushtool.cc, Ceph 16.2).
#include "crush/edit/layered_map.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "crush/edit/edit.h"
#include "crush/edit/internal/editor.h"
#include "crush/status_macros.h"

namespace crushkit::crush {
namespace {

absl::StatusOr<BucketAlg> AlgorithmNamed(const std::string& name) {
  if (name == "uniform") return BucketAlg::kUniform;
  if (name == "list") return BucketAlg::kList;
  if (name == "straw") return BucketAlg::kStraw;
  if (name == "tree") return BucketAlg::kTree;
  if (name == "straw2") return BucketAlg::kStraw2;
  return absl::InvalidArgumentError("unknown bucket type '" + name + "'");
}

// Ceph: snprintf(format, 19, "%s%%d", layer) (or strncpy of 19 bytes when
// size is 0), then snprintf(name, 20, format, i). Only '%'-free layer names
// get here, so the format is the name cut to 18/19 bytes, followed by "%d",
// a lone '%' (17-byte names, printed as nothing by glibc) or nothing.
std::string BucketName(const std::string& layer, int size, int i, bool* lone_percent) {
  std::string format = size != 0 ? (layer + "%d").substr(0, 18) : layer.substr(0, 19);
  std::string name = format;
  if (format.size() >= 2 && format.compare(format.size() - 2, 2, "%d") == 0) {
    name = format.substr(0, format.size() - 2) + std::to_string(i);
  } else if (!format.empty() && format.back() == '%') {
    *lone_percent = true;
    name = format.substr(0, format.size() - 1);
  }
  return name.substr(0, 19);
}

}  // namespace

absl::StatusOr<LayeredMap> BuildLayeredMap(int num_osds, std::span<const MapLayer> layers) {
  if (num_osds > kMaxLayeredDevices) {
    return absl::UnimplementedError("--num_osds " + std::to_string(num_osds) + " is above " +
                                    std::to_string(kMaxLayeredDevices) +
                                    " (Ceph's stack arrays of that many ints overflow)");
  }
  LayeredMap out;
  MapModel& map = out.map;
  map.tunables = TunablesFor(TunablesProfile::kDefault);  // CrushWrapper::create()
  map.max_devices = num_osds;
  std::vector<ItemId> lower_items;
  std::vector<Weight> lower_weights;
  for (int i = 0; i < num_osds; ++i) {
    lower_items.push_back(i);
    lower_weights.push_back(kWeightOne);
    map.item_names[i] = "osd." + std::to_string(i);
  }
  map.type_names[0] = "osd";
  internal::Editor editor(map);
  int type = 1;
  for (const MapLayer& layer : layers) {
    map.type_names[type] = layer.name;
    CRUSH_ASSIGN_OR_RETURN(BucketAlg alg, AlgorithmNamed(layer.algorithm));
    if (layer.name.find('%') != std::string::npos) {
      return absl::UnimplementedError("layer name '" + layer.name +
                                      "' holds '%', which Ceph uses as a printf format");
    }
    if (layer.size < 0 && !lower_items.empty()) {
      return absl::UnimplementedError("layer '" + layer.name + "' has a negative size (Ceph " +
                                      "creates empty buckets forever)");
    }
    std::vector<ItemId> cur_items;
    std::vector<Weight> cur_weights;
    std::size_t pos = 0;
    for (int i = 0; pos < lower_items.size(); ++i) {
      std::vector<ItemId> items;
      std::vector<Weight> weights;
      std::uint64_t sum = 0;
      for (int j = 0; (j < layer.size || layer.size == 0) && pos < lower_items.size(); ++j) {
        items.push_back(lower_items[pos]);
        weights.push_back(lower_weights[pos]);
        sum += lower_weights[pos];
        ++pos;
      }
      if (sum > UINT32_MAX) {
        return absl::UnimplementedError("a bucket of layer '" + layer.name +
                                        "' weighs more than 32 bits hold");
      }
      out.signed_weight_overflow |= sum > INT32_MAX;
      CRUSH_ASSIGN_OR_RETURN(
          ItemId id, editor.AddBucket(0, alg, static_cast<std::uint16_t>(type), items, weights));
      const std::string name = BucketName(layer.name, layer.size, i, &out.lone_percent_format);
      if (IsValidCrushName(name)) map.item_names[id] = name;  // set_item_name refuses others
      cur_items.push_back(id);
      cur_weights.push_back(static_cast<Weight>(sum));
    }
    lower_items = std::move(cur_items);
    lower_weights = std::move(cur_weights);
    ++type;
  }
  if (!layers.empty()) {
    const MapLayer& last = layers.back();
    out.root = last.size == 0 ? last.name : last.name + "0";
  }
  // Every bucket sits in the next layer's buckets: the last layer's are the roots.
  if (!layers.empty()) out.roots = static_cast<int>(lower_items.size());
  return out;
}

}  // namespace crushkit::crush
