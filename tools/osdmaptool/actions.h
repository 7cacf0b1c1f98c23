// The actions of Ceph 16.2 `osdmaptool` on a crushkit ClusterState: the same
// actions, in the same order, with byte-identical standard output
// (src/tools/osdmaptool.cc). tools/osdmaptool/options.h parses Ceph's flag
// syntax into OsdmaptoolOptions; tools/osdmaptool/osdmaptool.h reads and
// writes the files and prints the result.
//
// Supported: --mark-up-in, --mark-out, --mark-up, --mark-in (with Pacific's
// bug: it marks the --mark-up id in), --adjust-crush-weight, --clear-temp,
// --clean-temps (its line only: 16.2 discards the result), --import-crush,
// --export-crush, --test-map-object, --test-map-pg,
// --test-map-pgs[-dump[-all]] with --pool, --pg_num and --test-random,
// --tree (plain, json, json-pretty, xml, xml-pretty, html, html-pretty,
// table, table-kv), --upmap-cleanup
// (osdmap/changes/upmap_cleanup.h), --upmap with --upmap-max, --upmap-deviation,
// --upmap-pool and --upmap-seed (osdmap/balancer/upmap_balancer.h: crushkit's
// deterministic balancer, not Ceph's calc_pg_upmaps, so the commands
// differ; the stdout lines are osdmaptool's), --save, and --print through
// the front's `print` hook (the front owns the binary map; it also creates
// maps: --createsimple, --create-from-conf).
// --health and --print/--dump go through the front's hooks (they need
// the binary map); --test-crush streams through `stream_out`.
// Thread-compatible: RunOsdmaptoolActions mutates the state it is given.
#ifndef CRUSHKIT_TOOLS_OSDMAPTOOL_ACTIONS_H_
#define CRUSHKIT_TOOLS_OSDMAPTOOL_ACTIONS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "crush/ceph_release.h"
#include "osdmap/model/cluster_state.h"

namespace crushkit::tools::osdmaptool {

struct OsdmaptoolOptions {
  std::string me = "osdmaptool";  // argv[0] as Ceph prints it
  std::string state_path;         // the map file name, for messages
  bool mark_up_in = false;
  int mark_out = -1;
  int mark_up = -1;
  int mark_in = -1;
  std::string adjust_crush_weight;  // "id:w[,id:w...]"
  bool save = false;
  bool clear_temp = false;
  bool clean_temps = false;  // --clean-temps: prints its line, changes nothing (as 16.2)
  // --upmap-cleanup FILE: "-" appends the commands to stdout, anything else
  // is written (possibly empty) through write_file, as osdmaptool truncates
  // it before cleaning.
  std::optional<std::string> upmap_cleanup_path;
  // --upmap FILE (also sets upmap_cleanup_path, as Ceph shares the file):
  // after the cleanup, balance with these settings; the commands go where
  // the cleanup's go. --upmap-pool takes pool names (Ceph's set<string>).
  bool upmap = false;
  int upmap_max = 10;
  int upmap_deviation = 5;
  std::uint64_t upmap_seed = 0;
  bool upmap_active = false;  // rounds until one finds nothing, each applied
  std::set<std::string> upmap_pools;
  // --read FILE --read-pool NAME (Reef and later): the read balancer
  // (osdmap/balancer/read_balancer.h) on one replicated pool, after the cleanup and
  // before --upmap; its `ceph osd pg-upmap-primary` commands go to FILE,
  // which --read shares with --upmap and --upmap-cleanup (the last of the
  // three names it; "-" is stdout). The map is not changed.
  std::optional<std::string> read_path;
  std::string read_pool;
  bool osd_size_aware = false;  // --osd-size-aware (Tentacle): not supported
  bool vstart = false;          // --vstart: every command line starts with ./bin/
  // --import-crush: the file name (for messages) and its bytes.
  std::optional<std::string> import_crush_path;
  std::string import_crush_bytes;
  std::optional<std::string> export_crush_path;
  // The release whose crush encoding --export-crush writes (Reef and later
  // re-encode the map they decoded: crush::EncodeCrushMapAs); unset or
  // Pacific: osdmap::EncodeCrush(state), as 16.2 writes them.
  std::optional<crush::CephRelease> export_crush_as;
  std::string test_map_object;
  std::string test_map_pg;
  bool test_map_pgs = false;
  bool test_map_pgs_dump = false;
  bool test_map_pgs_dump_all = false;
  bool test_random = false;  // --test-random: random OSDs instead of CRUSH
  std::int64_t pool = -1;
  std::int64_t pg_num = -1;
  // --tree: printed last, after every other action. tree_json selects
  // `--tree json` (any format name but "plain"/"" that Ceph maps to JSON);
  // tree_format, when set, is one of Formatter::create's other names (xml,
  // xml-pretty, html, html-pretty, table, table-kv) and wins over tree_json.
  bool tree = false;
  bool tree_json = false;
  bool tree_json_pretty = false;  // `--tree json-pretty`
  std::string tree_format;
  // --print/--dump: renders the map as osdmaptool prints it, called after
  // every other action and the final epoch bump, before --tree (the front
  // owns the binary map). `modified` says whether the state will be written.
  std::function<absl::StatusOr<std::string>(const osdmap::ClusterState& state, bool modified)>
      print;
  // --health: renders OSDMap::check_health's JSON for the in-memory map,
  // after the final epoch bump and before --print (the front owns the
  // binary map).
  std::function<absl::StatusOr<std::string>(const osdmap::ClusterState& state)> health;
  // --test-crush: osdmaptool's endless self-check (every PG's acting set
  // mapped 100 times per pass, one line per attempt, pass after pass). Its
  // output is streamed through `stream_out`, which returns false once
  // stdout is gone; the run then ends with exit code 1 (Ceph dies of
  // SIGPIPE there, as crushkit does unless SIGPIPE is ignored).
  bool test_crush = false;
  std::function<bool(const std::string& text)> stream_out;
  // The front created the map (--createsimple/--create-from-conf): an
  // action in itself, and the state is written back.
  bool created = false;
  // Output files (--export-crush, and --upmap[-cleanup] FILE other than
  // "-"); both required when one is named. check_output returns the errno
  // with which osdmaptool's open(2) of `path` for writing would fail, or 0,
  // leaving no file behind (the front: tools::ProbeOutputFile). write_file
  // writes `bytes` atomically as Ceph's bufferlist::write_file() would:
  // 0 or the errno, with bufferlist's failure lines in *log (the front:
  // tools::CephWriteFile).
  std::function<int(const std::string& path)> check_output;
  std::function<int(const std::string& path, std::string_view bytes, std::string* log)> write_file;
};

struct OsdmaptoolResult {
  std::string out;  // standard output
  std::string err;  // standard error (after the "osdmap file" banner)
  int exit_code = 0;
  bool print_usage = false;  // the front appends the usage text to `out`
  // The state changed in a way osdmaptool would write back (import-crush,
  // --save); state.epoch already holds the epoch to write.
  bool modified = false;
  // Mappings whose result is crushkit's answer where Ceph's is undefined
  // (CrushPlacement::DivergedFromCeph): the front says so on stderr, last.
  std::uint64_t diverged_from_ceph = 0;
};

// Runs the actions of `options` on `state` (which it may modify).
OsdmaptoolResult RunOsdmaptoolActions(osdmap::ClusterState& state,
                                      const OsdmaptoolOptions& options);

}  // namespace crushkit::tools::osdmaptool

#endif  // CRUSHKIT_TOOLS_OSDMAPTOOL_ACTIONS_H_
