// Small Ceph value types shared by the binary OSDMap codec's pool and map
// sections (osd_types.h, include/utime.h, include/interval_set.h), with
// their decoders and encoders: utime_t, pg_t, eversion_t, snap interval
// sets, entity_addr(vec)_t kept as opaque bytes, and string maps.
// Pure functions over binary::Reader/Writer; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_BINARY_TYPES_H_
#define CRUSHKIT_OSDMAP_FORMATS_BINARY_TYPES_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"

#include "osdmap/formats/binary_io.h"
#include "osdmap/model/pg_id.h"

namespace crushkit::osdmap::binary {

struct Utime {
  std::uint32_t sec = 0;
  std::uint32_t nsec = 0;

  bool operator==(const Utime&) const = default;
};

// eversion_t: u64 version, u32 epoch.
struct Eversion {
  std::uint64_t version = 0;
  std::uint32_t epoch = 0;

  bool operator==(const Eversion&) const = default;
};

// interval_set<snapid_t> as (start, len) pairs in wire order.
using IntervalSet = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
using StringMap = std::map<std::string, std::string>;

absl::Status ReadUtime(Reader& r, const char* field, Utime* out);
void WriteUtime(Writer& w, const Utime& t);
absl::Status ReadEversion(Reader& r, const char* field, Eversion* out);
void WriteEversion(Writer& w, const Eversion& e);

// pg_t: u8 1, u64 pool, u32 seed, s32 preferred (-1). Like Ceph's
// pg_t::decode, the version byte and `preferred` are read and dropped;
// encoding writes 1 and -1.
absl::Status ReadPg(Reader& r, const char* field, PgId* out);
void WritePg(Writer& w, const PgId& pg);

absl::Status ReadIntervalSet(Reader& r, const char* field, IntervalSet* out);
void WriteIntervalSet(Writer& w, const IntervalSet& s);

absl::Status ReadStringMap(Reader& r, const char* field, StringMap* out);
void WriteStringMap(Writer& w, const StringMap& m);
absl::Status ReadStringMapMap(Reader& r, const char* field, std::map<std::string, StringMap>* out);
void WriteStringMapMap(Writer& w, const std::map<std::string, StringMap>& m);

// One entity_addr_t (marker 0: legacy 136 bytes; marker 1: ENCODE_START
// frame), appended raw to *out.
absl::Status ReadAddrRaw(Reader& r, const char* field, std::string* out);
// One entity_addrvec_t (marker 0/1: a single address; 2: vector), raw.
absl::Status ReadAddrvecRaw(Reader& r, const char* field, std::string* out);
// vector<entity_addrvec_t> (or vector<entity_addr_t> when !addrvec), each
// element kept raw.
absl::Status ReadAddrList(Reader& r, const char* field, bool addrvec,
                          std::vector<std::string>* out);
void WriteRawList(Writer& w, const std::vector<std::string>& items);

}  // namespace crushkit::osdmap::binary

#endif  // CRUSHKIT_OSDMAP_FORMATS_BINARY_TYPES_H_
