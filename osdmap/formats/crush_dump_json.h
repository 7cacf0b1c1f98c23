// Reading Ceph's JSON dump of a crush map into crushkit's model: `ceph osd
// crush dump -f json`, `crushtool -i MAP --dump` (both CrushWrapper::dump,
// every release from Mimic to Tentacle) or a whole `ceph report` (its
// `crushmap` section). The model encodes (crush/ceph_release.h
// EncodeCrushMapAs) to the bytes `crushtool -c` writes for the equivalent
// text, and is the cluster's map wherever the dump carries the value:
//
//   * devices: id, name, class; a device Ceph prints as "deviceN" (its name
//     for an id without one) is taken as unnamed unless it is the highest
//     id or sits in a bucket (Ceph's finalize() keeps only named or used
//     device ids, so such an entry must have had a name);
//   * types, buckets (id, name, type, alg, hash) with the item weights from
//     the dump's 16.16 integers (`weight`, never the float fields); a
//     bucket's derived arrays (list sums, tree nodes, straw lengths) are
//     rebuilt as Ceph's builder makes them, straws with the dump's
//     straw_calc_version; the bucket weight is the dump's;
//   * rules: every step (named ops and the opcode/arg1/arg2 form Ceph uses
//     for ops dump_rule does not name), MSR types and steps; ruleset,
//     min_size and max_size when the dump has them (Pacific and older),
//     else the id and 1/100 as Quincy and later store them;
//   * tunables, all of them (msr_descents/msr_collision_tries when present,
//     else Ceph's default 100/100);
//   * choose_args: weights printed as (float)w / 0x10000 are read back as
//     round(value * 0x10000), which is w exactly for every w below 2^24
//     (256.0), whether Ceph printed 17 significant digits or 6 decimals.
//     From 2^24 on a float holds 24 bits, so several w print alike; of
//     those the reader takes, in order, the sum of the child bucket's
//     weight-set at that position (Ceph keeps parents equal to it), the
//     item's own weight, else the float's value;
//   * shadow buckets "name~class" with their ids, as the class_bucket map
//     (original id -> class -> shadow id) and class_map entries.
//
// The dump does not carry class ids: they are numbered as `crushtool -c`
// numbers them for the decompiled text (classes of devices in id order,
// then classes known only from shadow bucket names in bucket slot order).
// Nor does it carry the size of the bucket and rule slot arrays, which
// follow the ids as crushtool's builder grows them. Neither changes a
// mapping.
//
// Errors are kInvalidArgument naming the JSON path and what was expected:
// "buckets[3].items[1].weight: missing", "rules[0].steps[2].type: unknown
// type 'rak'", or a JSON syntax error located at LINE:COL. No input
// crashes the reader. Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_CRUSH_DUMP_JSON_H_
#define CRUSHKIT_OSDMAP_FORMATS_CRUSH_DUMP_JSON_H_

#include <optional>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/model.h"
#include "crush/types.h"

namespace crushkit::osdmap {

// The crush map `json` holds (a crush dump, or a `ceph report` whose
// `crushmap` section is read). Cost: linear in the size, plus O(buckets x
// depth) for ambiguous weight-set weights.
absl::StatusOr<crush::MapModel> ReadCrushDumpJson(std::string_view json);

// True when `text` is what ReadCrushDumpJson reads: a crush dump or a
// `ceph report`, as input_sniff.h's SniffInput recognises them (a scan of
// the keys that does not parse). For loaders that choose a reader by content.
bool LooksLikeCrushDumpJson(std::string_view text);

// The 16.16 weight nearest to `value` * 0x10000, the stored weight that
// dump_choose_args printed as `value` (exact below 2^24, see above);
// nullopt when `value` is negative, not finite, or beyond what a u32
// weight prints as.
std::optional<crush::Weight> WeightFromDumpedFloat(double value);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_CRUSH_DUMP_JSON_H_
