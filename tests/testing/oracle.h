// Ceph's own tools (crushtool, osdmaptool from ceph-base 16.2) as test
// oracles. A test that needs one starts with CRUSH_TEST_NEEDS_ORACLE(tool):
// on a developer's machine without Ceph the test is skipped; when the
// environment variable CRUSHKIT_REQUIRE_ORACLE is set (CI sets it) it fails
// instead, so a missing oracle can never turn the compatibility tests green.
// The Python suites do the same (tests/differential/oracle.py skip_or_fail).
// Thread-safety: reads the file system and the environment only.
#ifndef CRUSHKIT_TESTS_TESTING_ORACLE_H_
#define CRUSHKIT_TESTS_TESTING_ORACLE_H_

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace crush_testing {

// Where ceph-base installs its tools; the tests run them from there (or
// with it first on PATH), never a crushtool found elsewhere.
inline std::string OraclePath(const std::string& tool) { return "/usr/bin/" + tool; }

// True if Ceph's `tool` ("crushtool", "osdmaptool") is installed and
// executable at OraclePath(tool).
inline bool OracleInstalled(const std::string& tool) {
  return ::access(OraclePath(tool).c_str(), X_OK) == 0;
}

// True when a missing oracle is a failure: CRUSHKIT_REQUIRE_ORACLE is set
// to a non-empty value.
inline bool OracleRequired() {
  const char* v = std::getenv("CRUSHKIT_REQUIRE_ORACLE");
  return v != nullptr && *v != '\0';
}

}  // namespace crush_testing

// In a test body or a fixture's SetUp(): returns from it, skipping the test
// (or failing it under CRUSHKIT_REQUIRE_ORACLE), unless Ceph's `tool` is
// installed.
#define CRUSH_TEST_NEEDS_ORACLE(tool)                                                     \
  do {                                                                                    \
    if (!::crush_testing::OracleInstalled(tool)) {                                        \
      if (::crush_testing::OracleRequired()) {                                            \
        FAIL() << "Ceph " << (tool) << " not installed (CRUSHKIT_REQUIRE_ORACLE is set)"; \
      }                                                                                   \
      GTEST_SKIP() << "Ceph " << (tool) << " not installed";                              \
    }                                                                                     \
  } while (0)

#endif  // CRUSHKIT_TESTS_TESTING_ORACLE_H_
