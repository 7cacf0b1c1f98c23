// Fuzz target: the change-file language of `crushkit plan` (ParseChange)
// and ApplyChange on a fixed small state.
//
// Input: change-file text. For any input:
//   - ParseChange returns; an error is kInvalidArgument and every diagnostic
//     line is "ops.txt:LINE:COL: error: ..." with LINE within the file and
//     COL >= 1 (or the "N more errors not shown" note);
//   - a parsed list is a fixed point of its descriptions: re-parsing the
//     DescribeChangeOp() lines gives the same kinds and texts;
//   - ApplyChange returns; an error is kInvalidArgument with diagnostics of
//     the same form (kInternal would be a crushkit bug: an edit produced a
//     map that does not build or a state that does not validate);
//   - a result passes ValidateState, its crush map builds, its encoding
//     (EncodeCrush) decodes back to its model, applying again gives the same state, and a few
//     PGs of every pool map to up/acting sets of OSDs below max_osd.
// The state: root default > rack0 (host0, host1), rack1 (host2, host3), two
// OSDs per host, classes hdd (even OSDs) and ssd (odd), pools rbd
// (replicated, rule 0) and ecpool (erasure 2+1, rule 1), osd.5 down.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"

#include "crush/codec.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "osdmap/changes/apply_change.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/testing/cluster_builder.h"

namespace {

namespace osdmap = crushkit::osdmap;
namespace crush = crushkit::crush;

const osdmap::ClusterState& FixedState() {
  static const osdmap::ClusterState* state = [] {
    crush_testing::ClusterSpec spec;
    spec.hosts = 4;
    spec.osds_per_host = 2;
    spec.racks = 2;
    auto* st = new osdmap::ClusterState;
    st->epoch = 1;
    st->crush = crush_testing::MakeClusterModel(spec);
    for (int osd = 0; osd < 8; ++osd) {
      FUZZ_CHECK(crush::SetDeviceClass(st->crush, osd, osd % 2 ? "ssd" : "hdd").ok(), "class");
    }
    st->osds.assign(8, osdmap::OsdInfo{osdmap::kOsdExists | osdmap::kOsdUp, 0x10000,
                                       osdmap::kDefaultPrimaryAffinity});
    st->osds[5].state = osdmap::kOsdExists;
    osdmap::Pool rbd;
    rbd.id = 1;
    rbd.name = "rbd";
    rbd.pg_num = rbd.pgp_num = 16;
    st->pools[1] = rbd;
    osdmap::Pool ec;
    ec.id = 2;
    ec.name = "ecpool";
    ec.type = osdmap::PoolType::kErasure;
    ec.crush_rule = 1;
    ec.pg_num = ec.pgp_num = 8;
    ec.ec_k = 2;
    ec.ec_m = 1;
    st->pools[2] = ec;
    st->pg_upmap_items[osdmap::PgId{1, 3}] = {{0, 2}};
    st->osd_usage[3] = osdmap::OsdUsage{1 << 20, 1 << 10, std::nullopt};
    return st;
  }();
  return *state;
}

// An error is a sequence of diagnostics, each a head line, the source line
// and a caret line (every reported line is inside the file), and maybe a
// final note. Source lines are skipped by position: they may hold anything.
void CheckDiagnostics(const absl::Status& status, std::size_t line_count, const std::string& what) {
  FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument, what + ": " + status.ToString());
  const std::string text(status.message());
  std::size_t pos = 0;
  int heads = 0;
  bool noted = false;
  while (pos < text.size()) {
    FUZZ_CHECK(!noted, what + ": text after the note");
    const std::size_t end = text.find('\n', pos);
    FUZZ_CHECK(end != std::string::npos, what + ": unterminated line");
    const std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    FUZZ_CHECK(line.substr(0, 8) == "ops.txt:", what + ": not a diagnostic: " + line);
    if (line.substr(8, 7) == " note: ") {
      noted = true;
      continue;
    }
    std::size_t i = 8;
    std::size_t line_no = 0;
    std::size_t col = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
      line_no = line_no * 10 + static_cast<std::size_t>(line[i++] - '0');
    }
    FUZZ_CHECK(i < line.size() && line[i] == ':', what + ": bad head " + line);
    ++i;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
      col = col * 10 + static_cast<std::size_t>(line[i++] - '0');
    }
    FUZZ_CHECK(line.substr(i, 9) == ": error: ", what + ": bad head " + line);
    FUZZ_CHECK(line_no >= 1 && line_no <= line_count && col >= 1,
               what + ": position outside the file: " + line);
    ++heads;
    for (int skip = 0; skip < 2; ++skip) {  // the source line, the caret line
      const std::size_t next = text.find('\n', pos);
      FUZZ_CHECK(next != std::string::npos, what + ": diagnostic without source");
      pos = next + 1;
    }
  }
  FUZZ_CHECK(heads >= 1 && heads <= osdmap::kMaxChangeErrors, what + ": diagnostic count");
}

