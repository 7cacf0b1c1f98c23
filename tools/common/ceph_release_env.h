// Which Ceph release crushkit behaves as when no cluster state says so (the
// crushtool/osdmaptool fronts, `crushkit compile`, `decompile`, `edit` and the
// other commands that read only a crush map): CRUSHKIT_CEPH_RELEASE when set,
// else the release of the Ceph installed on this machine (dpkg's status
// file), else the current release. So a `crushtool` shim on a Pacific
// operator's host behaves as Ceph 16.2 without setting anything.
//
// Commands that read a cluster state do not use this default: the state's
// release decides (`crushkit import` takes it from --ceph-release,
// CRUSHKIT_CEPH_RELEASE, else the dump's require_osd_release).
//
// Thread-safety: reads the environment and one file; call before starting
// threads.
#ifndef CRUSHKIT_TOOLS_COMMON_CEPH_RELEASE_ENV_H_
#define CRUSHKIT_TOOLS_COMMON_CEPH_RELEASE_ENV_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

#include "crush/ceph_release.h"

namespace crushkit::tools {

inline constexpr const char* kCephReleaseEnv = "CRUSHKIT_CEPH_RELEASE";

// dpkg's record of installed packages, and the variable that replaces the
// path (tests point it at a fake status file; an unreadable or missing file
// means no Ceph is installed).
inline constexpr const char* kDpkgStatusPath = "/var/lib/dpkg/status";
inline constexpr const char* kDpkgStatusEnv = "CRUSHKIT_DPKG_STATUS";

// A Ceph package dpkg lists as installed.
struct InstalledCeph {
  crush::CephRelease release;
  std::string package;  // "ceph-base"
  std::string version;  // as dpkg records it, e.g. "16.2.15+ds-0+deb12u2"
};

// The release a Ceph package version belongs to, by its major number (after
// any "EPOCH:" prefix): up to 16 (Pacific and older) -> Pacific, 17-18
// (Quincy, Reef) -> Reef, 19 and later (Squid, Tentacle, newer) -> Tentacle,
// as ReleaseOfCluster (osdmap/formats/import.h) maps release names. nullopt when the
// version does not start with a number.
std::optional<crush::CephRelease> ReleaseOfCephVersion(std::string_view version);

// The first of ceph-base, ceph-common, ceph-mon, ceph-osd that `dpkg_status`
// (the text of dpkg's status file) records as installed ("Status: ... installed")
// with a version ReleaseOfCephVersion understands; nullopt when none is.
// Packages removed with their configuration kept do not count. Cost: linear
// in the text.
std::optional<InstalledCeph> FindInstalledCeph(std::string_view dpkg_status);

// FindInstalledCeph of the file at $CRUSHKIT_DPKG_STATUS, else
// kDpkgStatusPath; nullopt when it cannot be read. Never runs a program (a
// `ceph --version` could be a crushkit shim itself). Cost: one read of the
// file (under a megabyte on a typical host).
std::optional<InstalledCeph> DetectInstalledCeph();

// The release crushkit behaves as without a cluster state, and why.
struct DefaultCephRelease {
  crush::CephRelease release;
  // "CRUSHKIT_CEPH_RELEASE=reef", "installed ceph-base 16.2.15+ds-0+deb12u2"
  // or "no Ceph installed".
  std::string reason;
};

// CRUSHKIT_CEPH_RELEASE when set and non-empty, else DetectInstalledCeph()'s
// release, else crush::kDefaultCephRelease. An unknown name in the variable
// is kInvalidArgument whose message names the variable and lists the
// supported releases.
absl::StatusOr<DefaultCephRelease> ResolveDefaultCephRelease();

// One line for `crushkit --version`: "default Ceph release: pacific
// (installed ceph-base 16.2.15+ds-0+deb12u2)", or the error of an unknown
// CRUSHKIT_CEPH_RELEASE.
std::string DescribeDefaultCephRelease();

// ResolveDefaultCephRelease()'s release.
absl::StatusOr<crush::CephRelease> CephReleaseFromEnvironment();

// The release a modern subcommand without a cluster state works as: `flag`
// (its --ceph-release value) when non-empty, else
// CephReleaseFromEnvironment(). Errors as above.
absl::StatusOr<crush::CephRelease> ResolveCephRelease(const std::string& flag);

// The release a command working on a cluster state uses when the state has
// none recorded yet (`crushkit import`): `flag` when non-empty, else
// CRUSHKIT_CEPH_RELEASE when set, else nullopt (the caller takes the
// cluster's require_osd_release). The installed Ceph plays no part: the
// cluster, not this machine, decides. Errors as above.
absl::StatusOr<std::optional<crush::CephRelease>> CephReleaseOverride(const std::string& flag);

}  // namespace crushkit::tools

#endif  // CRUSHKIT_TOOLS_COMMON_CEPH_RELEASE_ENV_H_
