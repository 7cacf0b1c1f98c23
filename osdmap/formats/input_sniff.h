// What a file crushkit was given is, recognised from its content, and the
// one place every loader asks whether it is what the loader takes (issue 34:
// nothing crushkit reads may mislead the operator). A wrong file is refused
// with the dump the loader expected, the Ceph command that makes it, and what
// the file is instead:
//
//   --pg-stats wants 'ceph pg dump -f json' (or 'ceph pg dump pgs -f json');
//   this is 'ceph osd df -f json'
//
// Recognised: Ceph's JSON dumps (osd dump, osd crush dump, pg dump in its
// Pacific `pg_map` and `pgs` forms, pg dump pgs_brief, osd df [tree], df
// [detail], report, osd tree), crushkit state files (binary and JSON),
// Ceph's binary osdmap and crush map, text crush maps, change files. JSON is
// recognised by its top-level keys (a linear scan that never builds the
// document and tolerates malformed input); binary by its magic or framing;
// text by its first non-comment line. Also: protobuf's JSON parse errors
// turned into "LINE:COL: message (near "...")".
//
// No message here quotes more than ~80 bytes of the input, and none carries
// a raw control byte (crush/util/text_excerpt.h). Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_INPUT_SNIFF_H_
#define CRUSHKIT_OSDMAP_FORMATS_INPUT_SNIFF_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace crushkit::osdmap {

enum class InputKind {
  kEmpty,                // nothing but whitespace
  kCephOsdDumpJson,      // `ceph osd dump -f json`, `osdmaptool --dump json`
  kCephCrushDumpJson,    // `ceph osd crush dump -f json`, `crushtool --dump`
  kCephPgDumpJson,       // `ceph pg dump -f json` (Pacific: "pg_map": {"pg_stats"})
  kCephPgDumpPgsJson,    // `ceph pg dump pgs -f json` (top-level "pg_stats" with stat_sum)
  kCephPgDumpBriefJson,  // `ceph pg dump pgs_brief -f json` (no stat_sum: no bytes)
  kCephOsdDfJson,        // `ceph osd df [tree] -f json` ("nodes" and "summary")
  kCephDfJson,           // `ceph df [detail] -f json` ("pools" and "stats")
  kCephReportJson,       // `ceph report` ("osdmap" with "monmap"/"crushmap"/...)
  kCephOsdTreeJson,      // `ceph osd tree -f json` ("nodes", no "summary")
  kStateJson,            // a crushkit state file, protobuf JSON ("crush_map")
  kStateBinary,          // a crushkit state file, binary protobuf
  kCephBinaryOsdMap,     // `ceph osd getmap` (also one whose length is damaged)
  kCephBinaryCrushMap,   // `ceph osd getcrushmap` (CRUSH_MAGIC)
  kCrushTextMap,         // `crushtool -d` output or a hand-written text map
  kChangeFile,           // `crushkit plan` operations ("osd out 3", "add-host ...")
  kOtherJson,            // JSON crushkit does not know
  kOtherText,            // text crushkit does not know
  kOtherBinary,          // binary data crushkit does not know
};

// What `bytes` is. Linear in the size; never fails.
InputKind SniffInput(std::string_view bytes);

// What a file of `kind` is, with the command that makes it, as the end of
// "this is ...": "'ceph osd df -f json'", "Ceph's binary osdmap ('ceph osd
// getmap')", "a crushkit state file ('crushkit import')". `bytes` adds
// detail for the kOther* kinds (a JSON file's top-level keys, the first
// bytes of binary data in hex, the first word of text), quoting at most ~80
// bytes of it, control bytes escaped.
std::string DescribeInput(InputKind kind, std::string_view bytes);

// What a loader reads. Each role takes some kinds (below); every other
// kind is refused by CheckInputKind, except what a role passes on to its
// parser, whose errors then locate the problem: text that is not
// recognised for the text roles (a map with a typo), and for the JSON roles
// JSON crushkit does not recognise when it is malformed (the parser locates
// the syntax error) or has one of the keys the role reads at its top (a
// trimmed dump: the parser names the missing field).
enum class InputRole {
  kImportOsdMap,   // import --osdmap: osd dump JSON, binary osdmap (epoch/max_osd/osds/pools/fsid)
  kImportPgStats,  // import --pg-stats: pg dump, `pg_map` or `pgs` form
  kImportOsdDf,    // import --osd-df: osd df [tree] (nodes/stray)
  kImportDf,       // import --df: ceph df [detail] (pools)
  kImportReport,   // import --report: ceph report (osdmap, crushmap)
  kState,          // state arguments: state (binary, JSON), binary osdmap; any other JSON
  kCrushMap,       // --crush and crush map arguments: binary or text map; other text
  kCrushText,      // compile: a text map; other text
  kCrushBinary,    // decompile: a binary crush map
  kChangeFile,     // plan/edit change files: operations; other text
};

// OK when `bytes` may be given to `role`; else kInvalidArgument:
// "<what the role wants, with the Ceph command>; this is <DescribeInput>",
// e.g. "--pg-stats wants 'ceph pg dump -f json' (or 'ceph pg dump pgs -f
// json'); this is 'ceph osd df -f json'", plus a hint where one helps (a
// pgs_brief dump has no bytes; a binary osdmap carries its crush map).
// Linear in the size (SniffInput).
absl::Status CheckInputKind(InputRole role, std::string_view bytes);

// The same for a `kind` the caller has already sniffed from `bytes`.
absl::Status CheckInputKind(InputRole role, InputKind kind, std::string_view bytes);

// CheckInputKind's refusal whatever the kind: for a parser that gave up on
// a kind its role passes on (JSON that does not parse as a state).
absl::Status RefuseInput(InputRole role, InputKind kind, std::string_view bytes);

// OSDMap::encode's wrapper: u8 8, u8 7, u32 length of the rest, then the
// client section's ENCODE_START(v, 1).
bool LooksLikeCephOsdMap(std::string_view bytes);

// The top-level keys `ceph osd dump -f json` always prints.
bool LooksLikeCephOsdDumpJson(std::string_view text);

// "" when `bytes` looks like text (UTF-8 without NUL or control bytes other
// than tab, CR, LF in its first 4 KiB); else what it is, e.g. "Ceph's binary
// osdmap ('ceph osd getmap')", "a binary crush map ('ceph osd
// getcrushmap')", or "binary data (starts 7f 45 4c 46 02 01 01 00)".
std::string DescribeBinary(std::string_view bytes);

// protobuf's JsonStringToMessage message ("Expected : between key:value
// pair.\n<up to 20 bytes either side>\n<spaces>^") as "LINE:COL: Expected :
// between key:value pair (near "...")", the excerpt with non-printable bytes
// escaped; the message alone (first line) when the excerpt cannot be found
// in `text`. At most ~80 bytes of either are quoted.
std::string LocateJsonError(std::string_view text, std::string_view protobuf_error);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_INPUT_SNIFF_H_
