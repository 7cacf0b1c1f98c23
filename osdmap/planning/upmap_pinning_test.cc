// The upmap way of a change on small hand-built clusters and on
// samples/cluster: every pin, applied to `after`, must map its PG back to the
// before up set (checked by mapping every PG again and by the movement
// report), survive the monitor's cleanup, and be what the printed commands
// do when parsed and applied like a change file.
#include "osdmap/planning/upmap_pinning.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include <google/protobuf/struct.pb.h>

#include "crush/codec.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/plan_report.h"
#include "tests/testing/cluster_builder.h"
#include "tests/testing/osdmap_state.h"
#include "tests/testing/sample_cluster.h"
#include "tests/testing/status_matchers.h"

namespace crushkit::osdmap {

// gtest prints PG ids as Ceph does.
void PrintTo(const PgId& pg, std::ostream* os) { *os << FormatPgId(pg); }

namespace {

using ::crush_testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr std::int64_t kPinRep = crush_testing::kRepPool;
constexpr std::int64_t kPinEc = crush_testing::kEcPool;

// `hosts` hosts of 4 OSDs (osd.i in host i/4); pool 1 replicated size 3 on
// chooseleaf firstn host, pool 2 EC 2+1 on chooseleaf indep host, 128 PGs
// each, every PG 100..106 objects of 4 MiB.
ClusterState PinState(int hosts) {
  ClusterState s = crush_testing::MakeTestState(
      {.hosts = hosts, .osds_per_host = 4, .rep_pg_num = 128, .ec_pg_num = 128});
  s.epoch = 5;
  for (const auto& [id, pool] : s.pools) {
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      const std::uint64_t objects = 100 + ps % 7;
      s.pg_stats[PgId{id, ps}] = PgStat{objects, objects << 22, 0};
    }
  }
  return s;
}

ClusterState ApplyText(const ClusterState& state, const std::string& text) {
  auto change = ParseChange(text, "ops");
  EXPECT_THAT(change, IsOk()) << text;
  if (!change.ok()) return state;
  auto out = ApplyChange(state, *change);
  EXPECT_THAT(out, IsOk()) << text;
  return out.ok() ? *out : state;
}

Movement PinDiff(const ClusterState& before, const ClusterState& after) {
  MovementOptions opt;
  opt.threads = 2;
  opt.keep_moves = true;
  absl::StatusOr<Movement> m = DiffStates(before, after, opt);
  EXPECT_THAT(m, IsOk());
  return m.ok() ? *std::move(m) : Movement{};
}

// A change as the planner sees it: `after` cleaned by the monitor, and the
// movement of doing it at once.
struct Change {
  ClusterState before;
  ClusterState after;
  Movement at_once;
};

Change MakeChange(const ClusterState& before, const ChangeList& change) {
  auto after = ApplyChange(before, change);
  EXPECT_THAT(after, IsOk());
  Change c{before, after.ok() ? *std::move(after) : before, {}};
  EXPECT_THAT(CleanPgUpmaps(c.after), IsOk());
  c.at_once = PinDiff(c.before, c.after);
  return c;
}

Change MakeChange(const ClusterState& before, const std::string& ops) {
  auto change = ParseChange(ops, "ops");
  EXPECT_THAT(change, IsOk()) << ops;
  return change.ok() ? MakeChange(before, *change) : Change{before, before, {}};
}

UpmapPinPlan PlanOk(const Change& c, double max_misplaced = 0.05) {
  BackfillOptions backfill;
  auto plan = PlanUpmapPinning(c.before, c.after, c.at_once, max_misplaced, backfill);
  EXPECT_THAT(plan, IsOk());
  return plan.ok() ? *std::move(plan) : UpmapPinPlan{};
}

ClusterState Pinned(const Change& c, const UpmapPinPlan& plan) {
  auto pinned = ApplyPins(c.after, plan);
  EXPECT_THAT(pinned, IsOk());
  return pinned.ok() ? *pinned : c.after;
}

std::set<PgId> PinnedPgs(const UpmapPinPlan& plan) {
  std::set<PgId> out;
  for (const UpmapPin& pin : plan.pins) out.insert(pin.pg);
  return out;
}

std::set<PgId> UnpinnablePgs(const UpmapPinPlan& plan) {
  std::set<PgId> out;
  for (const UnpinnablePg& u : plan.unpinnable) out.insert(u.pg);
  return out;
}

// PGs of `state` whose up set differs from `before`'s (sets for replicated
// pools, positions for EC), from one mapping of every PG of both. With
// `holes_match`, a hole in an EC PG's before set matches any OSD (the
// plan's notion of "maps back"); without, this is what the movement report
// counts as remapped.
std::set<PgId> DifferingPgs(const ClusterState& before, const ClusterState& state,
                            bool holes_match = true) {
  std::set<PgId> out;
  auto b = MappingSession::Create(before);
  auto a = MappingSession::Create(state);
  EXPECT_THAT(b, IsOk());
  EXPECT_THAT(a, IsOk());
  if (!b.ok() || !a.ok()) return out;
  MapAllOptions options;
  options.threads = 2;
  options.acting = false;
  const PgTable tb = MapAllPgs(**b, options);
  const PgTable ta = MapAllPgs(**a, options);
  for (const PoolPgTable& pa : ta.pools) {
    const PoolPgTable* pb = tb.Find(pa.pool_id);
    const bool ec = !state.pools.at(pa.pool_id).CanShiftOsds();
    for (std::uint32_t ps = 0; ps < pa.pg_num; ++ps) {
      std::vector<std::int32_t> x(pb->Up(ps).begin(), pb->Up(ps).end());
      std::vector<std::int32_t> y(pa.Up(ps).begin(), pa.Up(ps).end());
      if (!ec) {
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
      } else if (holes_match && x.size() == y.size()) {
        for (std::size_t i = 0; i < x.size(); ++i) {
          if (x[i] == crush::kItemNone) y[i] = crush::kItemNone;
        }
      }
      if (x != y) out.insert(PgId{pa.pool_id, ps});
    }
  }
  return out;
}

// Whether the PG's before up set has a hole.
bool HadHole(const ClusterState& before, const PgId& pg) {
  auto s = MappingSession::Create(before);
  if (!s.ok()) return false;
  PgMapping m;
  (*s)->mapper().PgToUpActing(pg, &m);
  const auto up = m.up.span();
  return std::find(up.begin(), up.end(), crush::kItemNone) != up.end();
}

// The properties every plan must have: pins and unpinnable PGs are disjoint,
// in PG order, and cover exactly the PGs the change remaps; with the pins
// applied, exactly the unpinnable PGs still differ from `before` (checked by
// mapping every PG, and by the movement report, which also counts EC
// positions that were holes before and are filled now), and the monitor's
// cleanup keeps every pin untouched.
void ExpectPinsHold(const Change& c, const UpmapPinPlan& plan) {
  const std::set<PgId> pinned = PinnedPgs(plan);
  const std::set<PgId> unpinnable = UnpinnablePgs(plan);
  EXPECT_EQ(pinned.size(), plan.pins.size()) << "a PG pinned twice";
  for (const PgId& pg : unpinnable) EXPECT_FALSE(pinned.count(pg)) << FormatPgId(pg);
  EXPECT_TRUE(std::is_sorted(plan.pins.begin(), plan.pins.end(),
                             [](const UpmapPin& a, const UpmapPin& b) { return a.pg < b.pg; }));
  std::set<PgId> all = pinned;
  all.insert(unpinnable.begin(), unpinnable.end());
  EXPECT_EQ(all, DifferingPgs(c.before, c.after));

  const ClusterState state = Pinned(c, plan);
  EXPECT_EQ(DifferingPgs(c.before, state), unpinnable);
  const std::set<PgId> exact = DifferingPgs(c.before, state, /*holes_match=*/false);
  for (const PgId& pg : exact) {
    if (!unpinnable.count(pg)) {
      EXPECT_TRUE(HadHole(c.before, pg)) << FormatPgId(pg);
    }
  }
  const Movement m = PinDiff(c.before, state);
  EXPECT_EQ(m.totals.pgs_remapped, exact.size());

  auto cleanup = CheckPgUpmaps(state);
  ASSERT_THAT(cleanup, IsOk());
  for (const auto& [pg, reason] : cleanup->cancelled) {
    EXPECT_FALSE(pinned.count(pg))
        << FormatPgId(pg) << " cancelled: " << UpmapCancelReasonName(reason);
  }
  for (const auto& [pg, items] : cleanup->trimmed_items) {
    EXPECT_FALSE(pinned.count(pg)) << FormatPgId(pg) << " trimmed";
  }
}

// Every command of `commands` as one change file, parsed and applied.
ClusterState ApplyCommands(const ClusterState& state, const std::vector<std::string>& commands) {
  return ApplyText(state, absl::StrJoin(commands, "\n") + "\n");
}

std::vector<std::string> PinCommands(const UpmapPinPlan& plan) {
  std::vector<std::string> out;
  for (const UpmapPin& pin : plan.pins) {
    out.insert(out.end(), pin.commands.begin(), pin.commands.end());
  }
  return out;
}

void ExpectSameUpmaps(const ClusterState& a, const ClusterState& b) {
  EXPECT_EQ(a.pg_upmap, b.pg_upmap);
  EXPECT_EQ(a.pg_upmap_items, b.pg_upmap_items);
}

// Every pin's pairs go from OSDs of the PG's raw CRUSH set in `after` to
// OSDs of its before up set; a pg_upmap pin lists the before up set.
void ExpectPinsGoFromAfterRawToBeforeUp(const Change& c, const UpmapPinPlan& plan) {
  auto before = MappingSession::Create(c.before);
  auto after = MappingSession::Create(c.after);
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(after, IsOk());
  for (const UpmapPin& pin : plan.pins) {
    PgMapping b;
    (*before)->mapper().PgToUpActing(pin.pg, &b);
    OsdList raw;
    int primary = -1;
    (*after)->mapper().PgToRawOsds(pin.pg, &raw, &primary);
    auto in = [](const OsdList& l, std::int32_t o) {
      return std::find(l.span().begin(), l.span().end(), o) != l.span().end();
    };
    for (const auto& [from, to] : pin.items) {
      EXPECT_TRUE(in(raw, from)) << FormatPgId(pin.pg) << " from " << from;
      EXPECT_TRUE(in(b.up, to)) << FormatPgId(pin.pg) << " to " << to;
    }
    if (!pin.pg_upmap.empty()) {
      EXPECT_EQ(pin.pg_upmap, b.up.ToVector()) << FormatPgId(pin.pg);
    }
  }
}

// The PGs whose before up set holds `osd`.
std::set<PgId> PgsOn(const ClusterState& state, std::int32_t osd) {
  std::set<PgId> out;
  auto session = MappingSession::Create(state);
  EXPECT_THAT(session, IsOk());
  if (!session.ok()) return out;
  for (const auto& [id, pool] : state.pools) {
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      PgMapping m;
      (*session)->mapper().PgToUpActing(PgId{id, ps}, &m);
      const auto up = m.up.span();
      if (std::find(up.begin(), up.end(), osd) != up.end()) out.insert(PgId{id, ps});
    }
  }
  return out;
}

