// The two optional components of the installed package together:
// crushkit::compiler turns a Ceph text crush map into Ceph's binary bytes,
// and crushkit::osdmap (through its C API, osdmap/crushkit_osdmap.h) maps
// objects of a Ceph binary osdmap to PGs and OSDs. Built only when
// find_package(crushkit COMPONENTS compiler osdmap) finds both.
//
//   crush_compile_and_map MAP.txt OUT.bin [OSDMAP POOL OBJECT...]
//
// Writes the compiled map to OUT.bin (tools/dev/check-embed.sh compares it
// with the map Ceph's crushtool compiled), then prints "OBJECT -> pg P.ps up
// [..] acting [..]" for each object. Exit status: 0 ok, 1 a compile or
// osdmap error (diagnostics on stderr), 2 bad usage or unreadable files.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "compiler/compile.h"
#include "compiler/diagnostics.h"
#include "compiler/source_file.h"
#include "crush/ceph_release.h"
#include "crush/codec.h"
#include "crush/crushkit.h"
#include "crush/model.h"
#include "osdmap/crushkit_osdmap.h"
#include "sample_util.h"

namespace {

namespace compiler = crushkit::compiler;
namespace crush = crushkit::crush;

std::string FormatOsds(const std::int32_t* osds, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += ",";
    s += osds[i] == 0x7fffffff ? std::string("NONE") : std::to_string(osds[i]);
  }
  return s + "]";
}

// Compiles `text_path` as Ceph 16.2's crushtool -c would and writes the
// binary map to `out_path`.
int CompileMap(const std::string& text_path, const std::string& out_path) {
  const std::optional<std::string> text = crush_sample::ReadFile(text_path);
  if (!text) {
    std::cerr << "crush_compile_and_map: cannot read '" << text_path << "'\n";
    return 2;
  }
  const compiler::SourceFile source(text_path, *text);
  compiler::CompileOptions options;
  options.release = crush::CephRelease::kPacific;
  absl::StatusOr<crush::MapModel> model = compiler::Compile(source, nullptr, options);
  if (!model.ok()) {
    std::cerr << model.status().message() << "\n";
    return 1;
  }
  std::ofstream out(out_path, std::ios::binary);
  const std::string bytes = crush::EncodeCrushMap(*model);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) {
    std::cerr << "crush_compile_and_map: cannot write '" << out_path << "'\n";
    return 2;
  }
  std::cout << text_path << ": " << model->max_devices << " devices, " << bytes.size()
            << " bytes\n";
  return 0;
}

// Maps each object of `pool` through the osdmap's object -> PG -> up/acting.
int MapObjects(const std::string& osdmap_path, std::int64_t pool, char** objects, int count) {
  const std::optional<std::string> bytes = crush_sample::ReadFile(osdmap_path);
  if (!bytes) {
    std::cerr << "crush_compile_and_map: cannot read '" << osdmap_path << "'\n";
    return 2;
  }
  char* error = nullptr;
  crushkit_state* state = crushkit_state_from_bytes(bytes->data(), bytes->size(), &error);
  if (state == nullptr) {
    std::cerr << "crush_compile_and_map: " << osdmap_path << ": " << error << "\n";
    crushkit_free_string(error);
    return 1;
  }
  crushkit_state_mapper* mapper = crushkit_state_mapper_new(state);
  int status = mapper == nullptr ? 1 : 0;
  std::cout << osdmap_path << ": epoch " << crushkit_state_epoch(state) << ", pool " << pool
            << " pg_num " << crushkit_pool_pg_num(state, pool) << "\n";
  for (int i = 0; i < count && status == 0; ++i) {
    std::uint32_t ps = 0;
    crushkit_pg_mapping pg;
    if (crushkit_object_to_pg(state, pool, objects[i], "", &ps) != 0 ||
        crushkit_pg_to_up_acting(mapper, pool, ps, &pg) != 0) {
      std::cerr << "crush_compile_and_map: no pool " << pool << " in " << osdmap_path << "\n";
      status = 1;
      break;
    }
    std::cout << objects[i] << " -> pg " << pool << "." << std::hex << ps << std::dec << " up "
              << FormatOsds(pg.up, pg.up_size) << " acting "
              << FormatOsds(pg.acting, pg.acting_size) << "\n";
  }
  crushkit_state_mapper_free(mapper);
  crushkit_state_free(state);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc < 6) {
    std::cerr << "usage: crush_compile_and_map MAP.txt OUT.bin [OSDMAP POOL OBJECT...]\n";
    return 2;
  }
  if (const int rc = CompileMap(argv[1], argv[2]); rc != 0) return rc;
  if (argc == 3) return 0;
  const std::optional<std::int64_t> pool = crush_sample::ParseInt(argv[4], 0, 0x7fffffff);
  if (!pool) {
    std::cerr << "crush_compile_and_map: bad pool id '" << argv[4] << "'\n";
    return 2;
  }
  return MapObjects(argv[3], *pool, argv + 5, argc - 5);
}
