#include "tools/crushtool/crushtool.h"

#include <unistd.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compile.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"
#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "crush/edit/edit.h"
#include "crush/map.h"
#include "crush/model.h"
#include "tools/common/ceph_write_file.h"
#include "tools/crushtool/build_stage.h"
#include "tools/crushtool/ceph_io.h"
#include "tools/crushtool/compare.h"
#include "tools/crushtool/display_stage.h"
#include "tools/crushtool/modifications.h"
#include "tools/crushtool/options.h"
#include "tools/crushtool/reclassify_stage.h"
#include "tools/crushtool/tester.h"
#include "tools/crushtool/tunable_edits.h"

namespace crushkit::tools::crushtool {

namespace {

// input: -i FILE decoded into `model`. Without -i, Ceph works on
// CrushWrapper::create()'s empty map, which has the default (jewel) tunables.
std::optional<int> ReadInputStage(const CrushtoolOptions& o, crush::CephRelease release,
                                  crush::MapModel& model, std::FILE* err) {
  const std::string me = kMe;
  model.tunables = crush::TunablesFor(crush::TunablesProfile::kDefault);
  if (o.infn.empty()) return std::nullopt;
  std::string data, error;
  if (o.infn == "-") {
    if (::isatty(STDIN_FILENO) != 0) {
      WriteAndFlush(err, "stdin must not be from a tty\n");
      return 1;
    }
    if (!ReadMapFile("-", &data, &error)) {
      WriteAndFlush(err, "error reading data from STDIN\n");
      return 1;
    }
  } else if (!ReadMapFile(o.infn, &data, &error)) {
    WriteAndFlush(err, me + ": error reading '" + o.infn + "': " + error + "\n");
    return 1;
  }
  crush::DecodeOptions decode_options;
  decode_options.ignore_trailing_bytes = true;  // as Pacific's decoder
  auto decoded = crush::DecodeCrushMap(data, decode_options);
  if (!decoded.ok() || !crush::CheckDecodable(*decoded, release).ok()) {
    WriteAndFlush(err, me + ": unable to decode " + o.infn + "\n");
    return 1;
  }
  model = std::move(*decoded);
  return std::nullopt;
}

// build: -c SRCFN compiled into `model`.
std::optional<int> CompileStage(const CrushtoolOptions& o, crush::CephRelease release,
                                crush::MapModel& model, std::FILE* err) {
  std::string text, error;
  if (!ReadMapFile(o.srcfn, &text, &error)) {
    // Ceph: `return -ENOENT` from main, i.e. exit status 254.
    WriteAndFlush(err, "input file " + o.srcfn + " not found\n");
    return 254;
  }
  const compiler::SourceFile src(o.srcfn, std::move(text));
  compiler::DiagnosticSink sink;
  auto compiled = compiler::Compile(
      src, &sink, compiler::CompileOptions{.release = release, .ceph_quirks = true});
  // Ceph's compiler prints only a few warnings of its own (Reef's ignored
  // min_size/max_size), repeated here verbatim; crushkit's other warnings
  // (e.g. an item used twice) are not printed. On failure the diagnostics
  // are crushkit's gcc-style texts, not Ceph's (README).
  for (const std::string& line : sink.ceph_messages()) WriteAndFlush(err, line + "\n");
  if (!compiled.ok()) {
    // Ceph's own message where crushkit knows it (scripts match it),
    // else crushkit's diagnostics.
    if (!sink.ceph_error().empty()) {
      WriteAndFlush(err, sink.ceph_error());
      return 1;
    }
    WriteAndFlush(err, sink.Format(src));
    if (!sink.has_errors()) WriteAndFlush(err, std::string(compiled.status().message()) + "\n");
    return 1;
  }
  for (const std::string& line : sink.ceph_quirks()) {
    WriteAndFlush(err, "crushkit crushtool: " + line + "\n");
  }
  model = std::move(*compiled);
  return std::nullopt;
}

// display: -d, the map as text on `out` or in -o OUTFN.
std::optional<int> DecompileStage(const CrushtoolOptions& o, crush::CephRelease release,
                                  const crush::MapModel& model, std::FILE* out, std::FILE* err) {
  const std::string me = kMe;
  auto text = compiler::Decompile(model, release);
  if (!text.ok()) {
    WriteAndFlush(err, me + ": " + std::string(text.status().message()) + "\n");
    return 1;
  }
  if (o.outfn.empty()) {
    WriteAndFlush(out, *text);
  } else if (const int e = WriteFileAtomic(o.outfn, *text); e != 0) {
    WriteAndFlush(err, me + ": error writing '" + o.outfn + "'\n");
    return 1;
  }
  return std::nullopt;
}

// display/test: --test.
std::optional<int> TestStage(const CrushtoolOptions& o, const crush::MapModel& model,
                             std::FILE* out, std::FILE* err) {
  if (!o.tester.rule_sizes_default && o.tester.min_rep < 0 && o.tester.max_rep < 0) {
    WriteAndFlush(err, "must specify --num-rep or both --min-rep and --max-rep\n");
    return 1;
  }
  auto map = crush::CrushMap::Build(model);
  if (!map.ok()) {
    WriteAndFlush(err, "crushkit crushtool: cannot test the map: " +
                           std::string(map.status().message()) + "\n");
    return 1;
  }
  TestOutput output;
  output.out_file = out;
  output.err_file = err;
  const int r = RunCrushTest(*map, o.tester, output);
  output.Flush();
  if (r != 0) return 1;
  return std::nullopt;
}

// output: a built or modified map written to -o OUTFN (or a note without -o).
int WriteOutputStage(const CrushtoolOptions& o, crush::CephRelease release, crush::MapModel model,
                     std::FILE* out, std::FILE* err) {
  const std::string me = kMe;
  if (o.outfn.empty()) {
    WriteAndFlush(out,
                  me + " successfully built or modified map.  Use '-o <file>' to write it out.\n");
    return 0;
  }
  crush::FinalizeMaxDevices(model);  // CrushWrapper::finalize()
  const std::string bytes = crush::EncodeCrushMapAs(std::move(model), release);
  std::string log;
  if (const int e = CephWriteFile(o.outfn, bytes, &log); e != 0) {
    WriteAndFlush(err, log);
    WriteAndFlush(err, me + ": error writing '" + o.outfn + "': " + CppStrerror(e) + "\n");
    return 1;
  }
  if (o.verbose != 0) WriteAndFlush(out, "wrote crush map to " + o.outfn + "\n");
  return 0;
}

}  // namespace

// The stages of Ceph's crushtool main(), in its order.
int RunCrushtoolCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err,
                        crush::CephRelease release) {
  ParseOutcome parsed = ParseCrushtoolArgs(args, kMe, release);
  WriteAndFlush(out, parsed.out);
  WriteAndFlush(err, parsed.err);
  if (parsed.exit_now) return parsed.exit_code;
  CrushtoolOptions& o = parsed.options;

  crush::MapModel model;
  if (auto code = ReadInputStage(o, release, model, err)) return *code;

  bool modified = false;
  if (o.compile) {
    if (auto code = CompileStage(o, release, model, err)) return *code;
    modified = true;
  }
  if (o.build) {
    if (auto code = RunBuildStage(o, release, model, err)) return *code;
    modified = true;
  }
  modified = ApplyTunableEdits(o, model) || modified;
  if (auto code = ApplyModifications(o, model, &modified, out, err)) return *code;
  if (auto code = ApplyReclassifyStage(o, model, &modified, out, err)) return *code;

  // display: show-location, tree, dump, decompile, check, test, compare
  if (auto code = RunDisplayStage(o, model, release, out, err)) return *code;
  if (o.decompile) {
    if (auto code = DecompileStage(o, release, model, out, err)) return *code;
  }
  if (auto code = RunCheckStage(o, model, out, err)) return *code;
  if (o.test) {
    if (auto code = TestStage(o, model, out, err)) return *code;
  }
  if (!o.compare.empty()) {
    if (auto code = RunCompareStage(o, model, release, out, err)) return *code;
  }
  if (!modified) return 0;
  return WriteOutputStage(o, release, std::move(model), out, err);
}

}  // namespace crushkit::tools::crushtool