TEST(UpmapPinningTest, LoweredCrushWeightIsPinnedBackEverywhere) {
  const Change c = MakeChange(PinState(3), "osd crush reweight osd.5 0.3\n");
  ASSERT_GT(c.at_once.totals.pgs_remapped, 0u);
  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_THAT(plan.unpinnable, IsEmpty());
  EXPECT_EQ(plan.pins.size(), c.at_once.totals.pgs_remapped);
  ExpectPinsHold(c, plan);
  ExpectPinsGoFromAfterRawToBeforeUp(c, plan);
  EXPECT_THAT(plan.immediate.pgs, IsEmpty());
  EXPECT_EQ(plan.immediate.shards, 0u);
}

// Ceph cancels upmaps that put a PG on an OSD of CRUSH weight 0
// (OSDMap::check_pg_upmaps: rule weight x reweight == 0), so a drained
// OSD's PGs cannot be held on it: they are unpinnable and move at once.
// The other PGs the change remaps (host 1 weighs less, so CRUSH reorders
// hosts for some PGs) are pinned.
TEST(UpmapPinningTest, ZeroCrushWeightOsdCannotBePinnedTo) {
  const Change c = MakeChange(PinState(3), "osd crush reweight osd.5 0\n");
  ASSERT_GT(c.at_once.totals.pgs_remapped, 0u);
  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_EQ(UnpinnablePgs(plan), PgsOn(c.before, 5));
  for (const UnpinnablePg& u : plan.unpinnable) {
    EXPECT_THAT(u.reason, HasSubstr("CRUSH weight 0")) << FormatPgId(u.pg);
    EXPECT_THAT(u.reason, HasSubstr("osd zero weight")) << FormatPgId(u.pg);
  }
  EXPECT_THAT(plan.pins, Not(IsEmpty()));
  ExpectPinsHold(c, plan);
  ExpectPinsGoFromAfterRawToBeforeUp(c, plan);
  // The unpinnable PGs' moves are what backfills at once.
  std::vector<PgId> unpinnable;
  for (const UnpinnablePg& u : plan.unpinnable) unpinnable.push_back(u.pg);
  EXPECT_EQ(plan.immediate.pgs, unpinnable);
}

