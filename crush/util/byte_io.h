// Bounds-checked little-endian reading and writing: the one byte reader and
// writer of the binary crush map codec (crush/codec.cc) and the binary OSDMap
// codec (osdmap/formats/, which knows them as binary::Reader and Writer).
// Integers, strings, counts, and Ceph's ENCODE_START/DECODE_START struct
// frames (include/encoding.h, include/denc.h).
//
// Every read checks the bytes that remain first and fails with kDataLoss
// "truncated at offset N: expected <field>", leaving the position where it
// was; counts are checked against the remaining bytes (count x smallest
// element size) before a caller reserves anything, so a decoder built on
// ByteReader never allocates more than the input justifies. Offsets in
// messages are absolute positions in the whole input. Header-only (part of
// crush_util, crush/util/README.md); needs only absl::status. Plain values;
// not thread-safe per object, distinct objects are independent.
#ifndef CRUSHKIT_CRUSH_UTIL_BYTE_IO_H_
#define CRUSHKIT_CRUSH_UTIL_BYTE_IO_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"

namespace crushkit::util {

// The ENCODE_START header of one struct, and the bytes of its body that the
// decoder did not understand (fields a newer writer added), kept so that
// encoding reproduces them.
struct StructFrame {
  std::uint8_t v = 0;
  std::uint8_t compat = 0;
  std::string tail;

  bool operator==(const StructFrame&) const = default;
};

class ByteReader {
 public:
  // `data` is the part of the input starting at absolute offset `base`.
  explicit ByteReader(std::string_view data, std::size_t base = 0) : data_(data), base_(base) {}

  explicit ByteReader(std::span<const std::byte> bytes, std::size_t base = 0)
      : ByteReader(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                   base) {}

  std::size_t offset() const { return base_ + pos_; }

  std::size_t remaining() const { return data_.size() - pos_; }

  std::string_view rest() const { return data_.substr(pos_); }

  bool at_end() const { return pos_ == data_.size(); }

  // True if `count` elements of `elem_size` bytes each (plus `extra` bytes)
  // fit in what remains. Overflow-safe for any 32-bit count.
  bool Fits(std::uint64_t count, std::uint64_t elem_size, std::uint64_t extra = 0) const {
    const std::uint64_t left = remaining();
    if (extra > left) return false;
    if (elem_size == 0) return true;
    return count <= (left - extra) / elem_size;
  }

  absl::Status U8(const char* field, std::uint8_t* out) { return Le(field, out); }

  absl::Status U16(const char* field, std::uint16_t* out) { return Le(field, out); }

  absl::Status U32(const char* field, std::uint32_t* out) { return Le(field, out); }

  absl::Status U64(const char* field, std::uint64_t* out) { return Le(field, out); }

  absl::Status S32(const char* field, std::int32_t* out) {
    std::uint32_t v = 0;
    if (absl::Status s = Le(field, &v); !s.ok()) return s;
    *out = static_cast<std::int32_t>(v);
    return absl::OkStatus();
  }

  absl::Status S64(const char* field, std::int64_t* out) {
    std::uint64_t v = 0;
    if (absl::Status s = Le(field, &v); !s.ok()) return s;
    *out = static_cast<std::int64_t>(v);
    return absl::OkStatus();
  }

  // u32 length + bytes.
  absl::Status String(const char* field, std::string* out) {
    std::uint32_t n = 0;
    if (absl::Status s = U32(field, &n); !s.ok()) return s;
    return Bytes(field, n, out);
  }

  // `n` raw bytes, replacing `out`'s contents.
  absl::Status Bytes(const char* field, std::size_t n, std::string* out) {
    if (n > remaining()) return Truncated(field);
    out->assign(data_.data() + pos_, n);
    pos_ += n;
    return absl::OkStatus();
  }

  absl::Status Skip(const char* field, std::size_t n) {
    if (n > remaining()) return Truncated(field);
    pos_ += n;
    return absl::OkStatus();
  }

  // A u32 element count; kDataLoss unless count x min_element_size bytes
  // remain. REQUIRES: min_element_size >= 1.
  absl::Status Count(const char* field, std::size_t min_element_size, std::uint32_t* out) {
    const std::size_t at = offset();
    if (absl::Status s = U32(field, out); !s.ok()) return s;
    if (!Fits(*out, min_element_size)) {
      return absl::DataLossError("count " + std::to_string(*out) + " of " + field + " at offset " +
                                 std::to_string(at) + " exceeds the " +
                                 std::to_string(remaining()) + " bytes that remain");
    }
    return absl::OkStatus();
  }

