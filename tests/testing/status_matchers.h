// gMock matchers for absl::Status / StatusOr. Debian 12's Abseil lacks the
// StatusIs matchers, so crushkit keeps these small equivalents.
#ifndef CRUSHKIT_TESTS_TESTING_STATUS_MATCHERS_H_
#define CRUSHKIT_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace crush_testing {

inline const absl::Status& GetStatus(const absl::Status& s) { return s; }

template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& s = GetStatus(arg);
  if (!s.ok()) *result_listener << "status is " << s.ToString();
  return s.ok();
}

// StatusIs(code) and StatusIs(code, message_matcher).
MATCHER_P(StatusIs, code, "status code is " + testing::PrintToString(code)) {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status is " << s.ToString();
  return s.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher, "status code and message match") {
  const absl::Status& s = GetStatus(arg);
  *result_listener << "status is " << s.ToString();
  return s.code() == code &&
         testing::ExplainMatchResult(message_matcher, std::string(s.message()), result_listener);
}

}  // namespace crush_testing

#endif  // CRUSHKIT_TESTS_TESTING_STATUS_MATCHERS_H_
