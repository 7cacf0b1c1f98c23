// `crushkit osdmaptool STATE [flags]`: Ceph osdmaptool's flag syntax on a
// crushkit state file, with byte-identical standard output for the
// supported actions (see osdmap/osdmaptool.h). Parsing follows
// ceph_argparse: '-' and '_' are interchangeable in option names, values
// come as "--opt value" or "--opt=value", the map file may appear anywhere.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "osdmap/osdmaptool.h"
#include "osdmap/state_codec.h"
#include "tools/common/file_io.h"
#include "tools/crushkit/commands.h"

namespace crushkit::tools {
namespace {

constexpr char kUsage[] =
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

constexpr char kCrushkitNote[] =
    "\ncrushkit: <mapfilename> is a crushkit state file (`crushkit import`), not Ceph's binary\n"
    "osdmap, which crushkit does not decode yet. Supported here: --mark-up-in, --mark-out,\n"
    "--mark-up, --mark-in, --adjust-crush-weight, --clear-temp, --import-crush, --export-crush,\n"
    "--test-map-object, --test-map-pg, --test-map-pgs[-dump[-all]], --pool, --pg_num,\n"
    "--tree [plain|json], --upmap-cleanup, --save. Not supported: --print and --dump (a state\n"
    "file does not keep the fsid, timestamps, flags and pool details they print),\n"
    "--createsimple, --create-from-conf, --upmap (the balancer) and its --upmap-* options,\n"
    "--read, --health, --clean-temps, --test-random, --test-crush.\n";

// Formatter::create() names other than json that --tree would accept.
bool IsOtherCephFormat(const std::string& f) {
  return f == "json-pretty" || f == "xml" || f == "xml-pretty" || f == "table" ||
         f == "table-kv" || f == "html" || f == "html-pretty";
}

// Ceph option-name equality: '-' and '_' are interchangeable.
bool SameOpt(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] == '_' ? '-' : a[i];
    char y = b[i] == '_' ? '-' : b[i];
    if (x != y) return false;
  }
  return true;
}

class Args {
 public:
  explicit Args(const std::vector<std::string>& a) : a_(a) {}
  bool done() const { return i_ >= a_.size(); }
  const std::string& cur() const { return a_[i_]; }

  bool Flag(const char* name) {
    if (SameOpt(cur(), name)) {
      ++i_;
      return true;
    }
    return false;
  }
  // 0: no match; 1: value in *val; -1: missing value (message printed).
  int WithArg(const char* name, std::string* val) {
    const std::string& s = cur();
    const std::size_t n = std::strlen(name);
    if (s.size() > n && s[n] == '=' && SameOpt(s.substr(0, n), name)) {
      *val = s.substr(n + 1);
      ++i_;
      return 1;
    }
    if (!SameOpt(s, name)) return 0;
    if (i_ + 1 >= a_.size()) {
      std::cerr << "Option " << name << " requires an argument.\n\n";
      return -1;
    }
    *val = a_[i_ + 1];
    i_ += 2;
    return 1;
  }
  void Skip() { ++i_; }

 private:
  const std::vector<std::string>& a_;
  std::size_t i_ = 0;
};

// strict_strtol semantics: the whole string must be a base-10 integer.
std::optional<long long> StrictInt(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return v;
}

int Usage() {
  std::cout << kUsage;
  return 1;
}

}  // namespace

