# Install rules for the embeddable library and its packages:
#
#   cmake --install <build> --prefix <prefix>
#
# installs
#   <prefix>/lib/libcrushkit_crush.a              (crushkit::crush, static)
#   <prefix>/lib/libcrushkit.so.MAJOR.MINOR...    (crushkit::crush_shared; SONAME
#                                                  libcrushkit.so.MAJOR.MINOR: 0.x
#                                                  promises nothing across minors)
#   <prefix>/include/crush/*.h (crushkit.h: the C API; version.h),
#                    crush/internal/{ln_tables.inc,straw2_*.h}
#   <prefix>/lib/cmake/crushkit/crushkitConfig.cmake, crushkitConfigVersion.cmake,
#                               crushkitTargets*.cmake
#   <prefix>/lib/pkgconfig/crushkit.pc            (links the shared library)
#   <prefix>/bin/crushkit                         (the CLI, when tools are built)
# so that a consumer writes
#
#   find_package(crushkit CONFIG REQUIRED)
#   target_link_libraries(mydaemon PRIVATE crushkit::crush)
#
# or, from C, `cc app.c $(pkg-config --cflags --libs crushkit)`.
# Nothing from compiler/ or osdmap/ is installed yet: the package is the
# mapper a storage daemon embeds (see crush/README.md and samples/embed/).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CRUSH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/crushkit"
    CACHE STRING "Where crushkitConfig.cmake is installed, relative to the prefix")

set_target_properties(crush_core PROPERTIES EXPORT_NAME crush OUTPUT_NAME crushkit_crush)
set_target_properties(crush_shared PROPERTIES EXPORT_NAME crush_shared)

install(TARGETS crush_core crush_shared
        EXPORT crushkitTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILE_SET generated_headers DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT crushkitTargets
        NAMESPACE crushkit::
        FILE crushkitTargets.cmake
        DESTINATION "${CRUSH_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/crushkitConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/crushkitConfig.cmake"
  INSTALL_DESTINATION "${CRUSH_INSTALL_CMAKEDIR}")
# 0.x: no compatibility promise across minor versions yet.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/crushkitConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/crushkitConfig.cmake"
              "${PROJECT_BINARY_DIR}/crushkitConfigVersion.cmake"
        DESTINATION "${CRUSH_INSTALL_CMAKEDIR}")

# Relocatable: the prefix is found from the .pc file's own directory, so
# `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH CRUSH_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file("${PROJECT_SOURCE_DIR}/cmake/crushkit.pc.in" "${PROJECT_BINARY_DIR}/crushkit.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/crushkit.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
