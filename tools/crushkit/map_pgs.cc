// `crushkit map-pgs STATE [--pool P] [--json]`: every PG of every (or one)
// pool -> up/acting, mapped on all cores by osdmap/model/pg_table.h, then printed
// in PG order.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

#include "crush/util/chunk_pipeline.h"
#include "osdmap/model/pg_table.h"
#include "tools/common/progress.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct MapPgsArgs {
  std::string state;
  std::string pool;
  bool json = false;
  int threads = 0;
};

void AppendPg(std::string* out, const osdmap::PoolPgTable& t, std::uint32_t ps, bool json) {
  const auto list = [&](std::span<const std::int32_t> l) {
    out->push_back('[');
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (i) out->push_back(',');
      absl::StrAppend(out, l[i]);
    }
    out->push_back(']');
  };
  if (json) {
    absl::StrAppend(out, "{\"pgid\":\"", osdmap::FormatPgId({t.pool_id, ps}), "\",\"up\":");
    list(t.Up(ps));
    absl::StrAppend(out, ",\"up_primary\":", t.up_primary[ps], ",\"acting\":");
    list(t.Acting(ps));
    absl::StrAppend(out, ",\"acting_primary\":", t.acting_primary[ps], "}");
  } else {
    absl::StrAppend(out, t.pool_id, ".", absl::Hex(ps), "\t");
    list(t.Up(ps));
    absl::StrAppend(out, "\t", t.up_primary[ps], "\t");
    list(t.Acting(ps));
    absl::StrAppend(out, "\t", t.acting_primary[ps], "\n");
  }
}

// Writes every PG of `table` to stdout, as text lines or a JSON array.
// Formatting 1.28M PGs is a tenth of the mapping's CPU: the worker threads
// format chunks of PGs, the calling thread writes them in order.
void WritePgs(const osdmap::PgTable& table, bool json, int threads) {
  struct Chunk {
    const osdmap::PoolPgTable* table;
    std::uint32_t begin, end;
  };

  constexpr std::uint32_t kChunkPgs = 1u << 14;
  std::vector<Chunk> chunks;
  for (const osdmap::PoolPgTable& t : table.pools) {
    for (std::uint32_t ps = 0; ps < t.pg_num;) {
      const std::uint32_t n = std::min(kChunkPgs, t.pg_num - ps);  // no uint32 overflow
      chunks.push_back({&t, ps, ps + n});
      ps += n;
    }
  }
  const auto produce = [&](int, std::uint64_t c, std::string& buf) {
    buf.clear();
    const Chunk& k = chunks[c];
    for (std::uint32_t ps = k.begin; ps < k.end; ++ps) {
      if (json) buf += c == 0 && ps == k.begin ? "\n" : ",\n";
      AppendPg(&buf, *k.table, ps, json);
    }
  };
  const auto consume = [](std::uint64_t, const std::string& buf) {
    std::fwrite(buf.data(), 1, buf.size(), stdout);
  };
  if (json) std::fputs("[", stdout);
  if (!util::ForEachChunkInOrder<std::string>(chunks.size(), threads, 2 * threads, produce,
                                              consume)) {
    std::string buf;
    for (std::uint64_t c = 0; c < chunks.size(); ++c) {
      produce(0, c, buf);
      consume(c, buf);
    }
  }
  if (json) std::fputs(chunks.empty() ? "]\n" : "\n]\n", stdout);
}

int RunMapPgs(const MapPgsArgs& a) {
  auto session = LoadSession("map-pgs", a.state);
  if (!session) return 1;
  const osdmap::Pool* only = nullptr;
  if (!a.pool.empty()) {
    only = FindPoolArg("map-pgs", session->state(), a.pool);
    if (only == nullptr) return 1;
  }
  osdmap::MapAllOptions options;
  options.threads = a.threads;
  if (only != nullptr) options.only_pool = only->id;
  Progress progress("mapping PGs");
  options.progress = [&](std::uint64_t done, std::uint64_t total) { progress.Update(done, total); };
  const osdmap::PgTable table = osdmap::MapAllPgs(*session, options);
  WritePgs(table, a.json, osdmap::ResolveThreads(a.threads));
  std::fflush(stdout);
  return std::ferror(stdout) ? 1 : 0;
}

}  // namespace

void AddMapPgsCommand(CLI::App& app) {
  auto args = std::make_shared<MapPgsArgs>();
  CLI::App* cmd =
      app.add_subcommand("map-pgs",
                         "Map every PG to its up and acting OSDs. Text: one line per PG, "
                         "\"<pgid>\\t[up]\\t<up primary>\\t[acting]\\t<acting primary>\"\n"
                         "  example: crushkit map-pgs state.pb --pool 1 > mappings.tsv");
  cmd->add_option("state", args->state, "crushkit state file (from `crushkit import`)")->required();
  cmd->add_option("--pool", args->pool, "only this pool (name or id)");
  cmd->add_flag("--json", args->json,
                "print a JSON array of {pgid, up, up_primary, acting, "
                "acting_primary}");
  cmd->add_option("--threads", args->threads,
                  "mapping threads (default: number of CPUs); output is the same for any value");
  cmd->callback([args]() {
    if (const int rc = RunMapPgs(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
