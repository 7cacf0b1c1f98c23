// `crushkit map-object STATE POOL NAME`: object -> PG -> up/acting, printed
// like `ceph osd map`.
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"

#include "tools/crushkit/commands.h"
#include "tools/crushkit/state_loading.h"

namespace crushkit::tools {
namespace {

struct MapObjectArgs {
  std::string state;
  std::string pool;
  std::string name;
  std::string nspace;
};

int RunMapObject(const MapObjectArgs& a) {
  auto session = LoadSession("map-object", a.state);
  if (!session) return 1;
  const osdmap::Pool* pool = FindPoolArg("map-object", session->state(), a.pool);
  if (pool == nullptr) return 1;
  osdmap::PgId raw;
  session->mapper().ObjectToRawPg(pool->id, a.name, a.nspace, &raw);
  const osdmap::PgId pg{pool->id, pool->FoldPs(raw.ps)};
  osdmap::PgMapping m;
  session->mapper().PgToUpActing(pg, &m);
  const std::string object = a.nspace.empty() ? a.name : a.nspace + "/" + a.name;
  std::cout << absl::StrCat("osdmap e", session->state().epoch, " pool '", pool->name, "' (",
                            pool->id, ") object '", object, "' -> pg ", osdmap::FormatPgId(raw),
                            " (", osdmap::FormatPgId(pg), ") -> up (",
                            osdmap::FormatOsdList(m.up.span()), ", p", m.up_primary, ") acting (",
                            osdmap::FormatOsdList(m.acting.span()), ", p", m.acting_primary, ")\n");
  std::cerr << UndefinedMappingsWarning(session->diverged_from_ceph());
  return 0;
}

}  // namespace

void AddMapObjectCommand(CLI::App& app) {
  auto args = std::make_shared<MapObjectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "map-object",
      "Map an object name to its PG and up/acting OSDs (like `ceph osd map`)\n"
      "  example: crushkit map-object state.pb rbd rbd_data.1234.0000000000000000");
  cmd->add_option("state", args->state, "crushkit state file (from `crushkit import`)")->required();
  cmd->add_option("pool", args->pool, "pool name or id")->required();
  cmd->add_option("name", args->name, "object name")->required();
  cmd->add_option("--namespace", args->nspace, "object namespace");
  cmd->callback([args]() {
    if (const int rc = RunMapObject(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace crushkit::tools
