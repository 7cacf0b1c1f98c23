#include "osdmap/formats/binary_io.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

#include "crush/status_macros.h"

namespace crushkit::osdmap::binary {

absl::Status Reader::Truncated(const char* field) const {
  return absl::DataLossError(absl::StrCat("truncated at offset ", offset(), ": expected ", field));
}

absl::Status Reader::Invalid(const char* field, std::string_view problem) const {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(problem), " at offset ", offset(), " (", field, ")"));
}

absl::Status Reader::Need(const char* field, std::size_t n) const {
  return n <= remaining() ? absl::OkStatus() : Truncated(field);
}

namespace {

template <typename T>
T LoadLe(const char* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v = static_cast<T>(v |
                       static_cast<T>(static_cast<T>(static_cast<unsigned char>(p[i])) << (8 * i)));
  }
  return v;
}

}  // namespace

absl::Status Reader::U8(const char* field, std::uint8_t* out) {
  CRUSH_RETURN_IF_ERROR(Need(field, 1));
  *out = static_cast<std::uint8_t>(data_[pos_++]);
  return absl::OkStatus();
}

absl::Status Reader::U16(const char* field, std::uint16_t* out) {
  CRUSH_RETURN_IF_ERROR(Need(field, 2));
  *out = LoadLe<std::uint16_t>(data_.data() + pos_);
  pos_ += 2;
  return absl::OkStatus();
}

absl::Status Reader::U32(const char* field, std::uint32_t* out) {
  CRUSH_RETURN_IF_ERROR(Need(field, 4));
  *out = LoadLe<std::uint32_t>(data_.data() + pos_);
  pos_ += 4;
  return absl::OkStatus();
}

absl::Status Reader::U64(const char* field, std::uint64_t* out) {
  CRUSH_RETURN_IF_ERROR(Need(field, 8));
  *out = LoadLe<std::uint64_t>(data_.data() + pos_);
  pos_ += 8;
  return absl::OkStatus();
}

absl::Status Reader::S32(const char* field, std::int32_t* out) {
  std::uint32_t v = 0;
  CRUSH_RETURN_IF_ERROR(U32(field, &v));
  *out = static_cast<std::int32_t>(v);
  return absl::OkStatus();
}

absl::Status Reader::S64(const char* field, std::int64_t* out) {
  std::uint64_t v = 0;
  CRUSH_RETURN_IF_ERROR(U64(field, &v));
  *out = static_cast<std::int64_t>(v);
  return absl::OkStatus();
}

absl::Status Reader::Bytes(const char* field, std::size_t n, std::string* out) {
  CRUSH_RETURN_IF_ERROR(Need(field, n));
  out->assign(data_.data() + pos_, n);
  pos_ += n;
  return absl::OkStatus();
}

absl::Status Reader::Skip(const char* field, std::size_t n) {
  CRUSH_RETURN_IF_ERROR(Need(field, n));
  pos_ += n;
  return absl::OkStatus();
}

absl::Status Reader::String(const char* field, std::string* out) {
  std::uint32_t n = 0;
  CRUSH_RETURN_IF_ERROR(U32(field, &n));
  return Bytes(field, n, out);
}

absl::Status Reader::Count(const char* field, std::size_t min_element_size, std::uint32_t* out) {
  const std::size_t at = offset();
  CRUSH_RETURN_IF_ERROR(U32(field, out));
  if (static_cast<std::uint64_t>(*out) * min_element_size > remaining()) {
    return absl::DataLossError(absl::StrCat("count ", *out, " of ", field, " at offset ", at,
                                            " exceeds the ", remaining(), " bytes that remain"));
  }
  return absl::OkStatus();
}

absl::Status Reader::Struct(const char* what, std::uint8_t known_v, StructFrame* frame,
                            const std::function<absl::Status(Reader&, std::uint8_t v)>& body) {
  const std::size_t at = offset();
  std::uint32_t len = 0;
  CRUSH_RETURN_IF_ERROR(U8(what, &frame->v));
  CRUSH_RETURN_IF_ERROR(U8(what, &frame->compat));
  CRUSH_RETURN_IF_ERROR(U32(what, &len));
  if (frame->compat > known_v) {
    return absl::UnimplementedError(absl::StrCat(what, " at offset ", at,
                                                 " needs a decoder of version ", frame->compat,
                                                 " (newer than ", known_v, ")"));
  }
  if (len > remaining()) {
    return absl::DataLossError(absl::StrCat("truncated: ", what, " at offset ", at, " has length ",
                                            len, " but only ", remaining(), " bytes remain"));
  }
  Reader sub(data_.substr(pos_, len), offset());
  CRUSH_RETURN_IF_ERROR(body(sub, frame->v));
  frame->tail.assign(sub.rest());
  pos_ += len;
  return absl::OkStatus();
}

void Writer::U16(std::uint16_t v) {
  for (int i = 0; i < 2; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void Writer::U32(std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void Writer::U64(std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void Writer::String(std::string_view s) {
  Count(s.size());
  out_.append(s);
}

void Writer::Struct(const StructFrame& frame, const std::function<void(Writer&)>& body) {
  U8(frame.v);
  U8(frame.compat);
  const std::size_t len_at = out_.size();
  U32(0);
  body(*this);
  out_.append(frame.tail);
  const auto len = static_cast<std::uint32_t>(out_.size() - len_at - 4);
  for (int i = 0; i < 4; ++i)
    out_[len_at + static_cast<std::size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
}

}  // namespace crushkit::osdmap::binary
