#include "osdmap/formats/pool_binary.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"

namespace crushkit::osdmap::binary {
namespace {

// Newest pg_pool_t layout known here (Tentacle). Compat above it is refused.
constexpr std::uint8_t kPoolKnownV = 32;

absl::Status ReadSnap(Reader& r, PoolSnap* s) {
  return r.Struct("pool_snap_info_t", 2, &s->frame, [s](Reader& b, std::uint8_t) -> absl::Status {
    CRUSH_RETURN_IF_ERROR(b.U64("pool_snap_info_t.snapid", &s->snapid));
    CRUSH_RETURN_IF_ERROR(ReadUtime(b, "pool_snap_info_t.stamp", &s->stamp));
    return b.String("pool_snap_info_t.name", &s->name);
  });
}

absl::Status ReadHitSet(Reader& r, HitSetParams* h) {
  return r.Struct("HitSet::Params", 1, &h->frame, [h](Reader& b, std::uint8_t) -> absl::Status {
    CRUSH_RETURN_IF_ERROR(b.U8("HitSet::Params.type", &h->type));
    return b.Bytes("HitSet::Params impl", b.remaining(), &h->impl);
  });
}

absl::Status ReadOpts(Reader& r, PoolOpts* o) {
  return r.Struct("pool_opts_t", 2, &o->frame, [o](Reader& b, std::uint8_t v) -> absl::Status {
    std::uint32_t n = 0;
    CRUSH_RETURN_IF_ERROR(b.Count("pool_opts_t count", 12, &n));
    o->opts.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      PoolOpt opt;
      CRUSH_RETURN_IF_ERROR(b.S32("pool_opts_t key", &opt.key));
      CRUSH_RETURN_IF_ERROR(b.S32("pool_opts_t type", &opt.type));
      if (opt.type == 0) {
        CRUSH_RETURN_IF_ERROR(b.String("pool_opts_t string value", &opt.str));
      } else if (opt.type == 1 && v >= 2) {
        CRUSH_RETURN_IF_ERROR(b.S64("pool_opts_t int value", &opt.i));
      } else if (opt.type == 1) {
        std::int32_t i32 = 0;
        CRUSH_RETURN_IF_ERROR(b.S32("pool_opts_t int value", &i32));
        opt.i = i32;
      } else if (opt.type == 2) {
        CRUSH_RETURN_IF_ERROR(b.U64("pool_opts_t double value", &opt.double_bits));
      } else {
        return b.Invalid("pool_opts_t type",
                         "unknown pool option value type " + std::to_string(opt.type));
      }
      o->opts.push_back(std::move(opt));
    }
    return absl::OkStatus();
  });
}

absl::Status ReadMergeMeta(Reader& r, PgMergeMeta* m) {
  return r.Struct("pg_merge_meta_t", 1, &m->frame, [m](Reader& b, std::uint8_t) -> absl::Status {
    CRUSH_RETURN_IF_ERROR(ReadPg(b, "pg_merge_meta_t.source_pgid", &m->source_pgid));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_merge_meta_t.ready_epoch", &m->ready_epoch));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_merge_meta_t.last_epoch_started", &m->last_epoch_started));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_merge_meta_t.last_epoch_clean", &m->last_epoch_clean));
    CRUSH_RETURN_IF_ERROR(ReadEversion(b, "pg_merge_meta_t.source_version", &m->source_version));
    return ReadEversion(b, "pg_merge_meta_t.target_version", &m->target_version);
  });
}

absl::Status ReadPeering(Reader& b, PeeringCrush* p) {
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.peering_crush_bucket_count", &p->bucket_count));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.peering_crush_bucket_target", &p->bucket_target));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.peering_crush_bucket_barrier", &p->bucket_barrier));
  return b.S32("pg_pool_t.peering_crush_mandatory_member", &p->mandatory_member);
}

