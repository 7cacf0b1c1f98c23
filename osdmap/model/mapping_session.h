// A ready-to-map bundle: a validated ClusterState, its built CrushMap, one
// CrushPlacement (workspace) and a PgMapper over them. What the map-object
// and map-pgs commands use. Not thread-safe (one workspace); heap-allocated
// so internal references stay valid.
#ifndef CRUSHKIT_OSDMAP_MODEL_MAPPING_SESSION_H_
#define CRUSHKIT_OSDMAP_MODEL_MAPPING_SESSION_H_

#include <memory>

#include "absl/status/statusor.h"

#include "crush/map.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/crush_placement.h"
#include "osdmap/model/pg_mapping.h"

namespace crushkit::osdmap {

class MappingSession {
 public:
  // Takes the state; builds the crush map (errors from CrushMap::Build,
  // prefixed "crush map: ").
  static absl::StatusOr<std::unique_ptr<MappingSession>> Create(ClusterState state);

  // Takes the state and `map`, already built from state.crush (shared, not
  // built again). Errors: ValidateState's. REQUIRES: `map` is
  // crush::CrushMap::Build(state.crush).
  static absl::StatusOr<std::unique_ptr<MappingSession>> Create(
      ClusterState state, std::shared_ptr<const crush::CrushMap> map);

  MappingSession(const MappingSession&) = delete;
  MappingSession& operator=(const MappingSession&) = delete;

  const ClusterState& state() const { return state_; }

  // The CRUSH map built from state().crush (what a crush::ChoiceMemo pairs).
  const crush::CrushMap& crush_map() const { return *map_; }

  // The same map, shared: another session over a state with the same crush
  // map (its upmaps cleaned, say) can take it instead of building it again.
  const std::shared_ptr<const crush::CrushMap>& shared_crush_map() const { return map_; }

  PgMapper& mapper() { return *mapper_; }

  // Mappings of mapper() so far whose result is crushkit's answer where
  // Ceph's is undefined (CrushPlacement::DivergedFromCeph; workers count
  // their own).
  std::uint64_t diverged_from_ceph() const { return placement_.DivergedFromCeph(); }

  // An independent mapper (own CRUSH workspace) over the same state and
  // crush map, for another thread. The session must outlive it; any number
  // of workers may map concurrently.
  class Worker {
   public:
    explicit Worker(const MappingSession& s)
        : placement_(*s.map_, s.state_.ceph_release),
          mapper_(s.state_, placement_, StateUse::kFixed) {}

    PgMapper& mapper() { return mapper_; }

    // The CRUSH step under mapper(), e.g. to attach a crush::ChoiceMemo.
    CrushPlacement& placement() { return placement_; }

   private:
    CrushPlacement placement_;
    PgMapper mapper_;
  };

  std::unique_ptr<Worker> NewWorker() const { return std::make_unique<Worker>(*this); }

 private:
  MappingSession(ClusterState state, std::shared_ptr<const crush::CrushMap> map);

  ClusterState state_;
  std::shared_ptr<const crush::CrushMap> map_;
  CrushPlacement placement_;
  std::unique_ptr<PgMapper> mapper_;
};

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MODEL_MAPPING_SESSION_H_