TEST(UpmapPinningTest, NewHostIsPinnedBackIncludingEcPositions) {
  const Change c = MakeChange(PinState(3), "add-host host9 osds=4 weight=1 root=default\n");
  ASSERT_GT(c.at_once.totals.pgs_remapped, 0u);
  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_THAT(plan.unpinnable, IsEmpty());
  ExpectPinsHold(c, plan);
  ExpectPinsGoFromAfterRawToBeforeUp(c, plan);
  int ec_pins = 0;
  for (const UpmapPin& pin : plan.pins) ec_pins += pin.pg.pool == kPinEc ? 1 : 0;
  EXPECT_GT(ec_pins, 0);
  // Positional equality for EC, checked PG by PG on the pinned state.
  const ClusterState state = Pinned(c, plan);
  auto before = MappingSession::Create(c.before);
  auto pinned = MappingSession::Create(state);
  ASSERT_THAT(before, IsOk());
  ASSERT_THAT(pinned, IsOk());
  for (std::uint32_t ps = 0; ps < 128; ++ps) {
    PgMapping x;
    PgMapping y;
    (*before)->mapper().PgToUpActing(PgId{kPinEc, ps}, &x);
    (*pinned)->mapper().PgToUpActing(PgId{kPinEc, ps}, &y);
    EXPECT_EQ(x.up.ToVector(), y.up.ToVector()) << "2." << ps;
  }
}

