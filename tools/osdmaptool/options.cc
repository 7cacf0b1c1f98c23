#include "tools/osdmaptool/options.h"

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/common/ceph_args.h"

namespace crushkit::tools::osdmaptool {

const char kUsage[] =
    " usage: [--print] <mapfilename>\n"
    "   --create-from-conf      creates an osd map with default configurations\n"
    "   --createsimple <numosd> [--clobber] [--pg-bits <bitsperosd>] [--pgp-bits <bits>] creates "
    "a relatively generic OSD map with <numosd> devices\n"
    "   --pgp-bits <bits>       pgp_num map attribute will be shifted by <bits>\n"
    "   --pg-bits <bits>        pg_num map attribute will be shifted by <bits>\n"
    "   --clobber               allows osdmaptool to overwrite <mapfilename> if it already "
    "exists\n"
    "   --export-crush <file>   write osdmap's crush map to <file>\n"
    "   --import-crush <file>   replace osdmap's crush map with <file>\n"
    "   --health                dump health checks\n"
    "   --test-map-pgs [--pool <poolid>] [--pg_num <pg_num>] [--range-first <first> "
    "--range-last <last>] map all pgs\n"
    "   --test-map-pgs-dump [--pool <poolid>] [--range-first <first> --range-last <last>] map "
    "all pgs\n"
    "   --test-map-pgs-dump-all [--pool <poolid>] [--range-first <first> --range-last <last>] "
    "map all pgs to osds\n"
    "   --mark-up-in            mark osds up and in (but do not persist)\n"
    "   --mark-out <osdid>      mark an osd as out (but do not persist)\n"
    "   --mark-up <osdid>       mark an osd as up (but do not persist)\n"
    "   --mark-in <osdid>       mark an osd as in (but do not persist)\n"
    "   --with-default-pool     include default pool when creating map\n"
    "   --clear-temp            clear pg_temp and primary_temp\n"
    "   --clean-temps           clean pg_temps\n"
    "   --test-random           do random placements\n"
    "   --test-map-pg <pgid>    map a pgid to osds\n"
    "   --test-map-object <objectname> [--pool <poolid>] map an object to osds\n"
    "   --upmap-cleanup <file>  clean up pg_upmap[_items] entries, writing\n"
    "                           commands to <file> [default: - for stdout]\n"
    "   --upmap <file>          calculate pg upmap entries to balance pg layout\n"
    "                           writing commands to <file> [default: - for stdout]\n"
    "   --upmap-max <max-count> set max upmap entries to calculate [default: 10]\n"
    "   --upmap-deviation <max-deviation>\n"
    "                           max deviation from target [default: 5]\n"
    "   --upmap-pool <poolname> restrict upmap balancing to 1 or more pools\n"
    "   --upmap-active          Act like an active balancer, keep applying changes until "
    "balanced\n"
    "   --dump <format>         displays the map in plain text when <format> is 'plain', 'json' "
    "if specified format is not supported\n"
    "   --tree                  displays a tree of the map\n"
    "   --test-crush [--range-first <first> --range-last <last>] map pgs to acting osds\n"
    "   --adjust-crush-weight <osdid:weight>[,<osdid:weight>,<...>] change <osdid> CRUSH "
    "<weight> (but do not persist)\n"
    "   --save                  write modified osdmap with upmap or crush-adjust changes\n";

std::string UsageFor(crush::CephRelease release) {
  if (release == crush::CephRelease::kPacific) return kUsage;
  std::string u = kUsage;
  u += "   --read <file>           calculate pg upmap entries to balance pg primaries\n"
       "   --read-pool <poolname>  specify which pool the read balancer should adjust\n";
  if (release == crush::CephRelease::kTentacle) {
    u += "   --osd-size-aware        account for devices of different sizes, applicable to read "
         "mode only\n";
  }
  u += "   --vstart                prefix upmap and read output with './bin/'\n";
  return u;
}

namespace {

// Formatter::create() names other than json that --tree would accept.
bool IsOtherCephFormat(const std::string& f) {
  return f == "json-pretty" || f == "xml" || f == "xml-pretty" || f == "table" || f == "table-kv" ||
         f == "html" || f == "html-pretty";
}

// std::stoi (integer_only) or std::stod of an OSD id: a numeric prefix is
// enough. Ceph throws (and aborts) when there is none; that is an error here.
bool ParseOsdId(const std::string& s, bool integer_only, int* id) {
  char* end = nullptr;
  errno = 0;
  if (integer_only) {
    const long v = std::strtol(s.c_str(), &end, 10);
    if (end == s.c_str() || errno != 0 || v < INT_MIN || v > INT_MAX) return false;
    *id = static_cast<int>(v);
    return true;
  }
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !(v > INT_MIN - 1.0 && v < INT_MAX + 1.0)) return false;
  *id = static_cast<int>(v);
  return true;
}

// Pacific's strict_strtoll(str, 10, &err) as --pg_num reports it.
bool PgNumValue(const std::string& s, std::int64_t* v, std::string* err) {
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE) {
    *err = "strict_strtoll: integer underflow or overflow parsing '" + s + "'";
    return false;
  }
  if (end == s.c_str() || *end != '\0') {
    *err = "strict_strtoll: expected integer, got: '" + s + "'";
    return false;
  }
  *v = x;
  return true;
}

