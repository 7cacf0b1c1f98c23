// The OSD-only section of the binary OSDMap (OSDMap::encode's second
// ENCODE_START block) and the small containers both sections use.
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"
#include "osdmap/formats/binary_types.h"
#include "osdmap/formats/osdmap_binary_internal.h"

namespace crushkit::osdmap::internal {

using binary::Reader;
using binary::Writer;

absl::Status ReadSnapIntervalMap(Reader& r, const char* field, SnapIntervalMap* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 12, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int64_t pool = 0;
    binary::IntervalSet set;
    CRUSH_RETURN_IF_ERROR(r.S64(field, &pool));
    CRUSH_RETURN_IF_ERROR(binary::ReadIntervalSet(r, field, &set));
    out->emplace(pool, std::move(set));
  }
  return absl::OkStatus();
}

void WriteSnapIntervalMap(Writer& w, const SnapIntervalMap& m) {
  w.Count(m.size());
  for (const auto& [pool, set] : m) {
    w.S64(pool);
    binary::WriteIntervalSet(w, set);
  }
}

absl::Status ReadS32U32Map(Reader& r, const char* field,
                           std::map<std::int32_t, std::uint32_t>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 8, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int32_t k = 0;
    std::uint32_t v = 0;
    CRUSH_RETURN_IF_ERROR(r.S32(field, &k));
    CRUSH_RETURN_IF_ERROR(r.U32(field, &v));
    out->emplace(k, v);
  }
  return absl::OkStatus();
}

void WriteS32U32Map(Writer& w, const std::map<std::int32_t, std::uint32_t>& m) {
  w.Count(m.size());
  for (const auto& [k, v] : m) {
    w.S32(k);
    w.U32(v);
  }
}

absl::Status ReadAddrTimeMapRaw(Reader& r, const char* field, std::string* out) {
  const std::string_view start = r.rest();
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 7 + 8, &n));
  std::string ignored;
  for (std::uint32_t i = 0; i < n; ++i) {
    ignored.clear();
    CRUSH_RETURN_IF_ERROR(binary::ReadAddrRaw(r, field, &ignored));
    CRUSH_RETURN_IF_ERROR(r.Skip(field, 8));
  }
  out->assign(start.substr(0, start.size() - r.rest().size()));
  return absl::OkStatus();
}

namespace {

absl::Status ReadOsdInfos(Reader& r, std::vector<BinaryOsdInfo>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count("osd_info", 25, &n));
  out->resize(n);
  for (BinaryOsdInfo& i : *out) {
    CRUSH_RETURN_IF_ERROR(r.U8("osd_info_t.struct_v", &i.struct_v));
    CRUSH_RETURN_IF_ERROR(r.U32("osd_info_t.last_clean_begin", &i.last_clean_begin));
    CRUSH_RETURN_IF_ERROR(r.U32("osd_info_t.last_clean_end", &i.last_clean_end));
    CRUSH_RETURN_IF_ERROR(r.U32("osd_info_t.up_from", &i.up_from));
    CRUSH_RETURN_IF_ERROR(r.U32("osd_info_t.up_thru", &i.up_thru));
    CRUSH_RETURN_IF_ERROR(r.U32("osd_info_t.down_at", &i.down_at));
    CRUSH_RETURN_IF_ERROR(r.U32("osd_info_t.lost_at", &i.lost_at));
  }
  return absl::OkStatus();
}