// _apply_upmap skips a pair whose target is already in the set, so two EC
// shards trading places cannot be expressed with pg_upmap_items: the pin
// falls back to a full pg_upmap. A replicated PG whose order alone changes
// moves no data and gets no pin.
TEST(UpmapPinningTest, SwappedEcShardsNeedAFullPgUpmap) {
  ClusterState before = PinState(3);
  auto session = MappingSession::Create(before);
  ASSERT_THAT(session, IsOk());
  PgMapping ec;
  PgMapping rep;
  (*session)->mapper().PgToUpActing(PgId{kPinEc, 0}, &ec);
  (*session)->mapper().PgToUpActing(PgId{kPinRep, 0}, &rep);
  std::vector<std::int32_t> swapped = ec.up.ToVector();
  std::swap(swapped[0], swapped[1]);
  std::vector<std::int32_t> reordered = rep.up.ToVector();
  std::swap(reordered[0], reordered[2]);
  before.pg_upmap[PgId{kPinEc, 0}] = swapped;
  before.pg_upmap[PgId{kPinRep, 0}] = reordered;
  ASSERT_FALSE(CheckPgUpmaps(before)->changed());
  const Change c = MakeChange(before, "osd rm-pg-upmap 2.0\nosd rm-pg-upmap 1.0\n");

  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_THAT(plan.unpinnable, IsEmpty());
  ASSERT_EQ(plan.pins.size(), 1u);
  const UpmapPin& pin = plan.pins[0];
  EXPECT_EQ(pin.pg, (PgId{kPinEc, 0}));
  EXPECT_THAT(pin.items, IsEmpty());
  EXPECT_EQ(pin.pg_upmap, swapped);
  EXPECT_THAT(pin.commands, ElementsAre(absl::StrCat("ceph osd pg-upmap 2.0 ", swapped[0], " ",
                                                     swapped[1], " ", swapped[2])));
  EXPECT_THAT(pin.unpin_commands, ElementsAre("ceph osd rm-pg-upmap 2.0"));
  ExpectPinsHold(c, plan);
  ExpectSameUpmaps(ApplyCommands(c.after, PinCommands(plan)), Pinned(c, plan));
}

// Shards that each move one position along ([r0 r1 r2] back to [r1 r2 y])
// need their pairs in dependency order: _apply_upmap skips a pair whose
// target is still in the set, so r2 -> y must come first, then r1 -> r2,
// then r0 -> r1.
TEST(UpmapPinningTest, ShiftedEcShardsArePairedInApplicableOrder) {
  ClusterState before = PinState(3);
  auto session = MappingSession::Create(before);
  ASSERT_THAT(session, IsOk());
  PgMapping ec;
  (*session)->mapper().PgToUpActing(PgId{kPinEc, 0}, &ec);
  const std::int32_t r0 = ec.up[0];
  const std::int32_t r1 = ec.up[1];
  const std::int32_t r2 = ec.up[2];
  const std::int32_t y = r0 / 4 * 4 + (r0 % 4 + 1) % 4;  // r0's host, another OSD
  before.pg_upmap[PgId{kPinEc, 0}] = {r1, r2, y};
  ASSERT_FALSE(CheckPgUpmaps(before)->changed());
  const Change c = MakeChange(before, "osd rm-pg-upmap 2.0\n");

  const UpmapPinPlan plan = PlanOk(c);
  ASSERT_EQ(plan.pins.size(), 1u);
  EXPECT_EQ(plan.pins[0].items, (UpmapItems{{r2, y}, {r1, r2}, {r0, r1}}));
  EXPECT_THAT(plan.pins[0].commands,
              ElementsAre(absl::StrCat("ceph osd pg-upmap-items 2.0 ", r2, " ", y, " ", r1, " ", r2,
                                       " ", r0, " ", r1)));
  ExpectPinsHold(c, plan);
  ExpectSameUpmaps(ApplyCommands(c.after, PinCommands(plan)), Pinned(c, plan));
}

// osd.3 is down (but in) in both states: replicated PGs that hold it in
// their raw set have a short up set, and pairs to that up set alone would
// leave an extra after OSD; the pin maps back to the raw set with osd.3 in
// it instead. EC PGs that held it have a hole, left to the after OSD.
TEST(UpmapPinningTest, DownOsdInBothStatesIsPutBackIntoTheRawSet) {
  ClusterState before = PinState(4);
  before.osds[3].state = kOsdExists;
  const Change c = MakeChange(before, "add-host host9 osds=4 weight=1 root=default\n");
  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_THAT(plan.unpinnable, IsEmpty());
  ExpectPinsHold(c, plan);
  int to_down = 0;
  for (const UpmapPin& pin : plan.pins) {
    for (const auto& [from, to] : pin.items) to_down += to == 3 ? 1 : 0;
  }
  EXPECT_GT(to_down, 0);
  for (const PgId& pg : plan.immediate.pgs) {
    EXPECT_EQ(pg.pool, kPinEc);
    EXPECT_TRUE(HadHole(c.before, pg)) << FormatPgId(pg);
  }
}

