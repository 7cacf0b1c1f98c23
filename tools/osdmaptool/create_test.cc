// `crushkit osdmaptool --createsimple/--create-from-conf` against Ceph's
// osdmaptool 16.2: the same output and exit code, and the same map written,
// byte for byte once the fields that differ on every run (fsid, created,
// modified, hence the crc) are masked. Then --print of each map, and
// --clobber without a create option (osdmaptool's empty map). Skipped
// without the oracle (failed under CRUSHKIT_REQUIRE_ORACLE).
#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

#include "osdmap/formats/osdmap_binary.h"
#include "tests/testing/oracle.h"
#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tests/testing/temp_dir.h"
#include "tools/osdmaptool/osdmaptool.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::ReadAll;
using ::crush_testing::RunShell;

// --print's created/modified lines hold the creation clock.
std::string WithoutClockLines(const std::string& text) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, "created ") || absl::StartsWith(line, "modified ")) continue;
    out.append(line.data(), line.size());
    out += '\n';
  }
  return out;
}

// The map with the per-run fields zeroed, re-encoded (fresh crc).
std::string Masked(const std::string& bytes) {
  auto map = osdmap::DecodeOsdMap(bytes);
  if (!map.ok()) return "undecodable: " + std::string(map.status().message());
  map->fsid = {};
  map->created = {};
  map->modified = {};
  return osdmap::EncodeOsdMap(*map);
}

class CreateTest : public ::testing::Test {
 protected:
  void SetUp() override { CRUSH_TEST_NEEDS_ORACLE("osdmaptool"); }

  // Runs `flags` (with MAP replaced by a fresh file name) through both
  // tools; returns our map file.
  std::string ExpectSame(const std::string& flags, const std::string& name) {
    const std::string theirs = dir_.File(name + ".theirs");
    const std::string ours = dir_.File(name + ".ours");
    auto with = [&flags](const std::string& map) {
      std::string f = flags;
      f.replace(f.find("MAP"), 3, map);
      return f;
    };
    int want_rc = 0;
    std::string want = RunShell("PATH=/usr/bin:$PATH CEPH_ARGS=--crash_dir=" + dir_.path() +
                                    " timeout 60 osdmaptool " + with(theirs) + " 2>&1",
                                &want_rc);
    std::vector<std::string> args;
    for (absl::string_view a : absl::StrSplit(with(ours), ' ', absl::SkipEmpty()))
      args.emplace_back(a);
    std::FILE* out = std::tmpfile();
    const int rc = RunOsdmaptoolCommand(args, out, out);
    std::string got = ReadAll(out);
    std::fclose(out);
    for (std::size_t at; (at = got.find(ours)) != std::string::npos;)
      got.replace(at, ours.size(), theirs);
    got = WithoutClockLines(got);
    want = WithoutClockLines(want);
    EXPECT_EQ(rc, want_rc) << flags;
    EXPECT_EQ(got, want) << flags;
    const std::string a = crush_testing::ReadFileOrEmpty(theirs);
    const std::string b = crush_testing::ReadFileOrEmpty(ours);
    EXPECT_EQ(a.size(), b.size()) << flags;
    EXPECT_TRUE(Masked(a) == Masked(b)) << flags << ": the maps written differ";
    return ours;
  }

  crush_testing::TempDir dir_{"osdmaptool_create_test"};
};

TEST_F(CreateTest, CreateSimpleMatchesOracle) {
  ExpectSame("--createsimple 3 MAP --with-default-pool", "a");
  ExpectSame("--createsimple 3 MAP", "b");
  ExpectSame("--createsimple 1 MAP --with-default-pool", "c");
  ExpectSame("--createsimple 40 --pg-bits 3 --pgp-bits 2 --with-default-pool MAP", "d");
  ExpectSame("--createsimple 5 --pgp-bits 9 --with-default-pool MAP", "e");
  ExpectSame("--osd_pool_default_size 2 --createsimple 4 --with-default-pool MAP", "f");
  ExpectSame("--createsimple 0 MAP", "g");
}

TEST_F(CreateTest, ClobberMatchesOracle) {
  ExpectSame("--createsimple 2 MAP", "h");
  ExpectSame("--createsimple 2 MAP", "h");
  ExpectSame("--createsimple 4 --clobber MAP --with-default-pool", "h");
}

