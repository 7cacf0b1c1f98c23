#include "osdmap/planning/upmap_pinning.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/upmap_pinning_internal.h"

namespace crushkit::osdmap {
namespace {

using OsdSpan = std::span<const std::int32_t>;

bool IsHole(std::int32_t osd) { return osd == crush::kItemNone; }

bool Contains(OsdSpan osds, std::int32_t osd) {
  return std::find(osds.begin(), osds.end(), osd) != osds.end();
}

// Whether `up` is the before up set `want`: replicated pools compare sets
// (order only picks the primary; no data moves), EC pools position by
// position, a hole in `want` matching anything (nothing there to keep).
bool SameUp(const Pool& pool, OsdSpan want, OsdSpan up) {
  if (pool.CanShiftOsds()) {
    // Called for every PG of the cluster: most keep their set in order, and
    // the others are sorted on the stack.
    if (want.size() != up.size()) return false;
    if (std::equal(want.begin(), want.end(), up.begin())) return true;
    if (want.size() > static_cast<std::size_t>(kMaxPgOsds)) {
      std::vector<std::int32_t> a(want.begin(), want.end());
      std::vector<std::int32_t> b(up.begin(), up.end());
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      return a == b;
    }
    std::array<std::int32_t, kMaxPgOsds> a;
    std::array<std::int32_t, kMaxPgOsds> b;
    const auto end_a = std::copy(want.begin(), want.end(), a.begin());
    const auto end_b = std::copy(up.begin(), up.end(), b.begin());
    std::sort(a.begin(), end_a);
    std::sort(b.begin(), end_b);
    return std::equal(a.begin(), end_a, b.begin());
  }
  if (want.size() != up.size()) return false;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!IsHole(want[i]) && want[i] != up[i]) return false;
  }
  return true;
}

// Orders `pairs` so that OSDMap::_apply_upmap applies every one of them to
// `raw`: a pair is skipped when its target is already in the set, so a pair
// whose target is still held elsewhere must wait for the pair that moves
// that OSD away. Simulates the application; nullopt when some pair can never
// apply (a swap or longer cycle, or a target held by a position no pair
// changes).
std::optional<UpmapItems> OrderPairs(OsdSpan raw, UpmapItems pairs) {
  std::vector<std::int32_t> set(raw.begin(), raw.end());
  UpmapItems ordered;
  while (!pairs.empty()) {
    auto it = std::find_if(pairs.begin(), pairs.end(),
                           [&](const auto& p) { return !Contains(set, p.second); });
    if (it == pairs.end()) return std::nullopt;
    auto from = std::find(set.begin(), set.end(), it->first);
    if (from == set.end()) return std::nullopt;  // not built by EcItems; be safe
    *from = it->second;
    ordered.push_back(*it);
    pairs.erase(it);
  }
  return ordered;
}

// upmap-remapped's pairs for a replicated PG: each OSD of the after raw set
// `raw` that the before up set `want` lacks is mapped to an OSD of `want`
// that `raw` lacks. OSDs up in `after` are replaced first: an OSD down in
// `after` drops out of the up set anyway. nullopt when `want` has more new
// OSDs than `raw` has positions to give (items cannot grow a set).
std::optional<UpmapItems> ReplicatedItems(const ClusterState& after, OsdSpan raw, OsdSpan want) {
  std::vector<std::int32_t> from;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::int32_t osd : raw) {
      if (!Contains(want, osd) && after.IsUp(osd) == (pass == 0)) from.push_back(osd);
    }
  }
  std::vector<std::int32_t> to;
  for (std::int32_t osd : want) {
    if (!IsHole(osd) && !Contains(raw, osd)) to.push_back(osd);
  }
  if (to.empty() || to.size() > from.size()) return std::nullopt;
  UpmapItems items;
  for (std::size_t i = 0; i < to.size(); ++i) items.emplace_back(from[i], to[i]);
  return items;
}

