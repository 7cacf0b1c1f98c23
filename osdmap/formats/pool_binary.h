// Ceph's pg_pool_t in binary (osd/osd_types.cc pg_pool_t::encode/decode),
// every field, for the OSDMap codec (osdmap_binary.h). Fields appear on the
// wire only from the struct version that introduced them ([vN] below);
// EncodePool writes exactly the fields of frame.v, so decode+encode is the
// identity for every pool whose frame.v >= 5. Bytes a newer writer appended
// are kept in frame.tail. HitSet::Params implementations are kept opaque.
// Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_POOL_BINARY_H_
#define CRUSHKIT_OSDMAP_FORMATS_POOL_BINARY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include "osdmap/formats/binary_io.h"
#include "osdmap/formats/binary_types.h"

namespace crushkit::osdmap::binary {

// pool_snap_info_t: ENCODE_START(2,2) u64 snapid, utime stamp, string name.
struct PoolSnap {
  StructFrame frame;
  std::uint64_t snapid = 0;
  Utime stamp;
  std::string name;

  bool operator==(const PoolSnap&) const = default;
};

// One pool_opts_t entry: s32 key, s32 type (0 string, 1 int, 2 double),
// then the value. Ints are s32 on the wire when the opts struct is v1.
struct PoolOpt {
  std::int32_t key = 0;
  std::int32_t type = 0;
  std::string str;
  std::int64_t i = 0;
  std::uint64_t double_bits = 0;  // IEEE bits of the double, kept exact

  bool operator==(const PoolOpt&) const = default;
};

struct PoolOpts {
  StructFrame frame{2, 1, {}};
  std::vector<PoolOpt> opts;  // wire order (ascending key when Ceph wrote it)

  bool operator==(const PoolOpts&) const = default;
};

// HitSet::Params: ENCODE_START(1,1) u8 type, then the implementation's own
// encoding (bloom: ENCODE_START(1,1) u32 fpp_micro, u64 target_size, u64
// seed), kept raw in `impl`.
struct HitSetParams {
  StructFrame frame{1, 1, {}};
  std::uint8_t type = 0;
  std::string impl;

  bool operator==(const HitSetParams&) const = default;
};

// pg_merge_meta_t: ENCODE_START(1,1).
struct PgMergeMeta {
  StructFrame frame{1, 1, {}};
  PgId source_pgid;
  std::uint32_t ready_epoch = 0;
  std::uint32_t last_epoch_started = 0;
  std::uint32_t last_epoch_clean = 0;
  Eversion source_version;
  Eversion target_version;

  bool operator==(const PgMergeMeta&) const = default;
};

// The stretch-pool peering fields.
struct PeeringCrush {
  std::uint32_t bucket_count = 0;
  std::uint32_t bucket_target = 0;
  std::uint32_t bucket_barrier = 0;
  std::int32_t mandatory_member = 0x7fffffff;

