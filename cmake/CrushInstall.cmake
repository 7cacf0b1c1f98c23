# Install rules for the embeddable libraries and the CLI:
#
#   cmake --install <build> --prefix <prefix> [--component crush|compiler|osdmap|cli]
#
# installs, per component (a component is installed only if it is built):
#   crush     <prefix>/lib/libcrushkit_crush.a          (crushkit::crush, static)
#             <prefix>/lib/libcrushkit.so.MAJOR.MINOR... (crushkit::crush_shared;
#                                                        SONAME libcrushkit.so.MAJOR.MINOR:
#                                                        0.x promises nothing across minors)
#             <prefix>/include/crush/*.h (crushkit.h: the C API; version.h)
#             <prefix>/lib/libcrushkit_crush_edit.a, include/crush/edit/*.h
#                                                       (crushkit::crush_edit: editing)
#             <prefix>/lib/cmake/crushkit/crushkitConfig.cmake, crushkitConfigVersion.cmake,
#                                         crushkitTargets*.cmake
#             <prefix>/lib/pkgconfig/crushkit.pc    (links the shared library)
#   compiler  <prefix>/lib/libcrushkit_compiler.a   (crushkit::compiler: text maps)
#             <prefix>/include/compiler/*.h, lib/cmake/crushkit/crushkit-compilerTargets*.cmake
#   osdmap    <prefix>/lib/libcrushkit_osdmap.a, libcrushkit_osdmap_proto.a,
#             libcrushkit_osdmap_{model,formats,changes,planning,balancer}.a
#             (crushkit::osdmap: pools, PGs, object -> PG -> up/acting, the C API
#             osdmap/crushkit_osdmap.h), <prefix>/include/osdmap/{,*/}*.h,
#             lib/cmake/crushkit/crushkit-osdmapTargets*.cmake
#   cli       <prefix>/bin/crushkit (tools/CMakeLists.txt)
# so that a consumer writes
#
#   find_package(crushkit CONFIG REQUIRED [COMPONENTS compiler osdmap])
#   target_link_libraries(mydaemon PRIVATE crushkit::crush [crushkit::osdmap])
#
# or, from C, `cc app.c $(pkg-config --cflags --libs crushkit)`.
# Each component has its own export set, so the config file loads (and finds
# the dependencies of) only the components asked for: crush needs Abseil,
# osdmap protobuf as well (cmake/crushkitConfig.cmake.in). Nothing from tools/
# or tests/ is installed but the CLI binary; tools/dev/check-embed.sh checks.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CRUSH_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/crushkit"
    CACHE STRING "Where crushkitConfig.cmake is installed, relative to the prefix")

# crush_install_component(COMPONENT name EXPORT_FILE file TARGETS t...):
# installs the static/shared libraries and public headers of TARGETS and
# their export set (namespace crushkit::) as one component.
function(crush_install_component)
  cmake_parse_arguments(A "" "COMPONENT;EXPORT_FILE" "TARGETS" ${ARGN})
  install(TARGETS ${A_TARGETS}
          EXPORT ${A_EXPORT_FILE}
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT ${A_COMPONENT}
          LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT ${A_COMPONENT}
          FILE_SET HEADERS DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}" COMPONENT ${A_COMPONENT}
          FILE_SET generated_headers DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
          COMPONENT ${A_COMPONENT})
  install(EXPORT ${A_EXPORT_FILE}
          NAMESPACE crushkit::
          FILE ${A_EXPORT_FILE}.cmake
          DESTINATION "${CRUSH_INSTALL_CMAKEDIR}"
          COMPONENT ${A_COMPONENT})
endfunction()

set_target_properties(crush_core PROPERTIES EXPORT_NAME crush OUTPUT_NAME crushkit_crush)
set_target_properties(crush_edit PROPERTIES EXPORT_NAME crush_edit OUTPUT_NAME crushkit_crush_edit)
set(_crush_targets crush_core crush_edit)
if(TARGET crush_shared)  # CRUSH_BUILD_SHARED
  set_target_properties(crush_shared PROPERTIES EXPORT_NAME crush_shared)
  list(APPEND _crush_targets crush_shared)
endif()
crush_install_component(COMPONENT crush EXPORT_FILE crushkitTargets TARGETS ${_crush_targets})

if(TARGET crush_compiler)
  set_target_properties(crush_compiler PROPERTIES EXPORT_NAME compiler OUTPUT_NAME crushkit_compiler)
  crush_install_component(COMPONENT compiler EXPORT_FILE crushkit-compilerTargets
                          TARGETS crush_compiler)
endif()
if(TARGET crush_osdmap)
  # crush_osdmap links its generated protobuf code (crush_osdmap_proto) as a
  # second static archive; no public header includes a .pb.h, so only the
  # archive is installed, not the generated headers.
  # Its job libraries (osdmap/<job>/) are installed beside it as
  # crushkit::osdmap_<job> (libcrushkit_osdmap_<job>.a); crushkit::osdmap links them all.
  set_target_properties(crush_osdmap PROPERTIES EXPORT_NAME osdmap OUTPUT_NAME crushkit_osdmap)
  set_target_properties(crush_osdmap_proto PROPERTIES EXPORT_NAME osdmap_proto
                                                      OUTPUT_NAME crushkit_osdmap_proto)
  set(_osdmap_targets crush_osdmap crush_osdmap_proto)
  foreach(_job model formats changes planning balancer)
    set_target_properties(crush_osdmap_${_job} PROPERTIES EXPORT_NAME osdmap_${_job}
                                                          OUTPUT_NAME crushkit_osdmap_${_job})
    list(APPEND _osdmap_targets crush_osdmap_${_job})
  endforeach()
  crush_install_component(COMPONENT osdmap EXPORT_FILE crushkit-osdmapTargets
                          TARGETS ${_osdmap_targets})
endif()

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
        DESTINATION "${CRUSH_INSTALL_CMAKEDIR}"
        COMPONENT crush)

# Relocatable: the prefix is found from the .pc file's own directory, so
# `cmake --install --prefix` anywhere works.
if(TARGET crush_shared)  # crushkit.pc links libcrushkit.so
  file(RELATIVE_PATH CRUSH_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/crushkit.pc.in" "${PROJECT_BINARY_DIR}/crushkit.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/crushkit.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
          COMPONENT crush)
endif()
