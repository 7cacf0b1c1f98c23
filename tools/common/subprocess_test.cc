#include "tools/common/subprocess.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include "tools/common/ceph_cli.h"

namespace crushkit::tools {
namespace {

using ::testing::HasSubstr;

TEST(SubprocessTest, CapturesStdoutStderrAndExitCodeWithoutAShell) {
  // The argument reaches the program as it is: no shell expands it.
  absl::StatusOr<ProcessResult> r = RunProcess(
      {"/bin/sh", "-c", "printf 'out:%s' \"$0\"; echo err >&2; exit 3", "$(touch /x) ; *"},
      std::chrono::seconds(10));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "out:$(touch /x) ; *");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->timed_out);
}

TEST(SubprocessTest, KillsTheProcessGroupAtTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ProcessResult> r =
      RunProcess({"/bin/sh", "-c", "sleep 30 & sleep 30"}, std::chrono::milliseconds(200));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(SubprocessTest, MissingProgramIsNotFound) {
  absl::StatusOr<ProcessResult> r =
      RunProcess({"/nonexistent/ceph", "report"}, std::chrono::seconds(1));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("/nonexistent/ceph"));
}

TEST(SubprocessTest, OutputBeyondTheCapIsRefused) {
  absl::StatusOr<ProcessResult> r =
      RunProcess({"/bin/sh", "-c", "head -c 100000 /dev/zero"}, std::chrono::seconds(10), 1000);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(CephCliTest, ArgvCarriesEachOptionAsOneArgument) {
  CephCliOptions o;
  o.ceph = "/opt/ceph";
  o.conf = "/etc/ceph/my cluster.conf";
  o.name = "client.crushkit";
  o.timeout_seconds = 7;
  EXPECT_EQ(CephArgv(o, {"osd", "df", "-f", "json"}),
            (std::vector<std::string>{"/opt/ceph", "--conf", "/etc/ceph/my cluster.conf", "--name",
                                      "client.crushkit", "--connect-timeout", "7", "osd", "df",
                                      "-f", "json"}));
}

TEST(CephCliTest, FailuresAreToldApart) {
  // A stand-in CLI printing what the real one prints in each case, chosen by
  // its last argument.
  const std::string fake = ::testing::TempDir() + "/fake-ceph";
  {
    std::FILE* f = std::fopen(fake.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "#!/bin/sh\nfor a; do last=$a; done\ncase $last in\n"
        "  ok) printf 'the output';;\n"
        "  unreachable) echo 'timed out' >&2; exit 1;;\n"
        "  eacces) echo 'Error EACCES: access denied' >&2; exit 13;;\n"
        "  hang) exec sleep 30;;\n"
        "  other) echo '2026-12-06T23:26:01.706+0000 7f1f -1 noise' >&2;"
        " echo 'Error EINVAL: bad thing' >&2; exit 22;;\n"
        "esac\n",
        f);
    std::fclose(f);
    ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  }
  CephCliOptions o;
  o.ceph = fake;
  o.timeout_seconds = 1;
  absl::StatusOr<std::string> out = RunCeph(o, {"ok"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "the output");
  absl::Status s = RunCeph(o, {"unreachable"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("cannot connect to the cluster within 1 s"));
  s = RunCeph(o, {"eacces"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("'mon allow r'"));
  s = RunCeph(o, {"hang"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  s = RunCeph(o, {"other"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("'ceph other': failed (exit 22): Error EINVAL: bad thing"));
  o.ceph = "/nonexistent/ceph";
  s = RunCeph(o, {"report"}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("give --ceph PATH"));
}

}  // namespace
}  // namespace crushkit::tools
