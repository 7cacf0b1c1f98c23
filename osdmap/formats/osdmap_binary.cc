// The binary OSDMap's wrapper, crc and client-usable section
// (OSDMap::encode/decode). The OSD-only section is osd_section_binary.cc.
#include "osdmap/formats/osdmap_binary.h"

#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/codec.h"
#include "crush/status_macros.h"
#include "osdmap/formats/crc32c.h"
#include "osdmap/formats/osdmap_binary_internal.h"

namespace crushkit::osdmap {

using binary::Reader;
using binary::Writer;

float OsdMapBinary::nearfull_ratio() const { return std::bit_cast<float>(nearfull_ratio_bits); }

float OsdMapBinary::full_ratio() const { return std::bit_cast<float>(full_ratio_bits); }

float OsdMapBinary::backfillfull_ratio() const {
  return std::bit_cast<float>(backfillfull_ratio_bits);
}

namespace {

absl::Status ReadU32Vector(Reader& r, const char* field, bool u8_elements,
                           std::vector<std::uint32_t>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, u8_elements ? 1 : 4, &n));
  out->resize(n);
  for (std::uint32_t& v : *out) {
    if (u8_elements) {
      std::uint8_t b = 0;
      CRUSH_RETURN_IF_ERROR(r.U8(field, &b));
      v = b;
    } else {
      CRUSH_RETURN_IF_ERROR(r.U32(field, &v));
    }
  }
  return absl::OkStatus();
}

void WriteU32Vector(Writer& w, bool u8_elements, const std::vector<std::uint32_t>& v) {
  w.Count(v.size());
  for (std::uint32_t x : v) {
    if (u8_elements) {
      w.U8(static_cast<std::uint8_t>(x));
    } else {
      w.U32(x);
    }
  }
}

absl::Status ReadPgOsds(Reader& r, const char* field,
                        std::map<PgId, std::vector<std::int32_t>>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 17 + 4, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    PgId pg;
    std::uint32_t k = 0;
    CRUSH_RETURN_IF_ERROR(binary::ReadPg(r, field, &pg));
    CRUSH_RETURN_IF_ERROR(r.Count(field, 4, &k));
    std::vector<std::int32_t> osds(k);
    for (std::int32_t& o : osds) CRUSH_RETURN_IF_ERROR(r.S32(field, &o));
    out->emplace(pg, std::move(osds));
  }
  return absl::OkStatus();
}

void WritePgOsds(Writer& w, const std::map<PgId, std::vector<std::int32_t>>& m) {
  w.Count(m.size());
  for (const auto& [pg, osds] : m) {
    binary::WritePg(w, pg);
    w.Count(osds.size());
    for (std::int32_t o : osds) w.S32(o);
  }
}

absl::Status ReadPgOsd(Reader& r, const char* field, std::map<PgId, std::int32_t>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 17 + 4, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    PgId pg;
    std::int32_t osd = 0;
    CRUSH_RETURN_IF_ERROR(binary::ReadPg(r, field, &pg));
    CRUSH_RETURN_IF_ERROR(r.S32(field, &osd));
    out->emplace(pg, osd);
  }
  return absl::OkStatus();
}

void WritePgOsd(Writer& w, const std::map<PgId, std::int32_t>& m) {
  w.Count(m.size());
  for (const auto& [pg, osd] : m) {
    binary::WritePg(w, pg);
    w.S32(osd);
  }
}

absl::Status ReadUpmapItems(
    Reader& r, std::map<PgId, std::vector<std::pair<std::int32_t, std::int32_t>>>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count("pg_upmap_items", 17 + 4, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    PgId pg;
    std::uint32_t k = 0;
    CRUSH_RETURN_IF_ERROR(binary::ReadPg(r, "pg_upmap_items", &pg));
    CRUSH_RETURN_IF_ERROR(r.Count("pg_upmap_items", 8, &k));
    std::vector<std::pair<std::int32_t, std::int32_t>> items(k);
    for (auto& [from, to] : items) {
      CRUSH_RETURN_IF_ERROR(r.S32("pg_upmap_items", &from));
      CRUSH_RETURN_IF_ERROR(r.S32("pg_upmap_items", &to));
    }
    out->emplace(pg, std::move(items));
  }
  return absl::OkStatus();
}

absl::Status ReadCrush(Reader& r, OsdMapBinary* m) {
  std::uint32_t len = 0;
  CRUSH_RETURN_IF_ERROR(r.U32("crush length", &len));
  const std::size_t at = r.offset();
  CRUSH_RETURN_IF_ERROR(r.Bytes("crush map", len, &m->crush_bytes));
  // Crush tail groups newer than the codec knows are ignored in the model,
  // as Ceph ignores them; crush_bytes keeps them for encoding.
  crush::DecodeOptions options;
  options.ignore_trailing_bytes = true;
  auto model = crush::DecodeCrushMap(m->crush_bytes, options);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("crush map at offset ", at, ": ", model.status().message()));
  }
  m->crush = std::move(*model);
  return absl::OkStatus();
}

