// The real raw step of the PG pipeline: crushkit's CRUSH mapper with one
// reused Workspace, and the CrushWrapper lookups osdmaptool needs (rule
// selection, device CRUSH weights).
// A CrushPlacement is not thread-safe (it owns a Workspace); the CrushMap it
// refers to may be shared.
#ifndef CRUSHKIT_OSDMAP_CRUSH_PLACEMENT_H_
#define CRUSHKIT_OSDMAP_CRUSH_PLACEMENT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>

#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/model.h"
#include "osdmap/pg_mapping.h"

namespace crushkit::osdmap {

// CrushWrapper::find_rule() (Pacific): the first rule whose ruleset byte,
// type and [min_size, max_size] match; -1 if none.
int FindCrushRule(const crush::MapModel& model, int ruleset, int type, int size);

// CrushWrapper::get_item_weight(): the weight of `id` in the first bucket
// (by slot) that holds it, or nullopt if no bucket does.
std::optional<crush::Weight> CrushItemWeight(const crush::MapModel& model, crush::ItemId id);

class CrushPlacement final : public RawPlacement {
 public:
  // `map` must outlive this object.
  explicit CrushPlacement(const crush::CrushMap& map);

  // Bucket items one DoRule() call may examine (crush::Workspace::budget;
  // default crush::kDefaultWorkBudget). Lower it to bound the cost of
  // mapping untrusted maps more tightly.
  void set_work_budget(std::uint64_t budget) { ws_.set_budget(budget); }

  int FindRule(int ruleset, int type, int size) const override;
  int DoRule(int rule, std::uint32_t x, std::span<const crush::Weight> weights,
             std::int64_t pool, std::span<std::int32_t> out) override;

 private:
  const crush::CrushMap& map_;
  crush::Workspace ws_;
  // choose_args resolution per pool id, cached (pools are few).
  std::int64_t cached_pool_ = -1;
  crush::ChooseArgsRef cached_args_;
  bool have_cache_ = false;
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CRUSH_PLACEMENT_H_