// Fields of struct versions 5..32, in pg_pool_t::encode order.
// Mirrors Ceph's pg_pool_t::decode() (src/osd/osd_types.cc) line by line: one read per field,
// under the same struct-version tests.
absl::Status ReadPoolBody(Reader& b, std::uint8_t v, BinaryPool* p) {
  CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.type", &p->type));
  CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.size", &p->size));
  CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.crush_rule", &p->crush_rule));
  CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.object_hash", &p->object_hash));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.pg_num", &p->pg_num));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.pgp_num", &p->pgp_num));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.lpg_num", &p->lpg_num));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.lpgp_num", &p->lpgp_num));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.last_change", &p->last_change));
  CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.snap_seq", &p->snap_seq));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.snap_epoch", &p->snap_epoch));
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(b.Count("pg_pool_t.snaps", 14, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t key = 0;
    PoolSnap snap;
    CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.snaps key", &key));
    CRUSH_RETURN_IF_ERROR(ReadSnap(b, &snap));
    p->snaps.emplace(key, std::move(snap));
  }
  CRUSH_RETURN_IF_ERROR(ReadIntervalSet(b, "pg_pool_t.removed_snaps", &p->removed_snaps));
  CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.auid", &p->auid));
  CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.flags", &p->flags));
  CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.crash_replay_interval", &p->crash_replay_interval));
  if (v >= 7) CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.min_size", &p->min_size));
  if (v >= 8) {
    CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.quota_max_bytes", &p->quota_max_bytes));
    CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.quota_max_objects", &p->quota_max_objects));
  }
  if (v >= 9) {
    CRUSH_RETURN_IF_ERROR(b.Count("pg_pool_t.tiers", 8, &n));
    for (std::uint32_t i = 0; i < n; ++i) {
      std::uint64_t t = 0;
      CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.tiers", &t));
      p->tiers.insert(t);
    }
    CRUSH_RETURN_IF_ERROR(b.S64("pg_pool_t.tier_of", &p->tier_of));
    CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.cache_mode", &p->cache_mode));
    CRUSH_RETURN_IF_ERROR(b.S64("pg_pool_t.read_tier", &p->read_tier));
    CRUSH_RETURN_IF_ERROR(b.S64("pg_pool_t.write_tier", &p->write_tier));
  }
  if (v >= 10) CRUSH_RETURN_IF_ERROR(ReadStringMap(b, "pg_pool_t.properties", &p->properties));
  if (v >= 11) {
    CRUSH_RETURN_IF_ERROR(ReadHitSet(b, &p->hit_set_params));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.hit_set_period", &p->hit_set_period));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.hit_set_count", &p->hit_set_count));
  }
  if (v >= 12) CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.stripe_width", &p->stripe_width));
  if (v >= 13) {
    CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.target_max_bytes", &p->target_max_bytes));
    CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.target_max_objects", &p->target_max_objects));
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.cache_target_dirty_ratio_micro", &p->cache_target_dirty_ratio_micro));
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.cache_target_full_ratio_micro", &p->cache_target_full_ratio_micro));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.cache_min_flush_age", &p->cache_min_flush_age));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.cache_min_evict_age", &p->cache_min_evict_age));
  }
  if (v >= 14)
    CRUSH_RETURN_IF_ERROR(b.String("pg_pool_t.erasure_code_profile", &p->erasure_code_profile));
  if (v >= 15) {
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.last_force_op_resend_preluminous", &p->last_force_op_resend_preluminous));
  }
  if (v >= 16)
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.min_read_recency_for_promote", &p->min_read_recency_for_promote));
  if (v >= 17)
    CRUSH_RETURN_IF_ERROR(b.U64("pg_pool_t.expected_num_objects", &p->expected_num_objects));
  if (v >= 19) {
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.cache_target_dirty_high_ratio_micro",
                                &p->cache_target_dirty_high_ratio_micro));
  }
  if (v >= 20) {
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.min_write_recency_for_promote", &p->min_write_recency_for_promote));
  }
  if (v >= 21) CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.use_gmt_hitset", &p->use_gmt_hitset));
  if (v >= 22) CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.fast_read", &p->fast_read));
  if (v >= 23) {
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.hit_set_grade_decay_rate", &p->hit_set_grade_decay_rate));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.hit_set_search_last_n", &p->hit_set_search_last_n));
  }
  if (v >= 24) CRUSH_RETURN_IF_ERROR(ReadOpts(b, &p->opts));
  if (v >= 25) {
    CRUSH_RETURN_IF_ERROR(
        b.U32("pg_pool_t.last_force_op_resend_prenautilus", &p->last_force_op_resend_prenautilus));
  }
  if (v >= 26) {
    CRUSH_RETURN_IF_ERROR(
        ReadStringMapMap(b, "pg_pool_t.application_metadata", &p->application_metadata));
  }
  if (v >= 27) CRUSH_RETURN_IF_ERROR(ReadUtime(b, "pg_pool_t.create_time", &p->create_time));
  if (v >= 28) {
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.pg_num_target", &p->pg_num_target));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.pgp_num_target", &p->pgp_num_target));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.pg_num_pending", &p->pg_num_pending));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t unused v28 field", &p->unused_v28_a));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t unused v28 field", &p->unused_v28_b));
    CRUSH_RETURN_IF_ERROR(b.U32("pg_pool_t.last_force_op_resend", &p->last_force_op_resend));
    CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.pg_autoscale_mode", &p->pg_autoscale_mode));
  }
  if (v >= 29) CRUSH_RETURN_IF_ERROR(ReadMergeMeta(b, &p->last_pg_merge_meta));
  // Pacific reads the four u32 for any v >= 30 and so misreads Tentacle's
  // optional; Tentacle reads them only at v30.
  if (v == 30) {
    CRUSH_RETURN_IF_ERROR(ReadPeering(b, &p->peering.emplace()));
  } else if (v >= 31) {
    std::uint8_t present = 0;
    CRUSH_RETURN_IF_ERROR(b.U8("pg_pool_t.peering_crush optional", &present));
    if (present != 0) CRUSH_RETURN_IF_ERROR(ReadPeering(b, &p->peering.emplace()));
  }
  return absl::OkStatus();
}

