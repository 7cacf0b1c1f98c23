// The C API (crush/crushkit.h) over CrushMap and DoRule. Nothing may throw
// across it: allocation failures become NULL returns, decode errors become
// messages.
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "crush/codec.h"
#include "crush/crushkit.h"
#include "crush/internal/c_error.h"
#include "crush/map.h"
#include "crush/mapper.h"
#include "crush/types.h"
#include "crush/version.h"

struct crushkit_map {
  crushkit::crush::CrushMap map;
  // Every device fully in: what a NULL reweight vector means.
  std::vector<crushkit::crush::Weight> all_in;
};

struct crushkit_workspace {
  crushkit::crush::Workspace ws;
  std::uint64_t layout_id;
};

using crushkit::crush::internal::SetCError;

extern "C" {

const char* crushkit_version(void) { return CRUSHKIT_VERSION_STRING; }

crushkit_map* crushkit_map_from_binary(const void* data, size_t size, char** error) {
  if (error != nullptr) *error = nullptr;
  if (data == nullptr && size > 0) {
    SetCError(error, "crushkit_map_from_binary: data is NULL");
    return nullptr;
  }
  try {
    const auto* bytes = static_cast<const std::byte*>(data);
    auto model = crushkit::crush::DecodeCrushMap(std::span<const std::byte>(bytes, size));
    if (!model.ok()) {
      SetCError(error, std::string(model.status().message()));
      return nullptr;
    }
    auto map = crushkit::crush::CrushMap::Build(*model);
    if (!map.ok()) {
      SetCError(error, std::string(map.status().message()));
      return nullptr;
    }
    const auto devices = static_cast<std::size_t>(std::max(map->max_devices(), 0));
    return new crushkit_map{*std::move(map), std::vector<crushkit::crush::Weight>(
                                                 devices, crushkit::crush::kWeightOne)};
  } catch (const std::bad_alloc&) {
    SetCError(error, "crushkit_map_from_binary: out of memory");
    return nullptr;
  }
}

void crushkit_map_free(crushkit_map* map) { delete map; }

int crushkit_map_max_devices(const crushkit_map* map) {
  return map == nullptr ? 0 : map->map.max_devices();
}

int crushkit_rule_exists(const crushkit_map* map, int rule) {
  return map != nullptr && map->map.RuleExists(rule) ? 1 : 0;
}

int crushkit_rule_by_name(const crushkit_map* map, const char* name) {
  if (map == nullptr || name == nullptr) return -1;
  for (const auto& [id, rule_name] : map->map.model().rule_names) {
    if (rule_name == name && map->map.RuleExists(id)) return id;
  }
  return -1;
}

crushkit_workspace* crushkit_workspace_new(const crushkit_map* map, int max_result) {
  if (map == nullptr) return nullptr;
  try {
    return new crushkit_workspace{crushkit::crush::Workspace(map->map, max_result),
                                  map->map.layout_id()};
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void crushkit_workspace_free(crushkit_workspace* ws) { delete ws; }

int crushkit_do_rule(const crushkit_map* map, crushkit_workspace* ws, int rule, uint32_t x,
                     int32_t* out, int out_size, const uint32_t* reweights, size_t num_reweights,
                     int64_t choose_args_index) {
  if (map == nullptr || ws == nullptr || ws->layout_id != map->map.layout_id() || out_size < 0 ||
      (out == nullptr && out_size > 0) || (reweights == nullptr && num_reweights > 0)) {
    return -1;
  }
  const std::span<const crushkit::crush::Weight> weights =
      reweights == nullptr ? std::span<const crushkit::crush::Weight>(map->all_in)
                           : std::span<const crushkit::crush::Weight>(reweights, num_reweights);
  const crushkit::crush::ChooseArgsRef args = choose_args_index == CRUSHKIT_NO_CHOOSE_ARGS
                                                  ? crushkit::crush::ChooseArgsRef()
                                                  : map->map.ResolveChooseArgs(choose_args_index);
  return crushkit::crush::DoRule(
      map->map, rule, x, weights, ws->ws,
      std::span<crushkit::crush::ItemId>(out, static_cast<std::size_t>(out_size)), args);
}

void crushkit_free_string(char* s) { std::free(s); }

}  // extern "C"