absl::Status ReadXinfo(Reader& r, BinaryOsdXinfo* x) {
  return r.Struct("osd_xinfo_t", 4, &x->frame, [x](Reader& b, std::uint8_t v) -> absl::Status {
    CRUSH_RETURN_IF_ERROR(binary::ReadUtime(b, "osd_xinfo_t.down_stamp", &x->down_stamp));
    CRUSH_RETURN_IF_ERROR(b.U32("osd_xinfo_t.laggy_probability", &x->laggy_probability));
    CRUSH_RETURN_IF_ERROR(b.U32("osd_xinfo_t.laggy_interval", &x->laggy_interval));
    if (v >= 2) CRUSH_RETURN_IF_ERROR(b.U64("osd_xinfo_t.features", &x->features));
    if (v >= 3) CRUSH_RETURN_IF_ERROR(b.U32("osd_xinfo_t.old_weight", &x->old_weight));
    if (v >= 4) {
      CRUSH_RETURN_IF_ERROR(
          binary::ReadUtime(b, "osd_xinfo_t.last_purged_snaps_scrub", &x->last_purged_snaps_scrub));
      CRUSH_RETURN_IF_ERROR(b.U32("osd_xinfo_t.dead_epoch", &x->dead_epoch));
    }
    return absl::OkStatus();
  });
}

void WriteXinfo(Writer& w, const BinaryOsdXinfo& x) {
  w.Struct(x.frame, [&x](Writer& b) {
    binary::WriteUtime(b, x.down_stamp);
    b.U32(x.laggy_probability);
    b.U32(x.laggy_interval);
    if (x.frame.v >= 2) b.U64(x.features);
    if (x.frame.v >= 3) b.U32(x.old_weight);
    if (x.frame.v >= 4) {
      binary::WriteUtime(b, x.last_purged_snaps_scrub);
      b.U32(x.dead_epoch);
    }
  });
}

}  // namespace

absl::Status ReadOsdSection(Reader& r, std::uint8_t ov, OsdMapBinary* m) {
  const bool addrvec = ov >= 7;
  CRUSH_RETURN_IF_ERROR(binary::ReadAddrList(r, "hb_back_addrs", addrvec, &m->hb_back_addrs));
  CRUSH_RETURN_IF_ERROR(ReadOsdInfos(r, &m->osd_info));
  CRUSH_RETURN_IF_ERROR(ReadAddrTimeMapRaw(r, "blocklist", &m->blocklist));
  CRUSH_RETURN_IF_ERROR(binary::ReadAddrList(r, "cluster_addrs", addrvec, &m->cluster_addrs));
  CRUSH_RETURN_IF_ERROR(r.U32("cluster_snapshot_epoch", &m->cluster_snapshot_epoch));
  CRUSH_RETURN_IF_ERROR(r.String("cluster_snapshot", &m->cluster_snapshot));
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count("osd_uuid", 16, &n));
  m->osd_uuid.resize(n);
  for (auto& uuid : m->osd_uuid) {
    for (std::uint8_t& byte : uuid) CRUSH_RETURN_IF_ERROR(r.U8("osd_uuid", &byte));
  }
  // Each entry is at least its 6-byte header and the 16 bytes of v1.
  CRUSH_RETURN_IF_ERROR(r.Count("osd_xinfo", 6 + 16, &n));
  m->osd_xinfo.resize(n);
  for (std::size_t i = 0; i < m->osd_xinfo.size(); ++i) {
    if (absl::Status st = ReadXinfo(r, &m->osd_xinfo[i]); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("osd_xinfo[", i, "]: ", st.message()));
    }
  }
  CRUSH_RETURN_IF_ERROR(binary::ReadAddrList(r, "hb_front_addrs", addrvec, &m->hb_front_addrs));
  if (ov >= 2) {
    CRUSH_RETURN_IF_ERROR(r.U32("nearfull_ratio", &m->nearfull_ratio_bits));
    CRUSH_RETURN_IF_ERROR(r.U32("full_ratio", &m->full_ratio_bits));
  }
  if (ov >= 3) CRUSH_RETURN_IF_ERROR(r.U32("backfillfull_ratio", &m->backfillfull_ratio_bits));
  if (ov == 4)
    CRUSH_RETURN_IF_ERROR(
        r.String("require_min_compat_client (string)", &m->legacy_min_compat_client));
  if (ov >= 5) {
    CRUSH_RETURN_IF_ERROR(r.U8("require_min_compat_client", &m->require_min_compat_client));
    CRUSH_RETURN_IF_ERROR(r.U8("require_osd_release", &m->require_osd_release));
  }
  if (ov >= 6)
    CRUSH_RETURN_IF_ERROR(ReadSnapIntervalMap(r, "removed_snaps_queue", &m->removed_snaps_queue));
  if (ov >= 8) CRUSH_RETURN_IF_ERROR(ReadS32U32Map(r, "crush_node_flags", &m->crush_node_flags));
  if (ov >= 9)
    CRUSH_RETURN_IF_ERROR(ReadS32U32Map(r, "device_class_flags", &m->device_class_flags));
  if (ov >= 10) {
    CRUSH_RETURN_IF_ERROR(r.U8("stretch_mode_enabled", &m->stretch_mode_enabled));
    CRUSH_RETURN_IF_ERROR(r.U32("stretch_bucket_count", &m->stretch_bucket_count));
    CRUSH_RETURN_IF_ERROR(r.U32("degraded_stretch_mode", &m->degraded_stretch_mode));
    CRUSH_RETURN_IF_ERROR(r.U32("recovering_stretch_mode", &m->recovering_stretch_mode));
    CRUSH_RETURN_IF_ERROR(r.S32("stretch_mode_bucket", &m->stretch_mode_bucket));
  }
  if (ov >= 11)
    CRUSH_RETURN_IF_ERROR(ReadAddrTimeMapRaw(r, "range_blocklist", &m->range_blocklist));
  if (ov >= 12) CRUSH_RETURN_IF_ERROR(r.U8("allow_crimson", &m->allow_crimson));
  return absl::OkStatus();
}

