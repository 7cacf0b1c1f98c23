// Fuzz target: the `ceph osd dump -f json` / `ceph pg dump -f json` /
// `ceph osd df -f json` / `ceph df -f json` importers, and PG mapping on
// whatever they accept.
//
// Input: JSON text, optionally followed by "\n--crush--\n" and a binary crush
// map (otherwise a fixed 4-host, 16-OSD map is used). For any input the
// importers must return; if ImportCephOsdDump succeeds:
//   - the state passes ValidateState (the importer's documented promise);
//   - the state survives SerializeState/ParseState in both formats unchanged;
//   - ImportCephPgDump, ImportCephOsdDf and ImportCephDf on the same text
//     return (each reads its own schema); the latter two leave the state
//     unchanged when they fail, and the state with whatever they added
//     survives the state file round trip too;
//   - a few PGs of every pool map to raw/up/acting sets no larger than
//     kMaxPgOsds; up and acting members are NONE or OSDs below max_osd.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crush/codec.h"
#include "crush/map.h"
#include "osdmap/formats/import.h"
#include "osdmap/formats/state_codec.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/testing/cluster_builder.h"

namespace {

namespace osdmap = crushkit::osdmap;
constexpr std::string_view kSeparator = "\n--crush--\n";

const std::string& DefaultCrush() {
  static const std::string* bytes = [] {
    crush_testing::ClusterSpec spec;
    spec.hosts = 4;
    spec.osds_per_host = 4;
    return new std::string(crushkit::crush::EncodeCrushMap(crush_testing::MakeClusterModel(spec)));
  }();
  return *bytes;
}

void CheckOsds(const osdmap::ClusterState& st, const osdmap::OsdList& osds,
               const std::string& what) {
  FUZZ_CHECK(osds.size() >= 0 && osds.size() <= osdmap::kMaxPgOsds, what);
  for (int i = 0; i < osds.size(); ++i) {
    const std::int32_t o = osds[i];
    FUZZ_CHECK(o == crushkit::crush::kItemNone || (o >= 0 && o < st.max_osd()),
               what + ": osd " + std::to_string(o));
  }
}

// Huge retry or replica counts make a DoRule run until its work budget is
// spent; the default (2^26 items, ~1 s natively, ~10 s under coverage
// instrumentation) would make such inputs "slow units", so PGs are mapped
// with a small budget, as in the decode and mapper targets.
constexpr std::uint64_t kWorkBudget = 1 << 16;

void MapSomePgs(const osdmap::ClusterState& st) {
  auto map = crushkit::crush::CrushMap::Build(st.crush);
  if (!map.ok()) return;
  osdmap::CrushPlacement placement(*map, st.ceph_release);
  placement.set_work_budget(kWorkBudget);
  osdmap::PgMapper mapper(st, placement);
  for (const auto& [id, pool] : st.pools) {
    const std::uint32_t n = std::min<std::uint32_t>(pool.pg_num, 4);
    for (std::uint32_t ps = 0; ps < n; ++ps) {
      osdmap::PgMapping m;
      mapper.PgToUpActing(osdmap::PgId{id, ps}, &m);
      const std::string what = "pg " + std::to_string(id) + "." + std::to_string(ps);
      // raw may hold any id an upmap names (Ceph copies pg_upmap verbatim);
      // up and acting keep only existing OSDs (or NONE holes).
      FUZZ_CHECK(m.raw.size() >= 0 && m.raw.size() <= osdmap::kMaxPgOsds, what + " raw");
      CheckOsds(st, m.up, what + " up");
      CheckOsds(st, m.acting, what + " acting");
    }
  }
}

void CheckRoundTrip(const osdmap::ClusterState& st) {
  for (const auto format : {osdmap::StateFormat::kBinary, osdmap::StateFormat::kJson}) {
    auto bytes = osdmap::SerializeState(st, format);
    FUZZ_CHECK(bytes.ok(), "serialize failed: " + bytes.status().ToString());
    auto back = osdmap::ParseState(*bytes);
    FUZZ_CHECK(back.ok(), "parse of our own state file failed: " + back.status().ToString());
    FUZZ_CHECK(*back == st, "state file round trip changed the state");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string json(input);
  std::string crush = DefaultCrush();
  if (const auto sep = input.find(kSeparator); sep != std::string_view::npos) {
    json = std::string(input.substr(0, sep));
    crush = std::string(input.substr(sep + kSeparator.size()));
  }
  // The whole input as a state file: errors about the file's syntax or kind
  // are printable (no raw bytes echoed).
  if (auto parsed = osdmap::ParseState(std::string(input)); !parsed.ok()) {
    const std::string m(parsed.status().message());
    if (m.rfind("state JSON: ", 0) == 0 || m.rfind("neither", 0) == 0 ||
        m.rfind("this is", 0) == 0) {
      for (char c : m) FUZZ_CHECK(c >= 0x20 && c < 0x7f, "raw byte in a ParseState error");
    }
  }
  auto st = osdmap::ImportCephOsdDump(json, crush);
  if (!st.ok()) {
    FUZZ_CHECK(!st.status().message().empty(), "error without a message");
    return 0;
  }
  (void)osdmap::ImportWarnings(*st);
  const absl::Status valid = osdmap::ValidateState(*st);
  FUZZ_CHECK(valid.ok(), "imported state is invalid: " + valid.ToString());
  CheckRoundTrip(*st);
  osdmap::ClusterState with_stats = *st;
  (void)osdmap::ImportCephPgDump(json, &with_stats);
  for (auto* import : {&osdmap::ImportCephOsdDf, &osdmap::ImportCephDf}) {
    const osdmap::ClusterState before = with_stats;
    if (!import(json, &with_stats).ok()) {
      FUZZ_CHECK(with_stats == before, "a failed usage import changed the state");
    }
  }
  CheckRoundTrip(with_stats);
  MapSomePgs(*st);
  return 0;
}
