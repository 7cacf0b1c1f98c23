#include "tools/osdmaptool/osdmaptool.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "absl/strings/str_cat.h"
#include "osdmap/input_sniff.h"
#include "osdmap/osdmap_binary_save.h"
#include "osdmap/state_codec.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/osdmaptool/actions.h"
#include "tools/osdmaptool/options.h"

namespace crushkit::tools::osdmaptool {
namespace {

constexpr char kMe[] = "osdmaptool";

constexpr char kCrushkitNote[] =
    "\ncrushkit: <mapfilename> is Ceph's binary osdmap (written back as one by --save) or a\n"
    "crushkit state file (`crushkit import`). Supported here: --mark-up-in, --mark-out,\n"
    "--mark-up, --mark-in, --adjust-crush-weight, --clear-temp, --import-crush, --export-crush,\n"
    "--test-map-object, --test-map-pg, --test-map-pgs[-dump[-all]], --pool, --pg_num,\n"
    "--tree [plain|json], --upmap-cleanup, --save, and --upmap with --upmap-max,\n"
    "--upmap-deviation, --upmap-pool, --upmap-seed (crushkit's deterministic balancer, the\n"
    "same as `crushkit balance`; its commands differ from Ceph's). Not supported yet:\n"
    "--print, --dump, --createsimple, --create-from-conf, --upmap-active, --health,\n"
    "--clean-temps, --test-random, --test-crush.\n";

}  // namespace

int RunOsdmaptoolCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  if (args.empty()) {
    WriteAndFlush(err, absl::StrCat(kMe, ": -h or --help for usage\n"));
    return 1;
  }
  ParseResult parsed = ParseCommandLine(args);
  WriteAndFlush(err, parsed.err);
  if (parsed.stop) {
    if (parsed.print_usage) WriteAndFlush(out, kUsage);
    if (parsed.print_usage && parsed.err.empty()) WriteAndFlush(out, kCrushkitNote);  // --help
    return parsed.exit_code;
  }
  CommandLine& cmd = parsed.command;
  if (!cmd.not_supported.empty()) {
    WriteAndFlush(err, absl::StrCat("crushkit osdmaptool: ", cmd.not_supported.front(),
                          " is not supported (see --help)\n"));
    return 1;
  }
  const std::string fn = cmd.positional.front();
  if (cmd.range_first >= 0 && cmd.range_last >= 0) {
    // osdmaptool then reads <fn>/<i> as binary osdmaps, which a state file
    // never is a directory of.
    const std::string s = absl::StrCat(fn, "/", cmd.range_first);
    const int fd = ::open(s.c_str(), O_RDONLY);
    const int e = fd < 0 ? errno : EISDIR;
    if (fd >= 0) ::close(fd);
    WriteAndFlush(err, absl::StrCat("unable to read ", s, ": ", CppStrerror(e), "\n"));
    return 1;
  }
  WriteAndFlush(err, absl::StrCat(kMe, ": osdmap file '", fn, "'\n"));
  auto bytes = ReadFileBytes(fn);
  if (!bytes.ok()) {
    WriteAndFlush(err, absl::StrCat(kMe, ": couldn't open ", fn, ": ", bytes.status().message(), "\n"));
    return 255;
  }
  auto state = osdmap::ParseState(*bytes);
  if (!state.ok()) {
    WriteAndFlush(err, absl::StrCat(kMe, ": error decoding osdmap '", fn, "': ", state.status().message(),
                          "\n"));
    return 255;
  }
  const bool binary_map = osdmap::LooksLikeCephOsdMap(*bytes);
  if (binary_map && std::getenv(kCephReleaseEnv) != nullptr) {
    // As `crushkit import` does: CRUSHKIT_CEPH_RELEASE names the osdmaptool
    // being emulated (16.2 maps through find_rule, whatever the map's
    // require_osd_release); unset, require_osd_release decides.
    auto release = CephReleaseFromEnvironment();
    if (!release.ok()) {
      WriteAndFlush(err, absl::StrCat(kMe, ": ", release.status().message(), "\n"));
      return 1;
    }
    state->ceph_release = *release;
  }
  const std::uint32_t first_epoch = state->epoch;
  OsdmaptoolOptions& opt = cmd.actions;
  opt.me = kMe;
  opt.state_path = fn;
  if (cmd.import_crush) {
    auto crush = ReadFileBytes(*cmd.import_crush);
    if (!crush.ok()) {
      WriteAndFlush(err, absl::StrCat(kMe, ": error reading crush map from ", *cmd.import_crush, ": ",
                            crush.status().message(), "\n"));
      return 1;
    }
    opt.import_crush_path = cmd.import_crush;
    opt.import_crush_bytes = std::move(*crush);
  }
  opt.write_file = [](const std::string& path, const std::string& data) {
    return WriteFileAtomically(path, data);
  };
  OsdmaptoolResult r = RunOsdmaptoolActions(*state, opt);
  WriteAndFlush(out, r.out);
  WriteAndFlush(err, r.err);
  if (r.print_usage) WriteAndFlush(out, kUsage);
  if (r.exit_code != 0) return r.exit_code;
  if (r.modified) {
    // A binary osdmap is written back as one, as osdmaptool writes it; a
    // state file as a state file.
    osdmap::OsdmaptoolSave save;
    save.epoch = state->epoch;
    save.incrementals_applied = state->epoch - first_epoch >= 2;
    save.crush_imported = cmd.import_crush.has_value();
    auto bytes_out = binary_map ? osdmap::SaveLikeOsdmaptool(*bytes, *state, save)
                                : osdmap::SerializeState(*state, osdmap::StateFormatForPath(fn));
    absl::Status st = bytes_out.ok() ? WriteFileAtomically(fn, *bytes_out) : bytes_out.status();
    WriteAndFlush(out, absl::StrCat(kMe, ": writing epoch ", state->epoch, " to ", fn, "\n"));
    if (!st.ok()) {
      WriteAndFlush(err, absl::StrCat(kMe, ": error writing to '", fn, "': ", st.message(), "\n"));
      return 1;
    }
  }
  return 0;
}

}  // namespace crushkit::tools::osdmaptool
