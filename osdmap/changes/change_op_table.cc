#include "osdmap/changes/change_op_table.h"

#include <cstddef>
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
  op.weight_word.text = "0";
  return op;
}

// add-host NAME osds=N weight=W ...: weight=0.
ChangeOp AddHostJoiningEmpty(ChangeOp op) { return WithWeightWord(std::move(op), 0, "weight="); }

// osd crush add ID WEIGHT ...: the weight is the word after the id.
ChangeOp CrushAddJoiningEmpty(ChangeOp op) { return WithWeightWord(std::move(op), 4, ""); }

using K = ChangeOpKind;
using E = CrushEffect;

}  // namespace

const std::vector<ChangeOpSpec>& ChangeOpTable() {
  // kind, words, usage, parse, apply, crush effect, crush map op, weight only, join empty
  static const std::vector<ChangeOpSpec>* table = new std::vector<ChangeOpSpec>{
      {K::kCrushAddBucket,
       {"osd", "crush", "add-bucket"},
       "osd crush add-bucket NAME TYPE [TYPE=NAME ...]",
       ParseAddBucket,
       &Applier::AddBucket,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushAdd,
       {"osd", "crush", "add"},
       "osd crush add osd.N WEIGHT [TYPE=NAME ...]",
       ParseAddOrSet,
       &Applier::AddOrSetOsd,
       E::kStructure,
       true,
       false,
       CrushAddJoiningEmpty},
      {K::kCrushSet,
       {"osd", "crush", "set"},
       "osd crush set osd.N WEIGHT [TYPE=NAME ...]",
       ParseAddOrSet,
       &Applier::AddOrSetOsd,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushRemove,
       {"osd", "crush", "remove"},
       "osd crush remove NAME",
       ParseNameOnly,
       &Applier::Remove,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushRemove,
       {"osd", "crush", "rm"},
       "osd crush rm NAME",
       ParseNameOnly,
       &Applier::Remove,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushUnlink,
       {"osd", "crush", "unlink"},
       "osd crush unlink NAME",
       ParseNameOnly,
       &Applier::Remove,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushReweight,
       {"osd", "crush", "reweight"},
       "osd crush reweight NAME WEIGHT",
       ParseReweight,
       &Applier::Reweight,
       E::kInPlace,
       true,
       true,
       nullptr},
      {K::kCrushReweightSubtree,
       {"osd", "crush", "reweight-subtree"},
       "osd crush reweight-subtree NAME WEIGHT",
       ParseReweight,
       &Applier::Reweight,
       E::kInPlace,
       true,
       true,
       nullptr},
      {K::kCrushMove,
       {"osd", "crush", "move"},
       "osd crush move NAME TYPE=NAME ...",
       ParseMove,
       &Applier::Move,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushSwapBucket,
       {"osd", "crush", "swap-bucket"},
       "osd crush swap-bucket SOURCE DEST [--yes-i-really-mean-it]",
       ParseSwapBucket,
       &Applier::SwapBucket,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushSetDeviceClass,
       {"osd", "crush", "set-device-class"},
       "osd crush set-device-class CLASS osd.N ...",
       ParseSetDeviceClass,
       &Applier::SetDeviceClass,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushRuleCreateReplicated,
       {"osd", "crush", "rule", "create-replicated"},
       "osd crush rule create-replicated NAME ROOT TYPE [CLASS]",
       ParseRuleCreate,
       &Applier::CreateReplicatedRule,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kCrushTunables,
       {"osd", "crush", "tunables"},
       "osd crush tunables PROFILE",
       ParseTunables,
       &Applier::Tunables,
       E::kInPlace,
       true,
       false,
       nullptr},
      {K::kCrushSetTunable,
       {"osd", "crush", "set-tunable"},
       "osd crush set-tunable TUNABLE VALUE",
       ParseSetTunable,
       &Applier::SetTunable,
       E::kInPlace,
       true,
       false,
       nullptr},
      {K::kMarkOut,
       {"osd", "out"},
       "osd out ID ...",
       ParseOsdList,
       &Applier::MarkOsds,
       E::kNone,
       false,
       true,
       nullptr},
      {K::kMarkIn,
       {"osd", "in"},
       "osd in ID ...",
       ParseOsdList,
       &Applier::MarkOsds,
       E::kNone,
       false,
       true,
       nullptr},
      {K::kMarkDown,
       {"osd", "down"},
       "osd down ID ...",
       ParseOsdList,
       &Applier::MarkOsds,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kMarkUp,
       {"osd", "up"},
       "osd up ID ...",
       ParseOsdList,
       &Applier::MarkOsds,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kOsdReweight,
       {"osd", "reweight"},
       "osd reweight ID WEIGHT",
       ParseOsdFraction,
       &Applier::OsdReweight,
       E::kNone,
       false,
       true,
       nullptr},
      {K::kOsdPrimaryAffinity,
       {"osd", "primary-affinity"},
       "osd primary-affinity ID AFFINITY",
       ParseOsdFraction,
       &Applier::PrimaryAffinity,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kPgUpmap,
       {"osd", "pg-upmap"},
       "osd pg-upmap PGID ID [ID ...]",
       ParsePgUpmap,
       &Applier::PgUpmap,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kRmPgUpmap,
       {"osd", "rm-pg-upmap"},
       "osd rm-pg-upmap PGID",
       ParsePgOnly,
       &Applier::RemoveUpmap,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kPgUpmapItems,
       {"osd", "pg-upmap-items"},
       "osd pg-upmap-items PGID FROM TO [FROM TO ...]",
       ParsePgUpmapItems,
       &Applier::PgUpmapItems,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kRmPgUpmapItems,
       {"osd", "rm-pg-upmap-items"},
       "osd rm-pg-upmap-items PGID",
       ParsePgOnly,
       &Applier::RemoveUpmap,
       E::kNone,
       false,
       false,
       nullptr},
      // purge removes the OSD from the crush map too (allowed on a bare map).
      {K::kOsdPurge,
       {"osd", "purge"},
       "osd purge ID [--yes-i-really-mean-it]",
       ParsePurge,
       &Applier::Purge,
       E::kStructure,
       true,
       false,
       nullptr},
      {K::kPoolSet,
       {"osd", "pool", "set"},
       "osd pool set POOL SETTING VALUE",
       ParsePoolSet,
       &Applier::PoolSet,
       E::kNone,
       false,
       false,
       nullptr},
      {K::kAddHost,
       {"add-host"},
       "add-host NAME osds=COUNT weight=WEIGHT [class=CLASS] [TYPE=NAME ...]",
       ParseAddHost,
       &Applier::AddHost,
       E::kStructure,
       true,
       false,
       AddHostJoiningEmpty},
      {K::kDrain,
       {"drain"},
       "drain NAME",
       ParseNameOnly,
       &Applier::Reweight,
       E::kInPlace,
       true,
       true,
       nullptr},
  };
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
