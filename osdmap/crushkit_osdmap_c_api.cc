// The C API of the OSDMap pipeline (osdmap/crushkit_osdmap.h) over
// ParseState, MappingSession and PgMapper. Nothing may throw across it.
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "crush/internal/c_error.h"
#include "osdmap/crushkit_osdmap.h"
#include "osdmap/formats/state_codec.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/mapping_session.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/model/pg_mapping.h"

struct crushkit_state {
  std::unique_ptr<crushkit::osdmap::MappingSession> session;
};

struct crushkit_state_mapper {
  const crushkit_state* state;
  std::unique_ptr<crushkit::osdmap::MappingSession::Worker> worker;
};

static_assert(CRUSHKIT_MAX_PG_OSDS == crushkit::osdmap::kMaxPgOsds);

using crushkit::crush::internal::SetCError;

namespace {

void CopyList(const crushkit::osdmap::OsdList& from, std::int32_t* to, int* size) {
  *size = from.size();
  for (int i = 0; i < from.size(); ++i) to[i] = from[i];
}

}  // namespace

extern "C" {

crushkit_state* crushkit_state_from_bytes(const void* data, size_t size, char** error) {
  if (error != nullptr) *error = nullptr;
  if (data == nullptr && size > 0) {
    SetCError(error, "crushkit_state_from_bytes: data is NULL");
    return nullptr;
  }
  try {
    auto state = crushkit::osdmap::ParseState(std::string(static_cast<const char*>(data), size));
    if (!state.ok()) {
      SetCError(error, std::string(state.status().message()));
      return nullptr;
    }
    auto session = crushkit::osdmap::MappingSession::Create(*std::move(state));
    if (!session.ok()) {
      SetCError(error, std::string(session.status().message()));
      return nullptr;
    }
    return new crushkit_state{*std::move(session)};
  } catch (const std::bad_alloc&) {
    SetCError(error, "crushkit_state_from_bytes: out of memory");
    return nullptr;
  }
}

void crushkit_state_free(crushkit_state* state) { delete state; }

uint32_t crushkit_state_epoch(const crushkit_state* state) {
  return state == nullptr ? 0 : state->session->state().epoch;
}

int64_t crushkit_pool_by_name(const crushkit_state* state, const char* name) {
  if (state == nullptr || name == nullptr) return -1;
  for (const auto& [id, pool] : state->session->state().pools) {
    if (pool.name == name) return id;
  }
  return -1;
}

uint32_t crushkit_pool_pg_num(const crushkit_state* state, int64_t pool) {
  if (state == nullptr) return 0;
  const crushkit::osdmap::Pool* p = state->session->state().FindPool(pool);
  return p == nullptr ? 0 : p->pg_num;
}

crushkit_state_mapper* crushkit_state_mapper_new(const crushkit_state* state) {
  if (state == nullptr) return nullptr;
  try {
    return new crushkit_state_mapper{state, state->session->NewWorker()};
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void crushkit_state_mapper_free(crushkit_state_mapper* mapper) { delete mapper; }

int crushkit_object_to_pg(const crushkit_state* state, int64_t pool, const char* name,
                          const char* nspace, uint32_t* ps) {
  if (state == nullptr || name == nullptr || nspace == nullptr || ps == nullptr) return -1;
  const crushkit::osdmap::Pool* p = state->session->state().FindPool(pool);
  if (p == nullptr) return -1;
  crushkit::osdmap::PgId raw;
  if (!state->session->mapper().ObjectToRawPg(pool, name, nspace, &raw)) return -1;
  *ps = p->FoldPs(raw.ps);
  return 0;
}

int crushkit_pg_to_up_acting(crushkit_state_mapper* mapper, int64_t pool, uint32_t ps,
                             crushkit_pg_mapping* out) {
  if (mapper == nullptr || out == nullptr) return -1;
  if (mapper->state->session->state().FindPool(pool) == nullptr) return -1;
  crushkit::osdmap::PgMapping m;
  mapper->worker->mapper().PgToUpActing(crushkit::osdmap::PgId{pool, ps}, &m);
  CopyList(m.up, out->up, &out->up_size);
  CopyList(m.acting, out->acting, &out->acting_size);
  out->up_primary = m.up_primary;
  out->acting_primary = m.acting_primary;
  return 0;
}

}  // extern "C"
