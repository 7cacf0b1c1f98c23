// The network traffic matrices: who sends what while a change backfills,
// against the placement matrices that pair each new copy with the one it
// replaces. Sets are pinned with pg_upmap, so they follow from this file.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "osdmap/planning/movement.h"
#include "tests/testing/osdmap_state.h"

namespace crushkit::osdmap {
namespace {

constexpr std::int64_t kTrafficRep = crush_testing::kRepPool;
constexpr std::int64_t kTrafficEc = crush_testing::kEcPool;

// 6 hosts of one OSD each (osd.i in the i-th host), both pools of 2 PGs,
// every PG pinned to {0,1,2} or {3,4,5}.
ClusterState Before() {
  ClusterState s = crush_testing::MakeTestState({.ec_min_size = 3});
  for (std::int64_t pool : {kTrafficRep, kTrafficEc}) {
    s.pg_upmap[PgId{pool, 0}] = {0, 1, 2};
    s.pg_upmap[PgId{pool, 1}] = {3, 4, 5};
  }
  s.pg_stats[PgId{kTrafficRep, 0}] = PgStat{10, 1000, 0};
  s.pg_stats[PgId{kTrafficRep, 1}] = PgStat{10, 1000, 0};
  s.pg_stats[PgId{kTrafficEc, 0}] = PgStat{30, 3000, 0};
  s.pg_stats[PgId{kTrafficEc, 1}] = PgStat{30, 3000, 0};
  return s;
}

Movement TrafficDiff(const ClusterState& before, const ClusterState& after) {
  MovementOptions opt;
  opt.threads = 1;
  opt.keep_moves = true;
  opt.domain_types = {"host"};
  absl::StatusOr<Movement> m = DiffStates(before, after, opt);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : Movement{};
}

// Host name of osd.i, as the matrices print it.
std::string HostOf(const ClusterState& s, std::int32_t osd) {
  for (const crush::Bucket& b : s.crush.buckets) {
    for (crush::ItemId item : b.items) {
      if (item == osd) return s.crush.item_names.at(b.id);
    }
  }
  return "?";
}

std::uint64_t Cell(const DomainMatrix& d, const std::string& from, const std::string& to) {
  for (const DomainCell& c : d.cells) {
    if (c.from == from && c.to == to) return c.bytes;
  }
  return 0;
}

std::uint64_t Total(const DomainMatrix& d) {
  std::uint64_t sum = 0;
  for (const DomainCell& c : d.cells) sum += c.bytes;
  return sum;
}

TEST(MovementTrafficTest, ReplicatedCopyIsSentByThePusherNotTheCopyItReplaces) {
  ClusterState before = Before();
  before.pg_upmap[PgId{kTrafficRep, 0}] = {2, 0, 1};
  ClusterState after = before;
  // osd.2 (the old primary) leaves for osd.3, which holds nothing: the
  // lowest holder, osd.0, pushes.
  after.pg_upmap[PgId{kTrafficRep, 0}] = {3, 0, 1};
  const Movement m = TrafficDiff(before, after);
  ASSERT_EQ(m.moves.size(), 1u);
  EXPECT_EQ(m.moves[0].pusher, 0);
  EXPECT_EQ(m.moves[0].source, 2);
  ASSERT_EQ(m.domains.size(), 1u);
  ASSERT_EQ(m.traffic.size(), 1u);
  const std::string h0 = HostOf(after, 0), h2 = HostOf(after, 2), h3 = HostOf(after, 3);
  EXPECT_EQ(Cell(m.domains[0], h2, h3), 1000u);  // placement: the copy osd.3 replaces
  EXPECT_EQ(Cell(m.traffic[0], h0, h3), 1000u);  // traffic: who sends it
  EXPECT_EQ(Cell(m.traffic[0], h2, h3), 0u);
  EXPECT_EQ(Total(m.traffic[0]), 1000u);
}

TEST(MovementTrafficTest, ErasureRebuildReadsKMinusOneShardsThenPushes) {
  const ClusterState before = Before();
  ClusterState after = before;
  // Shard 0 moves from osd.0 to osd.3; osd.0 (still holding it) is the
  // acting primary: it reads shard 1 from osd.1 and pushes shard 0.
  after.pg_upmap[PgId{kTrafficEc, 0}] = {3, 1, 2};
  const Movement m = TrafficDiff(before, after);
  ASSERT_EQ(m.moves.size(), 1u);
  EXPECT_EQ(m.moves[0].pusher, 0);
  const std::string h0 = HostOf(after, 0), h1 = HostOf(after, 1), h3 = HostOf(after, 3);
  EXPECT_EQ(Cell(m.traffic[0], h1, h0), 1500u);  // shard bytes: 3000 / k
  EXPECT_EQ(Cell(m.traffic[0], h0, h3), 1500u);
  EXPECT_EQ(Total(m.traffic[0]), 3000u);
  EXPECT_EQ(Total(m.domains[0]), 1500u);
}

TEST(MovementTrafficTest, NothingMovesNoTraffic) {
  const ClusterState before = Before();
  const Movement m = TrafficDiff(before, before);
  ASSERT_EQ(m.traffic.size(), 1u);
  EXPECT_TRUE(m.traffic[0].cells.empty());
}

}  // namespace
}  // namespace crushkit::osdmap