// The Ceph config options (parsed by global_init before osdmaptool's loop)
// that change what --createsimple/--create-from-conf build, plus -c; other
// options osdmaptool's cram tests pass (--osd_calc_pg_upmaps_aggressively,
// --debug-*) are accepted and have no effect here.
bool ConfigOption(ArgList& args, MapOptions& map, std::string* err, bool* missing) {
  std::string int_err;
  ArgMatch m = args.WithArg({"-c", "--conf"}, &map.conf_path, err);
  if (m != ArgMatch::kNoMatch) {
    *missing = m == ArgMatch::kMissing;
    return true;
  }
  if (args.WithInt({"--osd_pool_default_size"}, &map.pool_default_size, &int_err) ||
      args.WithInt({"--osd_pool_default_min_size"}, &map.pool_default_min_size, &int_err) ||
      args.WithInt({"--osd_crush_chooseleaf_type"}, &map.chooseleaf_type, &int_err)) {
    if (!int_err.empty()) {
      *err += int_err + "\n";
      *missing = true;
    }
    return true;
  }
  // A boolean config option: `--name` or `--name=value`, never a separate
  // value.
  const std::string name = DashesToUnderscores(args.Current().substr(0, args.Current().find('=')));
  if (name == "--osd_calc_pg_upmaps_aggressively") {
    args.Take();
    return true;
  }
  return false;
}

}  // namespace

ParseResult ParseCommandLine(const std::vector<std::string>& argv) {
  return ParseCommandLine(argv, crush::CephRelease::kPacific);
}

namespace {

// The option loop of Ceph's osdmaptool main() (src/tools/osdmaptool.cc), one
// group of options per member function, tried in Ceph's order: the first
// option that matches the front of the list takes it.
class ArgParser {
 public:
  // What one group did with the front of the list.
  enum class Step {
    kNone,   // not one of this group's options
    kTaken,  // consumed an option (and its value)
    kStop,   // the parse is over; `r_` says how
  };

  ArgParser(const std::vector<std::string>& argv, crush::CephRelease release)
      : reef_(release >= crush::CephRelease::kReef),
        tentacle_(release >= crush::CephRelease::kTentacle),
        args_(argv) {}

