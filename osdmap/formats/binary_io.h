// The binary OSDMap codec's names for crushkit's one little-endian reader
// and writer (crush/util/byte_io.h, shared with the crush map codec):
// bounds-checked denc primitives (include/encoding.h, include/denc.h) and
// ENCODE_START/DECODE_START struct frames. Reads fail with kDataLoss
// "truncated at offset N: expected <field>"; counts are checked against the
// bytes that remain before anything is reserved. See byte_io.h for the
// contract of each call. Plain values; not thread-safe per object.
#ifndef CRUSHKIT_OSDMAP_FORMATS_BINARY_IO_H_
#define CRUSHKIT_OSDMAP_FORMATS_BINARY_IO_H_

#include "crush/util/byte_io.h"

namespace crushkit::osdmap::binary {

using Reader = util::ByteReader;
using Writer = util::ByteWriter;
using StructFrame = util::StructFrame;

}  // namespace crushkit::osdmap::binary

#endif  // CRUSHKIT_OSDMAP_FORMATS_BINARY_IO_H_
