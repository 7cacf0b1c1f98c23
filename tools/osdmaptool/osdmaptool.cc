#include "tools/osdmaptool/osdmaptool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "osdmap/formats/ceph_conf.h"
#include "osdmap/formats/hit_set_params.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/formats/osdmap_binary_save.h"
#include "osdmap/formats/osdmap_binary_state.h"
#include "osdmap/formats/osdmap_create.h"
#include "osdmap/formats/osdmap_print.h"
#include "osdmap/formats/state_codec.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/ceph_write_file.h"
#include "tools/common/file_io.h"
#include "tools/common/undefined_mappings.h"
#include "tools/osdmaptool/actions.h"
#include "tools/osdmaptool/options.h"
#include "tools/osdmaptool/osdmap_dump.h"

namespace crushkit::tools::osdmaptool {
namespace {

// The release osdmaptool is emulated as without a map (usage text, created
// maps): the one CRUSHKIT_CEPH_RELEASE names, else the installed Ceph's,
// else the default.
crush::CephRelease ToolRelease() {
  auto release = ResolveDefaultCephRelease();
  return release.ok() ? release->release : crush::kDefaultCephRelease;
}

constexpr char kMe[] = "osdmaptool";

constexpr char kCrushkitNote[] =
    "\ncrushkit: <mapfilename> is Ceph's binary osdmap (written back as one) or a crushkit\n"
    "state file (`crushkit import`). As osdmaptool 16.2: --createsimple with --pg-bits,\n"
    "--pgp-bits, --with-default-pool, --clobber, --osd_pool_default_size; --create-from-conf\n"
    "-c CONF; --print, --dump plain|json|json-pretty|xml|xml-pretty|html|html-pretty|table|\n"
    "table-kv (every pool field: HitSets, snapshots, snap queues; legacy addresses);\n"
    "--mark-up-in, --mark-out, --mark-up, --mark-in,\n"
    "--adjust-crush-weight, --clear-temp, --clean-temps, --import-crush, --export-crush,\n"
    "--test-map-object, --test-map-pg, --test-map-pgs[-dump[-all]], --pool, --pg_num,\n"
    "--test-random, --tree [FORMAT, as --dump], --upmap-cleanup, --health, --test-crush\n"
    "(endless, as Ceph's), --save. --upmap with\n"
    "--upmap-max, --upmap-deviation, --upmap-pool, --upmap-seed runs crushkit's deterministic\n"
    "balancer (the same as `crushkit balance`; its commands differ from Ceph's);\n"
    "--upmap-active repeats its rounds until one finds nothing.\n"
    "--clobber without a create option works on an empty map, as osdmaptool 16.2\n"
    "(the file is not read; it is written only when an action modifies the map).\n"
    "`--help` prints osdmaptool's usage only; `--crushkit-help`\n"
    "adds this note.\n";

// ceph_clock_now() as a Utime.
osdmap::binary::Utime Now() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return {static_cast<std::uint32_t>(ts.tv_sec), static_cast<std::uint32_t>(ts.tv_nsec)};
}

// Why reading `path` failed: bufferlist::read_file's wording when open(2)
// fails, as osdmaptool prints it; crushkit's reason otherwise.
std::string ReadFailure(const std::string& path, const absl::Status& status) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  const int e = errno;
  if (fd >= 0) {
    ::close(fd);
    return std::string(status.message());
  }
  return absl::StrCat("can't open ", path, ": ", CppStrerror(e));
}

// --createsimple / --create-from-conf: the encoded map osdmaptool builds
// (epoch 0; the write bumps it). Returns the error line on failure.
absl::StatusOr<std::string> CreateMap(const MapOptions& m) {
  osdmap::CreateOsdMapOptions c;
  c.num_osd = m.num_osd;
  c.pg_bits = m.pg_bits;
  c.pgp_bits = m.pgp_bits;
  c.with_default_pool = m.with_default_pool;
  c.pool_default_size = m.pool_default_size;
  c.pool_default_min_size = m.pool_default_min_size;
  c.chooseleaf_type = m.chooseleaf_type;
  c.now = Now();
  if (m.create_from_conf) {
    if (m.conf_path.empty())
      return absl::InvalidArgumentError("crushkit osdmaptool: --create-from-conf needs -c CONF");
    auto conf = ReadFileBytes(m.conf_path);
    if (!conf.ok())
      return absl::InvalidArgumentError(absl::StrCat(kMe, ": ", conf.status().message()));
    auto locations = osdmap::OsdLocationsFromConf(*conf);
    if (!locations.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(kMe, ": ", m.conf_path, ": ", locations.status().message()));
    }
    c.from_conf = true;
    c.locations = std::move(*locations);
  }
  if (ToolRelease() == crush::CephRelease::kTentacle) c.default_ec_plugin = "isa";
  auto map = osdmap::CreateOsdMap(c);
  if (!map.ok()) return absl::InvalidArgumentError(absl::StrCat(kMe, ": ", map.status().message()));
  osdmap::EncodeLikeRelease(&*map, ToolRelease());
  return osdmap::EncodeOsdMap(*map);
}

