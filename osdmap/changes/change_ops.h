// The change-file language of `crushkit plan`: one operation per line, in
// the words of Ceph's own CLI where Ceph has a command for it, so an operator
// can paste what they would run:
//
//   # comments start with '#'; blank lines are ignored; a leading "ceph" is optional
//   ceph osd crush add-bucket node9 host rack=rack2 root=default
//   osd crush add osd.40 1.819 host=node9
//   osd out 3 7
//   add-host node10 osds=8 weight=3.638 class=hdd rack=rack2 root=default
//
// The full grammar, one command per line (N: an OSD id, "N" or "osd.N";
// LOC: TYPE=NAME location words; WEIGHT: a non-negative decimal number):
//   osd crush add-bucket NAME TYPE [LOC ...]
//   osd crush add ID WEIGHT [LOC ...]
//   osd crush set ID WEIGHT [LOC ...]
//   osd crush remove|rm|unlink NAME
//   osd crush reweight NAME WEIGHT
//   osd crush reweight-subtree NAME WEIGHT
//   osd crush move NAME LOC [LOC ...]
//   osd crush swap-bucket SOURCE DEST [--yes-i-really-mean-it]
//   osd crush set-device-class CLASS ID [ID ...]
//   osd crush rule create-replicated NAME ROOT TYPE [CLASS]
//   osd crush tunables legacy|argonaut|bobtail|firefly|hammer|jewel|optimal|default
//   osd crush set-tunable TUNABLE VALUE
//   osd out|in|down|up ID [ID ...]
//   osd reweight ID REWEIGHT                     (REWEIGHT in [0, 1])
//   osd primary-affinity ID AFFINITY             (AFFINITY in [0, 1])
//   osd pg-upmap PGID ID [ID ...]                (PGID: POOL.SEED, seed in hex)
//   osd rm-pg-upmap PGID
//   osd pg-upmap-items PGID FROM TO [FROM TO ...]
//   osd rm-pg-upmap-items PGID
//   osd pg-upmap-primary PGID ID                 (Reef and later: the PG's primary)
//   osd rm-pg-upmap-primary PGID
//   osd purge ID [--yes-i-really-mean-it]
//   osd pool set POOL size|min_size|pg_num|pgp_num|crush_rule VALUE [--yes-i-really-mean-it]
//   add-host NAME osds=COUNT weight=WEIGHT [class=CLASS] [LOC ...]
//   drain NAME
// What each does to a ClusterState is documented in osdmap/changes/apply_change.h.
//
// Parsing checks everything that does not need the state: command words,
// argument counts, numbers and their ranges, name syntax, location syntax,
// tunable and profile names. Names are resolved by ApplyChange(), which
// still reports the line and column of the word. Errors are gcc-style
// diagnostics (see FormatChangeDiagnostic below), all of them up to
// kMaxChangeErrors.
// Thread-safety: pure functions over values.
#ifndef CRUSHKIT_OSDMAP_CHANGES_CHANGE_OPS_H_
#define CRUSHKIT_OSDMAP_CHANGES_CHANGE_OPS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap {

// One word of a change file and where it starts (1-based line and byte
// column). A default Word (line 0) means "absent".
struct Word {
  std::string text;
  int line = 0;
  int column = 0;

  bool present() const { return line > 0; }

  bool operator==(const Word&) const = default;
};

// One TYPE=NAME location word, split.
struct LocationWord {
  Word type;
  Word name;

  bool operator==(const LocationWord&) const = default;
};

enum class ChangeOpKind {
  kCrushAddBucket,             // osd crush add-bucket
  kCrushAdd,                   // osd crush add
  kCrushSet,                   // osd crush set
  kCrushRemove,                // osd crush remove / rm
  kCrushUnlink,                // osd crush unlink
  kCrushReweight,              // osd crush reweight
  kCrushReweightSubtree,       // osd crush reweight-subtree
  kCrushMove,                  // osd crush move
  kCrushSwapBucket,            // osd crush swap-bucket
  kCrushSetDeviceClass,        // osd crush set-device-class
  kCrushRuleCreateReplicated,  // osd crush rule create-replicated
  kCrushTunables,              // osd crush tunables
  kCrushSetTunable,            // osd crush set-tunable
  kMarkOut,                    // osd out
  kMarkIn,                     // osd in
  kMarkDown,                   // osd down
  kMarkUp,                     // osd up (crushkit)
  kOsdReweight,
  kOsdPurge,
  kOsdPrimaryAffinity,  // osd primary-affinity
  kPgUpmap,             // osd pg-upmap
  kRmPgUpmap,           // osd rm-pg-upmap
  kPgUpmapItems,        // osd pg-upmap-items
  kRmPgUpmapItems,      // osd rm-pg-upmap-items
  kPgUpmapPrimary,      // osd pg-upmap-primary
  kRmPgUpmapPrimary,    // osd rm-pg-upmap-primary
  kPoolSet,             // osd pool set
  kAddHost,             // crushkit: add-host
  kDrain,               // crushkit: drain
};

