#include "tools/common/ceph_release_env.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace crushkit::tools {
namespace {

using crush::CephRelease;

// Shaped as dpkg writes it (fields trimmed): an unrelated package, a Ceph
// package removed with its configuration kept, and the installed ones.
constexpr const char* kPacificHost =
    "Package: bash\n"
    "Status: install ok installed\n"
    "Version: 5.2.15-2+b2\n"
    "Description: GNU Bourne Again SHell\n"
    " Package: ceph-base is not a field when indented\n"
    "\n"
    "Package: ceph-mon\n"
    "Status: deinstall ok config-files\n"
    "Version: 18.2.4-1\n"
    "\n"
    "Package: ceph-common\n"
    "Status: install ok installed\n"
    "Version: 16.2.15+ds-0+deb12u2\n"
    "\n"
    "Package: ceph-base\n"
    "Status: install ok installed\n"
    "Priority: optional\n"
    "Version: 16.2.15+ds-0+deb12u2\n"
    "Depends: binutils, ceph-common (= 16.2.15+ds-0+deb12u2)\n";

TEST(CephReleaseEnvTest, VersionsMapAsReleaseOfClusterMapsNames) {
  EXPECT_EQ(ReleaseOfCephVersion("12.2.13-1"), CephRelease::kPacific);  // luminous
  EXPECT_EQ(ReleaseOfCephVersion("13.2.10"), CephRelease::kPacific);
  EXPECT_EQ(ReleaseOfCephVersion("16.2.15+ds-0+deb12u2"), CephRelease::kPacific);
  EXPECT_EQ(ReleaseOfCephVersion("17.2.7-1jammy"), CephRelease::kReef);
  EXPECT_EQ(ReleaseOfCephVersion("2:18.2.4-1"), CephRelease::kReef);  // with an epoch
  EXPECT_EQ(ReleaseOfCephVersion("19.2.0"), CephRelease::kTentacle);
  EXPECT_EQ(ReleaseOfCephVersion("20.2.0-1"), CephRelease::kTentacle);
  EXPECT_EQ(ReleaseOfCephVersion("21.0.0"), CephRelease::kTentacle);
  EXPECT_EQ(ReleaseOfCephVersion(""), std::nullopt);
  EXPECT_EQ(ReleaseOfCephVersion("git-abc"), std::nullopt);
}

TEST(CephReleaseEnvTest, FindsInstalledCephBasePreferred) {
  std::optional<InstalledCeph> found = FindInstalledCeph(kPacificHost);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->release, CephRelease::kPacific);
  EXPECT_EQ(found->package, "ceph-base");
  EXPECT_EQ(found->version, "16.2.15+ds-0+deb12u2");
}

TEST(CephReleaseEnvTest, RemovedPackagesAndOthersDoNotCount) {
  EXPECT_EQ(FindInstalledCeph(""), std::nullopt);
  EXPECT_EQ(FindInstalledCeph("Package: ceph-mon\nStatus: deinstall ok config-files\n"
                              "Version: 18.2.4-1\n"),
            std::nullopt);
  EXPECT_EQ(FindInstalledCeph("Package: ceph-osd-tools\nStatus: install ok installed\n"
                              "Version: 18.2.4-1\n"),
            std::nullopt);
  std::optional<InstalledCeph> osd = FindInstalledCeph(
      "Package: ceph-osd\nStatus: install ok installed\nVersion: 18.2.4-1\n\n"
      "Package: ceph-base\nStatus: deinstall ok config-files\nVersion: 16.2.15-1\n");
  ASSERT_TRUE(osd.has_value());
  EXPECT_EQ(osd->package, "ceph-osd");
  EXPECT_EQ(osd->release, CephRelease::kReef);
}

// Sets or unsets the variables for one test and restores them afterwards.
class EnvFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    Save(kCephReleaseEnv, &saved_release_);
    Save(kDpkgStatusEnv, &saved_status_);
    dir_ = std::filesystem::temp_directory_path() /
           ("ceph_release_env_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }

  void TearDown() override {
    Restore(kCephReleaseEnv, saved_release_);
    Restore(kDpkgStatusEnv, saved_status_);
    std::filesystem::remove_all(dir_);
  }

  std::string WriteStatus(const std::string& text) {
    const std::string path = (dir_ / "status").string();
    std::ofstream(path) << text;
    return path;
  }

  static void Save(const char* name, std::optional<std::string>* to) {
    if (const char* v = std::getenv(name)) *to = v;
  }

  static void Restore(const char* name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }

  std::optional<std::string> saved_release_, saved_status_;
  std::filesystem::path dir_;
};

using DefaultReleaseTest = EnvFixture;

TEST_F(DefaultReleaseTest, InstalledCephDecidesWhenTheVariableIsUnset) {
  ::unsetenv(kCephReleaseEnv);
  ::setenv(kDpkgStatusEnv, WriteStatus(kPacificHost).c_str(), 1);
  absl::StatusOr<DefaultCephRelease> d = ResolveDefaultCephRelease();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->release, CephRelease::kPacific);
  EXPECT_EQ(d->reason, "installed ceph-base 16.2.15+ds-0+deb12u2");
  EXPECT_EQ(ResolveCephRelease("").value_or(CephRelease::kTentacle), CephRelease::kPacific);
  EXPECT_EQ(ResolveCephRelease("reef").value_or(CephRelease::kTentacle), CephRelease::kReef);
  // A state's release is the cluster's, not this machine's.
  absl::StatusOr<std::optional<CephRelease>> override = CephReleaseOverride("");
  ASSERT_TRUE(override.ok());
  EXPECT_EQ(*override, std::nullopt);
}

TEST_F(DefaultReleaseTest, TheVariableWinsOverTheInstalledCeph) {
  ::setenv(kCephReleaseEnv, "reef", 1);
  ::setenv(kDpkgStatusEnv, WriteStatus(kPacificHost).c_str(), 1);
  absl::StatusOr<DefaultCephRelease> d = ResolveDefaultCephRelease();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->release, CephRelease::kReef);
  EXPECT_EQ(d->reason, "CRUSHKIT_CEPH_RELEASE=reef");
  EXPECT_EQ(CephReleaseOverride("").value_or(std::nullopt), CephRelease::kReef);
  EXPECT_EQ(CephReleaseOverride("pacific").value_or(std::nullopt), CephRelease::kPacific);
}

TEST_F(DefaultReleaseTest, WithoutCephTheCurrentRelease) {
  ::unsetenv(kCephReleaseEnv);
  ::setenv(kDpkgStatusEnv, (dir_ / "no-such-status").c_str(), 1);
  absl::StatusOr<DefaultCephRelease> d = ResolveDefaultCephRelease();
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->release, crush::kDefaultCephRelease);
  EXPECT_EQ(d->reason, "no Ceph installed");
  ::setenv(kDpkgStatusEnv, WriteStatus("Package: bash\nStatus: install ok installed\n").c_str(), 1);
  EXPECT_EQ(CephReleaseFromEnvironment().value_or(CephRelease::kPacific),
            crush::kDefaultCephRelease);
}

TEST_F(DefaultReleaseTest, AnUnknownNameInTheVariableIsAnError) {
  ::setenv(kCephReleaseEnv, "quincy", 1);
  absl::StatusOr<DefaultCephRelease> d = ResolveDefaultCephRelease();
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find("CRUSHKIT_CEPH_RELEASE: "), std::string::npos) << d.status();
  EXPECT_FALSE(CephReleaseOverride("").ok());
  EXPECT_FALSE(CephReleaseOverride("mimic").ok());
}

}  // namespace
}  // namespace crushkit::tools
