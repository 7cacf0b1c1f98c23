// Shared by the importers of Ceph's JSON (import.cc, report_import.cc,
// cluster_check.cc): the protobuf JSON parse with located errors, and the osd
// dump importer on an already parsed message (a `ceph report` holds the same
// dump in its "osdmap"). Not installed; proto types stay out of public APIs.
#ifndef CRUSHKIT_OSDMAP_FORMATS_IMPORT_INTERNAL_H_
#define CRUSHKIT_OSDMAP_FORMATS_IMPORT_INTERNAL_H_

#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

#include "osdmap/formats/input_sniff.h"
#include "osdmap/model/cluster_state.h"
#include "osdmap/model/pg_id.h"
#include "osdmap/proto/ceph_dump.pb.h"

namespace crushkit::osdmap::internal {

// Parses Ceph's JSON `text` into `msg` (unknown fields ignored). Errors
// (kInvalidArgument) start with `what`: binary data said so, a syntax error
// located at LINE:COL.
template <typename Msg>
absl::Status ParseCephJson(const std::string& text, Msg* msg, const char* what) {
  if (const std::string binary = DescribeBinary(text); !binary.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": this is ", binary, ", not JSON"));
  }
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;
  auto st = google::protobuf::util::JsonStringToMessage(text, msg, opts);
  if (!st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", LocateJsonError(text, std::string(st.message()))));
  }
  return absl::OkStatus();
}

// "PATH: missing required field" (kInvalidArgument), PATH as in the input
// ("pools[2].size").
inline absl::Status MissingField(const std::string& path) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": missing required field"));
}

// A Ceph pgid string ("3.1f") at PATH: missing when !has, else
// "PATH: invalid pgid '...'; expected <pool>.<hex seed>" unless it parses.
absl::StatusOr<PgId> ParsePgIdAt(bool has, const std::string& text, const std::string& path);

// ImportCephOsdDump after the parse: the same checks and errors, paths
// relative to the dump ("pools[2].size: missing required field").
absl::StatusOr<ClusterState> ImportOsdDumpMessage(const ceph::OsdDump& dump,
                                                  const std::string& crush_bytes);

}  // namespace crushkit::osdmap::internal

#endif  // CRUSHKIT_OSDMAP_FORMATS_IMPORT_INTERNAL_H_
