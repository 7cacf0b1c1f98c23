// The upmap way's before raw sets (BeforeRawSets): from a recording of the
// before state, the same sets as PgMapper::PgToRawUpmap maps by CRUSH,
// upmap entries applied; a recording of another state is not used.
#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/pg_table_replay.h"
#include "osdmap/planning/upmap_pinning_internal.h"
#include "tests/testing/osdmap_state.h"

namespace crushkit::osdmap {
namespace {

// 6 hosts of 4 OSDs, both test pools, and upmaps of both kinds.
ClusterState UpmappedState() {
  ClusterState s = crush_testing::MakeTestState(
      {.hosts = 6, .osds_per_host = 4, .rep_pg_num = 64, .ec_pg_num = 64});
  s.pg_upmap_items[PgId{crush_testing::kRepPool, 3}] = {{0, 23}, {5, 22}, {9, 21}, {13, 20}};
  s.pg_upmap_items[PgId{crush_testing::kEcPool, 7}] = {{1, 19}, {6, 18}, {10, 17}};
  s.pg_upmap[PgId{crush_testing::kRepPool, 11}] = {2, 7, 12};
  return s;
}

std::shared_ptr<const MappingSession> SessionOf(ClusterState s) {
  auto session = MappingSession::Create(std::move(s));
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::shared_ptr<const MappingSession>(*std::move(session)) : nullptr;
}

// Every PG of `session`'s pools: BeforeRawSets through `recorded` against
// PgToRawUpmap. Returns the PGs whose upmaps changed their raw set.
int ExpectSameAsCrush(const MappingSession& session, const RecordedMapping* recorded,
                      bool uses_recording) {
  internal::BeforeRawSets sets(session, recorded);
  EXPECT_EQ(sets.uses_recording(), uses_recording);
  const std::unique_ptr<MappingSession::Worker> w = session.NewWorker();
  int upmapped = 0;
  for (const auto& [id, pool] : session.state().pools) {
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      OsdList raw, raw_upmap;
      w->mapper().PgToRawUpmap(PgId{id, ps}, &raw, &raw_upmap);
      EXPECT_EQ(sets.RawUpmap(pool, ps), raw_upmap.ToVector()) << id << "." << ps;
      if (raw.ToVector() != raw_upmap.ToVector()) ++upmapped;
    }
  }
  EXPECT_EQ(sets.diverged_from_ceph(), 0u);
  return upmapped;
}

TEST(UpmapPinBeforeTest, RecordedCrushResultsGiveTheRawSetsWithUpmaps) {
  std::shared_ptr<const MappingSession> session = SessionOf(UpmappedState());
  ASSERT_NE(session, nullptr);
  std::shared_ptr<const RecordedMapping> recorded = RecordedMapping::Record(session);
  ASSERT_EQ(recorded->table().diverged_from_ceph, 0u);
  // Two of the three entries change their PG's raw set (a pair whose
  // source is not in the set does nothing).
  EXPECT_EQ(ExpectSameAsCrush(*session, recorded.get(), true), 2);
  EXPECT_EQ(ExpectSameAsCrush(*session, nullptr, false), 2);
}

TEST(UpmapPinBeforeTest, RecordingOfAnotherStateIsNotUsed) {
  std::shared_ptr<const MappingSession> recorded_state = SessionOf(UpmappedState());
  ASSERT_NE(recorded_state, nullptr);
  std::shared_ptr<const RecordedMapping> recorded = RecordedMapping::Record(recorded_state);
  ClusterState other = UpmappedState();
  for (int osd : {4, 8, 14}) other.osds[static_cast<std::size_t>(osd)].weight = 0;  // out
  std::shared_ptr<const MappingSession> session = SessionOf(std::move(other));
  ASSERT_NE(session, nullptr);
  ExpectSameAsCrush(*session, recorded.get(), false);
}

}  // namespace
}  // namespace crushkit::osdmap
