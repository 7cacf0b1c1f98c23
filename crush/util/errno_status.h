// errno <-> absl::Status, the one mapping of crushkit: the crush editor
// returns the errno Ceph's CrushWrapper returns as a status (crush/edit/
// edit.h, CephErrno), and the tools report failed system calls as one
// (tools/common/file_io.h). Header-only (part of crush_util,
// crush/util/README.md).
//
//   EINVAL    kInvalidArgument      EBUSY      kUnavailable
//   ENOENT    kNotFound             ELOOP      kAborted
//   EEXIST    kAlreadyExists        EOVERFLOW  kOutOfRange
//   ENOTEMPTY kFailedPrecondition   EACCES, EPERM  kPermissionDenied
//   any other errno: kUnknown
//
// Thread-safe, except that OsErrorStatus reads strerror()'s table.
#ifndef CRUSHKIT_CRUSH_UTIL_ERRNO_STATUS_H_
#define CRUSHKIT_CRUSH_UTIL_ERRNO_STATUS_H_

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace crushkit::util {

// The status code of errno `err` (the table above).
inline absl::StatusCode ErrnoCode(int err) {
  switch (err) {
    case EINVAL:
      return absl::StatusCode::kInvalidArgument;
    case ENOENT:
      return absl::StatusCode::kNotFound;
    case EEXIST:
      return absl::StatusCode::kAlreadyExists;
    case ENOTEMPTY:
      return absl::StatusCode::kFailedPrecondition;
    case EBUSY:
      return absl::StatusCode::kUnavailable;
    case ELOOP:
      return absl::StatusCode::kAborted;
    case EOVERFLOW:
      return absl::StatusCode::kOutOfRange;
    case EACCES:
    case EPERM:
      return absl::StatusCode::kPermissionDenied;
    default:
      return absl::StatusCode::kUnknown;
  }
}

// A status of ErrnoCode(err) saying `message`. An errno the table does not
// name gives kUnknown "errno N: <message>", so ErrnoOf() reads it back.
// REQUIRES: err != 0.
inline absl::Status ErrnoStatus(int err, std::string_view message) {
  const absl::StatusCode code = ErrnoCode(err);
  if (code == absl::StatusCode::kUnknown) {
    return absl::UnknownError("errno " + std::to_string(err) + ": " + std::string(message));
  }
  return absl::Status(code, std::string(message));
}

// The errno `status` stands for: 0 for OK, the table's errno for its codes
// (EACCES for kPermissionDenied), N for kUnknown "errno N: ...", EINVAL for
// anything else.
inline int ErrnoOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return 0;
    case absl::StatusCode::kNotFound:
      return ENOENT;
    case absl::StatusCode::kAlreadyExists:
      return EEXIST;
    case absl::StatusCode::kFailedPrecondition:
      return ENOTEMPTY;
    case absl::StatusCode::kUnavailable:
      return EBUSY;
    case absl::StatusCode::kAborted:
      return ELOOP;
    case absl::StatusCode::kOutOfRange:
      return EOVERFLOW;
    case absl::StatusCode::kPermissionDenied:
      return EACCES;
    case absl::StatusCode::kUnknown: {
      const std::string_view m(status.message().data(), status.message().size());
      if (m.substr(0, 6) == "errno ") {
        int e = 0;
        for (std::size_t i = 6; i < m.size() && m[i] >= '0' && m[i] <= '9' && e < 100000; ++i) {
          e = e * 10 + (m[i] - '0');
        }
        if (e > 0) return e;
      }
      return EINVAL;
    }
    default:
      return EINVAL;
  }
}

// `status`'s message without the "errno N: " prefix ErrnoStatus() gives an
// errno the table does not name.
inline std::string ErrnoMessage(const absl::Status& status) {
  std::string_view m(status.message().data(), status.message().size());
  if (status.code() == absl::StatusCode::kUnknown && m.substr(0, 6) == "errno ") {
    const std::size_t colon = m.find(": ");
    if (colon != std::string_view::npos) m.remove_prefix(colon + 2);
  }
  return std::string(m);
}

// A failed system call for the user: "<what>: <strerror(err)>" with
// ErrnoCode(err), without the "errno N: " prefix (the OS's words name it).
inline absl::Status OsErrorStatus(int err, std::string_view what) {
  return absl::Status(ErrnoCode(err), std::string(what) + ": " + std::strerror(err));
}

}  // namespace crushkit::util

#endif  // CRUSHKIT_CRUSH_UTIL_ERRNO_STATUS_H_