// The pairs for an EC PG: position i goes from raw[i] to want[i] wherever
// `want` has an OSD that differs; positions that were holes keep the after
// OSD. nullopt when a position to change is a hole in `raw` (a pair's source
// must be an OSD), or when no order applies every pair (OrderPairs).
std::optional<UpmapItems> EcItems(OsdSpan raw, OsdSpan want) {
  if (raw.size() != want.size()) return std::nullopt;
  UpmapItems pairs;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (IsHole(want[i]) || raw[i] == want[i]) continue;
    if (IsHole(raw[i])) return std::nullopt;
    pairs.emplace_back(raw[i], want[i]);
  }
  if (pairs.empty()) return std::nullopt;
  return OrderPairs(raw, std::move(pairs));
}

// The full pg_upmap fallback: the before up set; for EC pools its holes take
// the after OSD of that position unless that OSD is used elsewhere. nullopt
// when a hole remains (the monitor cancels a pg_upmap holding a hole:
// verify_upmap finds 2147483647 under no bucket).
std::optional<std::vector<std::int32_t>> FullUpmap(const Pool& pool, OsdSpan raw, OsdSpan want) {
  std::vector<std::int32_t> out(want.begin(), want.end());
  if (pool.CanShiftOsds()) return out;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!IsHole(out[i])) continue;
    if (i < raw.size() && !IsHole(raw[i]) && !Contains(want, raw[i])) {
      out[i] = raw[i];
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string OsdName(std::int32_t osd) { return absl::StrCat("osd.", osd); }

// Why no entry maps the PG back, from the OSDs of the before set as `after`
// sees them (what _apply_upmap and _raw_to_up_osds reject).
std::string UnmappableReason(const ClusterState& after, OsdSpan want) {
  for (std::int32_t osd : want) {
    if (IsHole(osd)) continue;
    if (!after.Exists(osd)) return OsdName(osd) + " of the before set does not exist in after";
    const OsdInfo& info = after.osds[static_cast<std::size_t>(osd)];
    if (info.state & kOsdDestroyed)
      return OsdName(osd) + " of the before set is destroyed in after";
    if (info.weight == 0) return OsdName(osd) + " of the before set is out in after (reweight 0)";
    if (!after.IsUp(osd)) return OsdName(osd) + " of the before set is down in after";
  }
  return absl::StrCat("no pg_upmap_items or pg_upmap entry maps it back to ", FormatOsdList(want));
}

std::string CleanupReason(UpmapCancelReason r) {
  const std::string name(UpmapCancelReasonName(r));
  switch (r) {
    case UpmapCancelReason::kSameFailureDomain:
    case UpmapCancelReason::kTooManyBuckets:
    case UpmapCancelReason::kOutsideTakeRoot:
      return absl::StrCat(
          "violates the rule's failure domain (the monitor's upmap cleanup "
          "would cancel it: ",
          name, ")");
    case UpmapCancelReason::kOsdZeroWeight:
      return absl::StrCat(
          "an OSD of the before set has CRUSH weight 0 under the rule or is out "
          "in after (the monitor's upmap cleanup would cancel it: ",
          name, ")");
    default:
      return absl::StrCat("the monitor's upmap cleanup would cancel it: ", name);
  }
}

absl::StatusOr<std::unique_ptr<MappingSession>> Session(const ClusterState& state,
                                                        const char* which) {
  auto s = MappingSession::Create(state);
  if (!s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(which, ": ", s.status().message()));
  }
  return std::move(*s);
}

// One PG to pin: its before up set (what it must map to again) and its
// before raw set with upmaps applied, down OSDs still in (what _apply_upmap
// produced before the change).
struct PinTask {
  PgId pg;
  std::vector<std::int32_t> want_up;
  std::vector<std::int32_t> want_raw;
};

// A candidate entry: pg_upmap_items, or a full pg_upmap.
struct Candidate {
  UpmapItems items;
  std::vector<std::int32_t> pg_upmap;

  bool operator==(const Candidate&) const = default;
};