// One parsed operation. Which fields are used depends on `kind`; unused
// fields stay default. The words keep their positions for apply-time errors.
struct ChangeOp {
  ChangeOpKind kind = ChangeOpKind::kMarkOut;
  // The command's first word ("osd", "add-host", "drain"; never "ceph").
  Word command;
  // The command words and arguments as written, single-spaced, without the
  // "ceph" prefix or comment (DescribeChangeOp).
  std::string text;

  // NAME of add-bucket/remove/unlink/reweight/reweight-subtree/move/drain/
  // add-host, the rule NAME of create-replicated, the POOL of pool set, the
  // PROFILE of tunables, the TUNABLE of set-tunable.
  Word name;
  // add-bucket TYPE, create-replicated TYPE (the failure domain), pool set's
  // setting name.
  Word type;
  // create-replicated ROOT.
  Word root;
  // swap-bucket DEST (SOURCE is `name`).
  Word target;
  // --yes-i-really-mean-it was given (swap-bucket: a linked SOURCE or
  // differing bucket algorithms are allowed).
  bool forced = false;
  // set-device-class CLASS, create-replicated [CLASS], add-host class=.
  Word device_class;
  // OSD ids: one for add/set/reweight/primary-affinity/purge, one or more
  // for out/in/down/up, set-device-class and pg-upmap, FROM TO pairs for
  // pg-upmap-items (osd_words[i] is the word of osd_ids[i]).
  std::vector<std::int32_t> osd_ids;
  std::vector<Word> osd_words;
  // CRUSH weight (add, set, reweight, reweight-subtree, add-host weight=) or
  // the 0..1 value of `osd reweight` / `osd primary-affinity`; `weight_word`
  // is where it was written.
  double weight = 0;
  Word weight_word;
  // set-tunable VALUE; pool set VALUE for size/min_size/pg_num/pgp_num
  // (crush_rule keeps its word in `value_word`: a rule name or id).
  std::uint64_t value = 0;
  Word value_word;
  // The PG of pg-upmap, rm-pg-upmap, pg-upmap-items, rm-pg-upmap-items.
  PgId pg;
  Word pg_word;
  // add-host osds=COUNT.
  int osd_count = 0;
  // TYPE=NAME words, in the order written (types are distinct).
  std::vector<LocationWord> location;

  bool operator==(const ChangeOp&) const = default;
};

// A parsed change file: its name and lines (for diagnostics) and its ops in
// file order.
struct ChangeList {
  std::string file_name;
  std::vector<std::string> lines;
  std::vector<ChangeOp> ops;
};

// At most this many errors are reported (then a note says how many more).
inline constexpr int kMaxChangeErrors = 20;

// Largest OSD id a change file may name, and most OSDs one add-host creates.
// Ceph's mon_max_osd defaults to 10000; this only keeps a typo from
// allocating millions of OSD slots.
inline constexpr std::int32_t kMaxChangeOsdId = 99999;
inline constexpr int kMaxAddHostOsds = 1000;

// One diagnostic: 1-based line and column, length of the word (>= 1) and a
// lowercase message without trailing period.
struct ChangeDiagnostic {
  int line = 0;
  int column = 0;
  int length = 1;
  std::string message;
};

// "FILE:LINE:COL: error: MESSAGE", then the source line and a caret line
// (^~~~ under the word; tabs copied so the caret lines up), each ending in
// '\n'. Rendered as the compiler's are (crush/util/diagnostics.h): ~80 columns
// of a long line around the caret, control bytes as \xNN, quoted words cut
// at 80 bytes. `lines` are the file's lines (ChangeList::lines); a line number
// outside them prints no source.
std::string FormatChangeDiagnostic(std::string_view file_name,
                                   const std::vector<std::string>& lines,
                                   const ChangeDiagnostic& d);

// Formats up to kMaxChangeErrors of `diagnostics` and, when there were more,
// a final "FILE: note: N more errors not shown" line.
std::string FormatChangeDiagnostics(std::string_view file_name,
                                    const std::vector<std::string>& lines,
                                    const std::vector<ChangeDiagnostic>& diagnostics);

// Parses a change file. `file_name` is used in diagnostics only.
// Errors: kInvalidArgument whose message is every diagnostic formatted as
// above (FormatChangeDiagnostics). An empty file (or only comments) parses
// to an empty list. Cost: linear in the text.
absl::StatusOr<ChangeList> ParseChange(std::string_view text, std::string_view file_name);

// One line describing `op` for a report: its command as written, normalised
// (single spaces, no "ceph" prefix, no comment), e.g. "osd crush reweight osd.3 0.5".
std::string DescribeChangeOp(const ChangeOp& op);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_CHANGES_CHANGE_OPS_H_
