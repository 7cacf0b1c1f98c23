// Asking a running Ceph cluster through its own `ceph` CLI, as an operator
// would (`crushkit import --from-cluster`): each command runs as
//
//   CEPH [--conf FILE] [--name client.X] [--keyring FILE] --connect-timeout S ARGS...
//
// executed directly (subprocess.h: no shell; every argument is passed as
// it is) and killed when it has not finished within 2 x S (a reachable
// monitor with no mgr answers `pg dump` never). Failures are told apart
// from what the CLI prints, and said plainly:
//
//   kNotFound          no such program ("install ceph-common or give --ceph")
//   kUnavailable       cannot connect within S seconds (wrong address or
//                      port, monitors down), or the configuration is unreadable
//   kPermissionDenied  the client may not connect or run the command
//                      (EACCES); what it needs is said
//   kDeadlineExceeded  connected, but the command did not finish in 2 x S
//   kInternal          any other failure: exit code and the CLI's last line
//
// The CLI's transient "problem getting command descriptions" (it happens
// before anything is sent, while a mgr registers) is retried up to 3 times.
// Thread-safety: pure functions over their arguments.
#ifndef CRUSHKIT_TOOLS_COMMON_CEPH_CLI_H_
#define CRUSHKIT_TOOLS_COMMON_CEPH_CLI_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace crushkit::tools {

struct CephCliOptions {
  std::string ceph = "ceph";  // program (PATH lookup) or a path, e.g. a wrapper script
  std::string conf;           // --conf FILE; empty: the CLI's default (CEPH_CONF, /etc/ceph)
  std::string name;           // --name client.X; empty: the CLI's default
  std::string keyring;        // --keyring FILE; empty: the CLI's default
  int timeout_seconds = 30;   // --connect-timeout; commands are killed after twice this
};

// The argv that runs `ceph ARGS` with `options`.
std::vector<std::string> CephArgv(const CephCliOptions& options,
                                  const std::vector<std::string>& args);

// Runs `ceph ARGS`; its stdout when it succeeds. Errors as above, each
// naming the command ("'ceph osd getmap': cannot connect ...").
absl::StatusOr<std::string> RunCeph(const CephCliOptions& options,
                                    const std::vector<std::string>& args);

// What `crushkit import --from-cluster` reads, raw as the CLI printed it.
struct ClusterDumps {
  std::string report;   // ceph report
  std::string osdmap;   // ceph osd getmap EPOCH (binary), EPOCH the report's
  std::string pg_dump;  // ceph pg dump -f json
  std::string osd_df;   // ceph osd df -f json
  std::string df;       // ceph df -f json
};

// Runs the five commands in that order. `report_epoch` reads the osdmap
// epoch of the report (so the binary osdmap is the report's epoch whatever
// happened in between); its error stops the fetch. Cost: five CLI runs.
absl::StatusOr<ClusterDumps> FetchClusterDumps(
    const CephCliOptions& options,
    const std::function<absl::StatusOr<std::uint32_t>(const std::string&)>& report_epoch);

// Writes the dumps into `dir` (created if missing) as report.json,
// osdmap.bin, pg-dump.json, osd-df.json and df.json, the names
// tests/data's captures use. Errors name the file.
absl::Status SaveClusterDumps(const ClusterDumps& dumps, const std::string& dir);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_CEPH_CLI_H_