TEST(UpmapPinningTest, OutOsdMakesItsPgsUnpinnable) {
  const ClusterState before = PinState(4);
  const Change c = MakeChange(before, "osd out 6\nosd crush reweight osd.1 0.4\n");
  const UpmapPinPlan plan = PlanOk(c);
  ASSERT_THAT(plan.unpinnable, Not(IsEmpty()));
  ASSERT_THAT(plan.pins, Not(IsEmpty()));
  auto session = MappingSession::Create(before);
  ASSERT_THAT(session, IsOk());
  auto holds6 = [&](const PgId& pg) {
    PgMapping m;
    (*session)->mapper().PgToUpActing(pg, &m);
    const auto up = m.up.span();
    return std::find(up.begin(), up.end(), 6) != up.end();
  };
  for (const UnpinnablePg& u : plan.unpinnable) {
    EXPECT_TRUE(holds6(u.pg)) << FormatPgId(u.pg);
    EXPECT_EQ(u.reason, "osd.6 of the before set is out in after (reweight 0)");
  }
  for (const UpmapPin& pin : plan.pins) EXPECT_FALSE(holds6(pin.pg)) << FormatPgId(pin.pg);
  ExpectPinsHold(c, plan);
}

TEST(UpmapPinningTest, PinReplacesAnExistingItemAndTheUnpinRestoresIt) {
  Change c = MakeChange(PinState(4), "osd crush reweight osd.2 0.3\n");
  // Pick a remapped replicated PG and give it, in `after`, an item moving
  // one OSD of its set to an OSD of the one host it does not use.
  auto session = MappingSession::Create(c.after);
  ASSERT_THAT(session, IsOk());
  PgId chosen{-1, 0};
  UpmapItems item;
  for (const PgMove& m : c.at_once.moves) {
    if (m.pg.pool != kPinRep) continue;
    PgMapping map;
    (*session)->mapper().PgToUpActing(m.pg, &map);
    std::set<int> hosts;
    for (std::int32_t osd : map.up.span()) hosts.insert(osd / 4);
    for (int h = 0; h < 4; ++h) {
      if (!hosts.count(h)) item = {{map.up[1], h * 4 + 3}};
    }
    chosen = m.pg;
    break;
  }
  ASSERT_GE(chosen.pool, 0);
  c.after.pg_upmap_items[chosen] = item;
  ASSERT_THAT(CheckPgUpmaps(c.after), IsOk());
  EXPECT_FALSE(CheckPgUpmaps(c.after)->changed()) << "the test's item must be valid";
  c.at_once = PinDiff(c.before, c.after);

  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_THAT(plan.unpinnable, IsEmpty());
  ExpectPinsHold(c, plan);
  const UpmapPin* pin = nullptr;
  for (const UpmapPin& p : plan.pins) {
    if (p.pg == chosen) pin = &p;
  }
  ASSERT_NE(pin, nullptr);
  EXPECT_NE(pin->items, item);
  EXPECT_FALSE(pin->removes_pg_upmap);
  const std::string pg = FormatPgId(chosen);
  EXPECT_THAT(pin->unpin_commands, ElementsAre(absl::StrCat("ceph osd pg-upmap-items ", pg, " ",
                                                            item[0].first, " ", item[0].second)));
  // Unpinning that PG alone gives `after` back.
  const ClusterState unpinned = ApplyCommands(Pinned(c, plan), pin->unpin_commands);
  EXPECT_EQ(unpinned.pg_upmap_items.at(chosen), item);
}

// Gives `pg` a pg_upmap in c.after listing its after up set in another
// order (first and last swapped: valid, not redundant unless CRUSH gave that
// order), sets *up to it and rediffs c.at_once.
void UpmapInAnotherOrder(Change& c, const PgId& pg, std::vector<std::int32_t>* up) {
  auto session = MappingSession::Create(c.after);
  ASSERT_THAT(session, IsOk());
  PgMapping map;
  (*session)->mapper().PgToUpActing(pg, &map);
  *up = map.up.ToVector();
  ASSERT_GE(up->size(), 3u);
  std::swap((*up)[0], (*up)[2]);
  c.after.pg_upmap[pg] = *up;
  c.at_once = PinDiff(c.before, c.after);
}

TEST(UpmapPinningTest, PgUpmapInAfterIsRemovedFirstAndRestoredAfter) {
  Change c = MakeChange(PinState(4), "osd crush reweight osd.2 0.3\n");
  const PgId chosen = c.at_once.moves.front().pg;
  ASSERT_EQ(chosen.pool, kPinRep);
  std::vector<std::int32_t> up;
  ASSERT_NO_FATAL_FAILURE(UpmapInAnotherOrder(c, chosen, &up));
  ASSERT_FALSE(CheckPgUpmaps(c.after)->changed());

  const UpmapPinPlan plan = PlanOk(c);
  ExpectPinsHold(c, plan);
  for (const UpmapPin& pin : plan.pins) {
    if (pin.pg != chosen) continue;
    ASSERT_FALSE(pin.items.empty());
    EXPECT_TRUE(pin.removes_pg_upmap);
    ASSERT_EQ(pin.commands.size(), 2u);
    EXPECT_EQ(pin.commands[0], "ceph osd rm-pg-upmap " + FormatPgId(chosen));
    EXPECT_THAT(pin.commands[1], HasSubstr("ceph osd pg-upmap-items " + FormatPgId(chosen)));
    ASSERT_EQ(pin.unpin_commands.size(), 2u);
    EXPECT_EQ(pin.unpin_commands[0], "ceph osd rm-pg-upmap-items " + FormatPgId(chosen));
    EXPECT_EQ(pin.unpin_commands[1], absl::StrCat("ceph osd pg-upmap ", FormatPgId(chosen), " ",
                                                  up[0], " ", up[1], " ", up[2]));
    return;
  }
  FAIL() << "no pin for " << FormatPgId(chosen);
}