int RunOsdmaptool(const std::vector<std::string>& argv) {
  const std::string me = "osdmaptool";
  if (argv.empty()) {
    std::cerr << me << ": -h or --help for usage\n";
    return 1;
  }
  for (const auto& a : argv) {
    if (a == "-h" || a == "--help" || a == "--usage") {
      std::cout << kUsage << kCrushkitNote;
      return 1;
    }
  }
  osdmap::OsdmaptoolOptions opt;
  std::vector<std::string> files;
  std::optional<std::string> import_crush;
  long long range_first = -1;
  long long range_last = -1;
  Args args(argv);
  std::string val;
  // Ceph's osdmaptool parses every string option into one `val`; a trailing
  // `--tree` without a format keeps whatever an earlier option left there.
  std::string ceph_val;
  bool tree = false;
  static const char* const kUnsupportedFlags[] = {
      "--print", "-p", "--health", "--with-default-pool", "--create-from-conf", "--clobber",
      "--clean-temps", "--test-random", "--test-crush", "--upmap-active", "--vstart",
      "--osd-size-aware"};
  static const char* const kUnsupportedWithArg[] = {
      "--dump", "--createsimple", "--upmap", "--upmap-max",
      "--upmap-deviation", "--upmap-pool", "--upmap-seed", "--read", "--read-pool",
      "--pg-bits", "--pgp-bits", "--osd-pg-bits", "--osd-pgp-bits"};
  while (!args.done()) {
    int r = 0;
    const std::string arg = args.cur();
    if (arg == "--") {
      args.Skip();
      while (!args.done()) {
        files.push_back(args.cur());
        args.Skip();
      }
      break;
    }
    if (SameOpt(arg, "--tree") || (arg.size() > 6 && arg[6] == '=' &&
                                     SameOpt(arg.substr(0, 6), "--tree"))) {
      // ceph_argparse_witharg: "--tree=F", "--tree F" (the next argument,
      // whatever it is), or a last "--tree" that leaves `val` unchanged.
      args.Skip();
      if (arg.size() > 6) {
        ceph_val = arg.substr(7);
      } else if (!args.done()) {
        ceph_val = args.cur();
        args.Skip();
      }
      tree = true;
      // A formatter, once made, stays: a later "--tree plain" does not reset it.
      opt.tree_json = opt.tree_json || (!ceph_val.empty() && ceph_val != "plain");
      if (IsOtherCephFormat(ceph_val)) {
        std::cerr << "crushkit osdmaptool: --tree " << ceph_val
                  << " is not supported (plain and json are)\n";
        return 1;
      }
      continue;
    }
    if (args.Flag("--mark-up-in")) {
      opt.mark_up_in = true;
    } else if (args.Flag("--clear-temp")) {
      opt.clear_temp = true;
    } else if (args.Flag("--test-map-pgs")) {
      opt.test_map_pgs = true;
    } else if (args.Flag("--test-map-pgs-dump")) {
      opt.test_map_pgs_dump = true;
    } else if (args.Flag("--test-map-pgs-dump-all")) {
      opt.test_map_pgs_dump_all = true;
    } else if (args.Flag("--save")) {
      opt.save = true;
    } else if ((r = args.WithArg("--mark-out", &val)) != 0 ||
               (r = args.WithArg("--mark-up", &val)) != 0 ||
               (r = args.WithArg("--mark-in", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      // std::stoi / std::stod: a numeric prefix is enough; none is fatal.
      char* end = nullptr;
      const double v = std::strtod(val.c_str(), &end);
      if (end == val.c_str()) {
        std::cerr << me << ": invalid osd id '" << val << "' for " << arg << "\n";
        return 1;
      }
      const int id = static_cast<int>(v);
      if (SameOpt(arg.substr(0, 10), "--mark-out")) {
        opt.mark_out = id;
      } else if (SameOpt(arg.substr(0, 9), "--mark-in")) {
        opt.mark_in = id;
      } else {
        opt.mark_up = id;
      }
    } else if ((r = args.WithArg("--import-crush", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      import_crush = val;
    } else if ((r = args.WithArg("--upmap-cleanup", &val)) != 0) {
      if (r < 0) return 1;
      opt.upmap_cleanup_path = val;
    } else if ((r = args.WithArg("--export-crush", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      opt.export_crush_path = val;
    } else if ((r = args.WithArg("--test-map-pg", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      opt.test_map_pg = val;
    } else if ((r = args.WithArg("--test-map-object", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      opt.test_map_object = val;
    } else if ((r = args.WithArg("--adjust-crush-weight", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      opt.adjust_crush_weight = val;
    } else if ((r = args.WithArg("--pool", &val)) != 0) {
      if (r < 0) return 1;
      auto v = StrictInt(val);
      if (!v) {
        std::cerr << "The option value '" << val << "' is invalid\n";
        return 1;
      }
      opt.pool = *v;
    } else if ((r = args.WithArg("--pg_num", &val)) != 0) {
      if (r < 0) return 1;
      ceph_val = val;
      auto v = StrictInt(val);
      if (!v) {
        std::cerr << "error parsing integer value strict_strtoll: expected integer, got: '"
                  << val << "'\n";
        return 1;
      }
      opt.pg_num = *v;
    } else if ((r = args.WithArg("--range-first", &val)) != 0 ||
               (r = args.WithArg("--range-last", &val)) != 0) {
      if (r < 0) return 1;
      const long long v = StrictInt(val).value_or(-1);
      (SameOpt(arg.substr(0, 13), "--range-first") ? range_first : range_last) = v;
    } else {
      bool unsupported = false;
      for (const char* f : kUnsupportedFlags) unsupported |= SameOpt(arg, f);
      for (const char* f : kUnsupportedWithArg) {
        const std::size_t n = std::strlen(f);
        unsupported |= SameOpt(arg, f) || (arg.size() > n && arg[n] == '=' &&
                                            SameOpt(arg.substr(0, n), f));
      }
      if (unsupported) {
        std::cerr << "crushkit osdmaptool: " << arg
                  << " is not supported (crushkit reads a state file, not Ceph's binary "
                     "osdmap; see --help)\n";
        return 1;
      }
      if (arg.size() > 1 && arg[0] == '-') {
        std::cerr << "crushkit osdmaptool: unrecognized option '" << arg << "'\n";
        return 1;
      }
      files.push_back(arg);
      args.Skip();
    }
  }
  opt.tree = tree;
  if (files.empty()) {
    std::cerr << me << ": must specify osdmap filename\n";
    return Usage();
  }
  if (files.size() > 1) {
    std::cerr << me << ": too many arguments\n";
    return Usage();
  }
  const std::string fn = files[0];
  if (range_first >= 0 && range_last >= 0) {
    // osdmaptool then reads <fn>/<i> as binary osdmaps, which a state file
    // never is a directory of.
    const std::string s = absl::StrCat(fn, "/", range_first);
    const int fd = ::open(s.c_str(), O_RDONLY);
    const int err = fd < 0 ? errno : EISDIR;
    if (fd >= 0) ::close(fd);
    std::cerr << "unable to read " << s << ": (" << err << ") " << std::strerror(err) << "\n";
    return 1;
  }
  std::cerr << me << ": osdmap file '" << fn << "'\n";
  auto bytes = ReadFileBytes(fn);
  if (!bytes.ok()) {
    std::cerr << me << ": couldn't open " << fn << ": " << bytes.status().message() << "\n";
    return 255;
  }
  auto state = osdmap::ParseState(*bytes);
  if (!state.ok()) {
    std::cerr << me << ": error decoding osdmap '" << fn << "': " << state.status().message()
              << "\n";
    return 255;
  }
  opt.me = me;
  opt.state_path = fn;
  if (import_crush) {
    auto crush = ReadFileBytes(*import_crush);
    if (!crush.ok()) {
      std::cerr << me << ": error reading crush map from " << *import_crush << ": "
                << crush.status().message() << "\n";
      return 1;
    }
    opt.import_crush_path = import_crush;
    opt.import_crush_bytes = std::move(*crush);
  }
  opt.write_file = [](const std::string& path, const std::string& data) {
    return WriteFileAtomically(path, data);
  };
  osdmap::OsdmaptoolResult r = osdmap::RunOsdmaptoolActions(*state, opt);
  std::cout << r.out;
  std::cerr << r.err;
  if (r.print_usage) std::cout << kUsage;
  if (r.exit_code != 0) return r.exit_code;
  if (r.modified) {
    auto out = osdmap::SerializeState(*state, osdmap::StateFormatForPath(fn));
    absl::Status st = out.ok() ? WriteFileAtomically(fn, *out) : out.status();
    std::cout << me << ": writing epoch " << state->epoch << " to " << fn << "\n";
    if (!st.ok()) {
      std::cout.flush();
      std::cerr << "osdmaptool: error writing to '" << fn << "': " << st.message() << "\n";
      return 1;
    }
  }
  std::cout.flush();
  return 0;
}

}  // namespace crushkit::tools
