#include "osdmap/changes/change_op_table.h"

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include "osdmap/changes/apply_change_internal.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/change_ops_internal.h"

namespace crushkit::osdmap::internal {
namespace {

// The weight word of `op` (written in its text at `index`, or as the
// `key=` word when `key` is given) set to "0", and op.weight with it.
ChangeOp WithWeightWord(ChangeOp op, std::size_t index, std::string_view key) {
  std::vector<std::string> words = absl::StrSplit(op.text, ' ');
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (key.empty() ? i == index : words[i].starts_with(key)) {
      words[i] = std::string(key) + "0";
      break;
    }
  }
  op.text = absl::StrJoin(words, " ");
  op.weight = 0;
  // assign(count, char), not = "0": gcc 12 -O3 flags the literal's copy as
  // overlapping (a -Wrestrict false positive, gcc bug 105329).
  op.weight_word.text.assign(1, '0');
  return op;
}

// add-host NAME osds=N weight=W ...: weight=0.
ChangeOp AddHostJoiningEmpty(ChangeOp op) { return WithWeightWord(std::move(op), 0, "weight="); }

// osd crush add ID WEIGHT ...: the weight is the word after the id.
ChangeOp CrushAddJoiningEmpty(ChangeOp op) { return WithWeightWord(std::move(op), 4, ""); }

using K = ChangeOpKind;
using E = CrushEffect;

// What a row allows beyond its effect on the crush map (ChangeOpSpec's
// crush_map_op and weight_only), named so a row reads without a key.
enum RowFlags : unsigned {
  kOsdMapOnly = 0,        // needs an osdmap: not on a bare crush map
  kBareCrushMap = 1u,     // allowed by `crushkit edit` on a bare crush map
  kWeightOnly = 1u << 1,  // only sets weights: staged plans walk it
};

using ParseFn = bool (*)(Args&, ChangeOp&);
using ApplyFn = bool (Applier::*)(const ChangeOp&);
using JoinEmptyFn = ChangeOp (*)(ChangeOp);

// One row: words, usage, parse, apply, crush effect, flags, and how a
// staged plan's step 0 writes it (nullptr: as written).
ChangeOpSpec Row(K kind, std::vector<std::string_view> words, std::string_view usage, ParseFn parse,
                 ApplyFn apply, E effect, unsigned flags, JoinEmptyFn join_empty = nullptr) {
  return ChangeOpSpec{.kind = kind,
                      .words = std::move(words),
                      .usage = usage,
                      .parse = parse,
                      .apply = apply,
                      .crush_effect = effect,
                      .crush_map_op = (flags & kBareCrushMap) != 0,
                      .weight_only = (flags & kWeightOnly) != 0,
                      .join_empty = join_empty};
}

// The rows by what they edit, in the order ChangeOpTable() lists them
// (`crushkit plan`'s "expected ..." lists follow it).

// The crush map: buckets, items, weights, classes, rules, tunables.
std::vector<ChangeOpSpec> CrushMapRows() {
  return {
      Row(K::kCrushAddBucket, {"osd", "crush", "add-bucket"},
          "osd crush add-bucket NAME TYPE [TYPE=NAME ...]", ParseAddBucket, &Applier::AddBucket,
          E::kStructure, kBareCrushMap),
      Row(K::kCrushAdd, {"osd", "crush", "add"}, "osd crush add osd.N WEIGHT [TYPE=NAME ...]",
          ParseAddOrSet, &Applier::AddOrSetOsd, E::kStructure, kBareCrushMap, CrushAddJoiningEmpty),
      Row(K::kCrushSet, {"osd", "crush", "set"}, "osd crush set osd.N WEIGHT [TYPE=NAME ...]",
          ParseAddOrSet, &Applier::AddOrSetOsd, E::kStructure, kBareCrushMap),
      Row(K::kCrushRemove, {"osd", "crush", "remove"}, "osd crush remove NAME", ParseNameOnly,
          &Applier::Remove, E::kStructure, kBareCrushMap),
      Row(K::kCrushRemove, {"osd", "crush", "rm"}, "osd crush rm NAME", ParseNameOnly,
          &Applier::Remove, E::kStructure, kBareCrushMap),
      Row(K::kCrushUnlink, {"osd", "crush", "unlink"}, "osd crush unlink NAME", ParseNameOnly,
          &Applier::Remove, E::kStructure, kBareCrushMap),
      Row(K::kCrushReweight, {"osd", "crush", "reweight"}, "osd crush reweight NAME WEIGHT",
          ParseReweight, &Applier::Reweight, E::kInPlace, kBareCrushMap | kWeightOnly),
      Row(K::kCrushReweightSubtree, {"osd", "crush", "reweight-subtree"},
          "osd crush reweight-subtree NAME WEIGHT", ParseReweight, &Applier::Reweight, E::kInPlace,
          kBareCrushMap | kWeightOnly),
      Row(K::kCrushMove, {"osd", "crush", "move"}, "osd crush move NAME TYPE=NAME ...", ParseMove,
          &Applier::Move, E::kStructure, kBareCrushMap),
      Row(K::kCrushSwapBucket, {"osd", "crush", "swap-bucket"},
          "osd crush swap-bucket SOURCE DEST [--yes-i-really-mean-it]", ParseSwapBucket,
          &Applier::SwapBucket, E::kStructure, kBareCrushMap),
      Row(K::kCrushSetDeviceClass, {"osd", "crush", "set-device-class"},
          "osd crush set-device-class CLASS osd.N ...", ParseSetDeviceClass,
          &Applier::SetDeviceClass, E::kStructure, kBareCrushMap),
      Row(K::kCrushRuleCreateReplicated, {"osd", "crush", "rule", "create-replicated"},
          "osd crush rule create-replicated NAME ROOT TYPE [CLASS]", ParseRuleCreate,
          &Applier::CreateReplicatedRule, E::kStructure, kBareCrushMap),
      Row(K::kCrushTunables, {"osd", "crush", "tunables"}, "osd crush tunables PROFILE",
          ParseTunables, &Applier::Tunables, E::kInPlace, kBareCrushMap),
      Row(K::kCrushSetTunable, {"osd", "crush", "set-tunable"},
          "osd crush set-tunable TUNABLE VALUE", ParseSetTunable, &Applier::SetTunable, E::kInPlace,
          kBareCrushMap),
  };
}

// OSD states and the osdmap's own weights (reweight, primary affinity).
std::vector<ChangeOpSpec> OsdStateRows() {
  return {
      Row(K::kMarkOut, {"osd", "out"}, "osd out ID ...", ParseOsdList, &Applier::MarkOsds, E::kNone,
          kWeightOnly),
      Row(K::kMarkIn, {"osd", "in"}, "osd in ID ...", ParseOsdList, &Applier::MarkOsds, E::kNone,
          kWeightOnly),
      Row(K::kMarkDown, {"osd", "down"}, "osd down ID ...", ParseOsdList, &Applier::MarkOsds,
          E::kNone, kOsdMapOnly),
      Row(K::kMarkUp, {"osd", "up"}, "osd up ID ...", ParseOsdList, &Applier::MarkOsds, E::kNone,
          kOsdMapOnly),
      Row(K::kOsdReweight, {"osd", "reweight"}, "osd reweight ID WEIGHT", ParseOsdFraction,
          &Applier::OsdReweight, E::kNone, kWeightOnly),
      Row(K::kOsdPrimaryAffinity, {"osd", "primary-affinity"}, "osd primary-affinity ID AFFINITY",
          ParseOsdFraction, &Applier::PrimaryAffinity, E::kNone, kOsdMapOnly),
  };
}

// Explicit mappings: pg_upmap, pg_upmap_items and pg_upmap_primaries.
std::vector<ChangeOpSpec> UpmapRows() {
  return {
      Row(K::kPgUpmap, {"osd", "pg-upmap"}, "osd pg-upmap PGID ID [ID ...]", ParsePgUpmap,
          &Applier::PgUpmap, E::kNone, kOsdMapOnly),
      Row(K::kRmPgUpmap, {"osd", "rm-pg-upmap"}, "osd rm-pg-upmap PGID", ParsePgOnly,
          &Applier::RemoveUpmap, E::kNone, kOsdMapOnly),
      Row(K::kPgUpmapItems, {"osd", "pg-upmap-items"},
          "osd pg-upmap-items PGID FROM TO [FROM TO ...]", ParsePgUpmapItems,
          &Applier::PgUpmapItems, E::kNone, kOsdMapOnly),
      Row(K::kRmPgUpmapItems, {"osd", "rm-pg-upmap-items"}, "osd rm-pg-upmap-items PGID",
          ParsePgOnly, &Applier::RemoveUpmap, E::kNone, kOsdMapOnly),
      // A new primary for a PG (pg_upmap_primaries): no data moves.
      Row(K::kPgUpmapPrimary, {"osd", "pg-upmap-primary"}, "osd pg-upmap-primary PGID ID",
          ParsePgUpmapPrimary, &Applier::PgUpmapPrimary, E::kNone, kOsdMapOnly),
      Row(K::kRmPgUpmapPrimary, {"osd", "rm-pg-upmap-primary"}, "osd rm-pg-upmap-primary PGID",
          ParsePgOnly, &Applier::RemoveUpmapPrimary, E::kNone, kOsdMapOnly),
  };
}

// Removing an OSD, pool settings, and the planner's own operations.
std::vector<ChangeOpSpec> PoolAndPlannerRows() {
  return {
      // purge removes the OSD from the crush map too (allowed on a bare map).
      Row(K::kOsdPurge, {"osd", "purge"}, "osd purge ID [--yes-i-really-mean-it]", ParsePurge,
          &Applier::Purge, E::kStructure, kBareCrushMap),
      Row(K::kPoolSet, {"osd", "pool", "set"}, "osd pool set POOL SETTING VALUE", ParsePoolSet,
          &Applier::PoolSet, E::kNone, kOsdMapOnly),
      Row(K::kAddHost, {"add-host"},
          "add-host NAME osds=COUNT weight=WEIGHT [class=CLASS] [TYPE=NAME ...]", ParseAddHost,
          &Applier::AddHost, E::kStructure, kBareCrushMap, AddHostJoiningEmpty),
      Row(K::kDrain, {"drain"}, "drain NAME", ParseNameOnly, &Applier::Reweight, E::kInPlace,
          kBareCrushMap | kWeightOnly),
  };
}

}  // namespace

const std::vector<ChangeOpSpec>& ChangeOpTable() {
  static const std::vector<ChangeOpSpec>* table = [] {
    auto* rows = new std::vector<ChangeOpSpec>();
    for (auto group : {CrushMapRows, OsdStateRows, UpmapRows, PoolAndPlannerRows}) {
      std::vector<ChangeOpSpec> more = group();
      rows->insert(rows->end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
    }
    return rows;
  }();
  return *table;
}

const ChangeOpSpec& SpecOf(ChangeOpKind kind) {
  for (const ChangeOpSpec& spec : ChangeOpTable()) {
    if (spec.kind == kind) return spec;
  }
  // Every kind has a row (change_op_table_test); an op can only be made by
  // the parser, from a row.
  return ChangeOpTable().front();
}

}  // namespace crushkit::osdmap::internal