  ParseResult Run() {
    while (!args_.AtEnd()) {
      const std::string arg = args_.Current();
      if (args_.DoubleDash()) break;
      Step s = OutputsAndUpmap();
      if (s == Step::kNone) s = CreateAndMark(arg);
      if (s == Step::kNone) s = TestsAndCrush();
      if (s == Step::kStop) return r_;
      if (s == Step::kNone) {
        args_.Next();
        ++skipped_;
      }
      if (missing_value_) return Stop(1, false);
    }
    return Finish();
  }

 private:
  ParseResult Stop(int code, bool usage) {
    r_.stop = true;
    r_.exit_code = code;
    r_.print_usage = usage;
    return r_;
  }

  Step StopStep(int code, bool usage) {
    Stop(code, usage);
    return Step::kStop;
  }

  // The integer options whose errors osdmaptool prints and exits on.
  bool FatalIntError() {
    if (err_buf_.empty()) return false;
    r_.err += err_buf_ + "\n";
    return true;
  }

  // String options Ceph parses without an error stream: a missing value is
  // printed ("Option X requires an argument.") and va_ceph_argparse_witharg
  // _exit(1)s there, before anything else runs (osdmaptool 16.2: rc 1).
  ArgMatch WithString(std::initializer_list<std::string_view> names, std::string* value) {
    const ArgMatch match = args_.WithArg(names, value, &r_.err);
    missing_value_ = match == ArgMatch::kMissing;
    return match;
  }

  bool Matched(std::initializer_list<std::string_view> names, std::string* value) {
    return WithString(names, value) != ArgMatch::kNoMatch;
  }