absl::Status ReadClientSection(Reader& r, std::uint8_t cv, OsdMapBinary* m) {
  for (std::uint8_t& b : m->fsid) CRUSH_RETURN_IF_ERROR(r.U8("fsid", &b));
  CRUSH_RETURN_IF_ERROR(r.U32("epoch", &m->epoch));
  CRUSH_RETURN_IF_ERROR(binary::ReadUtime(r, "created", &m->created));
  CRUSH_RETURN_IF_ERROR(binary::ReadUtime(r, "modified", &m->modified));
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count("pools", 8 + 6, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int64_t id = 0;
    binary::BinaryPool pool;
    CRUSH_RETURN_IF_ERROR(r.S64("pools key", &id));
    if (absl::Status st = binary::ReadPool(r, &pool); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("pool ", id, ": ", st.message()));
    }
    m->pools.emplace(id, std::move(pool));
  }
  CRUSH_RETURN_IF_ERROR(r.Count("pool_name", 12, &n));
  for (std::uint32_t i = 0; i < n; ++i) {
    std::int64_t id = 0;
    std::string name;
    CRUSH_RETURN_IF_ERROR(r.S64("pool_name key", &id));
    CRUSH_RETURN_IF_ERROR(r.String("pool_name", &name));
    m->pool_name.emplace(id, std::move(name));
  }
  CRUSH_RETURN_IF_ERROR(r.S32("pool_max", &m->pool_max));
  CRUSH_RETURN_IF_ERROR(r.U32("flags", &m->flags));
  CRUSH_RETURN_IF_ERROR(r.S32("max_osd", &m->max_osd));
  CRUSH_RETURN_IF_ERROR(ReadU32Vector(r, "osd_state", cv < 5, &m->osd_state));
  CRUSH_RETURN_IF_ERROR(ReadU32Vector(r, "osd_weight", false, &m->osd_weight));
  CRUSH_RETURN_IF_ERROR(binary::ReadAddrList(r, "client_addrs", cv >= 8, &m->client_addrs));
  CRUSH_RETURN_IF_ERROR(ReadPgOsds(r, "pg_temp", &m->pg_temp));
  CRUSH_RETURN_IF_ERROR(ReadPgOsd(r, "primary_temp", &m->primary_temp));
  CRUSH_RETURN_IF_ERROR(ReadU32Vector(r, "osd_primary_affinity", false, &m->osd_primary_affinity));
  CRUSH_RETURN_IF_ERROR(ReadCrush(r, m));
  if (cv >= 3) {
    CRUSH_RETURN_IF_ERROR(
        binary::ReadStringMapMap(r, "erasure_code_profiles", &m->erasure_code_profiles));
  }
  if (cv >= 4) {
    CRUSH_RETURN_IF_ERROR(ReadPgOsds(r, "pg_upmap", &m->pg_upmap));
    CRUSH_RETURN_IF_ERROR(ReadUpmapItems(r, &m->pg_upmap_items));
  }
  if (cv >= 6) CRUSH_RETURN_IF_ERROR(r.U32("crush_version", &m->crush_version));
  if (cv >= 7) {
    CRUSH_RETURN_IF_ERROR(
        internal::ReadSnapIntervalMap(r, "new_removed_snaps", &m->new_removed_snaps));
    CRUSH_RETURN_IF_ERROR(
        internal::ReadSnapIntervalMap(r, "new_purged_snaps", &m->new_purged_snaps));
  }
  if (cv >= 9) {
    CRUSH_RETURN_IF_ERROR(binary::ReadUtime(r, "last_up_change", &m->last_up_change));
    CRUSH_RETURN_IF_ERROR(binary::ReadUtime(r, "last_in_change", &m->last_in_change));
  }
  if (cv >= 10) CRUSH_RETURN_IF_ERROR(ReadPgOsd(r, "pg_upmap_primaries", &m->pg_upmap_primaries));
  return absl::OkStatus();
}

void WriteClientSection(Writer& w, const OsdMapBinary& m) {
  const std::uint8_t cv = m.client.v;
  for (std::uint8_t b : m.fsid) w.U8(b);
  w.U32(m.epoch);
  binary::WriteUtime(w, m.created);
  binary::WriteUtime(w, m.modified);
  w.Count(m.pools.size());
  for (const auto& [id, pool] : m.pools) {
    w.S64(id);
    binary::WritePool(w, pool);
  }
  w.Count(m.pool_name.size());
  for (const auto& [id, name] : m.pool_name) {
    w.S64(id);
    w.String(name);
  }
  w.S32(m.pool_max);
  w.U32(m.flags);
  w.S32(m.max_osd);
  WriteU32Vector(w, cv < 5, m.osd_state);
  WriteU32Vector(w, false, m.osd_weight);
  binary::WriteRawList(w, m.client_addrs);
  WritePgOsds(w, m.pg_temp);
  WritePgOsd(w, m.primary_temp);
  WriteU32Vector(w, false, m.osd_primary_affinity);
  w.String(m.crush_bytes);
  if (cv >= 3) binary::WriteStringMapMap(w, m.erasure_code_profiles);
  if (cv >= 4) {
    WritePgOsds(w, m.pg_upmap);
    w.Count(m.pg_upmap_items.size());
    for (const auto& [pg, items] : m.pg_upmap_items) {
      binary::WritePg(w, pg);
      w.Count(items.size());
      for (const auto& [from, to] : items) {
        w.S32(from);
        w.S32(to);
      }
    }
  }
  if (cv >= 6) w.U32(m.crush_version);
  if (cv >= 7) {
    internal::WriteSnapIntervalMap(w, m.new_removed_snaps);
    internal::WriteSnapIntervalMap(w, m.new_purged_snaps);
  }
  if (cv >= 9) {
    binary::WriteUtime(w, m.last_up_change);
    binary::WriteUtime(w, m.last_in_change);
  }
  if (cv >= 10) WritePgOsd(w, m.pg_upmap_primaries);
}

