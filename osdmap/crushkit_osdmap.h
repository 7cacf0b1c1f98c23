/* crushkit_osdmap.h: the C API of crushkit's OSDMap pipeline (C99; also
 * valid C++): object -> PG -> up/acting exactly as Ceph's OSDMap, on a
 * cluster state loaded from Ceph's binary osdmap (`ceph osd getmap`) or a
 * crushkit state file (`crushkit import`). Companion of crush/crushkit.h
 * (same conventions).
 *
 *   crushkit_state *st = crushkit_state_from_bytes(bytes, size, &err);
 *   crushkit_state_mapper *m = crushkit_state_mapper_new(st);   // one per thread
 *   uint32_t ps;
 *   crushkit_object_to_pg(st, pool, "rbd_data.1", "", &ps);
 *   crushkit_pg_mapping pg;
 *   crushkit_pg_to_up_acting(m, pool, ps, &pg);
 *
 * Ownership: as in crush/crushkit.h; release with the matching _free.
 * Thread-safety: a crushkit_state is immutable and may be shared; a
 * crushkit_state_mapper is used by one thread at a time and must not outlive
 * its state. */
#ifndef CRUSHKIT_OSDMAP_CRUSHKIT_OSDMAP_H_
#define CRUSHKIT_OSDMAP_CRUSHKIT_OSDMAP_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crushkit_state crushkit_state;
typedef struct crushkit_state_mapper crushkit_state_mapper;

/* Ceph's largest PG size (OSDs per PG) that the pipeline handles. */
#define CRUSHKIT_MAX_PG_OSDS 32

/* One PG's placement. Holes (EC shards without an OSD) are
 * CRUSHKIT_ITEM_NONE (0x7fffffff); primaries are -1 when there is none. */
typedef struct crushkit_pg_mapping {
  int32_t up[CRUSHKIT_MAX_PG_OSDS];
  int up_size;
  int up_primary;
  int32_t acting[CRUSHKIT_MAX_PG_OSDS];
  int acting_size;
  int acting_primary;
} crushkit_pg_mapping;

/* Loads a cluster state: Ceph's binary osdmap, or a crushkit state file
 * (binary or JSON). Returns NULL with the reason in *error on bad input. */
crushkit_state* crushkit_state_from_bytes(const void* data, size_t size, char** error);
void crushkit_state_free(crushkit_state* state);

/* The state's osdmap epoch. */
uint32_t crushkit_state_epoch(const crushkit_state* state);
/* The pool named `name`'s id, or -1 if none. */
int64_t crushkit_pool_by_name(const crushkit_state* state, const char* name);
/* The pool's pg_num, or 0 if the pool does not exist. */
uint32_t crushkit_pool_pg_num(const crushkit_state* state, int64_t pool);

/* A per-thread mapper (its own CRUSH workspace). NULL if memory runs out. */
crushkit_state_mapper* crushkit_state_mapper_new(const crushkit_state* state);
void crushkit_state_mapper_free(crushkit_state_mapper* mapper);

/* Ceph's object_locator_to_pg + fold: the PG seed (ps) of object `name` in
 * namespace `nspace` ("" for none) of `pool`. Returns 0, or -1 if the pool
 * does not exist or an argument is NULL. */
int crushkit_object_to_pg(const crushkit_state* state, int64_t pool, const char* name,
                          const char* nspace, uint32_t* ps);

/* OSDMap::pg_to_up_acting_osds() for PG pool.ps (a ps >= pg_num maps as
 * Ceph maps it). Returns 0, or -1 if the pool does not exist or an argument
 * is NULL. Allocates nothing. */
int crushkit_pg_to_up_acting(crushkit_state_mapper* mapper, int64_t pool, uint32_t ps,
                             crushkit_pg_mapping* out);

#ifdef __cplusplus
}
#endif

#endif /* CRUSHKIT_OSDMAP_CRUSHKIT_OSDMAP_H_ */
