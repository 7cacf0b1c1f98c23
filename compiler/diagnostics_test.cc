#include "compiler/diagnostics.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "compiler/compile.h"
#include "compiler/source_file.h"
#include "tests/testing/golden.h"
#include "tests/testing/paths.h"

namespace crushkit::compiler {
namespace {

using ::testing::HasSubstr;

TEST(SourceFileTest, LocatesLinesAndColumns) {
  const SourceFile src("a.crush", "ab\n\tcd\r\nlast");
  EXPECT_EQ(src.line_count(), 3);
  EXPECT_EQ(src.Locate(0).line, 1);
  EXPECT_EQ(src.Locate(4).line, 2);
  EXPECT_EQ(src.Locate(4).column, 2);  // 'c' after the tab
  EXPECT_EQ(src.Line(2), "\tcd");      // "\r\n" stripped
  EXPECT_EQ(src.Line(3), "last");
  EXPECT_EQ(src.Line(4), "");
}

TEST(DiagnosticsTest, CaretKeepsTabsAndUnderlinesTheSpan) {
  const SourceFile src("rack.crush", "rack r {\n\titem host9 weight 1.000\n}\n");
  const Diagnostic d{Severity::kError, SourceRange{15, 5}, "unknown item 'host9'", {}};
  EXPECT_EQ(FormatDiagnostic(src, d),
            "rack.crush:2:7: error: unknown item 'host9'\n"
            "\titem host9 weight 1.000\n"
            "\t     ^~~~~\n");
}

TEST(DiagnosticsTest, SinkCapsStoredErrors) {
  DiagnosticSink sink;
  for (int i = 0; i < 25; ++i) sink.Report(Diagnostic{Severity::kError, {}, "e", {}});
  EXPECT_EQ(sink.error_count(), 25);
  EXPECT_EQ(sink.diagnostics().size(), 20u);
  EXPECT_THAT(sink.Format(SourceFile("f", "")), HasSubstr("5 more errors not shown"));
}

// Golden files: tests/golden/diagnostics/NAME.crush compiled, its formatted
// diagnostics plus the outcome compared with NAME.expected. Regenerate with
// UPDATE_GOLDENS=1 after reviewing the change.
TEST(DiagnosticsGoldenTest, EveryDiagnosticMatchesItsGolden) {
  const std::filesystem::path dir = crush_testing::SourceDir() + "/tests/golden/diagnostics";
  std::vector<std::filesystem::path> inputs;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".crush") inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  ASSERT_GE(inputs.size(), 40u);
  for (const auto& in : inputs) {
    SCOPED_TRACE(in.filename().string());
    const SourceFile src(in.filename().string(), crush_testing::ReadFileOrEmpty(in.string()));
    DiagnosticSink sink;
    const bool ok =
        Compile(src, &sink, CompileOptions{.release = crush::CephRelease::kPacific}).ok();
    const std::string got = sink.Format(src) + (ok ? "=> compiled\n" : "=> rejected\n");
    std::filesystem::path expected_path = in;
    expected_path.replace_extension(".expected");
    EXPECT_TRUE(crush_testing::MatchesGolden(expected_path.string(), got));
  }
}

}  // namespace
}  // namespace crushkit::compiler
