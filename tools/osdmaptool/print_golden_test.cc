// `crushkit osdmaptool MAP --print` and `--dump FORMAT` against the outputs
// osdmaptool 16.2 printed for the same maps (TZ=UTC), committed beside them:
// tests/golden/osdmap_binary/NAME.osdmap and expected/NAME.FORMAT. The maps
// hold pool HitSets of every type (grade tables with wrapped decay rates),
// pool snapshots, removed snaps and snap queues, and legacy (pre-msgr2)
// addresses; see tests/golden/osdmap_binary/README.md. No oracle needed.
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

#include "tests/testing/paths.h"
#include "tools/osdmaptool/golden_cases.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::ReadFileOrEmpty;
using ::crush_testing::SourceDir;

class PrintGoldenTest : public ::testing::Test {
 protected:
  // utime_t prints local time; the expected files were made in UTC.
  void SetUp() override {
    ::setenv("TZ", "UTC", 1);
    ::tzset();
  }

  static std::string MapPath(const std::string& name) {
    return SourceDir() + "/tests/golden/osdmap_binary/" + name + ".osdmap";
  }

  // `format` "print" is --print, anything else --dump FORMAT.
  static void ExpectAsOsdmaptool(const std::string& name, const std::string& format) {
    const std::string want = ReadFileOrEmpty(SourceDir() + "/tests/golden/osdmap_binary/expected/" +
                                             name + "." + format);
    ASSERT_FALSE(want.empty()) << name << "." << format;
    const std::string map = MapPath(name);
    const golden::ToolRun got = format == "print" ? golden::RunOsdmaptool({map, "--print"})
                                                  : golden::RunOsdmaptool({map, "--dump", format});
    EXPECT_EQ(got.rc, 0) << name << " " << format << ": " << got.err;
    EXPECT_EQ(got.err, "osdmaptool: osdmap file '" + map + "'\n") << name << " " << format;
    EXPECT_TRUE(got.out == want) << name << " " << format << ": output differs from osdmaptool's";
  }
};

TEST_F(PrintGoldenTest, HitSetsAndPoolSnapshotsInEveryFormat) {
  // A monitor's map: bloom, explicit_hash and explicit_object cache tiers,
  // a pool with a snapshot.
  for (const char* format :
       {"print", "json", "json-pretty", "xml", "xml-pretty", "html-pretty", "table-kv"}) {
    ExpectAsOsdmaptool("pacific-hitsets-snaps", format);
  }
}

TEST_F(PrintGoldenTest, HitSetEdges) {
  // Bloom sizes above 2^63 (dumped signed), decay rates of 20, 33 and 150
  // (a wrapped grade table), a bloom body longer than 16.2 knows.
  for (const char* format : {"print", "json", "table-kv"}) {
    ExpectAsOsdmaptool("pacific-hitset-edges", format);
  }
}

TEST_F(PrintGoldenTest, SnapQueuesAndRemovedSnaps) {
  // removed_snaps_queue (one empty set), new_removed_snaps and
  // new_purged_snaps; removed snaps out of order with a duplicate start and
  // CEPH_NOSNAP/CEPH_SNAPDIR; a snapshot keyed under another id.
  for (const char* format : {"print", "json", "xml"}) {
    ExpectAsOsdmaptool("pacific-snap-queues", format);
  }
}

TEST_F(PrintGoldenTest, LegacyAddresses) {
  // Marker-0 addresses (IPv4, IPv6, another family) in addrvec slots and in
  // the blocklist, beside msgr2 single addresses.
  for (const char* format : {"print", "json", "table-kv"}) {
    ExpectAsOsdmaptool("pacific-legacy-addrs", format);
  }
}

TEST_F(PrintGoldenTest, DumpPlainIsPrint) {
  const std::string map = MapPath("pacific-snap-queues");
  EXPECT_EQ(golden::RunOsdmaptool({map, "--dump", "plain"}).out,
            golden::RunOsdmaptool({map, "--print"}).out);
}

TEST_F(PrintGoldenTest, UnknownFormatIsCompactJson) {
  const std::string map = MapPath("pacific-hitsets-snaps");
  EXPECT_EQ(golden::RunOsdmaptool({map, "--dump", "yaml"}).out,
            golden::RunOsdmaptool({map, "--dump", "json"}).out);
}

TEST_F(PrintGoldenTest, HitSetCephCannotDecodeRefusesTheMap) {
  // HitSet type 4: osdmaptool 16.2 prints its banner, then "error decoding
  // osdmap" and exits 255; crushkit says why after it.
  const std::string map = MapPath("pacific-bad-hitset");
  const golden::ToolRun got = golden::RunOsdmaptool({map, "--print"});
  EXPECT_EQ(got.rc, 255);
  EXPECT_TRUE(got.out.empty());
  EXPECT_TRUE(absl::StartsWith(got.err, "osdmaptool: osdmap file '" + map +
                                            "'\nosdmaptool: error decoding osdmap '" + map + "'"))
      << got.err;
  EXPECT_TRUE(absl::StrContains(got.err, "unrecognized HitSet type 4")) << got.err;
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
