// Conversion between ClusterState and its protobuf schema
// (osdmap/proto/state.proto), and the state-file encodings: binary protobuf
// (.pb) and protobuf's JSON mapping (.json). Pure functions; thread-safe.
#ifndef CRUSHKIT_OSDMAP_FORMATS_STATE_CODEC_H_
#define CRUSHKIT_OSDMAP_FORMATS_STATE_CODEC_H_

#include <string>

#include "absl/status/statusor.h"

#include "osdmap/model/cluster_state.h"

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

// Parses a state file: binary protobuf or JSON, or Ceph's binary osdmap
// (decoded by ImportCephBinaryOsdMap, osdmap_binary_state.h), told apart by
// content (input_sniff.h). Errors: kInvalidArgument for anything else, with
// what it is and what to give instead (CheckInputKind's kState refusal: a
// Ceph dump, a crush map, an empty file, other JSON, other binary data);
// for a state's JSON syntax ("state JSON: LINE:COL: ..."); then anything
// FromProto or the osdmap decoder reports. Messages quote at most ~80
// bytes of the input.
absl::StatusOr<ClusterState> ParseState(const std::string& bytes);

// ".json" suffix -> kJson, anything else kBinary.
StateFormat StateFormatForPath(const std::string& path);

}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_FORMATS_STATE_CODEC_H_
