// The mapping half of the movement report: two states checked comparable,
// their sessions opened, every PG of both mapped (MapChange), and the
// shortcuts that map and compare in one call.
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/codec.h"
#include "osdmap/model/pg_table.h"
#include "osdmap/planning/movement.h"

namespace crushkit::osdmap {

absl::Status CheckComparable(const ClusterState& before, const ClusterState& after) {
  if (!before.fsid.empty() && !after.fsid.empty() && before.fsid != after.fsid) {
    return absl::InvalidArgumentError(absl::StrCat("the states are of different clusters (fsid ",
                                                   before.fsid, " vs ", after.fsid, ")"));
  }
  std::vector<std::int64_t> only_before, only_after;
  for (const auto& [id, p] : before.pools) {
    if (!after.pools.contains(id)) only_before.push_back(id);
  }
  for (const auto& [id, p] : after.pools) {
    if (!before.pools.contains(id)) only_after.push_back(id);
  }
  if (!only_before.empty() || !only_after.empty()) {
    std::string msg = "the states have different pools";
    if (!only_before.empty())
      absl::StrAppend(&msg, "; only before: ", absl::StrJoin(only_before, ","));
    if (!only_after.empty())
      absl::StrAppend(&msg, "; only after: ", absl::StrJoin(only_after, ","));
    return absl::InvalidArgumentError(msg + " (are they of the same cluster?)");
  }
  return absl::OkStatus();
}

absl::StatusOr<SessionPair> OpenSessionPair(ClusterState before, ClusterState after) {
  return OpenSessionPair(std::move(before), std::move(after), nullptr);
}

absl::StatusOr<SessionPair> OpenSessionPair(ClusterState before, ClusterState after,
                                            std::shared_ptr<const crush::CrushMap> after_map) {
  if (absl::Status s = CheckComparable(before, after); !s.ok()) return s;
  auto sb = MappingSession::Create(std::move(before));
  if (!sb.ok()) {
    return absl::Status(sb.status().code(), absl::StrCat("before: ", sb.status().message()));
  }
  auto sa = after_map != nullptr ? MappingSession::Create(std::move(after), std::move(after_map))
                                 : MappingSession::Create(std::move(after));
  if (!sa.ok()) {
    return absl::Status(sa.status().code(), absl::StrCat("after: ", sa.status().message()));
  }
  return SessionPair{*std::move(sb), *std::move(sa)};
}

MappedChange MapSessions(SessionPair sessions, const MovementOptions& options) {
  std::uint64_t all = 0;
  for (const auto& [id, p] : sessions.before->state().pools) all += p.pg_num;
  for (const auto& [id, p] : sessions.after->state().pools) all += p.pg_num;
  MapAllOptions mo;
  mo.threads = options.threads;
  mo.acting = false;
  mo.recorded = options.recorded;
  mo.record = options.record;
  if (options.progress)
    mo.progress = [&](std::uint64_t done, std::uint64_t) { options.progress(done, all); };
  auto tables =
      std::make_shared<const PgTablePair>(MapAllPgsPaired(*sessions.before, *sessions.after, mo));
  return MappedChange{std::move(sessions.before), std::move(sessions.after), std::move(tables)};
}

absl::StatusOr<MappedChange> MapChange(ClusterState before, ClusterState after,
                                       const MovementOptions& options,
                                       std::shared_ptr<const crush::CrushMap> after_map) {
  auto sessions = OpenSessionPair(std::move(before), std::move(after), std::move(after_map));
  if (!sessions.ok()) return sessions.status();
  return MapSessions(*std::move(sessions), options);
}

Movement CompareChange(const MappedChange& change, const MovementOptions& options) {
  return CompareMappedStates(change.before->state(), change.after->state(), change.tables->before,
                             change.tables->after, options);
}

absl::StatusOr<Movement> DiffStates(ClusterState before, ClusterState after,
                                    const MovementOptions& options) {
  absl::StatusOr<MappedChange> mapped = MapChange(std::move(before), std::move(after), options);
  if (!mapped.ok()) return mapped.status();
  return CompareChange(*mapped, options);
}

absl::StatusOr<ClusterState> WithCrushMap(const ClusterState& state, std::string crush_bytes) {
  absl::StatusOr<crush::MapModel> model = crush::DecodeCrushMap(crush_bytes);
  if (!model.ok()) return model.status();
  ClusterState out = state;
  out.crush = *std::move(model);
  return out;
}

}  // namespace crushkit::osdmap