  // Reads an ENCODE_START header (u8 v, u8 compat, u32 len), checks compat
  // <= known_v (else kUnimplemented) and len <= remaining (else kDataLoss),
  // runs `body` on a reader limited to the struct, keeps what `body` left
  // unread in frame->tail and advances past the struct.
  absl::Status Struct(const char* what, std::uint8_t known_v, StructFrame* frame,
                      const std::function<absl::Status(ByteReader&, std::uint8_t v)>& body) {
    const std::size_t at = offset();
    std::uint32_t len = 0;
    if (absl::Status s = U8(what, &frame->v); !s.ok()) return s;
    if (absl::Status s = U8(what, &frame->compat); !s.ok()) return s;
    if (absl::Status s = U32(what, &len); !s.ok()) return s;
    if (frame->compat > known_v) {
      return absl::UnimplementedError(
          std::string(what) + " at offset " + std::to_string(at) + " needs a decoder of version " +
          std::to_string(frame->compat) + " (newer than " + std::to_string(known_v) + ")");
    }
    if (len > remaining()) {
      return absl::DataLossError("truncated: " + std::string(what) + " at offset " +
                                 std::to_string(at) + " has length " + std::to_string(len) +
                                 " but only " + std::to_string(remaining()) + " bytes remain");
    }
    ByteReader sub(data_.substr(pos_, len), offset());
    if (absl::Status s = body(sub, frame->v); !s.ok()) return s;
    frame->tail.assign(sub.rest());
    pos_ += len;
    return absl::OkStatus();
  }

  // kDataLoss "truncated at offset N: expected <field>".
  absl::Status Truncated(const char* field) const {
    return absl::DataLossError("truncated at offset " + std::to_string(offset()) + ": expected " +
                               field);
  }

  // kInvalidArgument "<problem> at offset N (<field>)".
  absl::Status Invalid(const char* field, std::string_view problem) const {
    return absl::InvalidArgumentError(std::string(problem) + " at offset " +
                                      std::to_string(offset()) + " (" + field + ")");
  }

 private:
  template <typename T>
  absl::Status Le(const char* field, T* out) {
    if (remaining() < sizeof(T)) return Truncated(field);
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      v = static_cast<T>(
          v |
          static_cast<T>(static_cast<T>(static_cast<unsigned char>(data_[pos_ + i])) << (8 * i)));
    }
    pos_ += sizeof(T);
    *out = v;
    return absl::OkStatus();
  }

  std::string_view data_;
  std::size_t base_;
  std::size_t pos_ = 0;
};

// Appends little-endian values to a std::string.
class ByteWriter {
 public:
  void U8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }

  void U16(std::uint16_t v) { Le(v); }

  void U32(std::uint32_t v) { Le(v); }

  void U64(std::uint64_t v) { Le(v); }

  void S32(std::int32_t v) { Le(static_cast<std::uint32_t>(v)); }

  void S64(std::int64_t v) { Le(static_cast<std::uint64_t>(v)); }

  // A Ceph std::string: u32 length + bytes.
  void String(std::string_view s) {
    Count(s.size());
    out_.append(s);
  }

  void Bytes(std::string_view s) { out_.append(s); }

  void Count(std::size_t n) { U32(static_cast<std::uint32_t>(n)); }

  // ENCODE_START(frame.v, frame.compat), `body`, frame.tail, ENCODE_FINISH.
  void Struct(const StructFrame& frame, const std::function<void(ByteWriter&)>& body) {
    U8(frame.v);
    U8(frame.compat);
    const std::size_t len_at = out_.size();
    U32(0);
    body(*this);
    out_.append(frame.tail);
    const auto len = static_cast<std::uint32_t>(out_.size() - len_at - 4);
    for (std::size_t i = 0; i < 4; ++i)
      out_[len_at + i] = static_cast<char>(static_cast<unsigned char>((len >> (8 * i)) & 0xff));
  }

  std::string& bytes() { return out_; }

  std::string Take() { return std::move(out_); }

 private:
  template <typename T>
  void Le(T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i)
      out_.push_back(static_cast<char>(static_cast<unsigned char>((v >> (8 * i)) & 0xff)));
  }

  std::string out_;
};

}  // namespace crushkit::util

#endif  // CRUSHKIT_CRUSH_UTIL_BYTE_IO_H_