// The JSON lists the pins as the commands that set them, in PG order (a
// pin replacing a pg_upmap has two), and their count; the PGs and the
// unpin commands are the batches'.
TEST(UpmapPinningTest, JsonListsThePinsAsTheirCommands) {
  Change c = MakeChange(PinState(4), "osd crush reweight osd.2 0.3\n");
  const PgId chosen = c.at_once.moves.front().pg;
  // A pg_upmap in `after`: that PG's pin removes it first, so its pin has
  // two commands.
  std::vector<std::int32_t> up;
  ASSERT_NO_FATAL_FAILURE(UpmapInAnotherOrder(c, chosen, &up));
  const UpmapPinPlan plan = PlanOk(c, 0.02);
  ASSERT_GT(plan.batches.size(), 1u);
  std::vector<std::string> want;
  for (const UpmapPin& pin : plan.pins)
    want.insert(want.end(), pin.commands.begin(), pin.commands.end());
  ASSERT_GT(want.size(), plan.pins.size());  // the chosen PG's pin has two

  PlanReport r;
  r.movement = c.at_once;
  r.upmap_plan = plan;
  absl::StatusOr<std::string> json = ReportToJson(r);
  ASSERT_THAT(json, IsOk());
  google::protobuf::Struct doc;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &doc).ok());
  const google::protobuf::Struct& u = doc.fields().at("upmap_plan").struct_value();
  EXPECT_EQ(u.fields().count("pins"), 0u);
  EXPECT_EQ(u.fields().at("pinned").number_value(), static_cast<double>(plan.pins.size()));
  std::vector<std::string> got;
  for (const auto& v : u.fields().at("pin_commands").list_value().values())
    got.push_back(v.string_value());
  EXPECT_EQ(got, want);
  std::size_t batched = 0;
  std::vector<std::string> unpin;
  for (const auto& b : u.fields().at("batches").list_value().values()) {
    batched +=
        static_cast<std::size_t>(b.struct_value().fields().at("pgids").list_value().values_size());
    for (const auto& v : b.struct_value().fields().at("commands").list_value().values())
      unpin.push_back(v.string_value());
  }
  EXPECT_EQ(batched, plan.pins.size());
  std::vector<std::string> want_unpin;
  for (const UpmapBatch& b : plan.batches)
    want_unpin.insert(want_unpin.end(), b.commands.begin(), b.commands.end());
  EXPECT_EQ(unpin, want_unpin);
  EXPECT_THAT(unpin, testing::Contains("ceph osd rm-pg-upmap-items " + FormatPgId(chosen)));
}

TEST(UpmapPinningTest, BatchesStayUnderTheLimitInPgOrder) {
  const Change c = MakeChange(PinState(4), "add-host host9 osds=4 weight=1 root=default\n");
  const double limit = 0.01;
  const UpmapPinPlan plan = PlanOk(c, limit);
  ASSERT_THAT(plan.pins, Not(IsEmpty()));
  EXPECT_TRUE(plan.limit_in_objects);
  ASSERT_GT(plan.batches.size(), 1u);
  const double max_objects = limit * static_cast<double>(c.at_once.totals.objects_total);
  std::vector<PgId> order;
  double seconds = plan.immediate.seconds;
  std::uint64_t objects = 0;
  for (const UpmapBatch& b : plan.batches) {
    ASSERT_THAT(b.pgs, Not(IsEmpty()));
    if (b.over_limit) {
      EXPECT_EQ(b.pgs.size(), 1u);
      EXPECT_GT(static_cast<double>(b.objects), max_objects);
    } else {
      EXPECT_LE(static_cast<double>(b.objects), max_objects);
    }
    EXPECT_DOUBLE_EQ(b.misplaced_ratio, static_cast<double>(b.objects) /
                                            static_cast<double>(c.at_once.totals.objects_total));
    EXPECT_GT(b.seconds, 0);
    EXPECT_GT(b.bytes, 0u);
    order.insert(order.end(), b.pgs.begin(), b.pgs.end());
    seconds += b.seconds;
    objects += b.objects;
  }
  // Greedy: a batch closes only when the next PG would not fit.
  for (std::size_t i = 0; i + 1 < plan.batches.size(); ++i) {
    const UpmapBatch& b = plan.batches[i];
    const UpmapBatch& next = plan.batches[i + 1];
    if (b.over_limit || next.over_limit) continue;
    std::uint64_t first = 0;
    for (const PgMove& m : c.at_once.moves) {
      if (m.pg == next.pgs.front()) first = m.objects_per_target * m.targets.size();
    }
    EXPECT_GT(static_cast<double>(b.objects + first), max_objects) << "batch " << i;
  }
  std::vector<PgId> pinned;
  for (const UpmapPin& pin : plan.pins) pinned.push_back(pin.pg);
  EXPECT_EQ(order, pinned);
  EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  EXPECT_DOUBLE_EQ(plan.total_seconds, seconds);
  EXPECT_EQ(objects + plan.immediate.objects, c.at_once.totals.objects_to_move);

  // The printed pin commands, parsed and applied, give ApplyPins' state...
  const ClusterState pinned_state = Pinned(c, plan);
  ExpectSameUpmaps(ApplyCommands(c.after, PinCommands(plan)), pinned_state);
  // ...and running every batch's commands in turn gives `after` back.
  ClusterState state = pinned_state;
  for (const UpmapBatch& b : plan.batches) state = ApplyCommands(state, b.commands);
  ExpectSameUpmaps(state, c.after);
}

