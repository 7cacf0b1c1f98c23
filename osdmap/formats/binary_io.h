// Bounds-checked little-endian reading and writing of Ceph's denc primitives
// (include/encoding.h, include/denc.h) for the binary OSDMap codec:
// integers, strings, counts, and ENCODE_START/DECODE_START struct frames.
//
// Every read checks the bytes that remain first and fails with kDataLoss
// "truncated at offset N: expected <field>"; counts are checked against the
// remaining bytes (count x smallest element size) before a caller reserves
// anything, so a decoder built on Reader never allocates more than the input
// justifies. Offsets in messages are absolute positions in the whole input.
// Plain values; not thread-safe per object, distinct objects are independent.
#ifndef CRUSHKIT_OSDMAP_FORMATS_BINARY_IO_H_
#define CRUSHKIT_OSDMAP_FORMATS_BINARY_IO_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crushkit::osdmap::binary {

// The ENCODE_START header of one struct, and the bytes of its body that the
// decoder did not understand (fields a newer writer added), kept so that
// encoding reproduces them.
struct StructFrame {
  std::uint8_t v = 0;
  std::uint8_t compat = 0;
  std::string tail;

  bool operator==(const StructFrame&) const = default;
};

class Reader {
 public:
  // `data` is the part of the input starting at absolute offset `base`.
  explicit Reader(std::string_view data, std::size_t base = 0) : data_(data), base_(base) {}

  std::size_t offset() const { return base_ + pos_; }

  std::size_t remaining() const { return data_.size() - pos_; }

  std::string_view rest() const { return data_.substr(pos_); }

  absl::Status U8(const char* field, std::uint8_t* out);
  absl::Status U16(const char* field, std::uint16_t* out);
  absl::Status U32(const char* field, std::uint32_t* out);
  absl::Status U64(const char* field, std::uint64_t* out);
  absl::Status S32(const char* field, std::int32_t* out);
  absl::Status S64(const char* field, std::int64_t* out);
  // u32 length + bytes.
  absl::Status String(const char* field, std::string* out);
  // `n` raw bytes.
  absl::Status Bytes(const char* field, std::size_t n, std::string* out);
  absl::Status Skip(const char* field, std::size_t n);
  // A u32 element count; kDataLoss unless count x min_element_size bytes
  // remain. REQUIRES: min_element_size >= 1.
  absl::Status Count(const char* field, std::size_t min_element_size, std::uint32_t* out);

  // Reads an ENCODE_START header (u8 v, u8 compat, u32 len), checks compat
  // <= known_v (else kUnimplemented) and len <= remaining (else kDataLoss),
  // runs `body` on a Reader limited to the struct, keeps what `body` left
  // unread in frame->tail and advances past the struct.
  absl::Status Struct(const char* what, std::uint8_t known_v, StructFrame* frame,
                      const std::function<absl::Status(Reader&, std::uint8_t v)>& body);

  absl::Status Truncated(const char* field) const;
  // kInvalidArgument "<problem> at offset N (<field>)".
  absl::Status Invalid(const char* field, std::string_view problem) const;

 private:
  absl::Status Need(const char* field, std::size_t n) const;

  std::string_view data_;
  std::size_t base_;
  std::size_t pos_ = 0;
};

class Writer {
 public:
  void U8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }

  void U16(std::uint16_t v);
  void U32(std::uint32_t v);
  void U64(std::uint64_t v);

  void S32(std::int32_t v) { U32(static_cast<std::uint32_t>(v)); }

  void S64(std::int64_t v) { U64(static_cast<std::uint64_t>(v)); }

  void String(std::string_view s);

  void Bytes(std::string_view s) { out_.append(s); }

  void Count(std::size_t n) { U32(static_cast<std::uint32_t>(n)); }

  // ENCODE_START(frame.v, frame.compat), `body`, frame.tail, ENCODE_FINISH.
  void Struct(const StructFrame& frame, const std::function<void(Writer&)>& body);

  std::string& bytes() { return out_; }

  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace crushkit::osdmap::binary

#endif  // CRUSHKIT_OSDMAP_FORMATS_BINARY_IO_H_
