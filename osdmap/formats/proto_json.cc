#include "osdmap/formats/proto_json.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <memory>

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

}  // namespace crushkit::osdmap