void WriteOpts(Writer& w, const PoolOpts& o) {
  w.Struct(o.frame, [&o](Writer& b) {
    b.Count(o.opts.size());
    for (const PoolOpt& opt : o.opts) {
      b.S32(opt.key);
      b.S32(opt.type);
      if (opt.type == 0) {
        b.String(opt.str);
      } else if (opt.type == 1 && o.frame.v >= 2) {
        b.S64(opt.i);
      } else if (opt.type == 1) {
        b.S32(static_cast<std::int32_t>(opt.i));
      } else {
        b.U64(opt.double_bits);
      }
    }
  });
}

void WritePeering(Writer& b, const PeeringCrush& p) {
  b.U32(p.bucket_count);
  b.U32(p.bucket_target);
  b.U32(p.bucket_barrier);
  b.S32(p.mandatory_member);
}

// Mirrors Ceph's pg_pool_t::encode() (src/osd/osd_types.cc) line by line: one write per
// field, under the same struct-version tests.
void WritePoolBody(Writer& b, const BinaryPool& p) {
  const std::uint8_t v = p.frame.v;
  b.U8(p.type);
  b.U8(p.size);
  b.U8(p.crush_rule);
  b.U8(p.object_hash);
  b.U32(p.pg_num);
  b.U32(p.pgp_num);
  b.U32(p.lpg_num);
  b.U32(p.lpgp_num);
  b.U32(p.last_change);
  b.U64(p.snap_seq);
  b.U32(p.snap_epoch);
  b.Count(p.snaps.size());
  for (const auto& entry : p.snaps) {
    b.U64(entry.first);
    const auto& s = entry.second;  // not a structured binding: clang 14 cannot capture those
    b.Struct(s.frame, [&s](Writer& sb) {
      sb.U64(s.snapid);
      WriteUtime(sb, s.stamp);
      sb.String(s.name);
    });
  }
  WriteIntervalSet(b, p.removed_snaps);
  b.U64(p.auid);
  b.U64(p.flags);
  b.U32(p.crash_replay_interval);
  if (v >= 7) b.U8(p.min_size);
  if (v >= 8) {
    b.U64(p.quota_max_bytes);
    b.U64(p.quota_max_objects);
  }
  if (v >= 9) {
    b.Count(p.tiers.size());
    for (std::uint64_t t : p.tiers) b.U64(t);
    b.S64(p.tier_of);
    b.U8(p.cache_mode);
    b.S64(p.read_tier);
    b.S64(p.write_tier);
  }
  if (v >= 10) WriteStringMap(b, p.properties);
  if (v >= 11) {
    const HitSetParams& h = p.hit_set_params;
    b.Struct(h.frame, [&h](Writer& hb) {
      hb.U8(h.type);
      hb.Bytes(h.impl);
    });
    b.U32(p.hit_set_period);
    b.U32(p.hit_set_count);
  }
  if (v >= 12) b.U32(p.stripe_width);
  if (v >= 13) {
    b.U64(p.target_max_bytes);
    b.U64(p.target_max_objects);
    b.U32(p.cache_target_dirty_ratio_micro);
    b.U32(p.cache_target_full_ratio_micro);
    b.U32(p.cache_min_flush_age);
    b.U32(p.cache_min_evict_age);
  }
  if (v >= 14) b.String(p.erasure_code_profile);
  if (v >= 15) b.U32(p.last_force_op_resend_preluminous);
  if (v >= 16) b.U32(p.min_read_recency_for_promote);
  if (v >= 17) b.U64(p.expected_num_objects);
  if (v >= 19) b.U32(p.cache_target_dirty_high_ratio_micro);
  if (v >= 20) b.U32(p.min_write_recency_for_promote);
  if (v >= 21) b.U8(p.use_gmt_hitset);
  if (v >= 22) b.U8(p.fast_read);
  if (v >= 23) {
    b.U32(p.hit_set_grade_decay_rate);
    b.U32(p.hit_set_search_last_n);
  }
  if (v >= 24) WriteOpts(b, p.opts);
  if (v >= 25) b.U32(p.last_force_op_resend_prenautilus);
  if (v >= 26) WriteStringMapMap(b, p.application_metadata);
  if (v >= 27) WriteUtime(b, p.create_time);
  if (v >= 28) {
    b.U32(p.pg_num_target);
    b.U32(p.pgp_num_target);
    b.U32(p.pg_num_pending);
    b.U32(p.unused_v28_a);
    b.U32(p.unused_v28_b);
    b.U32(p.last_force_op_resend);
    b.U8(p.pg_autoscale_mode);
  }
  if (v >= 29) {
    const PgMergeMeta& m = p.last_pg_merge_meta;
    b.Struct(m.frame, [&m](Writer& mb) {
      WritePg(mb, m.source_pgid);
      mb.U32(m.ready_epoch);
      mb.U32(m.last_epoch_started);
      mb.U32(m.last_epoch_clean);
      WriteEversion(mb, m.source_version);
      WriteEversion(mb, m.target_version);
    });
  }
  if (v == 30) {
    WritePeering(b, p.peering.value_or(PeeringCrush{}));
  } else if (v >= 31) {
    b.U8(p.peering ? 1 : 0);
    if (p.peering) WritePeering(b, *p.peering);
  }
}

}  // namespace

