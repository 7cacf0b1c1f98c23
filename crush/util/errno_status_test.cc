#include "crush/util/errno_status.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace crushkit::util {
namespace {

TEST(ErrnoStatusTest, TheTableRoundTrips) {
  for (int err : {EINVAL, ENOENT, EEXIST, ENOTEMPTY, EBUSY, ELOOP, EOVERFLOW, EACCES}) {
    const absl::Status s = ErrnoStatus(err, "m");
    EXPECT_NE(s.code(), absl::StatusCode::kUnknown) << err;
    EXPECT_EQ(s.message(), "m") << err;
    EXPECT_EQ(ErrnoOf(s), err);
    EXPECT_EQ(ErrnoMessage(s), "m");
  }
  EXPECT_EQ(ErrnoCode(EPERM), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoOf(absl::OkStatus()), 0);
  EXPECT_EQ(ErrnoOf(absl::InternalError("x")), EINVAL);
}

TEST(ErrnoStatusTest, OtherErrnosAreUnknownAndNamed) {
  const absl::Status s = ErrnoStatus(ERANGE, "overflow");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(s.message(), "errno " + std::to_string(ERANGE) + ": overflow");
  EXPECT_EQ(ErrnoOf(s), ERANGE);
  EXPECT_EQ(ErrnoMessage(s), "overflow");
  EXPECT_EQ(ErrnoOf(absl::UnknownError("no errno here")), EINVAL);
}

TEST(ErrnoStatusTest, OsErrorsSayWhatAndTheOsWords) {
  const absl::Status s = OsErrorStatus(ENOSPC, "cannot write 'x'");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnknown);
  EXPECT_EQ(s.message(), std::string("cannot write 'x': ") + std::strerror(ENOSPC));
  EXPECT_EQ(OsErrorStatus(ENOENT, "cannot open 'y'").code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace crushkit::util