TEST(UpmapPinningTest, ShardsAreTheUnitWithoutObjectCounts) {
  ClusterState before = PinState(4);
  before.pg_stats.clear();
  const Change c = MakeChange(before, "add-host host9 osds=4 weight=1 root=default\n");
  ASSERT_EQ(c.at_once.totals.objects_total, 0u);
  const UpmapPinPlan plan = PlanOk(c, 0.02);
  EXPECT_FALSE(plan.limit_in_objects);
  const double max_shards = 0.02 * c.at_once.totals.shards_total;
  ASSERT_GT(plan.batches.size(), 1u);
  for (const UpmapBatch& b : plan.batches) {
    EXPECT_LE(static_cast<double>(b.shards), max_shards);
    EXPECT_DOUBLE_EQ(b.misplaced_ratio,
                     static_cast<double>(b.shards) / c.at_once.totals.shards_total);
  }
}

TEST(UpmapPinningTest, OversizedPgFormsItsOwnFlaggedBatch) {
  ClusterState before = PinState(4);
  const Change probe = MakeChange(before, "add-host host9 osds=4 weight=1 root=default\n");
  ASSERT_THAT(probe.at_once.moves, Not(IsEmpty()));
  const PgId big = probe.at_once.moves[probe.at_once.moves.size() / 2].pg;
  before.pg_stats[big].num_objects = 100000;
  const Change c = MakeChange(before, "add-host host9 osds=4 weight=1 root=default\n");
  const UpmapPinPlan plan = PlanOk(c, 0.05);
  int flagged = 0;
  for (const UpmapBatch& b : plan.batches) {
    if (!b.over_limit) continue;
    ++flagged;
    EXPECT_THAT(b.pgs, ElementsAre(big));
    EXPECT_GT(b.misplaced_ratio, 0.05);
  }
  EXPECT_EQ(flagged, 1);
}

TEST(UpmapPinningTest, ChangedPgNumIsNotPinned) {
  const Change c = MakeChange(PinState(3), "osd pool set rep pg_num 256\n");
  const UpmapPinPlan plan = PlanOk(c);
  EXPECT_THAT(plan.pins, IsEmpty());
  ASSERT_EQ(plan.unpinnable.size(), c.at_once.moves.size());
  for (const UnpinnablePg& u : plan.unpinnable) {
    EXPECT_EQ(u.pg.pool, kPinRep);
    EXPECT_THAT(u.reason, HasSubstr("pg_num changes from 128 to 256"));
  }
}

TEST(UpmapPinningTest, BadLimitAndBadPinsAreRejected) {
  const Change c = MakeChange(PinState(3), "osd crush reweight osd.5 0.3\n");
  EXPECT_THAT(
      PlanUpmapPinning(c.before, c.after, c.at_once, 0, {}),
      crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("max_misplaced")));
  UpmapPinPlan plan;
  plan.pins.push_back(UpmapPin{PgId{kPinRep, 999}, {{0, 1}}, {}, false, false, {}, {}});
  EXPECT_THAT(ApplyPins(c.after, plan),
              crush_testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("1.3e7")));
  plan.pins[0].pg.ps = 1;
  plan.pins[0].pg_upmap = {0, 4, 8};
  EXPECT_THAT(ApplyPins(c.after, plan), crush_testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                                HasSubstr("exactly one")));
}

