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

// ProtoToJson(*msg, /*print_defaults=*/true), the same text, printed on up
// to three threads: the singular message field `apart` of *msg, and within
// it its field `inner` (a message or repeated field; none when empty), are
// printed apart from the rest, concurrently, and put in their places (the
// layout indents a value at nesting depth d by d spaces, and no string
// holds a raw newline, so a value printed alone fits in place once each of
// its lines is indented as deep as it sits). For a message whose bulk is
// one field (a staged plan's upmap plan: two thirds of a 10,000-OSD
// report). *msg is left in an unspecified state. A field that is not there
// (not set, or no field of that name and kind) is printed with the rest.
// Errors: ProtoToJson's.
absl::StatusOr<std::string> ProtoToJsonApart(google::protobuf::Message* msg,
                                             const std::string& apart, const std::string& inner);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_PROTO_JSON_H_