// --range-first/--range-last: osdmaptool then reads <fn>/<i> as binary
// osdmaps, which a state file never is a directory of.
int RangeUnreadable(const std::string& fn, const CommandLine& cmd, std::FILE* err) {
  const std::string s = absl::StrCat(fn, "/", cmd.range_first);
  const int fd = ::open(s.c_str(), O_RDONLY);
  const int e = fd < 0 ? errno : EISDIR;
  if (fd >= 0) ::close(fd);
  WriteAndFlush(err, absl::StrCat("unable to read ", s, ": ", CppStrerror(e), "\n"));
  return 1;
}

// The map's bytes: created (--createsimple, --create-from-conf), empty
// (--clobber) or read from <fn>. Returns the exit code when it fails.
std::optional<int> LoadBytes(const MapOptions& mo, const std::string& fn, std::FILE* err,
                             absl::StatusOr<std::string>* bytes) {
  if (mo.create_simple || mo.create_from_conf) {
    // osdmaptool checks the file before it checks the OSD count.
    struct stat st {};

    if (!mo.clobber && ::stat(fn.c_str(), &st) == 0) {
      WriteAndFlush(err, absl::StrCat(kMe, ": ", fn, " exists, --clobber to overwrite\n"));
      return 255;
    }
    if (mo.create_simple && mo.num_osd < 1) {
      WriteAndFlush(err, absl::StrCat(kMe, ": osd count must be > 0\n"));
      return 1;
    }
    *bytes = CreateMap(mo);
    if (!bytes->ok()) {
      WriteAndFlush(err, absl::StrCat(bytes->status().message(), "\n"));
      return 1;
    }
  } else if (mo.clobber) {
    // osdmaptool then never reads <fn>: it works on a default-constructed
    // OSDMap, written to <fn> only if an action modifies it.
    *bytes = osdmap::EncodeOsdMap(osdmap::EmptyOsdMap());
  } else {
    *bytes = ReadFileBytes(fn);
    if (!bytes->ok()) {
      WriteAndFlush(err, absl::StrCat(kMe, ": couldn't open ", fn, ": ",
                                      ReadFailure(fn, bytes->status()), "\n"));
      return 255;
    }
  }
  return std::nullopt;
}

// The osdmaptool being emulated maps as its own release (16.2 through
// find_rule, whatever the map's require_osd_release): the one
// CRUSHKIT_CEPH_RELEASE names, else the installed Ceph's; with neither,
// require_osd_release decides. Returns the exit code when it fails.
std::optional<int> EmulateRelease(const std::string& fn, std::FILE* err,
                                  osdmap::ClusterState* state, osdmap::OsdMapBinary* decoded) {
  auto release = CephReleaseOverride("");
  if (!release.ok()) {
    WriteAndFlush(err, absl::StrCat(kMe, ": ", release.status().message(), "\n"));
    return 1;
  }
  if (*release) {
    state->ceph_release = **release;
  } else if (std::optional<InstalledCeph> installed = DetectInstalledCeph()) {
    state->ceph_release = installed->release;
  }
  // Pacific and Reef read Tentacle's pools with their own, older layout.
  if (absl::Status st = osdmap::ReadAsRelease(state->ceph_release, decoded); !st.ok()) {
    WriteAndFlush(err,
                  absl::StrCat(kMe, ": error decoding osdmap '", fn, "': ", st.message(), "\n"));
    return 255;
  }
  return std::nullopt;
}

// The cluster state of the file's bytes (a binary osdmap decoded as
// `as_decoded`, or a state file); on an error says why on `err`.
absl::StatusOr<osdmap::ClusterState> DecodeState(
    const std::string& fn, const std::string& bytes, bool binary_map,
    const absl::StatusOr<osdmap::OsdMapBinary>& as_decoded, std::FILE* err) {
  auto state = binary_map ? osdmap::ImportDecodedOsdMap(as_decoded) : osdmap::ParseState(bytes);
  if (state.ok() && binary_map) {
    // What crushkit's decoder keeps opaque but Ceph's OSDMap::decode
    // rejects: the whole map is then unreadable to osdmaptool.
    if (absl::Status st = osdmap::CheckHitSetParams(*as_decoded); !st.ok()) state = st;
  }
  if (!state.ok()) {
    // osdmaptool's own line; crushkit adds why when there is something to
    // explain (an empty file is just that).
    WriteAndFlush(
        err, absl::StrCat(kMe, ": error decoding osdmap '", fn, "'",
                          bytes.empty() ? "" : absl::StrCat(": ", state.status().message()), "\n"));
  }
  return state;
}