  bool operator==(const PeeringCrush&) const = default;
};

struct BinaryPool {
  StructFrame frame{29, 5, {}};
  std::uint8_t type = 1;
  std::uint8_t size = 0;
  std::uint8_t crush_rule = 0;
  std::uint8_t object_hash = 2;
  std::uint32_t pg_num = 0;
  std::uint32_t pgp_num = 0;
  std::uint32_t lpg_num = 0;
  std::uint32_t lpgp_num = 0;
  std::uint32_t last_change = 0;
  std::uint64_t snap_seq = 0;
  std::uint32_t snap_epoch = 0;
  std::map<std::uint64_t, PoolSnap> snaps;
  IntervalSet removed_snaps;
  std::uint64_t auid = 0;
  std::uint64_t flags = 0;                                // [v4]
  std::uint32_t crash_replay_interval = 0;                // [v4]
  std::uint8_t min_size = 0;                              // [v7]
  std::uint64_t quota_max_bytes = 0;                      // [v8]
  std::uint64_t quota_max_objects = 0;                    // [v8]
  std::set<std::uint64_t> tiers;                          // [v9]
  std::int64_t tier_of = -1;                              // [v9]
  std::uint8_t cache_mode = 0;                            // [v9]
  std::int64_t read_tier = -1;                            // [v9]
  std::int64_t write_tier = -1;                           // [v9]
  StringMap properties;                                   // [v10]
  HitSetParams hit_set_params;                            // [v11]
  std::uint32_t hit_set_period = 0;                       // [v11]
  std::uint32_t hit_set_count = 0;                        // [v11]
  std::uint32_t stripe_width = 0;                         // [v12]
  std::uint64_t target_max_bytes = 0;                     // [v13]
  std::uint64_t target_max_objects = 0;                   // [v13]
  std::uint32_t cache_target_dirty_ratio_micro = 0;       // [v13]
  std::uint32_t cache_target_full_ratio_micro = 0;        // [v13]
  std::uint32_t cache_min_flush_age = 0;                  // [v13]
  std::uint32_t cache_min_evict_age = 0;                  // [v13]
  std::string erasure_code_profile;                       // [v14]
  std::uint32_t last_force_op_resend_preluminous = 0;     // [v15]
  std::uint32_t min_read_recency_for_promote = 0;         // [v16]
  std::uint64_t expected_num_objects = 0;                 // [v17]
  std::uint32_t cache_target_dirty_high_ratio_micro = 0;  // [v19]
  std::uint32_t min_write_recency_for_promote = 0;        // [v20]
  std::uint8_t use_gmt_hitset = 0;                        // [v21] bool, raw byte
  std::uint8_t fast_read = 0;                             // [v22] bool, raw byte
  std::uint32_t hit_set_grade_decay_rate = 0;             // [v23]
  std::uint32_t hit_set_search_last_n = 0;                // [v23]
  PoolOpts opts;                                          // [v24]
  std::uint32_t last_force_op_resend_prenautilus = 0;     // [v25]
  std::map<std::string, StringMap> application_metadata;  // [v26]
  Utime create_time;                                      // [v27]
  std::uint32_t pg_num_target = 0;                        // [v28]
  std::uint32_t pgp_num_target = 0;                       // [v28]
  std::uint32_t pg_num_pending = 0;                       // [v28]
  std::uint32_t unused_v28_a = 0;                         // [v28] 14.1 leftovers, 0
  std::uint32_t unused_v28_b = 0;                         // [v28]
  std::uint32_t last_force_op_resend = 0;                 // [v28]
  std::uint8_t pg_autoscale_mode = 0;                     // [v28]
  PgMergeMeta last_pg_merge_meta;                         // [v29]
  // [v30] four u32 always present; [v31+] optional<tuple<...>> (Tentacle).
  std::optional<PeeringCrush> peering;

  bool operator==(const BinaryPool&) const = default;
};

// Decodes one pg_pool_t. Errors: kUnimplemented for the pre-2012 unframed
// encodings (struct_v < 5) or compat newer than this decoder; kDataLoss on
// truncation; kInvalidArgument for an unknown pool option value type.
absl::Status ReadPool(Reader& r, BinaryPool* out);
void WritePool(Writer& w, const BinaryPool& pool);

// The four peering fields Pacific's and Reef's pg_pool_t::decode read from
// a pool Tentacle wrote (frame.v >= 31): they know v30's layout only, so
// they take 16 bytes after last_pg_merge_meta (Tentacle's optional flag,
// its fields if set, the v32 tail) as v30's four u32 and skip what is left.
// Errors: kDataLoss when fewer than 16 bytes are left there (their decode
// throws; osdmaptool 16.2/18.2 then cannot read the map: every pool
// Tentacle writes without stretch peering). REQUIRES: pool.frame.v >= 31.
absl::StatusOr<PeeringCrush> PeeringAsReadBeforeTentacle(const BinaryPool& pool);

// pool.flags as Ceph's pg_pool_t::decode leaves them: a pool with snap_seq
// > 0 and neither snap mode flag gets SELFMANAGED_SNAPS (removed_snaps
// non-empty) or POOL_SNAPS.
std::uint64_t CephDecodedPoolFlags(const BinaryPool& pool);

}  // namespace crushkit::osdmap::binary

#endif  // CRUSHKIT_OSDMAP_FORMATS_POOL_BINARY_H_
