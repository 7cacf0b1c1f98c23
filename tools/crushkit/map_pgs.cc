// `crushkit map-pgs STATE [--pool P] [--json]`: every PG of every (or one)
// pool -> up/acting. One PgMapper (one CRUSH workspace) for the whole run;
// nothing is allocated per PG except output text.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "tools/crushkit/commands.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct MapPgsArgs {
  std::string state;
  std::string pool;
  bool json = false;
};

void AppendList(std::string* out, const osdmap::OsdList& l) {
  out->push_back('[');
  for (int i = 0; i < l.size(); ++i) {
    if (i) out->push_back(',');
    absl::StrAppend(out, l[i]);
  }
  out->push_back(']');
}

int RunMapPgs(const MapPgsArgs& a) {
  auto session = LoadSession("map-pgs", a.state);
  if (!session) return 1;
  const osdmap::Pool* only = nullptr;
  if (!a.pool.empty()) {
    only = FindPoolArg("map-pgs", session->state(), a.pool);
    if (only == nullptr) return 1;
  }
  std::string out;
  out.reserve(1 << 20);
  auto flush = [&out]() {
    std::fwrite(out.data(), 1, out.size(), stdout);
    out.clear();
  };
  if (a.json) out += "[\n";
  bool first = true;
  osdmap::PgMapping m;
  for (const auto& [id, pool] : session->state().pools) {
    if (only != nullptr && only->id != id) continue;
    for (std::uint32_t ps = 0; ps < pool.pg_num; ++ps) {
      session->mapper().MapPg(pool, ps, &m);
      if (a.json) {
        absl::StrAppend(&out, first ? "" : ",\n", "{\"pgid\":\"",
                        osdmap::FormatPgId({id, ps}), "\",\"up\":");
        AppendList(&out, m.up);
        absl::StrAppend(&out, ",\"up_primary\":", m.up_primary, ",\"acting\":");
        AppendList(&out, m.acting);
        absl::StrAppend(&out, ",\"acting_primary\":", m.acting_primary, "}");
        first = false;
      } else {
        absl::StrAppend(&out, id, ".");
        char hex[16];
        std::snprintf(hex, sizeof(hex), "%x", ps);
        out += hex;
        out.push_back('\t');
        AppendList(&out, m.up);
        absl::StrAppend(&out, "\t", m.up_primary, "\t");
        AppendList(&out, m.acting);
        absl::StrAppend(&out, "\t", m.acting_primary, "\n");
      }
      if (out.size() > (1 << 20) - 512) flush();
    }
  }
  if (a.json) out += first ? "]\n" : "\n]\n";
  flush();
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
  cmd->callback([args]() {
    if (const int rc = RunMapPgs(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
