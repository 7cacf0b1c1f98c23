#include "osdmap/formats/proto_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <future>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace crushkit::osdmap {
namespace {

constexpr const char* kTypeUrlPrefix = "type.googleapis.com";

// The wire bytes with map entries in key order. MessageToJsonString prints
// from SerializeAsString, whose map order is the hash table's: the same
// report printed its per-class maps in a different order from run to run.
std::string DeterministicBytes(const google::protobuf::Message& msg) {
  std::string bytes;
  google::protobuf::io::StringOutputStream raw(&bytes);
  google::protobuf::io::CodedOutputStream coded(&raw);
  coded.SetSerializationDeterministic(true);
  msg.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

// [begin, end) of the value of the top-level key `key` in `json`, as
// ProtoToJson prints it: the key on a line of its own indented one space,
// an object or array value closed by a line indented one space (deeper
// lines are indented more; a string never holds a raw newline). nullopt
// when the key is not there or its value is not an object or array.
std::optional<std::pair<std::size_t, std::size_t>> TopLevelValue(std::string_view json,
                                                                 std::string_view key) {
  const std::string at = absl::StrCat("\n \"", std::string(key), "\": ");
  const std::size_t k = json.find(at);
  if (k == std::string_view::npos) return std::nullopt;
  const std::size_t b = k + at.size();
  if (b >= json.size() || (json[b] != '{' && json[b] != '[')) return std::nullopt;
  if (json.substr(b, 2) == "{}" || json.substr(b, 2) == "[]") return std::make_pair(b, b + 2);
  const std::size_t e = json.find(json[b] == '{' ? "\n }" : "\n ]", b);
  if (e == std::string_view::npos) return std::nullopt;
  return std::make_pair(b, e + 3);
}

// `value` (a message printed alone, its trailing newline dropped) as it
// reads one level deeper: a space after every newline.
std::string OneLevelDeeper(std::string_view value) {
  std::string out;
  out.reserve(value.size() + value.size() / 16);
  std::size_t from = 0;
  for (std::size_t nl = value.find('\n'); nl != std::string_view::npos;
       nl = value.find('\n', from)) {
    out.append(value.substr(from, nl + 1 - from));
    out.push_back(' ');
    from = nl + 1;
  }
  out.append(value.substr(from));
  return out;
}

// Replaces the value of top-level key `key` in *json by `value`.
absl::Status PutValue(std::string* json, std::string_view key, std::string_view value) {
  const auto span = TopLevelValue(*json, key);
  if (!span)
    return absl::InternalError(absl::StrCat("cannot print JSON: no place for ", std::string(key)));
  json->replace(span->first, span->second - span->first, value);
  return absl::OkStatus();
}

// The message field `name` of `msg` when it is a set singular message
// field, else null.
const google::protobuf::FieldDescriptor* SetMessageField(const google::protobuf::Message& msg,
                                                         const std::string& name) {
  const google::protobuf::FieldDescriptor* f = msg.GetDescriptor()->FindFieldByName(name);
  if (f == nullptr || f->is_repeated() ||
      f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE ||
      !msg.GetReflection()->HasField(msg, f)) {
    return nullptr;
  }
  return f;
}

}  // namespace

absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& msg, bool print_defaults) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = print_defaults;
  const google::protobuf::Descriptor* type = msg.GetDescriptor();
  const std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
      google::protobuf::util::NewTypeResolverForDescriptorPool(kTypeUrlPrefix,
                                                               type->file()->pool()));
  std::string out;
  auto st = google::protobuf::util::BinaryToJsonString(
      resolver.get(), absl::StrCat(kTypeUrlPrefix, "/", type->full_name()), DeterministicBytes(msg),
      &out, opts);
  if (!st.ok()) return absl::InternalError(absl::StrCat("cannot print JSON: ", st.ToString()));
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

absl::StatusOr<std::string> ProtoToJsonApart(google::protobuf::Message* msg,
                                             const std::string& apart, const std::string& inner) {
  const google::protobuf::FieldDescriptor* f = SetMessageField(*msg, apart);
  if (f == nullptr) return ProtoToJson(*msg, /*print_defaults=*/true);
  const google::protobuf::Reflection* r = msg->GetReflection();
  const std::unique_ptr<google::protobuf::Message> part(r->ReleaseMessage(msg, f));
  r->MutableMessage(msg, f);  // an empty one keeps the key's place
  // `inner` moves to a message of part's type of its own; part keeps an
  // empty one (a repeated field prints [] with the defaults).
  const google::protobuf::FieldDescriptor* g = part->GetDescriptor()->FindFieldByName(inner);
  if (g != nullptr && !g->is_repeated() && !part->GetReflection()->HasField(*part, g)) g = nullptr;
  std::unique_ptr<google::protobuf::Message> holder;
  if (g != nullptr) {
    holder.reset(part->New());
    part->GetReflection()->SwapFields(part.get(), holder.get(), {g});
    if (!g->is_repeated()) part->GetReflection()->MutableMessage(part.get(), g);
  }
  auto rest = std::async(std::launch::async, [msg] { return ProtoToJson(*msg, true); });
  std::future<absl::StatusOr<std::string>> held;
  if (holder != nullptr) {
    held = std::async(std::launch::async, [&holder] { return ProtoToJson(*holder, true); });
  }
  absl::StatusOr<std::string> part_json = ProtoToJson(*part, true);
  absl::StatusOr<std::string> out = rest.get();
  if (holder != nullptr) {
    const absl::StatusOr<std::string> held_json = held.get();
    if (!held_json.ok()) return held_json.status();
    if (part_json.ok()) {
      const auto span = TopLevelValue(*held_json, g->name());
      if (!span) return absl::InternalError("cannot print JSON: no value for " + g->name());
      const std::string_view value =
          std::string_view(*held_json).substr(span->first, span->second - span->first);
      if (absl::Status st = PutValue(&*part_json, g->name(), value); !st.ok()) return st;
    }
  }
  if (!part_json.ok()) return part_json.status();
  if (!out.ok()) return out.status();
  std::string_view value = *part_json;
  value.remove_suffix(1);  // its newline
  if (absl::Status st = PutValue(&*out, f->name(), OneLevelDeeper(value)); !st.ok()) return st;
  return out;
}

}  // namespace crushkit::osdmap
