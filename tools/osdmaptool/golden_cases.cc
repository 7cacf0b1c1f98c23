#include "tools/osdmaptool/golden_cases.h"

#include <cstdio>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

#include "tests/testing/paths.h"
#include "tests/testing/run_shell.h"
#include "tools/osdmaptool/osdmaptool.h"

namespace crushkit::tools::osdmaptool::golden {
namespace {

std::string ReadAllAndClose(std::FILE* f) {
  std::string s = crush_testing::ReadAll(f);
  std::fclose(f);
  return s;
}

}  // namespace

std::vector<Case> ReadCases(const std::string& golden_dir) {
  std::vector<Case> cases;
  for (absl::string_view line : absl::StrSplit(
           crush_testing::ReadFileOrEmpty(golden_dir + "/cases.txt"), '\n', absl::SkipEmpty())) {
    if (absl::StartsWith(line, "#")) continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    Case c;
    c.name = fields[0];
    for (absl::string_view a : absl::StrSplit(fields.at(1), ' ', absl::SkipEmpty()))
      c.args.emplace_back(a);
    c.extra.assign(fields.begin() + 2, fields.end());
    cases.push_back(std::move(c));
  }
  return cases;
}

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

std::map<std::string, std::string> RegularFilesIn(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file())
      files[e.path().filename().string()] = crush_testing::ReadFileOrEmpty(e.path().string());
  }
  return files;
}

ToolRun RunOsdmaptool(const std::vector<std::string>& args) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  ToolRun r;
  r.rc = RunOsdmaptoolCommand(args, out, err);
  r.out = ReadAllAndClose(out);
  r.err = ReadAllAndClose(err);
  return r;
}

void ExpectSameAsGolden(const std::string& golden_dir, const Case& c, const ToolRun& got,
                        const std::map<std::string, std::string>& before, const std::string& dir) {
  ToolRun want;
  ASSERT_TRUE(ParseExpected(
      crush_testing::ReadFileOrEmpty(golden_dir + "/expected/" + c.name + ".txt"), &want));
  EXPECT_EQ(got.rc, want.rc);
  EXPECT_EQ(got.out, want.out);
  EXPECT_EQ(got.err, want.err);
  // Files created or changed, against expected/NAME.FILE.
  std::map<std::string, std::string> written;
  for (const auto& [name, bytes] : RegularFilesIn(dir)) {
    auto it = before.find(name);
    if (it == before.end() || it->second != bytes) written[name] = bytes;
  }
  std::map<std::string, std::string> want_written;
  const std::string prefix = c.name + ".";
  for (const auto& [name, bytes] : RegularFilesIn(golden_dir + "/expected")) {
    if (absl::StartsWith(name, prefix) && name != c.name + ".txt")
      want_written[name.substr(prefix.size())] = bytes;
  }
  EXPECT_EQ(written.size(), want_written.size());
  for (const auto& [name, bytes] : want_written) {
    EXPECT_EQ(written.count(name), 1u) << name << " not written";
    EXPECT_TRUE(written[name] == bytes) << name << " differs from osdmaptool's";
  }
}

}  // namespace crushkit::tools::osdmaptool::golden
