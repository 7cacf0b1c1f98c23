// crushkit.ClusterState: a cluster state (osdmap::ClusterState) as the CLI's
// state-taking commands load it, mapped through an osdmap::MappingSession;
// whole pools through the parallel all-PG mapper (osdmap/model/pg_table.h), and
// crushkit.diff through osdmap::DiffStates after the monitor's upmap cleanup
// (what `crushkit diff` reports); crushkit.plan through osdmap::PlanChange
// (what `crushkit plan --json` prints).
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "osdmap/changes/change_ops.h"
#include "osdmap/changes/upmap_cleanup.h"
#include "osdmap/formats/state_codec.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/backfill_cost.h"
#include "osdmap/planning/backfill_pusher.h"
#include "osdmap/planning/movement.h"
#include "osdmap/planning/movement_report.h"
#include "osdmap/planning/planner.h"
#include "tools/python/bindings.h"
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace crushkit::python {
namespace {

namespace py = pybind11;

// A pool given by id or by name.
using PoolArg = std::variant<std::int64_t, std::string>;

using PgTuple = std::tuple<std::vector<std::int32_t>, int, std::vector<std::int32_t>, int>;

PgTuple ToTuple(const osdmap::PgMapping& m) {
  return {m.up.ToVector(), m.up_primary, m.acting.ToVector(), m.acting_primary};
}

// A (rows, width) int32 array holding `flat`.
py::array_t<std::int32_t> Matrix(const std::vector<std::int32_t>& flat, std::uint32_t rows,
                                 int width) {
  py::array_t<std::int32_t> a({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(width)});
  if (!flat.empty()) std::memcpy(a.mutable_data(), flat.data(), flat.size() * sizeof(std::int32_t));
  return a;
}

py::array_t<std::int32_t> Vector(const std::vector<std::int32_t>& v) {
  return py::array_t<std::int32_t>(static_cast<py::ssize_t>(v.size()), v.data());
}

class PyClusterState {
 public:
  static PyClusterState FromBytes(const py::bytes& data) {
    osdmap::ClusterState state = ValueOrThrow(osdmap::ParseState(std::string(data)));
    return PyClusterState(ValueOrThrow(osdmap::MappingSession::Create(std::move(state))));
  }

  static PyClusterState Load(const std::string& path) {
    const std::string bytes = ReadFileOrThrow(path);
    return FromBytes(py::bytes(bytes));
  }

  const osdmap::ClusterState& state() const { return session_->state(); }

  void Save(const std::string& path) const {
    WriteFileOrThrow(
        path, ValueOrThrow(osdmap::SerializeState(state(), osdmap::StateFormatForPath(path))));
  }

  std::map<std::string, std::int64_t> Pools() const {
    std::map<std::string, std::int64_t> pools;
    for (const auto& [id, pool] : state().pools) pools.emplace(pool.name, id);
    return pools;
  }

  const osdmap::Pool& FindPool(const PoolArg& arg) const {
    if (const std::int64_t* id = std::get_if<std::int64_t>(&arg)) {
      if (const osdmap::Pool* p = state().FindPool(*id)) return *p;
      throw py::value_error("no pool " + std::to_string(*id));
    }
    const std::string& name = std::get<std::string>(arg);
    for (const auto& [id, pool] : state().pools) {
      if (pool.name == name) return pool;
    }
    throw py::value_error("no pool '" + name + "'");
  }

  PgTuple MapPg(const PoolArg& pool, std::uint32_t ps) {
    osdmap::PgMapping m;
    session_->mapper().PgToUpActing({FindPool(pool).id, ps}, &m);
    return ToTuple(m);
  }

  std::tuple<std::string, std::vector<std::int32_t>, int, std::vector<std::int32_t>, int> MapObject(
      const PoolArg& pool_arg, const std::string& name, const std::string& nspace) {
    const osdmap::Pool& pool = FindPool(pool_arg);
    osdmap::PgId raw;
    session_->mapper().ObjectToRawPg(pool.id, name, nspace, &raw);
    const osdmap::PgId pg{pool.id, pool.FoldPs(raw.ps)};
    osdmap::PgMapping m;
    session_->mapper().PgToUpActing(pg, &m);
    auto [up, up_primary, acting, acting_primary] = ToTuple(m);
    return {osdmap::FormatPgId(pg), std::move(up), up_primary, std::move(acting), acting_primary};
  }

  py::tuple MapPool(const PoolArg& pool, int threads) const {
    osdmap::MapAllOptions options;
    options.only_pool = FindPool(pool).id;
    options.threads = threads;
    osdmap::PgTable table;
    {
      py::gil_scoped_release unlocked;
      table = osdmap::MapAllPgs(*session_, options);
    }
    const osdmap::PoolPgTable& t = table.pools.at(0);
    return py::make_tuple(Matrix(t.up, t.pg_num, t.width), Vector(t.up_primary),
                          Matrix(t.acting, t.pg_num, t.width), Vector(t.acting_primary));
  }

 private:
  explicit PyClusterState(std::unique_ptr<osdmap::MappingSession> session)
      : session_(std::move(session)) {}

  std::shared_ptr<osdmap::MappingSession> session_;
};

// Every PG the change gives a new OSD, as (pgid, source OSD, new OSDs).
// `after`'s upmaps are cleaned first, as `crushkit diff` cleans them
// (osdmap/planning/planner.h DiffTwoStates), unless keep_upmaps.
std::vector<std::tuple<std::string, std::int32_t, std::vector<std::int32_t>>> Diff(
    const PyClusterState& before, const PyClusterState& after, int threads, bool keep_upmaps) {
  osdmap::MovementOptions options;
  options.keep_moves = true;
  options.threads = threads;
  absl::StatusOr<osdmap::Movement> movement;
  {
    py::gil_scoped_release unlocked;
    osdmap::ClusterState after_state = after.state();
    absl::Status cleaned = absl::OkStatus();
    if (!keep_upmaps) cleaned = osdmap::CleanPgUpmaps(after_state).status();
    movement = cleaned.ok() ? osdmap::DiffStates(before.state(), std::move(after_state), options)
                            : absl::StatusOr<osdmap::Movement>(cleaned);
  }
  const osdmap::Movement result = ValueOrThrow(std::move(movement));
  std::vector<std::tuple<std::string, std::int32_t, std::vector<std::int32_t>>> moves;
  for (const osdmap::PgMove& move : result.moves) {
    moves.emplace_back(osdmap::FormatPgId(move.pg), move.source, move.targets);
  }
  return moves;
}

// A limit given as a share (0.05) or as the CLI's text ("5%", "none").
using LimitArg = std::variant<double, std::string>;

double Limit(const LimitArg& arg, bool fill) {
  if (const std::string* text = std::get_if<std::string>(&arg)) {
    return ValueOrThrow(fill ? osdmap::ParseFillLimit(*text) : osdmap::ParseMisplacedLimit(*text));
  }
  const double v = std::get<double>(arg);
  if (!(v > 0 && v <= 1) && !(fill && v == 0)) {
    throw py::value_error(std::string(fill ? "max_fill" : "max_misplaced") + " " +
                          std::to_string(v) + ": expected a share above 0 and at most 1" +
                          (fill ? " (0: no limit)" : ""));
  }
  return v;
}

// `crushkit plan STATE --do OP ... --json` as a dict: `ops` is a change
// file's text (one operation per line) or a list of operations; max_misplaced
// (--max-misplaced) plans in steps, max_fill (--max-fill) keeps every OSD
// under that fill in them; log_tails is --log-tails' JSON, calibration a
// `crushkit calibrate` file's text.
py::object Plan(const PyClusterState& state,
                const std::variant<std::string, std::vector<std::string>>& ops,
                const std::optional<LimitArg>& max_misplaced,
                const std::optional<LimitArg>& max_fill,
                const std::optional<std::string>& log_tails,
                const std::optional<std::string>& calibration, int max_backfills, bool pgs,
                int threads) {
  std::string text;
  if (const std::string* t = std::get_if<std::string>(&ops)) {
    text = *t;
  } else {
    for (const std::string& op : std::get<std::vector<std::string>>(ops)) text += op + "\n";
  }
  const osdmap::ChangeList change = ValueOrThrow(osdmap::ParseChange(text, "ops"));
  osdmap::PlanOptions options;
  options.movement.threads = threads;
  options.movement.keep_moves = pgs;
  options.backfill.max_backfills = max_backfills;
  osdmap::BackfillCostSettings& cost = options.backfill_cost.emplace();
  if (calibration) {
    osdmap::Calibration parsed = ValueOrThrow(osdmap::ParseCalibration(*calibration));
    cost.calibrated = std::move(parsed.costs);
    cost.concurrency_slowdown = parsed.concurrency_slowdown;
    cost.calibration_source = "crushkit.plan(calibration=...)";
  }
  if (max_fill && !max_misplaced) {
    throw py::value_error("max_fill plans in steps: give max_misplaced too");
  }
  if (max_misplaced) options.max_misplaced = Limit(*max_misplaced, /*fill=*/false);
  if (max_fill) options.max_fill = Limit(*max_fill, /*fill=*/true);
  osdmap::PgLogTails tails;
  if (log_tails) {
    tails = ValueOrThrow(osdmap::ParseLogTailsJson(*log_tails));
    options.movement.log_tails = &tails;
  }
  absl::StatusOr<std::string> json;
  {
    py::gil_scoped_release unlocked;
    absl::StatusOr<osdmap::PlanReport> report = osdmap::PlanChange(state.state(), change, options);
    json = report.ok() ? osdmap::ReportToJson(*report, pgs)
                       : absl::StatusOr<std::string>(report.status());
  }
  return py::module_::import("json").attr("loads")(ValueOrThrow(std::move(json)));
}

}  // namespace

void BindClusterState(py::module_& m) {
  py::class_<PyClusterState>(
      m, "ClusterState",
      "A cluster state: pools, OSDs, upmaps, temps and the crush map, mapped as Ceph's OSDMap.")
      .def_static("load", &PyClusterState::Load, py::arg("path"),
                  "Reads a state file as the crushkit commands do: a `crushkit import` state "
                  "(.pb or .json) or Ceph's binary osdmap (`ceph osd getmap`). OSError if "
                  "unreadable, ValueError if invalid.")
      .def_static("from_bytes", &PyClusterState::FromBytes, py::arg("data"))
      .def("save", &PyClusterState::Save, py::arg("path"),
           "Writes the state as `crushkit import -o` does (.json: protobuf JSON, else binary), "
           "through the CLI's writer. OSError if it cannot be written.")
      .def_property_readonly("epoch", [](const PyClusterState& s) { return s.state().epoch; })
      .def_property_readonly("pools", &PyClusterState::Pools, "{pool name: pool id}")
      .def(
          "pg_num",
          [](const PyClusterState& s, const PoolArg& pool) { return s.FindPool(pool).pg_num; },
          py::arg("pool"))
      .def("map_pg", &PyClusterState::MapPg, py::arg("pool"), py::arg("ps"),
           "PG (pool id or name, seed) -> (up, up_primary, acting, acting_primary), as "
           "`osdmaptool --test-map-pg`.")
      .def("map_object", &PyClusterState::MapObject, py::arg("pool"), py::arg("name"),
           py::arg("namespace") = "",
           "Object -> (pgid, up, up_primary, acting, acting_primary), as `ceph osd map`.")
      .def("map_pool", &PyClusterState::MapPool, py::arg("pool"), py::arg("threads") = 0,
           "Every PG of a pool, on all cores without the GIL: (up, up_primary, acting, "
           "acting_primary); up and acting are int32 arrays of shape (pg_num, width) "
           "padded with ITEM_NONE (EC holes are ITEM_NONE too), primaries int32 arrays "
           "(-1: none).");
  m.def("diff", &Diff, py::arg("before"), py::arg("after"), py::arg("threads") = 0,
        py::arg("keep_upmaps") = false,
        "PGs that `crushkit diff before after` moves: [(pgid, source OSD, [new OSDs])], in "
        "pool and PG order, after's upmaps cleaned as the monitor does (keep_upmaps=True: as "
        "they are, `--keep-upmaps`). ValueError if the states are not of one cluster.");
  m.def("plan", &Plan, py::arg("state"), py::arg("ops"), py::kw_only(),
        py::arg("max_misplaced") = std::nullopt, py::arg("max_fill") = std::nullopt,
        py::arg("log_tails") = std::nullopt, py::arg("calibration") = std::nullopt,
        py::arg("max_backfills") = 1, py::arg("pgs") = false, py::arg("threads") = 0,
        "`crushkit plan` as a dict (its --json): ops is a change file's text or a list of "
        "operations (`osd out 3`, ...). max_misplaced (0.05 or \"5%\") also plans in steps; "
        "max_fill (0.85, \"85%\", or 0 / \"none\" for no limit; default the state's "
        "backfillfull_ratio) keeps every receiving OSD under that fill in every step; log_tails "
        "(JSON text, as --log-tails) picks replicated pushers by log tail; calibration is a "
        "`crushkit calibrate` file's text; pgs=True lists every moving PG. ValueError on a bad "
        "operation or limit.");
}

}  // namespace crushkit::python
