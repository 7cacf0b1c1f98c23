// The Ceph binary crushmap codec: what `crushtool -c/-o`, `crushtool --build`
// and `osdmaptool --export-crush` write, and what `crushtool -i/-d` read
// (CrushWrapper::encode/decode in Ceph's src/crush/CrushWrapper.cc).
//
// DecodeCrushMap is total: any byte string yields either a MapModel or an
// error status; it never crashes, never hangs and never allocates more than a
// small constant times the input size (every count is checked against the
// bytes that remain before anything is allocated). EncodeCrushMap is
// byte-identical to the input for every map Decode accepts that Ceph itself
// wrote (crushtool, osdmaptool): encode(decode(x)) == x.
// Both functions are pure and thread-safe.
//
// Binary layout (all integers little-endian; "map<K,V>" is u32 count then
// count (K,V) pairs in ascending key order; "string" is u32 length + bytes):
//
//   u32  magic = 0x00010000
//   s32  max_buckets            size of the bucket slot array (not a count)
//   u32  max_rules              size of the rule slot array
//   s32  max_devices            ignored on decode (see normalisation below)
//   max_buckets x bucket slot i (bucket id -1-i):
//     u32  alg                  0 = empty slot, nothing else follows
//     s32  id                   must be -1-i
//     u16  type
//     u8   alg                  must equal the u32 alg above
//     u8   hash                 0 = rjenkins1
//     u32  weight               16.16
//     u32  size
//     s32  items[size]
//     alg 1 uniform:  u32 item_weight
//     alg 2 list:     size x { u32 item_weight; u32 sum_weight }
//     alg 3 tree:     u8 num_nodes; u32 node_weights[num_nodes]
//     alg 4 straw:    size x { u32 item_weight; u32 straw }
//     alg 5 straw2:   u32 item_weights[size]
//   max_rules x rule slot:
//     u32  exists               0 = empty slot, nothing else follows
//     u32  len
//     u8   ruleset; u8 type; u8 min_size; u8 max_size
//     len x { u32 op; s32 arg1; s32 arg2 }
//   map<s32,string> type_names
//   map<s32,string> item_names
//   map<s32,string> rule_names
//     (legacy quirk, as Ceph's decode_32_or_64_string_map: when a string
//      length reads 0 the key was 64 bits wide and the real length follows)
//   Optional tail groups; each is decoded only if bytes remain (a partial
//   group is truncation). MapModel::tail records the last group present:
//   kLocalTries:       u32 choose_local_tries; u32 choose_local_fallback_tries;
//                      u32 choose_total_tries
//   kDescendOnce:      u32 chooseleaf_descend_once
//   kVaryR:            u8  chooseleaf_vary_r
//   kStrawCalcVersion: u8  straw_calc_version
//   kAllowedAlgs:      u32 allowed_bucket_algs
//   kStable:           u8  chooseleaf_stable
//   kClasses:          map<s32,s32> class_map; map<s32,string> class_names;
//                      map<s32, map<s32,s32>> class_buckets
//   kChooseArgs:       u32 n; n x {
//                        s64 index (pool id, or -1 = compat)
//                        u32 n_args; n_args x {
//                          u32 bucket slot (-1-id); u32 positions;
//                          positions x { u32 size; u32 weights[size] };
//                          u32 ids_size; s32 ids[ids_size] } }
//                      (args are written in ascending slot order, and only
//                       for buckets with positions > 0 or ids_size > 0)
//   kMsr (Squid):      u32 msr_descents; u32 msr_collision_tries
//
// Absent tail groups keep Ceph's legacy defaults (Tunables{}; msr 100/100;
// no classes, no choose_args). Pacific and crushtool write through kChooseArgs.
//
// What decode normalises, exactly as Ceph's decode does (so decode+encode
// equals `crushtool -i x -o y` re-encoding, and is the identity for maps Ceph
// wrote):
//   * max_devices is recomputed as crush_finalize()+CrushWrapper::finalize()
//     do: 1 + the largest device id among bucket items and item_names keys
//     (0 if none); the stored value is ignored.
//   * choose_args go through CrushWrapper::update_choose_args(): args of empty
//     or non-straw2 buckets are dropped; weight sets of a bucket whose
//     position count equals the map's (that of its first bucket with
//     positions) are resized to the bucket size (zero padded); args left with
//     no positions and no ids are dropped (Ceph never encodes them).
//   * Duplicate map keys: the last wins in the name maps and choose_args,
//     the first in class_map, class_names and class_buckets (Ceph's denc
//     map decoder inserts without overwriting); keys re-encode sorted.
//   * Rule `exists` words other than 0 re-encode as 1; 64-bit name-map keys
//     re-encode as 32-bit keys.
// What decode rejects although Ceph's decoder would not (Ceph would crash,
// assert or build a map its mapper misreads):
//   * kInvalidArgument: input shorter than 4 bytes or bad magic (a foreign
//     file); negative max_buckets; bucket id not matching its slot; the u32
//     and u8 alg words disagreeing; a tree bucket with size > 0 whose
//     num_nodes is not 1 << depth(size) (Ceph's builder value; Pacific's
//     builder itself aborts on trees over 64 items, whose 1 << depth would
//     overflow the u8, so no such map exists in the wild); a choose_args
//     slot out of range, or ids on an empty slot or with ids_size != size;
//     a device id >= kMaxDecodedDevices (would make max_devices huge).
//   * kDataLoss: truncation, and any count larger than the remaining bytes
//     could hold.
//   * kUnimplemented: bucket alg > 5; bytes after the msr group (a newer
//     encoding we cannot represent), unless DecodeOptions allow them.
// Deeper structure (cycles, dangling ids, weights) is CrushMap::Build's job.
// Every error message is one line: "truncated at offset N: expected <field>
// for <bucket/rule/...>" or "<problem> at offset N ...".
#ifndef CRUSHKIT_CRUSH_CODEC_H_
#define CRUSHKIT_CRUSH_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/model.h"

