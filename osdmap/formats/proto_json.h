// One way to print a protobuf message as JSON for every crushkit --json
// output: indented, proto field names (snake_case), map entries in key
// order (the same report prints the same bytes), a trailing newline.
#ifndef CRUSHKIT_OSDMAP_FORMATS_PROTO_JSON_H_
#define CRUSHKIT_OSDMAP_FORMATS_PROTO_JSON_H_

#include <string>

#include "absl/status/statusor.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace crushkit::osdmap {

// `print_defaults` also prints fields at their default value (0, "", false),
// which scripts reading reports rely on. Errors: kInternal if protobuf
// cannot print the message (it can always print valid UTF-8 strings).
absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& msg, bool print_defaults);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_PROTO_JSON_H_
