#include "osdmap/model/mapping_session.h"

#include "absl/strings/str_cat.h"

namespace crushkit::osdmap {

MappingSession::MappingSession(ClusterState state, std::shared_ptr<const crush::CrushMap> map)
    : state_(std::move(state)), map_(std::move(map)), placement_(*map_, state_.ceph_release) {
  mapper_ = std::make_unique<PgMapper>(state_, placement_, StateUse::kFixed);
}

absl::StatusOr<std::unique_ptr<MappingSession>> MappingSession::Create(ClusterState state) {
  if (auto s = ValidateState(state); !s.ok()) return s;
  auto map = crush::CrushMap::Build(state.crush);
  if (!map.ok()) {
    return absl::Status(map.status().code(), absl::StrCat("crush map: ", map.status().message()));
  }
  return std::unique_ptr<MappingSession>(new MappingSession(
      std::move(state), std::make_shared<const crush::CrushMap>(*std::move(map))));
}

absl::StatusOr<std::unique_ptr<MappingSession>> MappingSession::Create(
    ClusterState state, std::shared_ptr<const crush::CrushMap> map) {
  if (auto s = ValidateState(state); !s.ok()) return s;
  return std::unique_ptr<MappingSession>(new MappingSession(std::move(state), std::move(map)));
}

}  // namespace crushkit::osdmap