// The entries to try, in order: upmap-remapped's pairs from the after raw
// set to the before up set; the same to the before raw set (a replicated
// PG whose before set held an OSD that is down in both states: the up set
// then lacks it and the pairs alone cannot drop an after OSD; an EC PG whose
// hole position, left to the after OSD, breaks the failure domain); then
// the full pg_upmap of each. Duplicates are dropped.
std::vector<Candidate> Candidates(const ClusterState& after, const Pool& pool, OsdSpan raw,
                                  const PinTask& task) {
  std::vector<Candidate> out;
  auto add = [&out](Candidate c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
  };
  for (const auto* want : {&task.want_up, &task.want_raw}) {
    const auto items =
        pool.CanShiftOsds() ? ReplicatedItems(after, raw, *want) : EcItems(raw, *want);
    if (items) add(Candidate{*items, {}});
  }
  for (const auto* want : {&task.want_up, &task.want_raw}) {
    if (auto full = FullUpmap(pool, raw, *want)) add(Candidate{{}, *std::move(full)});
  }
  return out;
}

// The Pinner maps each remapped PG of its copy of `after` about three times
// with the same CRUSH inputs (its raw set for the candidates, each
// candidate's check, the monitor's cleanup check): only upmap entries
// differ, and CRUSH does not read them. This placement keeps each DoRule()
// result of the one state it serves and answers a repeated call from it,
// counting a kept result's divergence from Ceph again, so DivergedFromCeph()
// is what mapping every time would give. REQUIRES: the state's CRUSH map
// and OSD weights do not change while it is used.
class RememberingPlacement final : public RawPlacement {
 public:
  explicit RememberingPlacement(CrushPlacement& inner) : inner_(inner), slots_(1024) {}

  int FindRule(int ruleset, int type, int size) const override {
    return inner_.FindRule(ruleset, type, size);
  }

  int DoRule(int rule, std::uint32_t x, std::span<const crush::Weight> weights, std::int64_t pool,
             std::span<std::int32_t> out) override {
    Slot& k = Find(pool, x);
    if (k.used && k.rule == rule && k.weights == weights.data() && k.capacity == out.size()) {
      std::copy_n(osds_.begin() + k.offset, std::max(k.n, 0), out.begin());
      if (k.diverged) ++repeated_diverged_;
      visited_ = k.visited;
      return k.n;
    }
    const std::uint64_t diverged = inner_.DivergedFromCeph();
    const int n = inner_.DoRule(rule, x, weights, pool, out);
    if (!k.used) ++used_;
    k = Slot{.pool = pool,
             .x = x,
             .used = true,
             .diverged = inner_.DivergedFromCeph() != diverged,
             .rule = rule,
             .n = n,
             .weights = weights.data(),
             .capacity = out.size(),
             .offset = osds_.size(),
             .visited = inner_.LastVisitedBuckets()};
    osds_.insert(osds_.end(), out.begin(), out.begin() + std::max(n, 0));
    visited_ = k.visited;
    if (2 * used_ > slots_.size()) Grow();
    return n;
  }

  std::uint64_t LastVisitedBuckets() const override { return visited_; }

  std::uint64_t DivergedFromCeph() const override {
    return inner_.DivergedFromCeph() + repeated_diverged_;
  }

 private:
  // One kept result, in an open-addressed table by (pool, x); its OSDs in
  // osds_ from `offset`.
  struct Slot {
    std::int64_t pool = 0;
    std::uint32_t x = 0;
    bool used = false;
    bool diverged = false;
    int rule = 0;
    int n = 0;
    const crush::Weight* weights = nullptr;
    std::size_t capacity = 0;
    std::size_t offset = 0;
    std::uint64_t visited = 0;
  };

  // The slot of (pool, x), or the free slot where it goes (linear probing;
  // the table is at most half full).
  Slot& Find(std::int64_t pool, std::uint32_t x) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = static_cast<std::size_t>(
        ((static_cast<std::uint64_t>(pool) << 32 | x) * 0x9E3779B97F4A7C15ULL) >> 20);
    for (;; ++i) {
      Slot& slot = slots_[i & mask];
      if (!slot.used || (slot.pool == pool && slot.x == x)) return slot;
    }
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.used) Find(slot.pool, slot.x) = slot;
    }
  }

  CrushPlacement& inner_;
  std::vector<Slot> slots_;  // a power of two
  std::size_t used_ = 0;
  std::vector<std::int32_t> osds_;
  std::uint64_t repeated_diverged_ = 0;
  std::uint64_t visited_ = ~std::uint64_t{0};
};

