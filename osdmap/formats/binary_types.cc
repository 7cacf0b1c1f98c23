#include "osdmap/formats/binary_types.h"

#include <string_view>

#include "crush/status_macros.h"

namespace crushkit::osdmap::binary {

absl::Status ReadUtime(Reader& r, const char* field, Utime* out) {
  CRUSH_RETURN_IF_ERROR(r.U32(field, &out->sec));
  return r.U32(field, &out->nsec);
}

void WriteUtime(Writer& w, const Utime& t) {
  w.U32(t.sec);
  w.U32(t.nsec);
}

absl::Status ReadEversion(Reader& r, const char* field, Eversion* out) {
  CRUSH_RETURN_IF_ERROR(r.U64(field, &out->version));
  return r.U32(field, &out->epoch);
}

void WriteEversion(Writer& w, const Eversion& e) {
  w.U64(e.version);
  w.U32(e.epoch);
}

absl::Status ReadPg(Reader& r, const char* field, PgId* out) {
  std::uint8_t v = 0;
  std::uint64_t pool = 0;
  CRUSH_RETURN_IF_ERROR(r.U8(field, &v));
  CRUSH_RETURN_IF_ERROR(r.U64(field, &pool));
  CRUSH_RETURN_IF_ERROR(r.U32(field, &out->ps));
  out->pool = static_cast<std::int64_t>(pool);
  return r.Skip(field, 4);
}

void WritePg(Writer& w, const PgId& pg) {
  w.U8(1);
  w.S64(pg.pool);
  w.U32(pg.ps);
  w.S32(-1);
}

absl::Status ReadIntervalSet(Reader& r, const char* field, IntervalSet* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 16, &n));
  out->clear();
  out->reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t start = 0;
    std::uint64_t len = 0;
    CRUSH_RETURN_IF_ERROR(r.U64(field, &start));
    CRUSH_RETURN_IF_ERROR(r.U64(field, &len));
    out->emplace_back(start, len);
  }
  return absl::OkStatus();
}

void WriteIntervalSet(Writer& w, const IntervalSet& s) {
  w.Count(s.size());
  for (const auto& [start, len] : s) {
    w.U64(start);
    w.U64(len);
  }
}

absl::Status ReadStringMap(Reader& r, const char* field, StringMap* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 8, &n));
  out->clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string k;
    std::string v;
    CRUSH_RETURN_IF_ERROR(r.String(field, &k));
    CRUSH_RETURN_IF_ERROR(r.String(field, &v));
    out->emplace(std::move(k), std::move(v));
  }
  return absl::OkStatus();
}

void WriteStringMap(Writer& w, const StringMap& m) {
  w.Count(m.size());
  for (const auto& [k, v] : m) {
    w.String(k);
    w.String(v);
  }
}

absl::Status ReadStringMapMap(Reader& r, const char* field, std::map<std::string, StringMap>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 8, &n));
  out->clear();
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string k;
    StringMap v;
    CRUSH_RETURN_IF_ERROR(r.String(field, &k));
    CRUSH_RETURN_IF_ERROR(ReadStringMap(r, field, &v));
    out->emplace(std::move(k), std::move(v));
  }
  return absl::OkStatus();
}

void WriteStringMapMap(Writer& w, const std::map<std::string, StringMap>& m) {
  w.Count(m.size());
  for (const auto& [k, v] : m) {
    w.String(k);
    WriteStringMap(w, v);
  }
}

namespace {

// entity_addr_t after its marker byte, which the caller consumed.
// msg_types.h decode_legacy_addr_after_marker(): 3 pad bytes, u32 nonce,
// 128-byte sockaddr_storage.
constexpr std::size_t kLegacyAddrRest = 3 + 4 + 128;

absl::Status ReadAddrAfterMarker(Reader& r, const char* field, std::uint8_t marker,
                                 std::string* out) {
  const std::string_view start = r.rest();
  if (marker == 0) {
    CRUSH_RETURN_IF_ERROR(r.Skip(field, kLegacyAddrRest));
  } else if (marker == 1) {
    StructFrame frame;
    CRUSH_RETURN_IF_ERROR(r.Struct(field, 1, &frame, [](Reader& body, std::uint8_t) {
      return body.Skip("entity_addr_t body", body.remaining());
    }));
  } else {
    return r.Invalid(field, "bad entity_addr_t marker " + std::to_string(marker));
  }
  out->append(start.substr(0, start.size() - r.rest().size()));
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadAddrRaw(Reader& r, const char* field, std::string* out) {
  std::uint8_t marker = 0;
  CRUSH_RETURN_IF_ERROR(r.U8(field, &marker));
  out->push_back(static_cast<char>(marker));
  return ReadAddrAfterMarker(r, field, marker, out);
}

absl::Status ReadAddrvecRaw(Reader& r, const char* field, std::string* out) {
  std::uint8_t marker = 0;
  CRUSH_RETURN_IF_ERROR(r.U8(field, &marker));
  out->push_back(static_cast<char>(marker));
  if (marker < 2) return ReadAddrAfterMarker(r, field, marker, out);
  if (marker > 2) return r.Invalid(field, "bad entity_addrvec_t marker " + std::to_string(marker));
  const std::string_view start = r.rest();
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, 7, &n));
  std::string ignored;
  for (std::uint32_t i = 0; i < n; ++i) CRUSH_RETURN_IF_ERROR(ReadAddrRaw(r, field, &ignored));
  out->append(start.substr(0, start.size() - r.rest().size()));
  return absl::OkStatus();
}

absl::Status ReadAddrList(Reader& r, const char* field, bool addrvec,
                          std::vector<std::string>* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(r.Count(field, addrvec ? 5 : 7, &n));
  out->clear();
  out->reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::string raw;
    CRUSH_RETURN_IF_ERROR(addrvec ? ReadAddrvecRaw(r, field, &raw) : ReadAddrRaw(r, field, &raw));
    out->push_back(std::move(raw));
  }
  return absl::OkStatus();
}

void WriteRawList(Writer& w, const std::vector<std::string>& items) {
  w.Count(items.size());
  for (const std::string& item : items) w.Bytes(item);
}

}  // namespace crushkit::osdmap::binary
