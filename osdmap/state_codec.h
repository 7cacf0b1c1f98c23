// Conversion between ClusterState and its protobuf schema
// (osdmap/proto/state.proto), and the state-file encodings: binary protobuf
// (.pb) and protobuf's JSON mapping (.json). Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_STATE_CODEC_H_
#define CRUSHKIT_OSDMAP_STATE_CODEC_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/cluster_state.h"

namespace crushkit::osdmap {

namespace proto {
class ClusterState;
}  // namespace proto

enum class StateFormat { kBinary, kJson };

// ToProto never fails. FromProto decodes the embedded crush map and
// validates the result (ValidateState); errors name the offending entry
// (kInvalidArgument; crush decoding errors keep the codec's code, prefixed
// with "crush_map: ").
void ToProto(const ClusterState& state, proto::ClusterState* out);
absl::StatusOr<ClusterState> FromProto(const proto::ClusterState& msg);

// Serializes `state` in `format`. JSON is pretty-printed, one trailing newline.
absl::StatusOr<std::string> SerializeState(const ClusterState& state, StateFormat format);

// Parses a state file; JSON if the first non-space byte is '{', else
// Ceph's binary osdmap (decoded by ImportCephBinaryOsdMap,
// osdmap_binary_state.h) when it looks like one, else binary protobuf.
// Errors: kInvalidArgument for malformed input (with the parser's message),
// then anything FromProto or the osdmap decoder reports.
absl::StatusOr<ClusterState> ParseState(const std::string& bytes);

// ".json" suffix -> kJson, anything else kBinary.
StateFormat StateFormatForPath(const std::string& path);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_STATE_CODEC_H_
