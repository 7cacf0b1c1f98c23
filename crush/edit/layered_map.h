// crushtool --build: a map made of layers of buckets over N devices, as
// Ceph 16.2's crushtool builds it (src/tools/crushtool.cc): devices
// osd.0..osd.N-1 of weight 1.0 and type 0 "osd"; layer k (type k, named after
// the layer) groups the previous layer's items in order into buckets of
// `size` items (0: one bucket for all), named "<layer><i>" (or the layer name
// when size is 0) through the same 20-byte printf buffers Ceph uses; bucket
// ids are assigned -1, -2, ... in creation order; then the rule
// "replicated_rule" (BuildSimpleCrushRules in edit.h). Used by the crushtool
// front and osdmaptool-style lab maps. Thread-safety: pure functions.
#ifndef CRUSHKIT_CRUSH_EDIT_LAYERED_MAP_H_
#define CRUSHKIT_CRUSH_EDIT_LAYERED_MAP_H_

#include <span>
#include <string>

#include "absl/status/statusor.h"

#include "crush/model.h"

namespace crushkit::crush {

struct MapLayer {
  std::string name;       // type name, and the bucket name prefix
  std::string algorithm;  // uniform, list, straw, tree or straw2
  int size = 0;           // items per bucket; 0 = one bucket for all
};

struct LayeredMap {
  MapModel map;      // default (jewel) tunables, no rule yet
  std::string root;  // what the rule takes: the last layer's first bucket
  int roots = 0;     // buckets no bucket holds (crushtool warns if > 1)
  // Ceph sums a bucket's weight in a signed int; a sum past INT32_MAX is
  // undefined there (in practice it wraps, which is what `map` holds).
  bool signed_weight_overflow = false;
  // A layer name of exactly 17 bytes leaves a lone '%' at the end of Ceph's
  // format buffer, undefined for printf; glibc prints nothing for it, which
  // is what `map` holds.
  bool lone_percent_format = false;
};

// The largest --num_osds accepted: beyond it Ceph's two stack arrays of
// num_osds ints overflow the default 8 MiB stack.
inline constexpr int kMaxLayeredDevices = 1'000'000;

// Builds the buckets of crushtool --build (not the rule: the caller prints
// crushtool's multi-root warning first, then calls BuildSimpleCrushRules).
// A negative num_osds builds no bucket, as Ceph. Errors: kInvalidArgument
// "unknown bucket type 'X'" (crushtool's text) for an unknown algorithm;
// kUnimplemented where Ceph's behaviour is undefined: a layer name holding
// '%' (it becomes a printf format), a negative layer size (Ceph loops
// forever creating empty buckets), num_osds above kMaxLayeredDevices, a
// bucket weight beyond 32 bits. Cost: O(num_osds x layers).
absl::StatusOr<LayeredMap> BuildLayeredMap(int num_osds, std::span<const MapLayer> layers);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_LAYERED_MAP_H_