// --import-crush FILE read into the actions' options. Returns the exit code
// when it cannot be read.
std::optional<int> ReadImportCrush(const CommandLine& cmd, OsdmaptoolOptions* opt, std::FILE* err) {
  if (!cmd.import_crush) return std::nullopt;
  auto crush = ReadFileBytes(*cmd.import_crush);
  if (!crush.ok()) {
    WriteAndFlush(err, absl::StrCat(kMe, ": error reading crush map from ", *cmd.import_crush, ": ",
                                    ReadFailure(*cmd.import_crush, crush.status()), "\n"));
    return 1;
  }
  opt->import_crush_path = cmd.import_crush;
  opt->import_crush_bytes = std::move(*crush);
  return std::nullopt;
}

// The file's map as osdmaptool holds it.
class LoadedMap {
 public:
  LoadedMap(std::string fn, bool binary_map, std::uint32_t first_epoch, bool crush_imported,
            absl::StatusOr<osdmap::OsdMapBinary>& decoded)
      : fn_(std::move(fn)),
        binary_map_(binary_map),
        first_epoch_(first_epoch),
        crush_imported_(crush_imported),
        decoded_(decoded) {}

  // The bytes osdmaptool would write for the state (the save at the end),
  // from a copy of the decoded file, or from the decoded file itself on its
  // last use.
  absl::StatusOr<std::string> Encode(const osdmap::ClusterState& s, bool last_use) {
    osdmap::OsdmaptoolSave save;
    save.epoch = s.epoch;
    save.incrementals_applied = s.epoch - first_epoch_ >= 2;
    save.crush_imported = crush_imported_;
    save.release = s.ceph_release;
    if (!binary_map_) return osdmap::SerializeState(s, osdmap::StateFormatForPath(fn_));
    return osdmap::SaveLikeOsdmaptool(last_use ? std::move(*decoded_) : *decoded_, s, save);
  }

  // The binary map as Ceph holds it in memory: the marks and other unsaved
  // edits show. The blocklist keeps the file's order: Ceph prints it in the
  // order of the hash table it decoded the file into, while the encoding
  // sorts it as Ceph's encoder does.
  absl::StatusOr<osdmap::OsdMapBinary> InMemory(const osdmap::ClusterState& s) {
    if (!decoded_.ok()) return decoded_.status();
    absl::StatusOr<std::string> now = Encode(s, /*last_use=*/false);
    if (!now.ok()) return now.status();
    auto map = osdmap::DecodeOsdMap(*now);
    if (!map.ok()) return map.status();
    map->blocklist = decoded_->blocklist;
    return map;
  }

  // The file as decoded (REQUIRES: a binary osdmap).
  const osdmap::OsdMapBinary& decoded() const { return *decoded_; }

 private:
  const std::string fn_;
  const bool binary_map_;
  const std::uint32_t first_epoch_;
  const bool crush_imported_;
  absl::StatusOr<osdmap::OsdMapBinary>& decoded_;
};

// --print/--dump and --health, which show the map in memory.
void SetPrinters(const MapOptions& mo, LoadedMap& loaded, OsdmaptoolOptions* opt) {
  if (mo.print) {
    opt->print = [&mo, &loaded](const osdmap::ClusterState& s,
                                bool /*modified*/) -> absl::StatusOr<std::string> {
      auto map = loaded.InMemory(s);
      if (!map.ok()) return map.status();
      auto as = osdmap::PrintReleaseFor(s, s.ceph_release);
      if (!as.ok()) return as.status();
      return mo.dump_format.empty() ? osdmap::FormatOsdMapPlain(*map, *as)
                                    : DumpOsdMap(*map, mo.dump_format, *as);
    };
  }
  if (mo.health) {
    opt->health = [&loaded](const osdmap::ClusterState& s) -> absl::StatusOr<std::string> {
      auto map = loaded.InMemory(s);
      if (!map.ok()) return map.status();
      return DumpHealth(*map, loaded.decoded(), s.ceph_release);
    };
  }
}

// Writes the map osdmaptool would save to <fn>, saying so on `out`.
int WriteBack(const std::string& fn, const absl::StatusOr<std::string>& bytes_out,
              std::uint32_t epoch, std::FILE* out, std::FILE* err) {
  if (!bytes_out.ok()) {
    WriteAndFlush(err, absl::StrCat("crushkit osdmaptool: cannot encode the map for '", fn,
                                    "': ", bytes_out.status().message(), "\n"));
    return 1;
  }
  WriteAndFlush(out, absl::StrCat(kMe, ": writing epoch ", epoch, " to ", fn, "\n"));
  std::string log;
  if (const int e = CephWriteFile(fn, *bytes_out, &log); e != 0) {
    WriteAndFlush(err, log);
    WriteAndFlush(err, absl::StrCat(kMe, ": error writing to '", fn, "': ", CppStrerror(e), "\n"));
    return 1;
  }
  return 0;
}

}  // namespace

