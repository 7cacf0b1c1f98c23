// Private to the binary OSDMap codec: the section decoders/encoders that
// osdmap_binary.cc (wrapper, crc, client section) and
// osd_section_binary.cc (OSD-only section) share.
#ifndef CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_INTERNAL_H_
#define CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_INTERNAL_H_

#include <cstdint>
#include <map>

#include "absl/status/status.h"

#include "osdmap/formats/binary_io.h"
#include "osdmap/formats/osdmap_binary.h"

namespace crushkit::osdmap::internal {

// Newest section layouts known here.
inline constexpr std::uint8_t kClientKnownV = 10;
inline constexpr std::uint8_t kOsdKnownV = 12;

// The body of the OSD-only section at version `ov`.
absl::Status ReadOsdSection(binary::Reader& r, std::uint8_t ov, OsdMapBinary* m);
void WriteOsdSection(binary::Writer& w, const OsdMapBinary& m);

absl::Status ReadSnapIntervalMap(binary::Reader& r, const char* field, SnapIntervalMap* out);
void WriteSnapIntervalMap(binary::Writer& w, const SnapIntervalMap& m);
absl::Status ReadS32U32Map(binary::Reader& r, const char* field,
                           std::map<std::int32_t, std::uint32_t>* out);
void WriteS32U32Map(binary::Writer& w, const std::map<std::int32_t, std::uint32_t>& m);
// map<entity_addr_t, utime_t>, count included, kept raw.
absl::Status ReadAddrTimeMapRaw(binary::Reader& r, const char* field, std::string* out);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_FORMATS_OSDMAP_BINARY_INTERNAL_H_
