// The OSDMap C API (osdmap/crushkit_osdmap.h) against MappingSession on the
// committed binary osdmaps: same PG and object placements; errors as NULL
// and -1, never a crash.
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#include "osdmap/crushkit_osdmap.h"
#include "osdmap/formats/state_codec.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/testing/paths.h"

namespace crushkit::osdmap {
namespace {

std::string Golden(const std::string& name) {
  return crush_testing::ReadFileOrEmpty(crush_testing::SourceDir() +
                                        "/tests/golden/osdmap_binary/" + name);
}

std::vector<std::int32_t> Up(const crushkit_pg_mapping& m) { return {m.up, m.up + m.up_size}; }

std::vector<std::int32_t> Acting(const crushkit_pg_mapping& m) {
  return {m.acting, m.acting + m.acting_size};
}

TEST(CrushkitOsdmapCApiTest, MapsLikeTheSession) {
  for (const char* name : {"pacific-upmap.osdmap", "pacific-every-field.osdmap",
                           "reef-simple.osdmap", "tentacle-simple.osdmap"}) {
    SCOPED_TRACE(name);
    const std::string bytes = Golden(name);
    ASSERT_FALSE(bytes.empty());
    char* error = nullptr;
    crushkit_state* st = crushkit_state_from_bytes(bytes.data(), bytes.size(), &error);
    ASSERT_NE(st, nullptr) << error;
    auto session = MappingSession::Create(*ParseState(bytes));
    ASSERT_TRUE(session.ok());
    EXPECT_EQ(crushkit_state_epoch(st), (*session)->state().epoch);
    crushkit_state_mapper* mapper = crushkit_state_mapper_new(st);
    ASSERT_NE(mapper, nullptr);
    ASSERT_FALSE((*session)->state().pools.empty());
    for (const auto& [id, pool] : (*session)->state().pools) {
      EXPECT_EQ(crushkit_pool_by_name(st, pool.name.c_str()), id);
      EXPECT_EQ(crushkit_pool_pg_num(st, id), pool.pg_num);
      for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
        crushkit_pg_mapping got;
        ASSERT_EQ(crushkit_pg_to_up_acting(mapper, id, ps, &got), 0);
        PgMapping want;
        (*session)->mapper().PgToUpActing(PgId{id, ps}, &want);
        EXPECT_EQ(Up(got), want.up.ToVector());
        EXPECT_EQ(Acting(got), want.acting.ToVector());
        EXPECT_EQ(got.up_primary, want.up_primary);
        EXPECT_EQ(got.acting_primary, want.acting_primary);
      }
      for (const char* object : {"a", "rbd_data.1234", "obj-99"}) {
        std::uint32_t ps = 0;
        ASSERT_EQ(crushkit_object_to_pg(st, id, object, "", &ps), 0);
        PgId raw;
        ASSERT_TRUE((*session)->mapper().ObjectToRawPg(id, object, "", &raw));
        EXPECT_EQ(ps, pool.FoldPs(raw.ps));
      }
    }
    crushkit_state_mapper_free(mapper);
    crushkit_state_free(st);
  }
}

TEST(CrushkitOsdmapCApiTest, ErrorsAreReportedNotCrashed) {
  const std::string bytes = Golden("pacific-upmap.osdmap");
  char* error = nullptr;
  EXPECT_EQ(crushkit_state_from_bytes(bytes.data(), bytes.size() / 2, &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_FALSE(std::string(error).empty());
  std::free(error);
  EXPECT_EQ(crushkit_state_from_bytes(nullptr, 3, nullptr), nullptr);
  crushkit_state* st = crushkit_state_from_bytes(bytes.data(), bytes.size(), nullptr);
  ASSERT_NE(st, nullptr);
  crushkit_state_mapper* mapper = crushkit_state_mapper_new(st);
  crushkit_pg_mapping m;
  std::uint32_t ps = 0;
  EXPECT_EQ(crushkit_pg_to_up_acting(mapper, 12345, 0, &m), -1);
  EXPECT_EQ(crushkit_pg_to_up_acting(mapper, 1, 0, nullptr), -1);
  EXPECT_EQ(crushkit_pg_to_up_acting(nullptr, 1, 0, &m), -1);
  EXPECT_EQ(crushkit_object_to_pg(st, 12345, "a", "", &ps), -1);
  EXPECT_EQ(crushkit_object_to_pg(st, 1, nullptr, "", &ps), -1);
  EXPECT_EQ(crushkit_pool_by_name(st, "no-such-pool"), -1);
  EXPECT_EQ(crushkit_pool_pg_num(st, 12345), 0u);
  EXPECT_EQ(crushkit_state_mapper_new(nullptr), nullptr);
  crushkit_state_mapper_free(mapper);
  crushkit_state_free(st);
  crushkit_state_free(nullptr);
  crushkit_state_mapper_free(nullptr);
}

}  // namespace
}  // namespace crushkit::osdmap