// The wrapper's body: both sections, the crc (v >= 8), then what follows.
absl::Status ReadWrapperBody(Reader& r, std::uint8_t v, std::string_view whole, OsdMapBinary* m) {
  CRUSH_RETURN_IF_ERROR(
      r.Struct("client section", internal::kClientKnownV, &m->client,
               [m](Reader& b, std::uint8_t cv) { return ReadClientSection(b, cv, m); }));
  CRUSH_RETURN_IF_ERROR(
      r.Struct("osd section", internal::kOsdKnownV, &m->osd,
               [m](Reader& b, std::uint8_t ov) { return internal::ReadOsdSection(b, ov, m); }));
  if (v < 8) return absl::OkStatus();
  const std::size_t crc_at = r.offset();
  std::uint32_t stored = 0;
  CRUSH_RETURN_IF_ERROR(r.U32("crc", &stored));
  // OSDMap::decode: crc over everything before the crc, continued over
  // the wrapper's bytes after it.
  const std::uint32_t actual = Crc32c(Crc32c(0xffffffffu, whole.substr(0, crc_at)), r.rest());
  if (actual != stored) {
    return absl::DataLossError(absl::StrCat("bad crc at offset ", crc_at, ": computed 0x",
                                            absl::Hex(actual), ", stored 0x", absl::Hex(stored)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<OsdMapBinary> DecodeOsdMap(std::string_view bytes) {
  const int v = bytes.empty() ? 0 : static_cast<std::uint8_t>(bytes[0]);
  if (v == 0) return absl::InvalidArgumentError("not a Ceph binary osdmap: empty or first byte 0");
  if (v < 7) {
    return absl::UnimplementedError(
        absl::StrCat("osdmap wrapper version ", v,
                     " at offset 0 is the classic encoding (before Ceph 0.80), "
                     "which is not supported"));
  }
  OsdMapBinary m;
  Reader r(bytes);
  CRUSH_RETURN_IF_ERROR(r.Struct("osdmap wrapper", 8, &m.wrapper, [&](Reader& b, std::uint8_t wv) {
    return ReadWrapperBody(b, wv, bytes, &m);
  }));
  if (r.remaining() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(r.remaining(), " bytes after the end of the osdmap at offset ", r.offset()));
  }
  return m;
}

absl::Status ReadAsRelease(crush::CephRelease release, OsdMapBinary* map) {
  if (release == crush::CephRelease::kTentacle) return absl::OkStatus();
  for (auto& [id, pool] : map->pools) {
    if (pool.frame.v < 31) continue;
    absl::StatusOr<binary::PeeringCrush> misread = binary::PeeringAsReadBeforeTentacle(pool);
    if (!misread.ok()) {
      return absl::Status(misread.status().code(),
                          absl::StrCat("pool ", id, ": ", misread.status().message()));
    }
    pool.peering = *misread;
  }
  return absl::OkStatus();
}

std::string EncodeOsdMap(const OsdMapBinary& m) {
  Writer w;
  binary::StructFrame wrapper = m.wrapper;
  wrapper.tail.clear();
  std::size_t crc_at = 0;
  w.Struct(wrapper, [&](Writer& b) {
    b.Struct(m.client, [&m](Writer& cb) { WriteClientSection(cb, m); });
    b.Struct(m.osd, [&m](Writer& ob) { internal::WriteOsdSection(ob, m); });
    if (m.wrapper.v >= 8) {
      crc_at = b.bytes().size();
      b.U32(0);
    }
    b.Bytes(m.wrapper.tail);
  });
  std::string out = w.Take();
  if (m.wrapper.v >= 8) {
    const std::string_view all(out);
    const std::uint32_t crc =
        Crc32c(Crc32c(0xffffffffu, all.substr(0, crc_at)), all.substr(crc_at + 4));
    for (int i = 0; i < 4; ++i)
      out[crc_at + static_cast<std::size_t>(i)] = static_cast<char>((crc >> (8 * i)) & 0xff);
  }
  return out;
}

}  // namespace crushkit::osdmap