// Builds the pins on a working copy of `after`, mapping PGs with the
// candidate entries in place (the copy is what the checks map, so nothing
// here relies on reasoning about _apply_upmap alone).
class Pinner {
 public:
  Pinner(const ClusterState& after, const crush::CrushMap& map)
      : after_(after),
        work_(after),
        placement_(map, after.ceph_release),
        remembered_(placement_),
        mapper_(work_, remembered_) {}

  // Sets the first candidate from index `first` on that maps `task.pg` to
  // its before up set; returns its index, or nullopt (the PG's entries of
  // `after` are restored).
  std::optional<std::size_t> Pin(const PinTask& task, std::size_t first) {
    const Pool& pool = work_.pools.at(task.pg.pool);
    OsdList raw;
    OsdList raw_upmap;
    mapper_.PgToRawUpmap(task.pg, &raw, &raw_upmap);
    const std::vector<Candidate> candidates = Candidates(after_, pool, raw.span(), task);
    for (std::size_t i = first; i < candidates.size(); ++i) {
      Set(task.pg, candidates[i]);
      if (MapsTo(pool, task.pg, task.want_up)) {
        chosen_[task.pg] = candidates[i];
        return i;
      }
    }
    Restore(task.pg);
    chosen_.erase(task.pg);
    return std::nullopt;
  }

  // OSDMap::check_pg_upmaps() over the copy with every pin set: the pinned
  // PGs it would cancel or trim, with the reason. Each PG's check depends on
  // its own entries only.
  absl::StatusOr<std::map<PgId, std::string>> Rejected() {
    CRUSH_ASSIGN_OR_RETURN(const UpmapCleanup cleanup, CheckPgUpmaps(work_, mapper_));
    std::map<PgId, std::string> out;
    for (const auto& [pg, reason] : cleanup.cancelled) {
      if (chosen_.count(pg)) out[pg] = CleanupReason(reason);
    }
    for (const auto& [pg, items] : cleanup.trimmed_items) {
      if (chosen_.count(pg)) {
        out[pg] =
            "the monitor's upmap cleanup would trim its pairs (a source not in the raw "
            "CRUSH set or an out target)";
      }
    }
    return out;
  }

  // The pins set, in PG order.
  std::vector<UpmapPin> Pins() const {
    std::vector<UpmapPin> out;
    for (const auto& [pg, c] : chosen_) {
      UpmapPin pin;
      pin.pg = pg;
      pin.items = c.items;
      pin.pg_upmap = c.pg_upmap;
      pin.removes_pg_upmap = !c.items.empty() && after_.pg_upmap.count(pg) != 0;
      pin.removes_pg_upmap_items = !c.pg_upmap.empty() && after_.pg_upmap_items.count(pg) != 0;
      out.push_back(std::move(pin));
    }
    return out;
  }

  // Its mappings whose result is crushkit's answer where Ceph's is undefined.
  std::uint64_t diverged_from_ceph() const { return remembered_.DivergedFromCeph(); }

 private:
  void Set(const PgId& pg, const Candidate& c) {
    if (!c.items.empty()) {
      work_.pg_upmap.erase(pg);
      work_.pg_upmap_items[pg] = c.items;
    } else {
      work_.pg_upmap_items.erase(pg);
      work_.pg_upmap[pg] = c.pg_upmap;
    }
  }

  bool MapsTo(const Pool& pool, const PgId& pg, OsdSpan want) {
    PgMapping m;
    mapper_.MapPg(pool, pg.ps, &m);
    return SameUp(pool, want, m.up.span());
  }

  void Restore(const PgId& pg) {
    work_.pg_upmap.erase(pg);
    work_.pg_upmap_items.erase(pg);
    if (auto i = after_.pg_upmap.find(pg); i != after_.pg_upmap.end())
      work_.pg_upmap[pg] = i->second;
    if (auto j = after_.pg_upmap_items.find(pg); j != after_.pg_upmap_items.end()) {
      work_.pg_upmap_items[pg] = j->second;
    }
  }

  const ClusterState& after_;
  ClusterState work_;
  CrushPlacement placement_;
  RememberingPlacement remembered_;
  PgMapper mapper_;
  std::map<PgId, Candidate> chosen_;
};

