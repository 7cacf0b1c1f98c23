// Telling users what a file is when it is not what a command expected:
// Ceph's binary OSDMap or crush map, Ceph's JSON dump where a crushkit state
// belongs, other binary data; and protobuf's JSON parse errors turned into
// "LINE:COL: message" with a printable excerpt. Raw bytes never reach the
// terminal through these. Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_INPUT_SNIFF_H_
#define CRUSHKIT_OSDMAP_INPUT_SNIFF_H_

#include <string>
#include <string_view>

namespace crushkit::osdmap {

// OSDMap::encode's wrapper: u8 8, u8 7, u32 length of the rest, then the
// client section's ENCODE_START(v, 1).
bool LooksLikeCephOsdMap(std::string_view bytes);

// The top-level keys `ceph osd dump -f json` always prints.
bool LooksLikeCephOsdDumpJson(std::string_view text);

// "" when `bytes` looks like text (UTF-8 without NUL or control bytes other
// than tab, CR, LF in its first 4 KiB); else what it is, e.g. "Ceph's binary
// osdmap (`ceph osd getmap`)", "a binary crush map", or "binary data
// (starts 7f 45 4c 46 02 01 01 00)".
std::string DescribeBinary(std::string_view bytes);

// protobuf's JsonStringToMessage message ("Expected : between key:value
// pair.\n<up to 20 bytes either side>\n<spaces>^") as "LINE:COL: Expected :
// between key:value pair" followed by the excerpt with non-printable bytes
// escaped; the message alone (first line) when the excerpt cannot be found
// in `text`.
std::string LocateJsonError(std::string_view text, std::string_view protobuf_error);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_INPUT_SNIFF_H_
