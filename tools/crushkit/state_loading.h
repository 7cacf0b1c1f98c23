// Shared by the commands that take a state file: read it (and open a mapping
// session), printing "crushkit <cmd>: <file>: <error>" on failure.
#ifndef CRUSHKIT_TOOLS_CRUSHKIT_STATE_LOADING_H_
#define CRUSHKIT_TOOLS_CRUSHKIT_STATE_LOADING_H_

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "osdmap/formats/cluster_check.h"
#include "osdmap/formats/input_sniff.h"
#include "osdmap/formats/state_codec.h"
#include "osdmap/model/mapping_session.h"
#include "tools/common/ceph_release_env.h"
#include "tools/common/file_io.h"
#include "tools/common/undefined_mappings.h"

namespace crushkit::tools {

// A state file, or nullopt (and a message). A state whose import found
// crushkit's mapping different from the cluster's (osdmap/formats/cluster_check.h)
// loads, with that warning repeated, so nothing is planned from it silently.
inline std::optional<osdmap::ClusterState> LoadState(const std::string& cmd,
                                                     const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) {
    std::cerr << "crushkit " << cmd << ": " << path << ": " << bytes.status().message() << "\n";
    return std::nullopt;
  }
  auto state = osdmap::ParseState(*bytes);
  if (!state.ok()) {
    std::cerr << "crushkit " << cmd << ": " << path << ": " << state.status().message() << "\n";
    return std::nullopt;
  }
  // A binary osdmap names its release only through require_osd_release
  // (osdmaptool --createsimple leaves it unknown): CRUSHKIT_CEPH_RELEASE,
  // when set, decides how it maps and how the monitor would clean it, as for
  // `crushkit osdmaptool`.
  if (osdmap::LooksLikeCephOsdMap(*bytes)) {
    auto release = CephReleaseOverride("");
    if (!release.ok()) {
      std::cerr << "crushkit " << cmd << ": " << release.status().message() << "\n";
      return std::nullopt;
    }
    if (*release) state->ceph_release = **release;
  }
  if (state->mapping_check && !state->mapping_check->agrees) {
    for (const std::string& line : osdmap::FormatMappingCheck(*state->mapping_check))
      std::cerr << "crushkit " << cmd << ": " << path << ": " << line << "\n";
  }
  return std::move(*state);
}

inline std::unique_ptr<osdmap::MappingSession> LoadSession(const std::string& cmd,
                                                           const std::string& path) {
  std::optional<osdmap::ClusterState> state = LoadState(cmd, path);
  if (!state) return nullptr;
  auto session = osdmap::MappingSession::Create(std::move(*state));
  if (!session.ok()) {
    std::cerr << "crushkit " << cmd << ": " << path << ": " << session.status().message() << "\n";
    return nullptr;
  }
  return std::move(*session);
}

// A pool given by id or by name; nullptr (and a message) if unknown.
inline const osdmap::Pool* FindPoolArg(const std::string& cmd, const osdmap::ClusterState& st,
                                       const std::string& arg) {
  for (const auto& [id, pool] : st.pools) {
    if (pool.name == arg) return &pool;
  }
  char* end = nullptr;
  const long long id = std::strtoll(arg.c_str(), &end, 10);
  if (!arg.empty() && end != nullptr && *end == '\0') {
    if (const osdmap::Pool* p = st.FindPool(id)) return p;
  }
  std::cerr << "crushkit " << cmd << ": no pool '" << arg << "' (by name or id)\n";
  return nullptr;
}

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_CRUSHKIT_STATE_LOADING_H_