// Pins every task that some candidate maps back and the monitor's cleanup
// keeps: a PG whose pin the cleanup rejects retries its later candidates,
// then one more cleanup pass checks the retried ones (at most one pass per
// candidate kind). Fills plan->pins and plan->unpinnable.
absl::Status PinAll(const ClusterState& after, const std::vector<PinTask>& tasks, Pinner& pinner,
                    UpmapPinPlan* plan) {
  std::map<PgId, std::size_t> index;  // chosen candidate per pinned PG
  std::map<PgId, const PinTask*> by_pg;
  for (const PinTask& t : tasks) {
    by_pg[t.pg] = &t;
    if (auto i = pinner.Pin(t, 0)) {
      index[t.pg] = *i;
    } else {
      plan->unpinnable.push_back(UnpinnablePg{t.pg, UnmappableReason(after, t.want_up)});
    }
  }
  for (;;) {
    CRUSH_ASSIGN_OR_RETURN(const auto rejected, pinner.Rejected());
    if (rejected.empty()) break;
    for (const auto& [pg, reason] : rejected) {
      if (auto i = pinner.Pin(*by_pg.at(pg), index.at(pg) + 1)) {
        index[pg] = *i;
      } else {
        index.erase(pg);
        plan->unpinnable.push_back(UnpinnablePg{pg, reason});
      }
    }
  }
  plan->pins = pinner.Pins();
  std::sort(plan->unpinnable.begin(), plan->unpinnable.end(),
            [](const UnpinnablePg& a, const UnpinnablePg& b) { return a.pg < b.pg; });
  return absl::OkStatus();
}

// The commands that set `pin` and those that restore `after`'s entries.
void FillCommands(const ClusterState& after, UpmapPin& pin) {
  const auto up = after.pg_upmap.find(pin.pg);
  const auto items = after.pg_upmap_items.find(pin.pg);
  const bool had_upmap = up != after.pg_upmap.end();
  const bool had_items = items != after.pg_upmap_items.end();
  if (!pin.items.empty()) {
    if (pin.removes_pg_upmap) pin.commands.push_back(FormatRmPgUpmapCommand(pin.pg));
    pin.commands.push_back(FormatPgUpmapItemsCommand(pin.pg, pin.items));
    pin.unpin_commands.push_back(had_items ? FormatPgUpmapItemsCommand(pin.pg, items->second)
                                           : FormatRmPgUpmapItemsCommand(pin.pg));
    if (pin.removes_pg_upmap) {
      pin.unpin_commands.push_back(FormatPgUpmapCommand(pin.pg, up->second));
    }
  } else {
    if (pin.removes_pg_upmap_items) pin.commands.push_back(FormatRmPgUpmapItemsCommand(pin.pg));
    pin.commands.push_back(FormatPgUpmapCommand(pin.pg, pin.pg_upmap));
    pin.unpin_commands.push_back(had_upmap ? FormatPgUpmapCommand(pin.pg, up->second)
                                           : FormatRmPgUpmapCommand(pin.pg));
    if (pin.removes_pg_upmap_items) {
      pin.unpin_commands.push_back(FormatPgUpmapItemsCommand(pin.pg, items->second));
    }
  }
}

}  // namespace