void WriteOsdSection(Writer& w, const OsdMapBinary& m) {
  const std::uint8_t ov = m.osd.v;
  binary::WriteRawList(w, m.hb_back_addrs);
  w.Count(m.osd_info.size());
  for (const BinaryOsdInfo& i : m.osd_info) {
    w.U8(i.struct_v);
    w.U32(i.last_clean_begin);
    w.U32(i.last_clean_end);
    w.U32(i.up_from);
    w.U32(i.up_thru);
    w.U32(i.down_at);
    w.U32(i.lost_at);
  }
  if (m.blocklist.empty()) {
    w.Count(0);
  } else {
    w.Bytes(m.blocklist);
  }
  binary::WriteRawList(w, m.cluster_addrs);
  w.U32(m.cluster_snapshot_epoch);
  w.String(m.cluster_snapshot);
  w.Count(m.osd_uuid.size());
  for (const auto& uuid : m.osd_uuid) {
    for (std::uint8_t byte : uuid) w.U8(byte);
  }
  w.Count(m.osd_xinfo.size());
  for (const BinaryOsdXinfo& x : m.osd_xinfo) WriteXinfo(w, x);
  binary::WriteRawList(w, m.hb_front_addrs);
  if (ov >= 2) {
    w.U32(m.nearfull_ratio_bits);
    w.U32(m.full_ratio_bits);
  }
  if (ov >= 3) w.U32(m.backfillfull_ratio_bits);
  if (ov == 4) w.String(m.legacy_min_compat_client);
  if (ov >= 5) {
    w.U8(m.require_min_compat_client);
    w.U8(m.require_osd_release);
  }
  if (ov >= 6) WriteSnapIntervalMap(w, m.removed_snaps_queue);
  if (ov >= 8) WriteS32U32Map(w, m.crush_node_flags);
  if (ov >= 9) WriteS32U32Map(w, m.device_class_flags);
  if (ov >= 10) {
    w.U8(m.stretch_mode_enabled);
    w.U32(m.stretch_bucket_count);
    w.U32(m.degraded_stretch_mode);
    w.U32(m.recovering_stretch_mode);
    w.S32(m.stretch_mode_bucket);
  }
  if (ov >= 11) {
    if (m.range_blocklist.empty()) {
      w.Count(0);
    } else {
      w.Bytes(m.range_blocklist);
    }
  }
  if (ov >= 12) w.U8(m.allow_crimson);
}

}  // namespace crushkit::osdmap::internal