// The size the plan must handle: 10,000 OSDs (20 racks x 20 hosts x 25),
// one replicated pool of 1,280,000 PGs, and rack0's CRUSH weight halved.
// Disabled (tens of seconds on two cores); run it with
// --gtest_also_run_disabled_tests --gtest_filter='*LargeCluster*'.
TEST(UpmapPinningTest, DISABLED_LargeClusterTiming) {
  crush_testing::ClusterSpec spec;
  spec.racks = 20;
  spec.hosts = 400;
  spec.osds_per_host = 25;
  ClusterState before;
  before.crush = crush_testing::MakeClusterModel(spec);
  before.osds.assign(10000, OsdInfo{kOsdExists | kOsdUp, 0x10000, kDefaultPrimaryAffinity});
  Pool rep;
  rep.id = kPinRep;
  rep.name = "rep";
  rep.crush_rule = crush_testing::kRackRule;
  rep.pg_num = rep.pgp_num = 1280000;
  before.pools[kPinRep] = rep;
  const auto t0 = std::chrono::steady_clock::now();
  const Change c = MakeChange(before, "osd crush reweight-subtree rack0 0.5\n");
  const auto t1 = std::chrono::steady_clock::now();
  const UpmapPinPlan plan = PlanOk(c);
  const auto t2 = std::chrono::steady_clock::now();
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf(
      "remapped %u, pins %zu, unpinnable %zu, batches %zu; change + movement %.1f s, "
      "plan %.1f s\n",
      c.at_once.totals.pgs_remapped, plan.pins.size(), plan.unpinnable.size(), plan.batches.size(),
      secs(t0, t1), secs(t1, t2));
  EXPECT_EQ(plan.pins.size(), c.at_once.totals.pgs_remapped);
  const ClusterState pinned = Pinned(c, plan);
  EXPECT_EQ(PinDiff(c.before, pinned).totals.pgs_remapped, 0u);
}

class UpmapPinningSampleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = crush_testing::LoadSampleCluster();
    ASSERT_THAT(s, IsOk());
    state_ = *std::move(s);
  }

  Change SampleChange(const std::string& ops_file) {
    auto change = crush_testing::LoadSampleChange(ops_file);
    EXPECT_THAT(change, IsOk());
    return change.ok() ? MakeChange(state_, *change) : Change{state_, state_, {}};
  }

  ClusterState state_;
};

TEST_F(UpmapPinningSampleTest, AddRackIsPinnedBackCompletely) {
  const Change c = SampleChange("add-rack.ops");
  ASSERT_GT(c.at_once.totals.pgs_remapped, 1000u);
  const UpmapPinPlan plan = PlanOk(c);
  ExpectPinsHold(c, plan);
  // No PG of the sample needs an OSD that is out, down or drained in after.
  // osd.98 is down in both states: EC PGs that held it have a hole there,
  // which the pins leave to the after OSD, so those shards are rebuilt at
  // once (the PGs were degraded); nothing else moves before the batches.
  EXPECT_THAT(plan.unpinnable, IsEmpty());
  EXPECT_THAT(plan.immediate.pgs, Not(IsEmpty()));
  for (const PgId& pg : plan.immediate.pgs) {
    EXPECT_EQ(pg.pool, 2);
    EXPECT_TRUE(HadHole(c.before, pg)) << FormatPgId(pg);
  }
  EXPECT_EQ(plan.immediate.shards, plan.immediate.pgs.size());
  EXPECT_GT(plan.batches.size(), 1u);
  ExpectSameUpmaps(ApplyCommands(c.after, PinCommands(plan)), Pinned(c, plan));
}

// Draining node-r1-3 gives its OSDs (106..117) CRUSH weight 0; the monitor
// cancels upmaps to them, so the PGs that were there cannot be held there:
// they are unpinnable and move at once. Every other remapped PG is pinned.
TEST_F(UpmapPinningSampleTest, DrainHostPinsEverythingButTheDrainedOsds) {
  const Change c = SampleChange("drain-host.ops");
  const UpmapPinPlan plan = PlanOk(c);
  ExpectPinsHold(c, plan);
  ASSERT_THAT(plan.unpinnable, Not(IsEmpty()));
  auto session = MappingSession::Create(c.before);
  ASSERT_THAT(session, IsOk());
  for (const UnpinnablePg& u : plan.unpinnable) {
    PgMapping m;
    (*session)->mapper().PgToUpActing(u.pg, &m);
    const auto up = m.up.span();
    EXPECT_TRUE(
        std::any_of(up.begin(), up.end(), [](std::int32_t o) { return o >= 106 && o <= 117; }))
        << FormatPgId(u.pg) << ": " << u.reason;
    EXPECT_THAT(u.reason, HasSubstr("CRUSH weight 0")) << FormatPgId(u.pg);
  }
  ExpectSameUpmaps(ApplyCommands(c.after, PinCommands(plan)), Pinned(c, plan));
}

// reweight.ops: osd.22's CRUSH weight lowered and osd.7 reweighted 0.85
// (pinnable), osd.50 out (its PGs are not).
TEST_F(UpmapPinningSampleTest, ReweightPinsAllButTheOutOsd) {
  const Change c = SampleChange("reweight.ops");
  const UpmapPinPlan plan = PlanOk(c);
  ExpectPinsHold(c, plan);
  EXPECT_THAT(plan.pins, Not(IsEmpty()));
  ASSERT_THAT(plan.unpinnable, Not(IsEmpty()));
  for (const UnpinnablePg& u : plan.unpinnable) {
    EXPECT_EQ(u.reason, "osd.50 of the before set is out in after (reweight 0)")
        << FormatPgId(u.pg);
  }
}

}  // namespace
}  // namespace crushkit::osdmap
