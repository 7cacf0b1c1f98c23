// `crushkit map-pgs STATE [--pool P] [--json]`: every PG of every (or one)
// pool -> up/acting. One PgMapper (one CRUSH workspace) per thread for the
// whole run; nothing is allocated per PG except output text.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
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

void AppendList(std::string* out, const osdmap::OsdList& l) {
  out->push_back('[');
  for (int i = 0; i < l.size(); ++i) {
    if (i) out->push_back(',');
    absl::StrAppend(out, l[i]);
  }
  out->push_back(']');
}

// Formats PGs [begin, end) of `pool` into `out` with its own worker.
void MapRange(osdmap::MappingSession::Worker& w, const osdmap::Pool& pool, std::uint32_t begin,
              std::uint32_t end, bool json, std::string* out) {
  osdmap::PgMapping m;
  for (std::uint32_t ps = begin; ps < end; ++ps) {
    w.mapper().MapPg(pool, ps, &m);
    if (json) {
      absl::StrAppend(out, "{\"pgid\":\"", osdmap::FormatPgId({pool.id, ps}), "\",\"up\":");
      AppendList(out, m.up);
      absl::StrAppend(out, ",\"up_primary\":", m.up_primary, ",\"acting\":");
      AppendList(out, m.acting);
      absl::StrAppend(out, ",\"acting_primary\":", m.acting_primary, "},\n");
    } else {
      absl::StrAppend(out, pool.id, ".");
      char hex[16];
      std::snprintf(hex, sizeof(hex), "%x", ps);
      *out += hex;
      out->push_back('\t');
      AppendList(out, m.up);
      absl::StrAppend(out, "\t", m.up_primary, "\t");
      AppendList(out, m.acting);
      absl::StrAppend(out, "\t", m.acting_primary, "\n");
    }
  }
}

int RunMapPgs(const MapPgsArgs& a) {
  auto session = LoadSession("map-pgs", a.state);
  if (!session) return 1;
  const osdmap::Pool* only = nullptr;
  if (!a.pool.empty()) {
    only = FindPoolArg("map-pgs", session->state(), a.pool);
    if (only == nullptr) return 1;
  }
  int threads = a.threads > 0 ? a.threads
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, 64);
  std::vector<std::unique_ptr<osdmap::MappingSession::Worker>> workers;
  for (int t = 0; t < threads; ++t) workers.push_back(session->NewWorker());
  // Chunks of PGs are mapped in parallel, each into its own buffer, and
  // written in PG order, so the output does not depend on --threads.
  constexpr std::uint32_t kChunk = 1 << 14;
  std::vector<std::string> bufs(static_cast<std::size_t>(threads));
  bool first_json = true;
  if (a.json) std::fputs("[\n", stdout);
  std::string pending;  // JSON: the last object, written without its ",\n" at the end
  for (const auto& [id, pool] : session->state().pools) {
    if (only != nullptr && only->id != id) continue;
    for (std::uint64_t base = 0; base < pool.pg_num;
         base += static_cast<std::uint64_t>(kChunk) * static_cast<std::uint64_t>(threads)) {
      std::vector<std::thread> running;
      for (int t = 0; t < threads; ++t) {
        const std::uint64_t b = base + static_cast<std::uint64_t>(t) * kChunk;
        const std::uint64_t e = std::min<std::uint64_t>(b + kChunk, pool.pg_num);
        bufs[static_cast<std::size_t>(t)].clear();
        if (b >= e) continue;
        auto job = [&, t, b, e, p = &pool]() {
          MapRange(*workers[static_cast<std::size_t>(t)], *p, static_cast<std::uint32_t>(b),
                   static_cast<std::uint32_t>(e), a.json, &bufs[static_cast<std::size_t>(t)]);
        };
        if (threads == 1) {
          job();
        } else {
          running.emplace_back(job);
        }
      }
      for (auto& th : running) th.join();
      for (const std::string& buf : bufs) {
        if (buf.empty()) continue;
        if (a.json) {
          std::fwrite(pending.data(), 1, pending.size(), stdout);
          pending.assign(buf);
          first_json = false;
        } else {
          std::fwrite(buf.data(), 1, buf.size(), stdout);
        }
      }
    }
  }
  if (a.json) {
    if (!first_json) pending.resize(pending.size() - 2);  // drop the last ",\n"
    std::fwrite(pending.data(), 1, pending.size(), stdout);
    std::fputs(first_json ? "]\n" : "\n]\n", stdout);
  }
  std::fflush(stdout);
  return std::ferror(stdout) ? 1 : 0;
}

}  // namespace

void AddMapPgsCommand(CLI::App& app) {
  auto args = std::make_shared<MapPgsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "map-pgs",
      "Map every PG to its up and acting OSDs. Text: one line per PG, "
      "\"<pgid>\\t[up]\\t<up primary>\\t[acting]\\t<acting primary>\"");
  cmd->add_option("state", args->state, "crushkit state file (from `crushkit import`)")
      ->required();
  cmd->add_option("--pool", args->pool, "only this pool (name or id)");
  cmd->add_flag("--json", args->json, "print a JSON array of {pgid, up, up_primary, acting, "
                                      "acting_primary}");
  cmd->add_option("--threads", args->threads,
                  "mapping threads (default: number of CPUs); output is the same for any value");
  cmd->callback([args]() {
    if (const int rc = RunMapPgs(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
