#include "osdmap/model/cluster_state.h"

#include <bit>
#include <string>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"

namespace crushkit::osdmap {
namespace {

template <typename Map>
absl::Status CheckListLengths(const Map& m, const char* what) {
  for (const auto& [pg, list] : m) {
    if (list.size() > static_cast<std::size_t>(kMaxPgOsds)) {
      return absl::InvalidArgumentError(absl::StrCat(what, " of pg ", FormatPgId(pg), " has ",
                                                     list.size(), " entries; at most ", kMaxPgOsds,
                                                     " are supported"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool Pool::IsPendingMerge(std::uint32_t ps) const {
  const std::uint32_t pending = PgNumPending();
  if (pending >= pg_num) return false;
  if (ps >= pending && ps < pg_num) return true;
  // A merge target is the parent (pg_t::get_parent(): the seed without its
  // highest set bit) of a source: ps with one bit above its own set.
  for (int b = 32 - std::countl_zero(ps); b < 32; ++b) {
    const std::uint32_t child = ps | (std::uint32_t{1} << b);
    if (child >= pending && child < pg_num) return true;
  }
  return false;
}

absl::Status ValidateState(const ClusterState& state) {
  for (const auto& [id, pool] : state.pools) {
    if (id != pool.id) {
      return absl::InvalidArgumentError(absl::StrCat("pool ", pool.id, " is stored under id ", id));
    }
    if (id < 0) return absl::InvalidArgumentError(absl::StrCat("pool id ", id, " is negative"));
    if (pool.type != PoolType::kReplicated && pool.type != PoolType::kErasure) {
      return absl::InvalidArgumentError(absl::StrCat("pool ", id, " '", pool.name, "' has type ",
                                                     static_cast<int>(pool.type),
                                                     "; expected 1 (replicated) or 3 (erasure)"));
    }
    if (pool.size > static_cast<std::uint32_t>(kMaxPgOsds)) {
      return absl::InvalidArgumentError(absl::StrCat("pool ", id, " '", pool.name, "' has size ",
                                                     pool.size, "; at most ", kMaxPgOsds,
                                                     " is supported"));
    }
  }
  if (auto s = CheckListLengths(state.pg_upmap, "pg_upmap"); !s.ok()) return s;
  if (auto s = CheckListLengths(state.pg_upmap_items, "pg_upmap_items"); !s.ok()) return s;
  if (auto s = CheckListLengths(state.pg_temp, "pg_temp"); !s.ok()) return s;
  return absl::OkStatus();
}

std::string EncodeCrush(const ClusterState& state) { return crush::EncodeCrushMap(state.crush); }

}  // namespace crushkit::osdmap
