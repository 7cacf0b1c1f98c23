// Compiling (and decompiling) text maps shaped like `crushtool --build
// --num_osds N host straw2 10 rack straw2 20 root straw2 0`: the text is
// built once, outside the timed loop, as a user would hand it to us.
#include <optional>
#include <string>

#include "benchmark/benchmark.h"

#include "compiler/compile.h"
#include "compiler/parser.h"
#include "compiler/sema.h"
#include "crush/codec.h"

namespace crushkit::compiler {
namespace {

std::string BuildText(int osds) {
  std::string t = "# begin crush map\n";
  for (int i = 0; i < osds; ++i)
    t += "device " + std::to_string(i) + " osd." + std::to_string(i) + "\n";
  t += "type 0 osd\ntype 1 host\ntype 2 rack\ntype 3 root\n";
  const int hosts = (osds + 9) / 10;
  const int racks = (hosts + 19) / 20;
  int id = -1;
  std::string root_items;
  for (int r = 0; r < racks; ++r) {
    std::string rack_items;
    for (int h = r * 20; h < hosts && h < (r + 1) * 20; ++h) {
      t += "host host" + std::to_string(h) + " {\n\tid " + std::to_string(--id) +
           "\n\talg straw2\n\thash 0\n";
      for (int o = h * 10; o < osds && o < (h + 1) * 10; ++o)
        t += "\titem osd." + std::to_string(o) + " weight 1.000\n";
      t += "}\n";
      rack_items += "\titem host" + std::to_string(h) + "\n";
    }
    t += "rack rack" + std::to_string(r) + " {\n\tid " + std::to_string(--id) +
         "\n\talg straw2\n\thash 0\n" + rack_items + "}\n";
    root_items += "\titem rack" + std::to_string(r) + "\n";
  }
  t += "root root {\n\tid -1\n\talg straw2\n\thash 0\n" + root_items + "}\n";
  t += "rule replicated_rule {\n\tid 0\n\ttype replicated\n\tmin_size 1\n\tmax_size 10\n"
       "\tstep take root\n\tstep chooseleaf firstn 0 type host\n\tstep emit\n}\n";
  return t;
}

void BM_Compile(benchmark::State& state) {
  const SourceFile src("bench.crush", BuildText(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    absl::StatusOr<crush::MapModel> m = Compile(src);
    if (!m.ok()) state.SkipWithError("compile failed");
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(src.text().size()));
}

BENCHMARK(BM_Compile)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// The compile phases apart: the X3 parse into the AST, then sema/lowering.
void BM_Parse(benchmark::State& state) {
  const SourceFile src("bench.crush", BuildText(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    DiagnosticSink sink;
    benchmark::DoNotOptimize(Parse(src, sink));
  }
}

BENCHMARK(BM_Parse)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_Lower(benchmark::State& state) {
  const SourceFile src("bench.crush", BuildText(static_cast<int>(state.range(0))));
  DiagnosticSink parse_sink;
  const std::optional<ast::CrushFile> file = Parse(src, parse_sink);
  for (auto _ : state) {
    DiagnosticSink sink;
    benchmark::DoNotOptimize(Lower(src, *file, sink, crush::kDefaultCephRelease));
  }
}

BENCHMARK(BM_Lower)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_Encode(benchmark::State& state) {
  const absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("b", BuildText(static_cast<int>(state.range(0)))));
  for (auto _ : state) benchmark::DoNotOptimize(crush::EncodeCrushMap(*m));
}

BENCHMARK(BM_Encode)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_CompileAndEncode(benchmark::State& state) {
  const SourceFile src("bench.crush", BuildText(static_cast<int>(state.range(0))));
  for (auto _ : state) {
    absl::StatusOr<crush::MapModel> m = Compile(src);
    benchmark::DoNotOptimize(crush::EncodeCrushMap(*m));
  }
}

BENCHMARK(BM_CompileAndEncode)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_Decompile(benchmark::State& state) {
  const absl::StatusOr<crush::MapModel> m =
      Compile(SourceFile("b", BuildText(static_cast<int>(state.range(0)))));
  for (auto _ : state) benchmark::DoNotOptimize(Decompile(*m));
}

BENCHMARK(BM_Decompile)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace crushkit::compiler
