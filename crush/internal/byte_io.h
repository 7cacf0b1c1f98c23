// Little-endian byte reader and writer for the binary crushmap codec.
//
// ByteReader never reads past the end of its span: every Read* returns false
// (and leaves the position unchanged) when too few bytes remain, so the codec
// can turn the failure into a status naming the offset and the field.
// ByteWriter appends to a std::string. Both are plain single-thread values.
#ifndef CRUSHKIT_CRUSH_INTERNAL_BYTE_IO_H_
#define CRUSHKIT_CRUSH_INTERNAL_BYTE_IO_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace crushkit::crush::internal {

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  std::size_t offset() const { return pos_; }

  std::size_t remaining() const { return bytes_.size() - pos_; }

  bool at_end() const { return pos_ == bytes_.size(); }

  // True if `count` elements of `elem_size` bytes each (plus `extra` bytes)
  // fit in what remains. Overflow-safe for any 32-bit count.
  bool Fits(std::uint64_t count, std::uint64_t elem_size, std::uint64_t extra = 0) const {
    const std::uint64_t left = remaining();
    if (extra > left) return false;
    if (elem_size == 0) return true;
    return count <= (left - extra) / elem_size;
  }

  bool ReadU8(std::uint8_t* v) { return ReadLe(v); }

  bool ReadU16(std::uint16_t* v) { return ReadLe(v); }

  bool ReadU32(std::uint32_t* v) { return ReadLe(v); }

  bool ReadU64(std::uint64_t* v) { return ReadLe(v); }

  bool ReadS32(std::int32_t* v) {
    std::uint32_t u = 0;
    if (!ReadLe(&u)) return false;
    *v = static_cast<std::int32_t>(u);
    return true;
  }

  bool ReadS64(std::int64_t* v) {
    std::uint64_t u = 0;
    if (!ReadLe(&u)) return false;
    *v = static_cast<std::int64_t>(u);
    return true;
  }

  // Reads `len` raw bytes into `out` (replacing its contents).
  bool ReadBytes(std::size_t len, std::string* out) {
    if (len > remaining()) return false;
    out->assign(reinterpret_cast<const char*>(bytes_.data() + pos_), len);
    pos_ += len;
    return true;
  }

 private:
  template <typename T>
  bool ReadLe(T* v) {
    if (remaining() < sizeof(T)) return false;
    T out = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      out = static_cast<T>(out | static_cast<T>(static_cast<T>(bytes_[pos_ + i]) << (8 * i)));
    }
    pos_ += sizeof(T);
    *v = out;
    return true;
  }

  std::span<const std::byte> bytes_;
  std::size_t pos_ = 0;
};

class ByteWriter {
 public:
  void U8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }

  void U16(std::uint16_t v) { Le(v); }

  void U32(std::uint32_t v) { Le(v); }

  void U64(std::uint64_t v) { Le(v); }

  void S32(std::int32_t v) { Le(static_cast<std::uint32_t>(v)); }

  void S64(std::int64_t v) { Le(static_cast<std::uint64_t>(v)); }

  // A Ceph std::string: u32 length + bytes.
  void String(const std::string& s) {
    U32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }

  std::string Take() { return std::move(out_); }

 private:
  template <typename T>
  void Le(T v) {
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      out_.push_back(static_cast<char>(static_cast<unsigned char>((v >> (8 * i)) & 0xff)));
    }
  }

  std::string out_;
};

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_BYTE_IO_H_