namespace {

// Says on `err` as the command returns, after all it wrote, how many
// mappings gave crushkit's answer where Ceph's is undefined (nothing for 0).
class UndefinedMappingsNote {
 public:
  explicit UndefinedMappingsNote(std::FILE* err) : err_(err) {}

  UndefinedMappingsNote(const UndefinedMappingsNote&) = delete;
  UndefinedMappingsNote& operator=(const UndefinedMappingsNote&) = delete;

  ~UndefinedMappingsNote() {
    if (count_ != 0) WriteAndFlush(err_, UndefinedMappingsWarning(count_));
  }

  void set(std::uint64_t n) { count_ = n; }

 private:
  std::FILE* err_;
  std::uint64_t count_ = 0;
};

}  // namespace

int RunOsdmaptoolCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  if (args.size() == 1 && args[0] == "--crushkit-help") {
    WriteAndFlush(out, absl::StrCat(kUsage, kCrushkitNote));
    return 0;
  }
  if (args.empty()) {
    WriteAndFlush(err, absl::StrCat(kMe, ": -h or --help for usage\n"));
    return 1;
  }
  ParseResult parsed = ParseCommandLine(args, ToolRelease());
  WriteAndFlush(err, parsed.err);
  if (parsed.stop) {
    if (parsed.print_usage) WriteAndFlush(out, UsageFor(ToolRelease()));
    return parsed.exit_code;
  }
  CommandLine& cmd = parsed.command;
  const std::string fn = cmd.positional.front();
  if (cmd.range_first >= 0 && cmd.range_last >= 0) return RangeUnreadable(fn, cmd, err);
  WriteAndFlush(err, absl::StrCat(kMe, ": osdmap file '", fn, "'\n"));
  const MapOptions& mo = cmd.map;
  const bool create = mo.create_simple || mo.create_from_conf;
  absl::StatusOr<std::string> bytes;
  if (auto code = LoadBytes(mo, fn, err, &bytes)) return *code;
  // A binary osdmap is decoded once: the state, what --print and --health
  // show and what --save re-encodes all start from this decode.
  const bool binary_map = osdmap::LooksLikeCephOsdMap(*bytes);
  absl::StatusOr<osdmap::OsdMapBinary> as_decoded =
      binary_map ? osdmap::DecodeOsdMap(*bytes)
                 : absl::StatusOr<osdmap::OsdMapBinary>(
                       absl::UnimplementedError("needs a binary osdmap, not a state file"));
  auto state = DecodeState(fn, *bytes, binary_map, as_decoded, err);
  if (!state.ok()) return 255;
  if (binary_map) {
    if (auto code = EmulateRelease(fn, err, &*state, &*as_decoded)) return *code;
  }
  OsdmaptoolOptions& opt = cmd.actions;
  opt.me = kMe;
  opt.state_path = fn;
  if (auto code = ReadImportCrush(cmd, &opt, err)) return *code;
  // A binary map's crush map is exported as the emulated release encodes it.
  if (binary_map) opt.export_crush_as = state->ceph_release;
  opt.check_output = ProbeOutputFile;
  opt.write_file = CephWriteFile;
  opt.created = create;
  LoadedMap loaded(fn, binary_map, state->epoch, cmd.import_crush.has_value(), as_decoded);
  SetPrinters(mo, loaded, &opt);
  // --test-crush streams (it never ends): what the actions printed so far,
  // then pass after pass.
  opt.stream_out = [&](const std::string& text) {
    return std::fwrite(text.data(), 1, text.size(), out) == text.size() && std::fflush(out) == 0;
  };
  UndefinedMappingsNote note(err);
  OsdmaptoolResult r = RunOsdmaptoolActions(*state, opt);
  note.set(r.diverged_from_ceph);
  WriteAndFlush(out, r.out);
  WriteAndFlush(err, r.err);
  if (r.print_usage) WriteAndFlush(out, UsageFor(state->ceph_release));
  if (r.exit_code != 0) return r.exit_code;
  if (!r.modified) return 0;
  // A binary osdmap is written back as one, as osdmaptool writes it; a state
  // file as a state file.
  return WriteBack(fn, loaded.Encode(*state, /*last_use=*/true), state->epoch, out, err);
}

}  // namespace crushkit::tools::osdmaptool
