#include "osdmap/backfill_pusher.h"

#include <cstdint>
#include <set>
#include <vector>

#include "gtest/gtest.h"

#include "crush/types.h"

namespace crushkit::osdmap {
namespace {

constexpr std::int32_t kNone = crush::kItemNone;

bool AllUp(std::int32_t /*osd*/) { return true; }

TEST(BackfillPusherTest, NewUpPrimaryThatHoldsThePgPushes) {
  // osd.4 was a replica and becomes the up primary: it pushes, not osd.7.
  EXPECT_EQ(ReplicatedBackfillPusher({{7, 4, 9}}, {{4, 9, 2}}, AllUp), 4);
}

TEST(BackfillPusherTest, NewUpPrimaryWithoutThePgLeavesItToTheLowestHolder) {
  // osd.2 is new to the PG: the authoritative log shard is the lowest id
  // among the holders, not the old primary osd.7.
  EXPECT_EQ(ReplicatedBackfillPusher({{7, 4, 9}}, {{2, 7, 9}}, AllUp), 4);
  EXPECT_EQ(ReplicatedBackfillPusher({{7, 4, 9}}, {{2, 4, 9}}, AllUp), 4);
}

TEST(BackfillPusherTest, HoldersThatAreDownCannotPush) {
  const std::set<std::int32_t> down = {4};
  auto is_up = [&](std::int32_t o) { return down.count(o) == 0; };
  EXPECT_EQ(ReplicatedBackfillPusher({{7, 4, 9}}, {{2, 7, 9}}, is_up), 7);
  EXPECT_EQ(ReplicatedBackfillPusher({{4}}, {{2, 7, 9}}, is_up), kNone);
}

TEST(BackfillPusherTest, OldPrimaryKeepsPushingWhenItStaysPrimary) {
  EXPECT_EQ(ReplicatedBackfillPusher({{3, 8, 5}}, {{3, 8, 11}}, AllUp), 3);
}

TEST(BackfillPusherTest, HolesAndEmptySetsGiveNoPusher) {
  EXPECT_EQ(ReplicatedBackfillPusher({{kNone, 6}}, {{1, 6}}, AllUp), 6);
  EXPECT_EQ(ReplicatedBackfillPusher({{6}}, {}, AllUp), kNone);
  EXPECT_EQ(ReplicatedBackfillPusher({}, {{1, 2}}, AllUp), kNone);
}

TEST(BackfillPusherTest, ErasureKeepsShardHoldersAndPicksTheFirst) {
  // Shard 0 moves from osd.5 to osd.1: osd.5 still holds shard 0 and is the
  // acting primary while osd.1 backfills.
  EXPECT_EQ(ErasureBackfillPusher({{5, 6, 7}}, {{1, 6, 7}}, AllUp), 5);
  // Shard 0 stays: its OSD pushes whatever moves elsewhere.
  EXPECT_EQ(ErasureBackfillPusher({{5, 6, 7}}, {{5, 6, 2}}, AllUp), 5);
}

TEST(BackfillPusherTest, ErasureSkipsAShardWhoseHolderIsGone) {
  const std::set<std::int32_t> down = {5};
  auto is_up = [&](std::int32_t o) { return down.count(o) == 0; };
  // Shard 0's holder is down: shard 0 is rebuilt onto osd.1 and the first
  // real member of the acting set is shard 1's osd.6.
  EXPECT_EQ(ErasureBackfillPusher({{5, 6, 7}}, {{1, 6, 7}}, is_up), 6);
  EXPECT_EQ(ErasureBackfillPusher({{kNone, kNone}}, {{1, 2}}, AllUp), kNone);
}

}  // namespace
}  // namespace crushkit::osdmap
