// Private to the applier files (apply_change.cc, apply_crush_ops.cc,
// apply_osd_ops.cc) and the change-op table: the Applier that carries out
// change operations on a ClusterState. Each operation is one public method;
// the table (change_op_table.cc) names which method applies which command.
// Not installed; not an API.
#ifndef CRUSHKIT_OSDMAP_CHANGES_APPLY_CHANGE_INTERNAL_H_
#define CRUSHKIT_OSDMAP_CHANGES_APPLY_CHANGE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

#include "crush/edit/edit.h"
#include "crush/model.h"
#include "crush/types.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::osdmap::internal {

// "osd.N".
std::string OsdName(std::int32_t id);

// Every device under bucket `root` (each once, in depth-first order), and
// every bucket in that subtree (root included) in `buckets` if given.
std::vector<crush::ItemId> DevicesUnder(const crush::MapModel& map, crush::ItemId root,
                                        std::set<crush::ItemId>* buckets = nullptr);

class Applier {
 public:
  using ItemId = crush::ItemId;

  explicit Applier(ClusterState& st) : st_(st) {}

  // Applies `op` (its table row's method); on failure reports why and
  // leaves the state as it was.
  void Apply(const ChangeOp& op);

  std::vector<ChangeDiagnostic>& diagnostics() { return diags_; }

  bool crush_changed() const { return crush_edits_ > 0; }

  // The command word of the last op that edited the crush map.
  const Word& last_crush_op() const { return last_crush_op_; }

  const std::vector<std::int32_t>& purged() const { return purged_; }

  // --- operations (apply_crush_ops.cc) ---
  bool AddBucket(const ChangeOp& op);
  bool AddOrSetOsd(const ChangeOp& op);
  bool Remove(const ChangeOp& op);
  // reweight (a device), reweight-subtree (the devices under a bucket) and
  // drain (either, to 0).
  bool Reweight(const ChangeOp& op);
  bool Move(const ChangeOp& op);
  bool SwapBucket(const ChangeOp& op);
  bool SetDeviceClass(const ChangeOp& op);
  bool CreateReplicatedRule(const ChangeOp& op);
  bool Tunables(const ChangeOp& op);
  bool SetTunable(const ChangeOp& op);
  bool AddHost(const ChangeOp& op);

  // --- operations (apply_osd_ops.cc) ---
  bool MarkOsds(const ChangeOp& op);
  bool OsdReweight(const ChangeOp& op);
  bool PrimaryAffinity(const ChangeOp& op);
  bool PgUpmap(const ChangeOp& op);
  bool PgUpmapItems(const ChangeOp& op);
  bool RemoveUpmap(const ChangeOp& op);
  bool PgUpmapPrimary(const ChangeOp& op);
  bool RemoveUpmapPrimary(const ChangeOp& op);
  bool Purge(const ChangeOp& op);
  bool PoolSet(const ChangeOp& op);

 private:
  bool Fail(const Word& w, std::string message);

  // A crush/edit/edit.h call failed: say what was attempted and why.
  bool EditFailed(const Word& w, std::string_view what, const absl::Status& s);

  // --- lookups (each reports at the word) ---
  std::vector<std::string> ItemNames() const;
  std::optional<ItemId> Item(const Word& w);
  std::optional<ItemId> Bucket(const Word& w);
  std::optional<ItemId> Device(const Word& w);
  std::optional<int> Type(const Word& w);
  std::string TypeName(int type) const;

  // The TYPE=NAME words of `op` as a crush::Location for an item of type
  // `item_type`. Existing names must be buckets of that type; `moving`
  // (a bucket being moved, or 0) must not end up under its own subtree.
  std::optional<crush::Location> Location(const ChangeOp& op, int item_type, ItemId moving = 0);

  // The OSD of op.osd_ids[i], which must exist in the osdmap.
  bool OsdExists(const ChangeOp& op, std::size_t i);

  // Creates OSD `id` in the osdmap: exists, up, in (max_osd grows to fit).
  void CreateOsd(std::int32_t id);

  static constexpr crush::Weight kWeightIn = 0x10000;

  const Pool* ExistingPg(const ChangeOp& op);
  bool CheckRuleFits(const Word& w, const Pool& pool, int rule, std::uint32_t size);

  ClusterState& st_;
  std::vector<ChangeDiagnostic> diags_;
  int crush_edits_ = 0;
  Word last_crush_op_;
  std::vector<std::int32_t> purged_;
};

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_CHANGES_APPLY_CHANGE_INTERNAL_H_