namespace {

absl::Status CheckMisplacedLimit(double max_misplaced) {
  if (!(max_misplaced > 0 && max_misplaced <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_misplaced must be in (0, 1], got ", max_misplaced));
  }
  return absl::OkStatus();
}

// PlanUpmapPinning() on the mapped change.
absl::StatusOr<UpmapPinPlan> PinMapped(const MappedChange& mapped, const Movement& at_once,
                                       double max_misplaced, const BackfillOptions& backfill,
                                       double max_fill) {
  const ClusterState& before = mapped.before->state();
  const ClusterState& after = mapped.after->state();
  const PgTablePair& tables = *mapped.tables;
  UpmapPinPlan plan;
  plan.max_misplaced = max_misplaced;
  std::vector<PinTask> tasks;
  internal::BeforeRawSets before_raw(*mapped.before, tables.recorded.get());
  for (const auto& [id, pool] : after.pools) {
    const Pool* old = before.FindPool(id);
    const PoolPgTable* bt = tables.before.Find(id);
    const PoolPgTable* at = tables.after.Find(id);
    if (old == nullptr || bt == nullptr || at == nullptr) continue;
    if (old->pg_num != pool.pg_num) {
      // Split or merged PGs have no before set of their own to return to.
      const std::string reason = absl::StrCat("pg_num changes from ", old->pg_num, " to ",
                                              pool.pg_num, " (PGs split or merge); not pinned");
      for (const PgMove& m : at_once.moves) {
        if (m.pg.pool == id) plan.unpinnable.push_back(UnpinnablePg{m.pg, reason});
      }
      continue;
    }
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      if (SameUp(pool, bt->Up(ps), at->Up(ps))) continue;
      PinTask& t = tasks.emplace_back();
      t.pg = PgId{id, ps};
      t.want_up.assign(bt->Up(ps).begin(), bt->Up(ps).end());
      t.want_raw = before_raw.RawUpmap(*old, ps);
    }
  }
  Pinner pinner(after, mapped.after->crush_map());
  CRUSH_RETURN_IF_ERROR(PinAll(after, tasks, pinner, &plan));
  plan.diverged_from_ceph = before_raw.diverged_from_ceph() + pinner.diverged_from_ceph();
  for (UpmapPin& pin : plan.pins) FillCommands(after, pin);

  CRUSH_RETURN_IF_ERROR(
      internal::MakePinBatches(at_once, backfill, max_misplaced, max_fill, &plan));
  return plan;
}

}  // namespace

absl::StatusOr<UpmapPinPlan> PlanUpmapPinning(const ClusterState& before, const ClusterState& after,
                                              const Movement& at_once, double max_misplaced,
                                              const BackfillOptions& backfill, double max_fill) {
  CRUSH_RETURN_IF_ERROR(CheckMisplacedLimit(max_misplaced));
  CRUSH_ASSIGN_OR_RETURN(std::shared_ptr<const MappingSession> before_session,
                         Session(before, "before"));
  CRUSH_ASSIGN_OR_RETURN(std::shared_ptr<const MappingSession> after_session,
                         Session(after, "after"));
  MapAllOptions map_options;
  map_options.acting = false;
  auto tables = std::make_shared<const PgTablePair>(
      MapAllPgsPaired(*before_session, *after_session, map_options));
  const MappedChange mapped{std::move(before_session), std::move(after_session), std::move(tables)};
  absl::StatusOr<UpmapPinPlan> plan = PinMapped(mapped, at_once, max_misplaced, backfill, max_fill);
  if (plan.ok()) {
    plan->diverged_from_ceph +=
        mapped.tables->before.diverged_from_ceph + mapped.tables->after.diverged_from_ceph;
  }
  return plan;
}

absl::StatusOr<UpmapPinPlan> PlanUpmapPinning(const MappedChange& mapped, const Movement& at_once,
                                              double max_misplaced, const BackfillOptions& backfill,
                                              double max_fill) {
  CRUSH_RETURN_IF_ERROR(CheckMisplacedLimit(max_misplaced));
  return PinMapped(mapped, at_once, max_misplaced, backfill, max_fill);
}

absl::StatusOr<ClusterState> ApplyPins(const ClusterState& after, const UpmapPinPlan& plan) {
  ClusterState out = after;
  for (const UpmapPin& pin : plan.pins) {
    const Pool* pool = out.FindPool(pin.pg.pool);
    if (pool == nullptr || pin.pg.ps >= pool->pg_num) {
      return absl::InvalidArgumentError(
          absl::StrCat("pin for pg ", FormatPgId(pin.pg), ": no such pg in after"));
    }
    if (pin.items.empty() == pin.pg_upmap.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("pin for pg ", FormatPgId(pin.pg),
                                                     ": needs exactly one of items and pg_upmap"));
    }
    if (!pin.items.empty()) {
      out.pg_upmap.erase(pin.pg);
      out.pg_upmap_items[pin.pg] = pin.items;
    } else {
      out.pg_upmap_items.erase(pin.pg);
      out.pg_upmap[pin.pg] = pin.pg_upmap;
    }
  }
  return out;
}

}  // namespace crushkit::osdmap