void MapSomePgs(const osdmap::ClusterState& st, const crush::CrushMap& map) {
  osdmap::CrushPlacement placement(map, st.ceph_release);
  placement.set_work_budget(1 << 16);
  osdmap::PgMapper mapper(st, placement);
  for (const auto& [id, pool] : st.pools) {
    for (std::uint32_t ps = 0; ps < std::min<std::uint32_t>(pool.pg_num, 4); ++ps) {
      osdmap::PgMapping m;
      mapper.PgToUpActing(osdmap::PgId{id, ps}, &m);
      for (const osdmap::OsdList* list : {&m.up, &m.acting}) {
        for (int i = 0; i < list->size(); ++i) {
          const std::int32_t o = (*list)[i];
          FUZZ_CHECK(o == crush::kItemNone || (o >= 0 && o < st.max_osd()),
                     "pg maps to osd " + std::to_string(o));
        }
      }
    }
  }
}

// Adding hundreds of OSDs is legal but slow (each insert rebuilds the class
// trees, as Ceph does); the fuzzer applies only changes that create few.
bool CheapEnough(const osdmap::ChangeList& change) {
  int created = 0;
  for (const osdmap::ChangeOp& op : change.ops) {
    created += op.kind == osdmap::ChangeOpKind::kAddHost ? op.osd_count : 1;
  }
  return created <= 64;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 8192) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto change = osdmap::ParseChange(text, "ops.txt");
  if (!change.ok()) {
    const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    CheckDiagnostics(change.status(), newlines + 1, "parse");
    return 0;
  }
  std::string described;
  for (const osdmap::ChangeOp& op : change->ops) {
    FUZZ_CHECK(op.command.line >= 1 && op.command.column >= 1, "op without a position");
    described += osdmap::DescribeChangeOp(op) + "\n";
  }
  auto again = osdmap::ParseChange(described, "ops.txt");
  FUZZ_CHECK(again.ok(), "descriptions do not parse: " + again.status().ToString());
  FUZZ_CHECK(again->ops.size() == change->ops.size(), "descriptions parse to other ops");
  for (std::size_t i = 0; i < change->ops.size(); ++i) {
    FUZZ_CHECK(
        again->ops[i].kind == change->ops[i].kind && again->ops[i].text == change->ops[i].text,
        "description of op " + std::to_string(i) + " differs");
  }

  if (!CheapEnough(*change)) return 0;
  const osdmap::ClusterState& before = FixedState();
  auto after = osdmap::ApplyChange(before, *change);
  if (!after.ok()) {
    CheckDiagnostics(after.status(), change->lines.size(), "apply");
    return 0;
  }
  const absl::Status valid = osdmap::ValidateState(*after);
  FUZZ_CHECK(valid.ok(), "result is invalid: " + valid.ToString());
  auto decoded = crush::DecodeCrushMap(osdmap::EncodeCrush(*after));
  FUZZ_CHECK(decoded.ok(), "the crush encoding does not decode: " + decoded.status().ToString());
  FUZZ_CHECK(*decoded == after->crush, "the crush encoding does not decode to the model");
  auto map = crush::CrushMap::Build(after->crush);
  FUZZ_CHECK(map.ok(), "crush map does not build: " + map.status().ToString());
  auto twice = osdmap::ApplyChange(before, *change);
  FUZZ_CHECK(twice.ok() && *twice == *after, "ApplyChange is not deterministic");
  MapSomePgs(*after, *map);
  return 0;
}
