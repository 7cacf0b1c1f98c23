#include "crush/edit/layered_map.h"

#include <gtest/gtest.h>

#include <vector>

#include "crush/edit/edit.h"

namespace crushkit::crush {
namespace {

TEST(LayeredMapTest, BuildsLayersInOrderWithCephsNamesAndIds) {
  const std::vector<MapLayer> layers = {{"host", "straw2", 2}, {"root", "straw", 0}};
  auto built = BuildLayeredMap(5, layers);
  ASSERT_TRUE(built.ok()) << built.status();
  const MapModel& m = built->map;
  EXPECT_EQ(m.type_names.at(0), "osd");
  EXPECT_EQ(m.type_names.at(2), "root");
  // hosts -1..-3 (2, 2 and 1 devices), then the root -4 over them.
  EXPECT_EQ(m.item_names.at(-1), "host0");
  EXPECT_EQ(m.item_names.at(-3), "host2");
  EXPECT_EQ(m.FindBucket(-3)->items, (std::vector<ItemId>{4}));
  EXPECT_EQ(m.item_names.at(-4), "root");
  EXPECT_EQ(m.FindBucket(-4)->items, (std::vector<ItemId>{-1, -2, -3}));
  EXPECT_EQ(m.FindBucket(-4)->weight, 5 * kWeightOne);
  EXPECT_EQ(built->root, "root");
  EXPECT_EQ(built->roots, 1);
}

TEST(LayeredMapTest, SeveralRootsAndTruncatedNames) {
  const std::vector<MapLayer> layers = {{"averyveryverylongname", "uniform", 1}};
  auto built = BuildLayeredMap(3, layers);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->roots, 3);
  // snprintf(format, 19, "%s%%d") keeps 18 bytes: no "%d" survives, so
  // every bucket gets the same 18-byte name.
  EXPECT_EQ(built->map.item_names.at(-1), "averyveryverylongn");
  EXPECT_EQ(built->map.item_names.at(-2), "averyveryverylongn");
  EXPECT_EQ(built->root, "averyveryverylongname0");
}

TEST(LayeredMapTest, RefusesWhatIsUndefinedInCeph) {
  EXPECT_EQ(BuildLayeredMap(4, std::vector<MapLayer>{{"h%s", "straw", 2}}).status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(BuildLayeredMap(4, std::vector<MapLayer>{{"h", "straw", -1}}).status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(BuildLayeredMap(kMaxLayeredDevices + 1, std::vector<MapLayer>{{"h", "straw", 2}})
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(BuildLayeredMap(4, std::vector<MapLayer>{{"h", "bogus", 2}}).status().message(),
            "unknown bucket type 'bogus'");
}

}  // namespace
}  // namespace crushkit::crush
