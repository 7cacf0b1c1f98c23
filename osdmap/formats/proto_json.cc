#include "osdmap/formats/proto_json.h"

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

namespace crushkit::osdmap {

absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& msg, bool print_defaults) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.add_whitespace = true;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = print_defaults;
  std::string out;
  auto st = google::protobuf::util::MessageToJsonString(msg, &out, opts);
  if (!st.ok()) return absl::InternalError(absl::StrCat("cannot print JSON: ", st.ToString()));
  if (out.empty() || out.back() != '\n') out += '\n';
  return out;
}

}  // namespace crushkit::osdmap