  // --print, --dump, --tree, the pg bits, --upmap*, --read*.
  Step OutputsAndUpmap() {
    OsdmaptoolOptions& opt = r_.command.actions;
    if (args_.Flag({"-p", "--print"})) {
      r_.command.map.print = true;
    } else if (args_.WithArg({"--dump"}, &val_, &err_buf_) != ArgMatch::kNoMatch) {
      // Formatter::create(val, "", "json"): the formatter of that name, an
      // unknown name being json (DumpOsdMap).
      r_.command.map.print = true;
      r_.command.map.dump_format = val_ == "plain" ? "" : val_;
    } else if (args_.WithArg({"--tree"}, &val_, &err_buf_) != ArgMatch::kNoMatch) {
      // A last `--tree` keeps whatever an earlier option left in `val`; a
      // formatter, once made, stays.
      tree_ = true;
      if (!val_.empty() && val_ != "plain") {
        // Formatter::create(val, "", "json"): a new formatter replaces the
        // last one; an unknown name is compact json.
        opt.tree_json = !IsOtherCephFormat(val_) || val_ == "json-pretty";
        opt.tree_json_pretty = val_ == "json-pretty";
        opt.tree_format = opt.tree_json ? "" : val_;
      }
    } else if (args_.WithInt({"--osd-pg-bits"}, &pg_bits_, &err_buf_) ||
               args_.WithInt({"--osd-pgp-bits"}, &pgp_bits_, &err_buf_)) {
    } else if (Matched({"--upmap-cleanup"}, &upmap_file_)) {
      opt.upmap_cleanup_path = upmap_file_;
    } else if (Matched({"--upmap"}, &upmap_file_)) {
      opt.upmap_cleanup_path = upmap_file_;
      opt.upmap = true;
    } else if (reef_ && Matched({"--read"}, &upmap_file_)) {
      opt.read_path = upmap_file_;
    } else if (args_.WithInt({"--upmap-max"}, &upmap_max_, &err_buf_) ||
               args_.WithInt({"--upmap-deviation"}, &upmap_deviation_, &err_buf_) ||
               args_.WithInt({"--upmap-seed"}, &upmap_seed_, &err_buf_)) {
    } else if (Matched({"--upmap-pool"}, &val_)) {
      opt.upmap_pools.insert(val_);
    } else if (reef_ && Matched({"--read-pool"}, &val_)) {
      opt.read_pool = val_;
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // --createsimple and its flags, --health, the --mark-X options.
  Step CreateAndMark(const std::string& arg) {
    CommandLine& c = r_.command;
    OsdmaptoolOptions& opt = c.actions;
    if (args_.WithInt({"--createsimple"}, &num_osd_, &err_buf_)) {
      if (FatalIntError()) return StopStep(1, false);
      c.map.create_simple = true;
      c.map.num_osd = num_osd_;
    } else if (args_.Flag({"--upmap-active"})) {
      upmap_active_ = true;
    } else if (args_.Flag({"--with-default-pool"})) {
      c.map.with_default_pool = true;
    } else if (args_.Flag({"--create-from-conf"})) {
      c.map.create_from_conf = true;
    } else if (args_.Flag({"--health"})) {
      c.map.health = true;
    } else if (args_.Flag({"--mark-up-in"})) {
      opt.mark_up_in = true;
    } else if (Matched({"--mark-out"}, &val_) || Matched({"--mark-up"}, &val_) ||
               Matched({"--mark-in"}, &val_)) {
      if (missing_value_) return StopStep(1, false);
      const std::string name = DashesToUnderscores(arg.substr(0, arg.find('=')));
      int id = 0;
      if (!ParseOsdId(val_, name == "--mark_out", &id)) {
        r_.err += "osdmaptool: invalid osd id '" + val_ + "' for " + arg + "\n";
        return StopStep(1, false);
      }
      (name == "--mark_out" ? opt.mark_out : name == "--mark_up" ? opt.mark_up : opt.mark_in) = id;
    } else if (args_.Flag({"--clear-temp"})) {
      opt.clear_temp = true;
    } else if (args_.Flag({"--clean-temps"})) {
      opt.clean_temps = true;
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // The --test-X actions, --clobber, crush import/export, the pg and pool
  // selection, --adjust-crush-weight, --save, and global_init's options.
  Step TestsAndCrush() {
    CommandLine& c = r_.command;
    OsdmaptoolOptions& opt = c.actions;
    if (args_.Flag({"--test-map-pgs"})) {
      opt.test_map_pgs = true;
    } else if (args_.Flag({"--test-map-pgs-dump"})) {
      opt.test_map_pgs_dump = true;
    } else if (args_.Flag({"--test-map-pgs-dump-all"})) {
      opt.test_map_pgs_dump_all = true;
    } else if (args_.Flag({"--clobber"})) {
      c.map.clobber = true;
    } else if (args_.Flag({"--test-random"})) {
      opt.test_random = true;
    } else if (args_.WithInt({"--pg_bits"}, &pg_bits_, &err_buf_) ||
               args_.WithInt({"--pgp_bits"}, &pgp_bits_, &err_buf_)) {
      if (FatalIntError()) return StopStep(1, false);
    } else if (Matched({"--export_crush"}, &val_)) {
      opt.export_crush_path = val_;
    } else if (Matched({"--import_crush"}, &val_)) {
      c.import_crush = val_;
    } else if (Matched({"--test_map_pg"}, &val_)) {
      opt.test_map_pg = val_;
    } else if (Matched({"--test_map_object"}, &val_)) {
      opt.test_map_object = val_;
    } else if (args_.Flag({"--test_crush"})) {
      opt.test_crush = true;
    } else {
      return PoolsAndConfig();
    }
    return Step::kTaken;
  }

  Step PoolsAndConfig() {
    CommandLine& c = r_.command;
    OsdmaptoolOptions& opt = c.actions;
    if (args_.WithArg({"--pg_num"}, &val_, &err_buf_) != ArgMatch::kNoMatch) {
      std::string interr;
      if (!PgNumValue(val_, &opt.pg_num, &interr)) {
        r_.err += "error parsing integer value " + interr + "\n";
        return StopStep(1, false);
      }
    } else if (args_.WithInt({"--range_first"}, &c.range_first, &err_buf_) ||
               args_.WithInt({"--range_last"}, &c.range_last, &err_buf_)) {
    } else if (args_.WithInt({"--pool"}, &pool_, &err_buf_)) {
      opt.pool = pool_;  // Ceph's `int pool`
      if (FatalIntError()) return StopStep(1, false);
    } else if (args_.WithArg({"--adjust-crush-weight"}, &val_, &err_buf_) != ArgMatch::kNoMatch) {
      opt.adjust_crush_weight = val_;
    } else if (args_.Flag({"--save"})) {
      opt.save = true;
    } else if (reef_ && args_.Flag({"--vstart"})) {
      opt.vstart = true;
    } else if (tentacle_ && args_.Flag({"--osd-size-aware"})) {
      opt.osd_size_aware = true;
    } else if (ConfigOption(args_, c.map, &r_.err, &missing_value_)) {
      // global_init's config flags (-c, --osd_pool_default_size, ...).
    } else {
      return Step::kNone;
    }
    return Step::kTaken;
  }

  // The values the loop collected, then osdmaptool's checks after it.
  ParseResult Finish() {
    CommandLine& c = r_.command;
    OsdmaptoolOptions& opt = c.actions;
    opt.tree = tree_;
    c.positional = args_.args();
    c.map.pg_bits = pg_bits_;
    c.map.pgp_bits = pgp_bits_;
    opt.upmap_max = upmap_max_;
    opt.upmap_deviation = upmap_deviation_;
    opt.upmap_seed = static_cast<std::uint64_t>(static_cast<std::uint32_t>(upmap_seed_));
    opt.upmap_active = upmap_active_;
    // --upmap-cleanup, --upmap and --read share one file name: the last given.
    if (opt.upmap_cleanup_path) opt.upmap_cleanup_path = upmap_file_;
    if (opt.read_path) opt.read_path = upmap_file_;

    for (std::size_t i = 0; i < skipped_; ++i) {
      const std::string& p = c.positional[i];
      if (p.size() > 1 && p[0] == '-') {
        r_.err += "crushkit osdmaptool: unrecognized option '" + p + "'\n";
        return Stop(1, false);
      }
    }
    if (c.positional.empty()) {
      r_.err += "osdmaptool: must specify osdmap filename\n";
      return Stop(1, true);
    }
    if (c.positional.size() > 1) {
      r_.err += "osdmaptool: too many arguments\n";
      return Stop(1, true);
    }
    if (upmap_deviation_ < 1) {
      r_.err += "osdmaptool: upmap-deviation must be >= 1\n";
      return Stop(1, true);
    }
    if (!opt.read_path && opt.osd_size_aware) {
      r_.err += "osdmaptool: osd-size-aware is only applicable to read mode\n";
      return Stop(1, true);
    }
    return r_;
  }

  const bool reef_;
  const bool tentacle_;
  ParseResult r_;
  ArgList args_;
  std::string val_;      // Ceph's one `val` for string options
  std::string err_buf_;  // Ceph's `err` stream
  std::string upmap_file_ = "-";
  int pg_bits_ = 6;
  int num_osd_ = 0;
  int pool_ = -1;
  int pgp_bits_ = 6;
  int upmap_max_ = 10;
  int upmap_deviation_ = 5;
  int upmap_seed_ = 0;
  bool upmap_active_ = false;
  bool tree_ = false;
  bool missing_value_ = false;
  std::size_t skipped_ = 0;  // arguments left in the list before any "--"
};

}  // namespace

ParseResult ParseCommandLine(const std::vector<std::string>& argv, crush::CephRelease release) {
  for (const std::string& a : argv) {
    if (a == "-h" || a == "--help" || a == "--usage") {
      ParseResult r;
      r.stop = true;
      r.exit_code = 1;
      r.print_usage = true;
      return r;
    }
  }
  return ArgParser(argv, release).Run();
}

}  // namespace crushkit::tools::osdmaptool
