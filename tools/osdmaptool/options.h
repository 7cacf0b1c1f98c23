// osdmaptool 16.2's command line (src/tools/osdmaptool.cc main): the option
// loop in Ceph's order on the shared Ceph argument parser
// (tools/common/ceph_args.h), with its quirks kept: string options share one
// value, so a trailing `--tree` reuses what an earlier option left; integer
// options append their errors to one buffer that only --createsimple,
// --pg-bits, --pgp-bits and --pool print; unknown arguments stay in the list
// and end as "too many arguments".
// Thread-safety: plain values; no shared state.
#ifndef CRUSHKIT_TOOLS_OSDMAPTOOL_OPTIONS_H_
#define CRUSHKIT_TOOLS_OSDMAPTOOL_OPTIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "crush/ceph_release.h"
#include "tools/osdmaptool/actions.h"

namespace crushkit::tools::osdmaptool {

// What creates or prints the binary map (the front's job, not the actions').
struct MapOptions {
  bool create_simple = false;  // --createsimple N
  int num_osd = 0;
  bool create_from_conf = false;  // --create-from-conf (with -c/--conf)
  std::string conf_path;          // -c/--conf
  bool clobber = false;
  bool with_default_pool = false;
  int pg_bits = 6;  // --pg-bits/--osd-pg-bits
  int pgp_bits = 6;
  // Ceph config options osdmaptool takes as flags when creating.
  int pool_default_size = 3;      // --osd_pool_default_size
  int pool_default_min_size = 0;  // --osd_pool_default_min_size
  int chooseleaf_type = 1;        // --osd_crush_chooseleaf_type
  bool print = false;             // --print, or --dump
  std::string dump_format;        // --dump FORMAT other than plain ("" = plain)
  bool health = false;            // --health
};

struct CommandLine {
  OsdmaptoolOptions actions;
  MapOptions map;
  // What the option loop left: the map file name, and anything unrecognised.
  std::vector<std::string> positional;
  std::optional<std::string> import_crush;
  int range_first = -1;
  int range_last = -1;
};

struct ParseResult {
  CommandLine command;
  std::string err;  // what Ceph prints on stderr while parsing
  // Parsing ended the run: exit with exit_code (after the usage text on
  // stdout when print_usage).
  bool stop = false;
  int exit_code = 0;
  bool print_usage = false;
};

// Parses argv (without the program name) as osdmaptool 16.2 does.
ParseResult ParseCommandLine(const std::vector<std::string>& argv);

// Parses argv as `release`'s osdmaptool: Reef and later also know --read,
// --read-pool and --vstart, Tentacle --osd-size-aware (with its check that
// it comes with --read).
ParseResult ParseCommandLine(const std::vector<std::string>& argv, crush::CephRelease release);

// osdmaptool 16.2's usage text (stdout).
extern const char kUsage[];

// The usage text of `release`'s osdmaptool: 16.2's, plus the read
// balancer's options (Reef), plus --osd-size-aware (Tentacle).
std::string UsageFor(crush::CephRelease release);

}  // namespace crushkit::tools::osdmaptool

#endif  // CRUSHKIT_TOOLS_OSDMAPTOOL_OPTIONS_H_
