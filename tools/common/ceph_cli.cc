#include "tools/common/ceph_cli.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include "crush/util/text_excerpt.h"
#include "tools/common/file_io.h"
#include "tools/common/subprocess.h"

namespace crushkit::tools {
namespace {

constexpr int kDescriptionRetries = 3;

// The CLI's last non-empty stderr line that is not a daemon-style log line
// ("2026-12-06T23:26:01.706+0000 7f1f... -1 auth: ..."), else the last one.
std::string LastLine(const std::string& err) {
  std::string last;
  std::string last_plain;
  std::size_t pos = 0;
  while (pos < err.size()) {
    std::size_t end = err.find('\n', pos);
    if (end == std::string::npos) end = err.size();
    std::string line = err.substr(pos, end - pos);
    pos = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    last = line;
    const bool log_line = line.size() > 20 && line[4] == '-' && line[10] == 'T';
    if (!log_line) last_plain = line;
  }
  return util::TerminalExcerpt(last_plain.empty() ? last : last_plain, 200);
}

std::string CommandText(const std::vector<std::string>& args) {
  return absl::StrCat("'ceph ", absl::StrJoin(args, " "), "'");
}

absl::Status Classify(const CephCliOptions& o, const std::vector<std::string>& args,
                      const ProcessResult& r) {
  const std::string cmd = CommandText(args);
  const std::string line = LastLine(r.err);
  const std::string who = o.name.empty() ? "" : absl::StrCat(" as ", o.name);
  if (r.timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(
        cmd, ": no answer within ", 2 * o.timeout_seconds,
        " s (killed); is a mgr running? ('ceph pg dump', 'osd df' and 'df' need one)"));
  }
  if (r.exit_code == 13 || absl::StrContains(r.err, "EACCES") ||
      absl::StrContains(r.err, "permission denied") || absl::StrContains(r.err, "access denied")) {
    return absl::PermissionDeniedError(absl::StrCat(
        cmd, ": permission denied", who, " (", line,
        "); the client needs 'mon allow r' and 'mgr allow r' (give --name and --keyring)"));
  }
  if (absl::StrContains(r.err, "conf_read_file") ||
      absl::StrContains(r.err, "did not load config file")) {
    return absl::UnavailableError(absl::StrCat(cmd, ": cannot read the Ceph configuration",
                                               o.conf.empty() ? "" : " " + o.conf, " (", line,
                                               "); give --conf FILE"));
  }
  if (absl::StrContains(r.err, "timed out") ||
      absl::StrContains(r.err, "error connecting to the cluster") ||
      absl::StrContains(r.err, "Connection refused")) {
    return absl::UnavailableError(
        absl::StrCat(cmd, ": cannot connect to the cluster within ", o.timeout_seconds, " s (",
                     line, "); are the monitors up, and is the address in ",
                     o.conf.empty() ? "the Ceph configuration" : o.conf, " right?"));
  }
  if (r.signal != 0) {
    return absl::InternalError(
        absl::StrCat(cmd, ": killed by signal ", r.signal, line.empty() ? "" : " (" + line + ")"));
  }
  return absl::InternalError(
      absl::StrCat(cmd, ": failed (exit ", r.exit_code, ")", line.empty() ? "" : ": " + line));
}

}  // namespace

std::vector<std::string> CephArgv(const CephCliOptions& options,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> argv = {options.ceph};
  if (!options.conf.empty()) argv.insert(argv.end(), {"--conf", options.conf});
  if (!options.name.empty()) argv.insert(argv.end(), {"--name", options.name});
  if (!options.keyring.empty()) argv.insert(argv.end(), {"--keyring", options.keyring});
  argv.insert(argv.end(), {"--connect-timeout", absl::StrCat(options.timeout_seconds)});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

absl::StatusOr<std::string> RunCeph(const CephCliOptions& options,
                                    const std::vector<std::string>& args) {
  const std::vector<std::string> argv = CephArgv(options, args);
  for (int attempt = 0;; ++attempt) {
    absl::StatusOr<ProcessResult> r =
        RunProcess(argv, std::chrono::seconds(2 * std::max(1, options.timeout_seconds)));
    if (!r.ok()) {
      if (r.status().code() == absl::StatusCode::kNotFound) {
        return absl::NotFoundError(absl::StrCat(
            r.status().message(), "; install the Ceph CLI (ceph-common) or give --ceph PATH"));
      }
      return absl::Status(r.status().code(),
                          absl::StrCat(CommandText(args), ": ", r.status().message()));
    }
    if (r->exit_code == 0 && !r->timed_out) return std::move(r->out);
    // Fails before the command is sent (a mgr registering): safe to retry.
    if (attempt < kDescriptionRetries &&
        absl::StrContains(r->err, "problem getting command descriptions")) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    return Classify(options, args, *r);
  }
}

absl::StatusOr<ClusterDumps> FetchClusterDumps(
    const CephCliOptions& options,
    const std::function<absl::StatusOr<std::uint32_t>(const std::string&)>& report_epoch) {
  ClusterDumps d;
  absl::StatusOr<std::string> out = RunCeph(options, {"report"});
  if (!out.ok()) return out.status();
  d.report = std::move(*out);
  absl::StatusOr<std::uint32_t> epoch = report_epoch(d.report);
  if (!epoch.ok()) {
    return absl::Status(epoch.status().code(),
                        absl::StrCat("'ceph report': ", epoch.status().message()));
  }
  const std::pair<std::vector<std::string>, std::string*> steps[] = {
      {{"osd", "getmap", absl::StrCat(*epoch)}, &d.osdmap},
      {{"pg", "dump", "-f", "json"}, &d.pg_dump},
      {{"osd", "df", "-f", "json"}, &d.osd_df},
      {{"df", "-f", "json"}, &d.df},
  };
  for (const auto& [args, sink] : steps) {
    out = RunCeph(options, args);
    if (!out.ok()) return out.status();
    *sink = std::move(*out);
  }
  return d;
}

absl::Status SaveClusterDumps(const ClusterDumps& dumps, const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat(dir, ": cannot create: ", std::strerror(errno)));
  }
  const std::pair<const char*, const std::string*> files[] = {{"report.json", &dumps.report},
                                                              {"osdmap.bin", &dumps.osdmap},
                                                              {"pg-dump.json", &dumps.pg_dump},
                                                              {"osd-df.json", &dumps.osd_df},
                                                              {"df.json", &dumps.df}};
  for (const auto& [name, data] : files) {
    const std::string path = absl::StrCat(dir, "/", name);
    if (absl::Status s = WriteFileAtomically(path, *data); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace crushkit::tools
