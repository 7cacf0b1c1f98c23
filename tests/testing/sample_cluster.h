// The bundled sample cluster (samples/cluster/) as `crushkit import` reads
// it: osd dump, text crush map (compiled), pg dump, osd df and df. For
// tests that exercise the planner on a realistic cluster.
#ifndef CRUSHKIT_TESTS_TESTING_SAMPLE_CLUSTER_H_
#define CRUSHKIT_TESTS_TESTING_SAMPLE_CLUSTER_H_

#include <string>

#include "absl/status/statusor.h"

#include "compiler/compile.h"
#include "crush/codec.h"
#include "osdmap/changes/change_ops.h"
#include "osdmap/formats/import.h"
#include "tests/testing/paths.h"

namespace crush_testing {

inline std::string SampleClusterDir() { return SourceDir() + "/samples/cluster"; }

inline absl::StatusOr<crushkit::osdmap::ClusterState> LoadSampleCluster() {
  const std::string dir = SampleClusterDir();
  const crushkit::compiler::SourceFile src("crush.txt", ReadFileOrEmpty(dir + "/crush.txt"));
  absl::StatusOr<crushkit::crush::MapModel> model = crushkit::compiler::Compile(src);
  if (!model.ok()) return model.status();
  absl::StatusOr<crushkit::osdmap::ClusterState> state = crushkit::osdmap::ImportCephOsdDump(
      ReadFileOrEmpty(dir + "/osd-dump.json"), crushkit::crush::EncodeCrushMap(*model));
  if (!state.ok()) return state.status();
  if (absl::Status s =
          crushkit::osdmap::ImportCephPgDump(ReadFileOrEmpty(dir + "/pg-dump.json"), &*state);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          crushkit::osdmap::ImportCephOsdDf(ReadFileOrEmpty(dir + "/osd-df.json"), &*state);
      !s.ok()) {
    return s;
  }
  return state;
}

// A change file of samples/cluster/, parsed.
inline absl::StatusOr<crushkit::osdmap::ChangeList> LoadSampleChange(const std::string& name) {
  return crushkit::osdmap::ParseChange(ReadFileOrEmpty(SampleClusterDir() + "/" + name), name);
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_SAMPLE_CLUSTER_H_