absl::StatusOr<PeeringCrush> PeeringAsReadBeforeTentacle(const BinaryPool& pool) {
  Writer w;
  w.U8(pool.peering ? 1 : 0);
  if (pool.peering) WritePeering(w, *pool.peering);
  w.Bytes(pool.frame.tail);
  const std::string rest = w.Take();
  if (rest.size() < 16) {
    return absl::DataLossError(
        absl::StrCat("pg_pool_t v", pool.frame.v,
                     " (Tentacle's) read as v30, as Pacific and Reef do: its four "
                     "peering_crush fields need 16 bytes, ",
                     rest.size(), " are left"));
  }
  Reader r(rest);
  PeeringCrush p;
  CRUSH_RETURN_IF_ERROR(ReadPeering(r, &p));
  return p;
}

absl::Status ReadPool(Reader& r, BinaryPool* out) {
  if (r.remaining() >= 1 && static_cast<std::uint8_t>(r.rest()[0]) < 5) {
    return absl::UnimplementedError(
        "pg_pool_t at offset " + std::to_string(r.offset()) +
        " uses a pre-v5 encoding (Ceph before 2012), which is not supported");
  }
  return r.Struct("pg_pool_t", kPoolKnownV, &out->frame,
                  [out](Reader& b, std::uint8_t v) { return ReadPoolBody(b, v, out); });
}

std::uint64_t CephDecodedPoolFlags(const BinaryPool& pool) {
  constexpr std::uint64_t kSelfmanagedSnaps = 1u << 13;
  constexpr std::uint64_t kPoolSnaps = 1u << 14;
  if (pool.snap_seq == 0 || (pool.flags & (kSelfmanagedSnaps | kPoolSnaps)) != 0) return pool.flags;
  return pool.flags | (pool.removed_snaps.empty() ? kPoolSnaps : kSelfmanagedSnaps);
}

void WritePool(Writer& w, const BinaryPool& pool) {
  w.Struct(pool.frame, [&pool](Writer& b) { WritePoolBody(b, pool); });
}

}  // namespace crushkit::osdmap::binary
