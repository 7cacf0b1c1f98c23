// `crushkit map-pgs STATE [--pool P] [--json]`: every PG of every (or one)
// pool -> up/acting, mapped and formatted chunk by chunk on all cores
// (osdmap/model/pg_table.h MapAllPgsInOrder), printed in PG order.
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "osdmap/model/cluster_state.h"
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

// Appends one PG's line (text) or object (JSON, after ",\n"): row `row` of
// `t`, which is PG `ps`. Written into a local buffer with std::to_chars and
// appended once: 1.28M PGs format in a fraction of their mapping time.
void AppendPg(std::string* out, const osdmap::PoolPgTable& t, std::uint32_t row, std::uint32_t ps,
              bool json) {
  // Lists hold at most kMaxPgOsds OSDs (ValidateState); 12 chars per OSD.
  // The slack past kMax is never written in practice: it takes the byte a
  // separator would write after a to_chars that (impossibly) ran out of room,
  // which gcc's -O3 -Wstringop-overflow cannot rule out.
  constexpr std::size_t kMax = 192 + 2 * 12 * osdmap::kMaxPgOsds;
  constexpr std::size_t kSlack = 16;
  char buf[kMax + kSlack];
  char* p = buf;
  const auto text = [&p](std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  };
  const auto number = [&p, &buf](auto v) { p = std::to_chars(p, buf + kMax, v).ptr; };
  const auto list = [&](std::span<const std::int32_t> l) {
    *p++ = '[';
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (i != 0) *p++ = ',';
      number(l[i]);
    }
    *p++ = ']';
  };
  const auto pgid = [&] {
    number(t.pool_id);
    *p++ = '.';
    p = std::to_chars(p, buf + kMax, ps, 16).ptr;
  };
  if (json) {
    text(",\n{\"pgid\":\"");
    pgid();
    text("\",\"up\":");
    list(t.Up(row));
    text(",\"up_primary\":");
    number(t.up_primary[row]);
    text(",\"acting\":");
    list(t.Acting(row));
    text(",\"acting_primary\":");
    number(t.acting_primary[row]);
    *p++ = '}';
  } else {
    pgid();
    *p++ = '\t';
    list(t.Up(row));
    *p++ = '\t';
    number(t.up_primary[row]);
    *p++ = '\t';
    list(t.Acting(row));
    *p++ = '\t';
    number(t.acting_primary[row]);
    *p++ = '\n';
  }
  out->append(buf, static_cast<std::size_t>(p - buf));
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
  // Each chunk is formatted by the thread that mapped it and written here in
  // PG order. JSON objects each start with ",\n"; the first one's comma is
  // not written.
  bool first = true;
  if (a.json) std::fputs("[", stdout);
  const std::uint64_t diverged = osdmap::MapAllPgsInOrder(
      *session, options,
      [json = a.json](const osdmap::PoolPgTable& chunk, std::uint32_t first_ps, std::string* out) {
        out->reserve(std::size_t{chunk.pg_num} * (json ? 128 : 64));
        for (std::uint32_t row = 0; row < chunk.pg_num; ++row) {
          AppendPg(out, chunk, row, first_ps + row, json);
        }
      },
      [&](const std::string& out) {
        const std::size_t skip = a.json && first && !out.empty() ? 1 : 0;
        if (!out.empty()) first = false;
        std::fwrite(out.data() + skip, 1, out.size() - skip, stdout);
      });
  if (a.json) std::fputs(first ? "]\n" : "\n]\n", stdout);
  std::fflush(stdout);
  std::cerr << UndefinedMappingsWarning(diverged);
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