namespace crushkit::crush {

// CRUSH_MAGIC, the first u32 of every encoded map.
inline constexpr std::uint32_t kCrushMagic = 0x00010000;

// True if `bytes` starts with kCrushMagic (little-endian), as every binary
// crushmap does; how tools tell a binary map from a text one.
constexpr bool HasCrushMagic(std::string_view bytes) {
  return bytes.size() >= 4 &&
         (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[0])) |
          static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[1])) << 8 |
          static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[2])) << 16 |
          static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[3])) << 24) == kCrushMagic;
}

// Decoded maps may not reference device ids at or above this (16M devices).
inline constexpr std::int32_t kMaxDecodedDevices = 1 << 24;

struct DecodeOptions {
  // Ceph (all releases) silently ignores bytes after the last group it knows;
  // Pacific ignores anything after choose_args. When true, Decode ignores
  // bytes after choose_args that do not form exactly one msr group, and
  // anything after the msr group, instead of failing with kUnimplemented.
  // Ignored bytes are lost on re-encoding.
  bool ignore_trailing_bytes = false;
};

// Decodes a binary crushmap. Errors: see the header comment.
// Cost: O(input size); memory O(input size).
absl::StatusOr<MapModel> DecodeCrushMap(std::span<const std::byte> bytes,
                                        const DecodeOptions& options = {});

// Convenience overload for file contents held in a string.
absl::StatusOr<MapModel> DecodeCrushMap(const std::string& bytes,
                                        const DecodeOptions& options = {});

// Encodes `model` in Ceph's format. The tail groups written are those up to
// model.tail, extended to the last group holding a non-default value (so an
// edit to, e.g., chooseleaf_stable is never silently dropped). Array fields
// shorter than a bucket's size are written as zeros; choose_args entries for
// ids that are not valid bucket slots are skipped; an empty type/item/rule
// name is written in the legacy 64-bit-key form (key, u32 0, u32 0), the
// only form Ceph's decoder reads back as an empty name.
// REQUIRES: every bucket alg is 0..5.
// Cost: O(model size).
std::string EncodeCrushMap(const MapModel& model);

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_CODEC_H_
