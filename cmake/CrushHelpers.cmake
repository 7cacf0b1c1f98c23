# Small helpers in the shape of absl_cc_library: one call per target.

add_library(crush_copts INTERFACE)
target_compile_options(crush_copts INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wvla)
if(CRUSH_WERROR)
  # GCC 12 at -O3 reports -Wrestrict / -Wmaybe-uninitialized false positives
  # inside libstdc++ (std::string operator+, std::pair moves); keep them as
  # warnings so a library header cannot break the build.
  target_compile_options(crush_copts INTERFACE -Werror -Wno-error=restrict
                                               -Wno-error=maybe-uninitialized)
endif()
if(CRUSH_SANITIZE)
  add_compile_options(-fsanitize=${CRUSH_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${CRUSH_SANITIZE})
  # ASan executables link without PIE: an ASan+UBSan crushkit holds 1.5
  # million relative relocations (the sanitizers' per-check data, 44 MB),
  # which every start applied and paged in (0.33 CPU-s per run, 0.24 without
  # PIE), and CI's CLI tests start it hundreds of times. Same checks; only
  # the main binary's load address is fixed. (TSan wants PIE: left as is.)
  if(CRUSH_SANITIZE MATCHES "address")
    add_link_options($<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
  endif()
endif()

# crush_cc_library(NAME name [HDRS ...] SRCS ... [DEPS ...] [PUBLIC_DEPS ...])
function(crush_cc_library)
  cmake_parse_arguments(A "" "NAME" "HDRS;SRCS;DEPS;PUBLIC_DEPS;COPTS" ${ARGN})
  add_library(${A_NAME} STATIC ${A_SRCS})
  if(A_HDRS)
    target_sources(${A_NAME} PUBLIC FILE_SET HEADERS BASE_DIRS ${PROJECT_SOURCE_DIR} FILES ${A_HDRS})
  endif()
  target_include_directories(${A_NAME} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                              $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}>)
  # Warning flags are build-only, so installed libraries export no crush_copts.
  target_link_libraries(${A_NAME} PUBLIC ${A_PUBLIC_DEPS} PRIVATE $<BUILD_INTERFACE:crush_copts> ${A_DEPS})
  target_compile_options(${A_NAME} PRIVATE ${A_COPTS})
endfunction()

# crush_cc_test(NAME name SRCS ... DEPS ...): one gtest binary, discovered by ctest.
function(crush_cc_test)
  if(NOT CRUSH_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(A "" "NAME;SMOKE_FILTER" "SRCS;DEPS" ${ARGN})
  add_executable(${A_NAME} ${A_SRCS})
  target_link_libraries(${A_NAME} PRIVATE crush_copts ${A_DEPS} GTest::gmock GTest::gtest_main)
  target_compile_options(${A_NAME} PRIVATE ${CRUSH_TEST_COPTS})
  # Unity-built like the libraries (CRUSH_UNITY_BUILD, 8 files a batch): each
  # test file parses the same gtest, gmock and Abseil headers, and batching
  # them halved the ASan tree's test compile time (405 -> 191 CPU-s). A
  # file's helpers in its anonymous namespace share the batch's, so their
  # names differ between the files of a binary (a local that shadows another
  # file's helper is a -Wshadow error too).
  if(CRUSH_TEST_SHARDS GREATER 0)
    math(EXPR _last "${CRUSH_TEST_SHARDS} - 1")
    foreach(_shard RANGE ${_last})
      add_test(NAME ${A_NAME}_shard${_shard} COMMAND ${A_NAME} --gtest_brief=1)
      set_tests_properties(${A_NAME}_shard${_shard} PROPERTIES LABELS gtest ENVIRONMENT
        "CRUSHKIT_SOURCE_DIR=${PROJECT_SOURCE_DIR};GTEST_TOTAL_SHARDS=${CRUSH_TEST_SHARDS};GTEST_SHARD_INDEX=${_shard}")
    endforeach()
  else()
    gtest_discover_tests(${A_NAME} DISCOVERY_TIMEOUT 60
                         PROPERTIES ENVIRONMENT "CRUSHKIT_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  endif()
endfunction()

# crush_cc_benchmark(NAME name SRCS ... DEPS ... [SMOKE_FILTER regex]): a
# Google Benchmark binary plus a ctest smoke entry so it cannot rot; the
# smoke run takes only the cases SMOKE_FILTER matches when given (CI runs it
# under ASan, where the largest cases take minutes).
function(crush_cc_benchmark)
  if(NOT CRUSH_BUILD_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(A "" "NAME;SMOKE_FILTER" "SRCS;DEPS" ${ARGN})
  add_executable(${A_NAME} ${A_SRCS})
  target_link_libraries(${A_NAME} PRIVATE crush_copts ${A_DEPS} benchmark::benchmark_main)
  target_compile_options(${A_NAME} PRIVATE ${CRUSH_TEST_COPTS})
  set_target_properties(${A_NAME} PROPERTIES UNITY_BUILD OFF)
  if(CRUSH_BUILD_TESTS)
    set(_filter "")
    if(A_SMOKE_FILTER)
      set(_filter "--benchmark_filter=${A_SMOKE_FILTER}")
    endif()
    add_test(NAME ${A_NAME}_smoke COMMAND ${A_NAME} --benchmark_min_time=0.01 ${_filter})
    set_tests_properties(${A_NAME}_smoke PROPERTIES LABELS benchmark)
  endif()
endfunction()
