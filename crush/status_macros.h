// Status propagation macros. Debian 12's Abseil (20220623) has no
// ABSL_RETURN_IF_ERROR / ASSIGN_OR_RETURN, so crushkit keeps its own.
#ifndef CRUSHKIT_CRUSH_STATUS_MACROS_H_
#define CRUSHKIT_CRUSH_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define CRUSH_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::absl::Status crush_status_ = (expr);         \
    if (!crush_status_.ok()) return crush_status_; \
  } while (0)

#define CRUSH_STATUS_CONCAT_INNER_(a, b) a##b
#define CRUSH_STATUS_CONCAT_(a, b) CRUSH_STATUS_CONCAT_INNER_(a, b)

// `lhs` = value of `rexpr` (an absl::StatusOr<T>), or return its status.
#define CRUSH_ASSIGN_OR_RETURN(lhs, rexpr) \
  CRUSH_ASSIGN_OR_RETURN_IMPL_(CRUSH_STATUS_CONCAT_(crush_statusor_, __LINE__), lhs, rexpr)

#define CRUSH_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                 \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = std::move(*statusor)

#endif  // CRUSHKIT_CRUSH_STATUS_MACROS_H_
