// `crushkit osdmaptool MAP --clobber ...` without a create option against
// what osdmaptool 16.2 did for the same command lines, committed in
// tests/golden/osdmaptool_clobber/ (cases.txt, expected/; see its README):
// exit code, stdout, stderr and every file written, byte for byte, whether
// MAP exists or not. No oracle needed. Also the cases where osdmaptool
// aborts, which crushkit answers with an error.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tests/testing/temp_dir.h"
#include "tools/osdmaptool/osdmaptool.h"

namespace crushkit::tools::osdmaptool {
namespace {

using ::crush_testing::ReadFileOrEmpty;
using ::crush_testing::SourceDir;

std::string GoldenDir() { return SourceDir() + "/tests/golden/osdmaptool_clobber"; }

struct ToolRun {
  int rc = -1;
  std::string out;
  std::string err;
};

struct Case {
  std::string name;
  std::vector<std::string> args;
  bool map_exists = false;
};

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  for (absl::string_view line :
       absl::StrSplit(ReadFileOrEmpty(GoldenDir() + "/cases.txt"), '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    Case c;
    c.name = fields[0];
    for (absl::string_view a : absl::StrSplit(fields.at(1), ' ', absl::SkipEmpty()))
      c.args.emplace_back(a == "MAP" ? "x.om" : std::string(a));
    c.map_exists = fields.size() > 2 && fields[2] == "exists";
    cases.push_back(std::move(c));
  }
  return cases;
}

// expected/NAME.txt: "rc N\nstdout LEN\n" LEN bytes "stderr LEN\n" LEN bytes.
bool ParseExpected(const std::string& text, ToolRun* run) {
  std::size_t at = 0;
  auto header = [&](const std::string& key, std::size_t* value) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos || text.compare(at, key.size() + 1, key + " ") != 0) return false;
    const bool ok = absl::SimpleAtoi(
        absl::string_view(text).substr(at + key.size() + 1, nl - at - key.size() - 1), value);
    at = nl + 1;
    return ok;
  };
  std::size_t rc = 0;
  std::size_t n = 0;
  if (!header("rc", &rc)) return false;
  run->rc = static_cast<int>(rc);
  if (!header("stdout", &n) || at + n > text.size()) return false;
  run->out = text.substr(at, n);
  at += n;
  if (!header("stderr", &n) || at + n != text.size()) return false;
  run->err = text.substr(at, n);
  return true;
}

std::map<std::string, std::string> FilesIn(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files[e.path().filename().string()] = ReadFileOrEmpty(e.path().string());
  return files;
}

std::string ReadAllAndClose(std::FILE* f) {
  std::string s = crush_testing::ReadAll(f);
  std::fclose(f);
  return s;
}

// Runs in a scratch directory holding the inputs, as regenerate.py does
// (the expected outputs name files relative to it).
class ClobberGoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(dir_.path());
  }

  void TearDown() override { std::filesystem::current_path(old_cwd_); }

  // Empties the directory and puts the inputs (and x.om if asked) back.
  void FreshInputs(bool map_exists) {
    for (const auto& e : std::filesystem::directory_iterator(dir_.path()))
      std::filesystem::remove_all(e.path());
    for (const char* f : {"empty.crush", "three.crush"})
      std::filesystem::copy_file(GoldenDir() + "/" + f, dir_.File(f));
    if (map_exists) {
      std::filesystem::copy_file(SourceDir() + "/tests/golden/osdmap_binary/pacific-nopool.osdmap",
                                 dir_.File("x.om"));
    }
  }

  static ToolRun Osdmaptool(const std::vector<std::string>& args) {
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    ToolRun r;
    r.rc = RunOsdmaptoolCommand(args, out, err);
    r.out = ReadAllAndClose(out);
    r.err = ReadAllAndClose(err);
    return r;
  }

  crush_testing::TempDir dir_{"osdmaptool_clobber_test"};
  std::filesystem::path old_cwd_;
};

TEST_F(ClobberGoldenTest, EveryCaseAsOsdmaptool) {
  const std::vector<Case> cases = ReadCases();
  ASSERT_GE(cases.size(), 40u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ToolRun want;
    ASSERT_TRUE(
        ParseExpected(ReadFileOrEmpty(GoldenDir() + "/expected/" + c.name + ".txt"), &want));
    FreshInputs(c.map_exists);
    const std::map<std::string, std::string> before = FilesIn(dir_.path());
    const ToolRun got = Osdmaptool(c.args);
    EXPECT_EQ(got.rc, want.rc);
    EXPECT_EQ(got.out, want.out);
    EXPECT_EQ(got.err, want.err);
    // Files created or changed, against expected/NAME.FILE.
    std::map<std::string, std::string> written;
    for (const auto& [name, bytes] : FilesIn(dir_.path())) {
      auto it = before.find(name);
      if (it == before.end() || it->second != bytes) written[name] = bytes;
    }
    std::map<std::string, std::string> want_written;
    const std::string prefix = c.name + ".";
    for (const auto& [name, bytes] : FilesIn(GoldenDir() + "/expected")) {
      if (absl::StartsWith(name, prefix) && name != c.name + ".txt")
        want_written[name.substr(prefix.size())] = bytes;
    }
    EXPECT_EQ(written.size(), want_written.size());
    for (const auto& [name, bytes] : want_written) {
      EXPECT_EQ(written.count(name), 1u) << name << " not written";
      EXPECT_TRUE(written[name] == bytes) << name << " differs from osdmaptool's";
    }
  }
}

// osdmaptool 16.2 aborts (uncaught buffer::malformed_input /
// end_of_buffer, rc 134) on a crush map it cannot decode; crushkit says
// why and writes nothing.
TEST_F(ClobberGoldenTest, UndecodableCrushMapIsAnErrorNotACrash) {
  for (const std::string& content : {std::string("garbage\n"), std::string()}) {
    FreshInputs(false);
    std::FILE* f = std::fopen("bad.crush", "wb");
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
    const ToolRun got = Osdmaptool({"x.om", "--clobber", "--import-crush", "bad.crush"});
    EXPECT_EQ(got.rc, 1);
    EXPECT_TRUE(got.out.empty()) << got.out;
    EXPECT_TRUE(absl::StrContains(
        got.err, "osdmaptool: error decoding crush map from bad.crush: not a crush map"))
        << got.err;
    EXPECT_FALSE(std::filesystem::exists("x.om"));
  }
}

// osdmaptool 16.2 aborts on std::stoi/std::stof of a malformed
// --adjust-crush-weight entry.
TEST_F(ClobberGoldenTest, MalformedCrushWeightIsAnErrorNotACrash) {
  FreshInputs(false);
  ToolRun got = Osdmaptool({"x.om", "--clobber", "--adjust-crush-weight", "0:abc", "--save"});
  EXPECT_EQ(got.rc, 1);
  EXPECT_EQ(got.err, "osdmaptool: osdmap file 'x.om'\nosdmaptool: invalid weight 'abc'\n");
  got = Osdmaptool({"x.om", "--clobber", "--adjust-crush-weight", "abc:1", "--save"});
  EXPECT_EQ(got.rc, 1);
  EXPECT_EQ(got.err, "osdmaptool: osdmap file 'x.om'\nosdmaptool: invalid osd id 'abc'\n");
  EXPECT_FALSE(std::filesystem::exists("x.om"));
}

}  // namespace
}  // namespace crushkit::tools::osdmaptool
