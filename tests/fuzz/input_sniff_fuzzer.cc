// Fuzz target: recognising what a file is (osdmap/formats/input_sniff.h) and the
// messages every loader prints about a file (issue 34: nothing crushkit
// reads may mislead the operator, and no message echoes a whole file).
//
// Input: any bytes, taken as a whole file. For any input:
//   - SniffInput returns, and is a pure function of the bytes;
//   - DescribeInput and every role's CheckInputKind refusal are kInvalidArgument
//     messages of at most 600 bytes with no control bytes (at most ~80 bytes
//     of the input are quoted, escaped); a role takes what it was built for
//     (a kind a role takes is never refused by it);
//   - ParseState (state arguments) and ParseChange (change files) errors
//     carry no raw control byte (tabs and newlines aside) and no line longer
//     than 1 KiB, and ParseState's whole message stays under 2 KiB;
//   - the caret excerpt of the input taken as one line, around a column and
//     span drawn from its first bytes, is two lines of at most ~80 columns.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

#include "crush/util/text_excerpt.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/formats/state_codec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace osdmap = crushkit::osdmap;
using osdmap::InputKind;
using osdmap::InputRole;

constexpr InputRole kRoles[] = {
    InputRole::kImportOsdMap, InputRole::kImportPgStats, InputRole::kImportOsdDf,
    InputRole::kImportDf,     InputRole::kImportReport,  InputRole::kState,
    InputRole::kCrushMap,     InputRole::kCrushText,     InputRole::kCrushBinary,
    InputRole::kChangeFile,
};

// What each role takes (osdmap/formats/input_sniff.cc's table, restated here so the
// two are checked against each other).
bool Takes(InputRole role, InputKind kind) {
  switch (role) {
    case InputRole::kImportOsdMap:
      return kind == InputKind::kCephOsdDumpJson || kind == InputKind::kCephBinaryOsdMap;
    case InputRole::kImportPgStats:
      return kind == InputKind::kCephPgDumpJson || kind == InputKind::kCephPgDumpPgsJson;
    case InputRole::kImportOsdDf:
      return kind == InputKind::kCephOsdDfJson;
    case InputRole::kImportDf:
      return kind == InputKind::kCephDfJson;
    case InputRole::kImportReport:
      return kind == InputKind::kCephReportJson;
    case InputRole::kState:
      return kind == InputKind::kStateJson || kind == InputKind::kStateBinary ||
             kind == InputKind::kCephBinaryOsdMap;
    case InputRole::kCrushMap:
      return kind == InputKind::kCephBinaryCrushMap || kind == InputKind::kCrushTextMap;
    case InputRole::kCrushText:
      return kind == InputKind::kCrushTextMap;
    case InputRole::kCrushBinary:
      return kind == InputKind::kCephBinaryCrushMap;
    case InputRole::kChangeFile:
      return kind == InputKind::kChangeFile;
  }
  return false;
}

bool Printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u != 0x7f;
  });
}

// Lines without raw control bytes (tab aside), none longer than `max_line`.
void CheckTerminalSafe(std::string_view text, std::size_t max_line, const std::string& what) {
  std::size_t line = 0;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      line = 0;
      continue;
    }
    FUZZ_CHECK((u >= 0x20 && u != 0x7f) || c == '\t', what + ": raw control byte");
    FUZZ_CHECK(++line <= max_line, what + ": line too long");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const InputKind kind = osdmap::SniffInput(input);
  FUZZ_CHECK(osdmap::SniffInput(std::string(input)) == kind, "sniffing is not deterministic");
  const std::string described = osdmap::DescribeInput(kind, input);
  FUZZ_CHECK(!described.empty() && described.size() <= 400, "description size: " + described);
  FUZZ_CHECK(Printable(described), "raw byte in the description");

  for (const InputRole role : kRoles) {
    const absl::Status s = osdmap::CheckInputKind(role, kind, input);
    if (Takes(role, kind)) FUZZ_CHECK(s.ok(), "a role refused its own kind: " + described);
    const absl::Status refused = osdmap::RefuseInput(role, kind, input);
    for (const absl::Status* st : {&s, &refused}) {
      if (st->ok()) continue;
      FUZZ_CHECK(st->code() == absl::StatusCode::kInvalidArgument, "refusal code");
      const std::string m(st->message());
      FUZZ_CHECK(m.size() <= 1024, "refusal too long: " + m);
      FUZZ_CHECK(Printable(m), "raw byte in a refusal");
      FUZZ_CHECK(m.find(described) != std::string::npos, "refusal does not say what it is");
    }
  }

  if (auto state = osdmap::ParseState(std::string(input)); !state.ok()) {
    const std::string m(state.status().message());
    FUZZ_CHECK(m.size() < 2048, "ParseState message of " + std::to_string(m.size()) + " bytes");
    CheckTerminalSafe(m, 1024, "ParseState message");
  }
  if (auto change = osdmap::ParseChange(input, "ops.txt"); !change.ok()) {
    CheckTerminalSafe(std::string(change.status().message()), 1024, "ParseChange diagnostics");
  }

  // The input as one source line, with a column and span from its bytes.
  std::size_t column = 0;
  std::size_t length = 1;
  if (size >= 4) {
    column = (static_cast<std::size_t>(data[0]) << 8 | data[1]) % (size + 8);
    length = static_cast<std::size_t>(data[2]) << 8 | data[3];
  }
  std::string line(input);
  std::replace(line.begin(), line.end(), '\n', ' ');
  const std::string caret = crushkit::util::CaretLines(line, column, length);
  FUZZ_CHECK(std::count(caret.begin(), caret.end(), '\n') == 2, "caret excerpt is not two lines");
  // ~80 columns of at most 4 bytes each (UTF-8), "..." on each side.
  CheckTerminalSafe(caret, 4 * crushkit::util::kMaxQuotedBytes + 6, "caret excerpt");
  const std::string bounded = crushkit::util::BoundMessage(input);
  FUZZ_CHECK(bounded.size() <= crushkit::util::kMaxMessageBytes + 8, "BoundMessage too long");
  CheckTerminalSafe(bounded, crushkit::util::kMaxMessageBytes + 8, "BoundMessage");
  return 0;
}