// --clobber alone: osdmaptool never reads MAP and works on an empty map,
// writing it only when an action modifies it (an existing MAP is then
// replaced, else left alone).
TEST_F(CreateTest, ClobberWithoutCreateMatchesOracle) {
  const std::string empty_crush =
      crush_testing::SourceDir() + "/tests/golden/osdmaptool_clobber/empty.crush";
  ExpectSame("MAP --clobber --print", "m");
  ExpectSame("MAP --clobber --dump json-pretty --tree", "n");
  ExpectSame("MAP --clobber --import-crush " + empty_crush + " --print --tree plain", "o");
  ExpectSame("MAP --clobber --adjust-crush-weight 0:1,1:2 --save --health", "p");
  ExpectSame("MAP --clobber --mark-up-in --test-map-pgs-dump --upmap -", "q");
  ExpectSame("MAP --clobber --test-map-object foo", "r");
  const std::string existing = crush_testing::ReadFileOrEmpty(
      crush_testing::SourceDir() + "/tests/golden/osdmap_binary/pacific-nopool.osdmap");
  ASSERT_FALSE(existing.empty());
  for (const char* flags : {"MAP --clobber --print --save",
                            "MAP --clobber --import-crush EMPTY --dump json --test-map-pgs"}) {
    for (const char* side : {".theirs", ".ours"}) {
      std::FILE* f = std::fopen(dir_.File(std::string("s") + side).c_str(), "wb");
      std::fwrite(existing.data(), 1, existing.size(), f);
      std::fclose(f);
    }
    std::string with = flags;
    if (const auto at = with.find("EMPTY"); at != std::string::npos)
      with.replace(at, 5, empty_crush);
    ExpectSame(with, "s");
  }
}

TEST_F(CreateTest, CreateFromConfMatchesOracle) {
  const std::string conf = dir_.File("ceph.conf");
  std::FILE* f = std::fopen(conf.c_str(), "w");
  std::fputs(
      "[global]\n fsid = 6d6e2a92-8b6c-4a66-8d8e-4e1fe1b5fa10\n[osd]\n keyring = x\n"
      "[osd.0]\n host = h0\n rack = r0\n[osd.1]\n host = h1\n rack = r0\n"
      "[osd.10]\n host = h2\n rack = r1\n row = rowA\n[osd.2]\n host = h0\n"
      "[osd.3]\n host = h3\n rack = r1\n room = lab\n datacenter = dc1\n",
      f);
  std::fclose(f);
  ExpectSame("--create-from-conf MAP -c " + conf + " --with-default-pool", "i");
  ExpectSame("--create-from-conf MAP -c " + conf, "j");
}

TEST_F(CreateTest, PrintOfCreatedMapsMatchesOracle) {
  ExpectSame("--createsimple 3 MAP --with-default-pool --print", "k");
  ExpectSame("--createsimple 7 MAP --print --tree", "l");
}

// The committed binary maps (HitSets, pool snapshots, snap queues, legacy
// addresses and blocklists included), against the live oracle. Outputs stay
// under 64 KiB: with stdout and stderr on one pipe (2>&1) osdmaptool 16.2
// now and then loses the end of a longer stdout (a `--dump table` of
// these maps, ~94 KB, came back cut at ~61 KB in 7 of 20 runs; never with
// separate pipes or a file).
TEST_F(CreateTest, CommittedMapsPrintAndDumpAsOracle) {
  for (const char* name :
       {"pacific-nopool", "pacific-upmap", "reef-simple", "pacific-every-field",
        "pacific-hitsets-snaps", "pacific-snap-queues", "pacific-legacy-addrs"}) {
    const std::string golden = crush_testing::ReadFileOrEmpty(
        crush_testing::SourceDir() + "/tests/golden/osdmap_binary/" + name + ".osdmap");
    ASSERT_FALSE(golden.empty()) << name;
    for (const char* flags :
         {"MAP --print", "MAP --dump json", "MAP --dump json-pretty --mark-out 0",
          "MAP --dump xml-pretty", "MAP --dump table-kv --mark-up-in"}) {
      for (const char* side : {".theirs", ".ours"}) {
        std::FILE* f = std::fopen(dir_.File(std::string(name) + side).c_str(), "wb");
        std::fwrite(golden.data(), 1, golden.size(), f);
        std::fclose(f);
      }
      ExpectSame(flags, name);
    }
  }
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
