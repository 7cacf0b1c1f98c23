// The command line of Pacific 16.2 `crushtool`, parsed exactly as its main()
// does (src/tools/crushtool.cc): the same option table, the same shared error
// buffer (some options report a bad value only when a later option checks
// it), the same messages, and the same post-parse checks (the "no output
// selected" warning, "no action specified", "unrecognized arguments").
// Thread-safety: pure function.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_OPTIONS_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "crush/ceph_release.h"

namespace crushkit::tools::crushtool {

// --test parameters (CrushTester's setters). -1 means "not given".
struct TestOptions {
  int min_x = -1;
  int max_x = -1;
  int min_rule = -1;
  int max_rule = -1;
  int ruleset = -1;
  int min_rep = -1;  // --num-rep sets both; --min-rep/--max-rep (Quincy) too
  int max_rep = -1;
  // Pacific tests a rule's min_size..max_size when no --num-rep is given;
  // Quincy and later require --num-rep or both --min-rep and --max-rep.
  bool rule_sizes_default = true;
  std::int64_t pool_id = -1;
  int batches = 1;
  bool output_utilization = false;
  bool output_utilization_all = false;
  bool output_statistics = false;
  bool output_mappings = false;
  bool output_bad_mappings = false;
  bool output_choose_tries = false;
  bool output_csv = false;
  std::string output_name;  // --output-name N: "N-", the CSV files' prefix
  bool simulate = false;
  float mark_down_device_ratio = 0;
  float mark_down_bucket_ratio = 1;
  // --weight DEV W, already converted as CrushTester::set_device_weight().
  std::map<int, std::uint32_t> device_weight;
};

struct BuildLayer {
  std::string name;
  std::string bucket_type;
  int size = 0;
};

struct CrushtoolOptions {
  std::string infn, srcfn, outfn;
  bool compile = false;
  bool decompile = false;
  bool build = false;
  int num_osds = 0;
  std::vector<BuildLayer> layers;
  bool test = false;
  bool display = false;
  int verbose = 0;

  // Tunables stage; -1 = unchanged (Ceph ignores negative values).
  int choose_local_tries = -1;
  int choose_local_fallback_tries = -1;
  int choose_total_tries = -1;
  int chooseleaf_descend_once = -1;
  int chooseleaf_vary_r = -1;
  int chooseleaf_stable = -1;
  int straw_calc_version = -1;
  int allowed_bucket_algs = -1;
  bool adjust = false;

  // Modifications stage (crush/edit/edit.h), run in this order after tunables.
  std::string reweight_name;  // --reweight-item NAME W
  float reweight_weight = 0;
  std::string remove_name;  // --remove-item NAME
  int add_item = -1;        // --add-item / --update-item ID W NAME
  bool update_item = false;
  float add_weight = 0;
  std::string add_name;                        // also --add-bucket's NAME
  std::map<std::string, std::string> add_loc;  // --loc TYPE NAME (repeatable)
  bool add_bucket = false;                     // --add-bucket NAME TYPE
  std::string add_type;
  bool move_item = false;  // --move NAME
  std::string move_name;
  bool reweight = false;  // --reweight
  // --create-simple-rule NAME ROOT TYPE MODE / --create-replicated-rule NAME
  // ROOT TYPE [--device-class C]; --remove-rule NAME.
  bool add_rule = false;
  bool del_rule = false;
  std::string rule_name, rule_root, rule_type, rule_mode, rule_device_class;
  bool rebuild_class_roots = false;
  std::map<std::string, std::string> set_subtree_class;  // bucket -> class
  bool reclassify = false;
  std::map<std::string, std::string> reclassify_root;  // bucket -> class
  // --reclassify-bucket MATCH CLASS DEFAULT_PARENT: match -> (class, parent)
  std::map<std::string, std::pair<std::string, std::string>> reclassify_bucket;

  // Display stage, in crushtool's order after the modifications.
  int full_location = -1;    // --show-location ID
  bool tree = false;         // --tree
  bool bucket_tree = false;  // --bucket-tree (with --bucket-name)
  std::string bucket_name;
  bool dump = false;  // --dump (with -f/--format)
  std::string dump_format;
  bool check = false;  // --check [MAX_ID]
  int max_id = -1;
  std::string compare;  // --compare OTHER

  TestOptions tester;
};

// The outcome of parsing: either options to run, or an immediate exit with
// the texts Ceph would have printed.
struct ParseOutcome {
  bool exit_now = false;
  int exit_code = 0;
  std::string out;  // stdout text printed so far
  std::string err;  // stderr text printed so far
  CrushtoolOptions options;
};

// Parses crushtool's arguments (excluding argv[0]) as `release`'s crushtool
// does (Pacific has --ruleset; Quincy and later have --min-rep/--max-rep
// instead). `me` is argv[0] as Ceph prints it in messages ("crushtool").
ParseOutcome ParseCrushtoolArgs(std::vector<std::string> args, const std::string& me,
                                crush::CephRelease release);

// CrushTester::set_device_weight(): (int)(w * 0x10000) computed in float,
// clamped to [0, 0x10000]. Values whose product does not fit an int convert
// to INT_MIN as the x86-64 cvttss2si instruction does, hence to 0.
std::uint32_t DeviceWeightFromFloat(float w);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_OPTIONS_H_
