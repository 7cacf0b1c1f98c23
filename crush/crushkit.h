/* crushkit.h: the C API of crushkit's CRUSH mapper (C99; also valid C++).
 *
 * For languages and daemons that cannot use the C++ API (crush/map.h,
 * crush/mapper.h). It wraps the same code: results are bit-identical to
 * crush::DoRule(), hence to Ceph's crush_do_rule().
 *
 *   char *err = NULL;
 *   crushkit_map *map = crushkit_map_from_binary(bytes, size, &err);
 *   if (map == NULL) { fprintf(stderr, "%s\n", err); crushkit_free_string(err); ... }
 *   crushkit_workspace *ws = crushkit_workspace_new(map, 3);   // one per thread
 *   int32_t osds[3];
 *   int n = crushkit_do_rule(map, ws, rule, pg_seed, osds, 3, NULL, 0, pool_id);
 *   crushkit_workspace_free(ws);
 *   crushkit_map_free(map);
 *
 * Ownership: every pointer a crushkit_*_new / _from_ function returns is
 * owned by the caller and released with the matching _free function; strings
 * returned through `char **error` are released with crushkit_free_string().
 * NULL is accepted by every _free function.
 *
 * Thread-safety: a crushkit_map is immutable; any number of threads may map
 * through one map at once, each with its own workspace. A workspace must not
 * be used by two threads at the same time. A map must outlive its
 * workspaces.
 *
 * Errors: functions that can fail return NULL or a negative value and, where
 * they take `char **error`, store a message there (if error is not NULL).
 * No function aborts, throws or reads outside the buffers it is given. */
#ifndef CRUSHKIT_CRUSH_CRUSHKIT_H_
#define CRUSHKIT_CRUSH_CRUSHKIT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An immutable CRUSH map ready for mapping. */
typedef struct crushkit_map crushkit_map;
/* Per-thread scratch state for crushkit_do_rule (crush::Workspace). */
typedef struct crushkit_workspace crushkit_workspace;

/* A device slot that could not be filled (indep rules): CRUSH_ITEM_NONE. */
#define CRUSHKIT_ITEM_NONE 0x7fffffff
/* Reweight of a fully "in" device (16.16 fixed point). */
#define CRUSHKIT_WEIGHT_ONE 0x10000u

/* The library version, "MAJOR.MINOR.PATCH" (static storage). */
const char* crushkit_version(void);

/* Decodes Ceph's binary crush map (`ceph osd getcrushmap`, crushtool -o)
 * from `size` bytes at `data`. Returns NULL on a malformed map, with the
 * reason in *error. Cost: linear in size. */
crushkit_map* crushkit_map_from_binary(const void* data, size_t size, char** error);
void crushkit_map_free(crushkit_map* map);

/* Highest device id + 1 (Ceph's max_devices). */
int crushkit_map_max_devices(const crushkit_map* map);
/* 1 if rule id `rule` exists, else 0. */
int crushkit_rule_exists(const crushkit_map* map, int rule);
/* The id of the rule named `name`, or -1 if none. */
int crushkit_rule_by_name(const crushkit_map* map, const char* name);

/* A workspace for results of at most `max_result` items (clamped to
 * [0, 65536]). Returns NULL only if memory runs out. */
crushkit_workspace* crushkit_workspace_new(const crushkit_map* map, int max_result);
void crushkit_workspace_free(crushkit_workspace* ws);

/* Maps input `x` through `rule` (crush_do_rule) into out[0 .. out_size),
 * returning the number of items written (at most min(out_size, the
 * workspace's max_result)), 0 if the rule does not exist, or -1 if `ws` was
 * made for another map or an argument is invalid (out NULL with
 * out_size > 0, or reweights NULL with num_reweights > 0).
 * `reweights` (16.16, CRUSHKIT_WEIGHT_ONE = in) gives each device's in/out
 * weight, devices past num_reweights being out; reweights NULL with
 * num_reweights 0 means every device is fully in (crushtool --test).
 * `choose_args_index`: the weight-set index (a pool id; -1 for the compat
 * set) with Ceph's fallback to -1, or CRUSHKIT_NO_CHOOSE_ARGS for none.
 * Allocates nothing. */
#define CRUSHKIT_NO_CHOOSE_ARGS INT64_MIN
int crushkit_do_rule(const crushkit_map* map, crushkit_workspace* ws, int rule, uint32_t x,
                     int32_t* out, int out_size, const uint32_t* reweights, size_t num_reweights,
                     int64_t choose_args_index);

/* Releases a string returned through `char **error`. */
void crushkit_free_string(char* s);

#ifdef __cplusplus
}
#endif

#endif /* CRUSHKIT_CRUSH_CRUSHKIT_H_ */
