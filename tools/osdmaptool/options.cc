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

ParseResult ParseCommandLine(const std::vector<std::string>& argv, crush::CephRelease release) {
  const bool reef = release >= crush::CephRelease::kReef;
  const bool tentacle = release >= crush::CephRelease::kTentacle;
  ParseResult r;
  CommandLine& c = r.command;
  OsdmaptoolOptions& opt = c.actions;
  auto stop = [&r](int code, bool usage) {
    r.stop = true;
    r.exit_code = code;
    r.print_usage = usage;
    return r;
  };
  for (const std::string& a : argv) {
    if (a == "-h" || a == "--help" || a == "--usage") return stop(1, true);
  }

  ArgList args(argv);
  std::string val;      // Ceph's one `val` for string options
  std::string err_buf;  // Ceph's `err` stream
  std::string upmap_file = "-";
  int pg_bits = 6;
  int pgp_bits = 6;
  int num_osd = 0;
  int upmap_max = 10;
  int upmap_deviation = 5;
  int upmap_seed = 0;
  bool upmap_active = false;
  int pool = -1;
  bool tree = false;
  std::size_t skipped = 0;  // arguments left in the list before any "--"
  // The integer options whose errors osdmaptool prints and exits on.
  auto fatal_int_error = [&]() {
    if (err_buf.empty()) return false;
    r.err += err_buf + "\n";
    return true;
  };
  // String options Ceph parses without an error stream: a missing value is
  // printed ("Option X requires an argument.") and va_ceph_argparse_witharg
  // _exit(1)s there, before anything else runs (osdmaptool 16.2: rc 1).
  bool missing_value = false;
  auto with_string = [&](std::initializer_list<std::string_view> names, std::string* value) {
    const ArgMatch match = args.WithArg(names, value, &r.err);
    missing_value = match == ArgMatch::kMissing;
    return match;
  };

  while (!args.AtEnd()) {
    const std::string arg = args.Current();
    ArgMatch m = ArgMatch::kNoMatch;
    if (args.DoubleDash()) break;
    if (args.Flag({"-p", "--print"})) {
      c.map.print = true;
    } else if (args.WithArg({"--dump"}, &val, &err_buf) != ArgMatch::kNoMatch) {
      // Formatter::create(val, "", "json"): the formatter of that name, an
      // unknown name being json (DumpOsdMap).
      c.map.print = true;
      c.map.dump_format = val == "plain" ? "" : val;
    } else if (args.WithArg({"--tree"}, &val, &err_buf) != ArgMatch::kNoMatch) {
      // A last `--tree` keeps whatever an earlier option left in `val`; a
      // formatter, once made, stays.
      tree = true;
      if (!val.empty() && val != "plain") {
        // Formatter::create(val, "", "json"): a new formatter replaces the
        // last one; an unknown name is compact json.
        opt.tree_json = !IsOtherCephFormat(val) || val == "json-pretty";
        opt.tree_json_pretty = val == "json-pretty";
        opt.tree_format = opt.tree_json ? "" : val;
      }
    } else if (args.WithInt({"--osd-pg-bits"}, &pg_bits, &err_buf) ||
               args.WithInt({"--osd-pgp-bits"}, &pgp_bits, &err_buf)) {
    } else if (with_string({"--upmap-cleanup"}, &upmap_file) != ArgMatch::kNoMatch) {
      opt.upmap_cleanup_path = upmap_file;
    } else if (with_string({"--upmap"}, &upmap_file) != ArgMatch::kNoMatch) {
      opt.upmap_cleanup_path = upmap_file;
      opt.upmap = true;
    } else if (reef && with_string({"--read"}, &upmap_file) != ArgMatch::kNoMatch) {
      opt.read_path = upmap_file;
    } else if (args.WithInt({"--upmap-max"}, &upmap_max, &err_buf) ||
               args.WithInt({"--upmap-deviation"}, &upmap_deviation, &err_buf) ||
               args.WithInt({"--upmap-seed"}, &upmap_seed, &err_buf)) {
    } else if (with_string({"--upmap-pool"}, &val) != ArgMatch::kNoMatch) {
      opt.upmap_pools.insert(val);
    } else if (reef && with_string({"--read-pool"}, &val) != ArgMatch::kNoMatch) {
      opt.read_pool = val;
    } else if (args.WithInt({"--createsimple"}, &num_osd, &err_buf)) {
      if (fatal_int_error()) return stop(1, false);
      c.map.create_simple = true;
      c.map.num_osd = num_osd;
    } else if (args.Flag({"--upmap-active"})) {
      upmap_active = true;
    } else if (args.Flag({"--with-default-pool"})) {
      c.map.with_default_pool = true;
    } else if (args.Flag({"--create-from-conf"})) {
      c.map.create_from_conf = true;
    } else if (args.Flag({"--health"})) {
      c.map.health = true;
    } else if (args.Flag({"--mark-up-in"})) {
      opt.mark_up_in = true;
    } else if ((m = with_string({"--mark-out"}, &val)) != ArgMatch::kNoMatch ||
               (m = with_string({"--mark-up"}, &val)) != ArgMatch::kNoMatch ||
               (m = with_string({"--mark-in"}, &val)) != ArgMatch::kNoMatch) {
      if (missing_value) return stop(1, false);
      const std::string name = DashesToUnderscores(arg.substr(0, arg.find('=')));
      int id = 0;
      if (!ParseOsdId(val, name == "--mark_out", &id)) {
        r.err += "osdmaptool: invalid osd id '" + val + "' for " + arg + "\n";
        return stop(1, false);
      }
      (name == "--mark_out" ? opt.mark_out : name == "--mark_up" ? opt.mark_up : opt.mark_in) = id;
    } else if (args.Flag({"--clear-temp"})) {
      opt.clear_temp = true;
    } else if (args.Flag({"--clean-temps"})) {
      opt.clean_temps = true;
    } else if (args.Flag({"--test-map-pgs"})) {
      opt.test_map_pgs = true;
    } else if (args.Flag({"--test-map-pgs-dump"})) {
      opt.test_map_pgs_dump = true;
    } else if (args.Flag({"--test-map-pgs-dump-all"})) {
      opt.test_map_pgs_dump_all = true;
    } else if (args.Flag({"--clobber"})) {
      c.map.clobber = true;
    } else if (args.Flag({"--test-random"})) {
      opt.test_random = true;
    } else if (args.WithInt({"--pg_bits"}, &pg_bits, &err_buf) ||
               args.WithInt({"--pgp_bits"}, &pgp_bits, &err_buf)) {
      if (fatal_int_error()) return stop(1, false);
    } else if (with_string({"--export_crush"}, &val) != ArgMatch::kNoMatch) {
      opt.export_crush_path = val;
    } else if (with_string({"--import_crush"}, &val) != ArgMatch::kNoMatch) {
      c.import_crush = val;
    } else if (with_string({"--test_map_pg"}, &val) != ArgMatch::kNoMatch) {
      opt.test_map_pg = val;
    } else if (with_string({"--test_map_object"}, &val) != ArgMatch::kNoMatch) {
      opt.test_map_object = val;
    } else if (args.Flag({"--test_crush"})) {
      opt.test_crush = true;
    } else if (args.WithArg({"--pg_num"}, &val, &err_buf) != ArgMatch::kNoMatch) {
      std::string interr;
      if (!PgNumValue(val, &opt.pg_num, &interr)) {
        r.err += "error parsing integer value " + interr + "\n";
        return stop(1, false);
      }
    } else if (args.WithInt({"--range_first"}, &c.range_first, &err_buf) ||
               args.WithInt({"--range_last"}, &c.range_last, &err_buf)) {
    } else if (args.WithInt({"--pool"}, &pool, &err_buf)) {
      opt.pool = pool;  // Ceph's `int pool`
      if (fatal_int_error()) return stop(1, false);
    } else if (args.WithArg({"--adjust-crush-weight"}, &val, &err_buf) != ArgMatch::kNoMatch) {
      opt.adjust_crush_weight = val;
    } else if (args.Flag({"--save"})) {
      opt.save = true;
    } else if (reef && args.Flag({"--vstart"})) {
      opt.vstart = true;
    } else if (tentacle && args.Flag({"--osd-size-aware"})) {
      opt.osd_size_aware = true;
    } else if (ConfigOption(args, c.map, &r.err, &missing_value)) {
      // global_init's config flags (-c, --osd_pool_default_size, ...).
    } else {
      args.Next();
      ++skipped;
    }
    if (missing_value) return stop(1, false);
  }
  opt.tree = tree;
  c.positional = args.args();
  c.map.pg_bits = pg_bits;
  c.map.pgp_bits = pgp_bits;
  opt.upmap_max = upmap_max;
  opt.upmap_deviation = upmap_deviation;
  opt.upmap_seed = static_cast<std::uint64_t>(static_cast<std::uint32_t>(upmap_seed));
  opt.upmap_active = upmap_active;
  // --upmap-cleanup, --upmap and --read share one file name: the last given.
  if (opt.upmap_cleanup_path) opt.upmap_cleanup_path = upmap_file;
  if (opt.read_path) opt.read_path = upmap_file;

  for (std::size_t i = 0; i < skipped; ++i) {
    const std::string& p = c.positional[i];
    if (p.size() > 1 && p[0] == '-') {
      r.err += "crushkit osdmaptool: unrecognized option '" + p + "'\n";
      return stop(1, false);
    }
  }
  if (c.positional.empty()) {
    r.err += "osdmaptool: must specify osdmap filename\n";
    return stop(1, true);
  }
  if (c.positional.size() > 1) {
    r.err += "osdmaptool: too many arguments\n";
    return stop(1, true);
  }
  if (upmap_deviation < 1) {
    r.err += "osdmaptool: upmap-deviation must be >= 1\n";
    return stop(1, true);
  }
  if (!opt.read_path && opt.osd_size_aware) {
    r.err += "osdmaptool: osd-size-aware is only applicable to read mode\n";
    return stop(1, true);
  }
  return r;
}

}  // namespace crushkit::tools::osdmaptool
