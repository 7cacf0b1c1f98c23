# CPack: `cpack -G DEB` in a build tree makes one Debian package, crushkit,
# holding everything `cmake --install` installs (the CLI, libcrushkit.so and
# the static libraries, headers, the CMake package, crushkit.pc and the
# Python module).
#
# Its runtime dependencies (libc6, libstdc++6, libgcc-s1, libabsl20220623 on
# Debian 12, for libcrushkit.so; zlib1g for the CLI, which has Abseil,
# protobuf and libstdc++ linked in: cmake/CrushStaticCli.cmake; with
# -DCRUSH_STATIC_CLI=OFF also libprotobuf32) come from dpkg-shlibdeps (package dpkg-dev),
# which reads the ELF files' NEEDED entries, rather than from a hand-kept list
# that would drift. The C and C++ headers need no more than the C library to
# use the C API; the C++ headers include Abseil's (and osdmap's link
# protobuf), so the -dev packages are suggested, not required.
#
# The package installs under /usr. The library directory is the one
# GNUInstallDirs chose at configure time: lib for the default prefix
# (/usr/lib, on the loader's and pkg-config's default paths), Debian's
# multiarch lib/x86_64-linux-gnu when configured with -DCMAKE_INSTALL_PREFIX=/usr.
set(CPACK_PACKAGE_NAME crushkit)
set(CPACK_PACKAGE_VENDOR "crushkit")
set(CPACK_PACKAGE_CONTACT "crushkit maintainers <crushkit@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Ceph-compatible CRUSH placement: crushtool/osdmaptool CLI and embeddable library")
set(CPACK_PACKAGE_DESCRIPTION
    "crushkit reimplements Ceph's CRUSH mapper, crushtool and osdmaptool: byte-identical maps
and placements, a change planner, and a library to embed (C++20 and a C99 API).")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libabsl-dev, libprotobuf-dev, pkg-config")
# libcrushkit.so's SONAME makes dpkg-shlibdeps look for a shlibs entry for
# it; the package ships its own, so it generates one.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")

# `plan`/`diff --html` inline Chart.js from Debian's package into the page
# (osdmap/planning/movement_html.h); without it the page shows tables only.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libjs-chart.js")
# The Python module (component python, /usr/lib/python3/dist-packages) is
# built for one Python minor version (its ABI tag): Debian 12's python3 3.11.
if(TARGET crushkit_python)
  math(EXPR _crush_py_next "${Python3_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS
         ", python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~)"
         ", python3 (<< ${Python3_VERSION_MAJOR}.${_crush_py_next}), python3-numpy")
endif()

include(CPack)
