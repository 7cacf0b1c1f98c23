#include "tools/common/ceph_release_env.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "tools/common/file_io.h"

namespace crushkit::tools {
namespace {

// Preference order: ceph-base ships crushtool and osdmaptool, so it is the
// Ceph those tools come from; the daemons' packages are the fallback.
constexpr std::array<std::string_view, 4> kCephPackages = {"ceph-base", "ceph-common", "ceph-mon",
                                                           "ceph-osd"};

// The larger status files of busy hosts stay well under this.
constexpr std::size_t kMaxDpkgStatusBytes = std::size_t{64} << 20;

absl::StatusOr<crush::CephRelease> ParseEnvRelease(const char* value) {
  absl::StatusOr<crush::CephRelease> release = crush::ParseCephRelease(value);
  if (!release.ok()) {
    return absl::InvalidArgumentError(std::string(kCephReleaseEnv) + ": " +
                                      std::string(release.status().message()));
  }
  return *release;
}

// The value of field `name` in one dpkg status paragraph, without the
// surrounding blanks; empty when absent.
std::string_view FieldOf(std::string_view paragraph, std::string_view name) {
  for (std::size_t line = 0; line < paragraph.size();) {
    std::size_t eol = paragraph.find('\n', line);
    if (eol == std::string_view::npos) eol = paragraph.size();
    std::string_view text = paragraph.substr(line, eol - line);
    line = eol + 1;
    if (!text.starts_with(name) || text.substr(name.size(), 1) != ":") continue;
    text.remove_prefix(name.size() + 1);
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    text.remove_prefix(first);
    return text.substr(0, text.find_last_not_of(" \t\r") + 1);
  }
  return {};
}

const char* EnvRelease() {
  const char* value = std::getenv(kCephReleaseEnv);
  return value == nullptr || *value == '\0' ? nullptr : value;
}

}  // namespace

std::optional<crush::CephRelease> ReleaseOfCephVersion(std::string_view version) {
  // dpkg versions are [EPOCH:]UPSTREAM[-REVISION]; Ceph's upstream starts
  // with its major release number.
  if (const std::size_t colon = version.find(':'); colon != std::string_view::npos) {
    version.remove_prefix(colon + 1);
  }
  const std::size_t digits = std::min(version.find_first_not_of("0123456789"), version.size());
  if (digits == 0 || digits > 4) return std::nullopt;
  int major = 0;
  for (const char c : version.substr(0, digits)) major = major * 10 + (c - '0');
  if (major <= 16) return crush::CephRelease::kPacific;
  if (major <= 18) return crush::CephRelease::kReef;
  return crush::CephRelease::kTentacle;
}

std::optional<InstalledCeph> FindInstalledCeph(std::string_view dpkg_status) {
  // One paragraph per package, separated by blank lines; fields "Name: value"
  // at the start of a line (continuation lines start with a space).
  std::array<std::optional<InstalledCeph>, kCephPackages.size()> found;
  std::size_t pos = 0;
  while (pos < dpkg_status.size()) {
    std::size_t end = dpkg_status.find("\n\n", pos);
    if (end == std::string_view::npos) end = dpkg_status.size();
    const std::string_view paragraph = dpkg_status.substr(pos, end - pos);
    pos = end + 2;
    if (paragraph.find("Package: ceph-") == std::string_view::npos) continue;  // most of the file
    const std::string_view package = FieldOf(paragraph, "Package");
    // "install ok installed"; not "deinstall ok config-files" and the like.
    if (!FieldOf(paragraph, "Status").ends_with(" installed")) continue;
    for (std::size_t i = 0; i < kCephPackages.size(); ++i) {
      if (package != kCephPackages[i] || found[i]) continue;
      const std::string_view version = FieldOf(paragraph, "Version");
      if (std::optional<crush::CephRelease> release = ReleaseOfCephVersion(version)) {
        found[i] = InstalledCeph{*release, std::string(package), std::string(version)};
      }
    }
  }
  for (std::optional<InstalledCeph>& f : found) {
    if (f) return std::move(f);
  }
  return std::nullopt;
}

std::optional<InstalledCeph> DetectInstalledCeph() {
  const char* path = std::getenv(kDpkgStatusEnv);
  absl::StatusOr<std::string> status =
      ReadFileBytes(path != nullptr && *path != '\0' ? path : kDpkgStatusPath, kMaxDpkgStatusBytes);
  if (!status.ok()) return std::nullopt;
  return FindInstalledCeph(*status);
}

absl::StatusOr<DefaultCephRelease> ResolveDefaultCephRelease() {
  if (const char* value = EnvRelease()) {
    absl::StatusOr<crush::CephRelease> release = ParseEnvRelease(value);
    if (!release.ok()) return release.status();
    return DefaultCephRelease{*release, std::string(kCephReleaseEnv) + "=" + value};
  }
  if (std::optional<InstalledCeph> installed = DetectInstalledCeph()) {
    return DefaultCephRelease{installed->release,
                              "installed " + installed->package + " " + installed->version};
  }
  return DefaultCephRelease{crush::kDefaultCephRelease, "no Ceph installed"};
}

std::string DescribeDefaultCephRelease() {
  absl::StatusOr<DefaultCephRelease> resolved = ResolveDefaultCephRelease();
  if (!resolved.ok()) return "default Ceph release: " + std::string(resolved.status().message());
  return "default Ceph release: " + std::string(crush::CephReleaseName(resolved->release)) + " (" +
         resolved->reason + ")";
}

absl::StatusOr<crush::CephRelease> CephReleaseFromEnvironment() {
  absl::StatusOr<DefaultCephRelease> resolved = ResolveDefaultCephRelease();
  if (!resolved.ok()) return resolved.status();
  return resolved->release;
}

absl::StatusOr<crush::CephRelease> ResolveCephRelease(const std::string& flag) {
  if (flag.empty()) return CephReleaseFromEnvironment();
  return crush::ParseCephRelease(flag);
}

absl::StatusOr<std::optional<crush::CephRelease>> CephReleaseOverride(const std::string& flag) {
  if (!flag.empty()) {
    absl::StatusOr<crush::CephRelease> release = crush::ParseCephRelease(flag);
    if (!release.ok()) return release.status();
    return std::optional<crush::CephRelease>(*release);
  }
  const char* value = EnvRelease();
  if (value == nullptr) return std::optional<crush::CephRelease>();
  absl::StatusOr<crush::CephRelease> release = ParseEnvRelease(value);
  if (!release.ok()) return release.status();
  return std::optional<crush::CephRelease>(*release);
}

}  // namespace crushkit::tools
