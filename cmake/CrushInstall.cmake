# Install rules for the embeddable library (crush_core) and its CMake package:
#
#   cmake --install <build> --prefix <prefix>
#
# installs
#   <prefix>/lib/libcrush_core.a
#   <prefix>/include/crush/*.h (version.h included), crush/internal/{ln_tables.inc,straw2_*.h}
#   <prefix>/bin/crushkit (the CLI, when tools are built)
#   <prefix>/lib/cmake/crush/crushConfig.cmake, crushConfigVersion.cmake,
#                            crushTargets*.cmake
# so that a consumer writes
#
#   find_package(crush CONFIG REQUIRED)
#   target_link_libraries(mydaemon PRIVATE crush::crush_core)
#
# Nothing from compiler/, osdmap/ or tools/ is installed: the package is the
# mapper a storage daemon embeds (see crush/README.md and samples/embed/).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CRUSH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/crush"
    CACHE STRING "Where crushConfig.cmake is installed, relative to the prefix")

install(TARGETS crush_core
        EXPORT crushTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILE_SET generated_headers DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT crushTargets
        NAMESPACE crush::
        FILE crushTargets.cmake
        DESTINATION "${CRUSH_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/crushConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/crushConfig.cmake"
  INSTALL_DESTINATION "${CRUSH_INSTALL_CMAKEDIR}")
# 0.x: no compatibility promise across minor versions yet.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/crushConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/crushConfig.cmake"
              "${PROJECT_BINARY_DIR}/crushConfigVersion.cmake"
        DESTINATION "${CRUSH_INSTALL_CMAKEDIR}")
