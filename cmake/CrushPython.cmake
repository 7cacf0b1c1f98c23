# CRUSH_BUILD_PYTHON: the `crushkit` Python module (tools/python/), built
# with Debian's pybind11 for Debian's /usr/bin/python3 (not a pyenv or venv
# python3 that may come first on PATH; pass -DPython3_EXECUTABLE=... to
# choose another). Default ON when pybind11 and the Python headers are
# found, OFF in sanitizer builds: an ASan/TSan extension needs the sanitizer
# runtime preloaded into the interpreter, so CI runs the Python tests on a
# Release build instead (tools/dev/run-tests.sh).
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "python3 the crushkit module is built for")
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
if(Python3_FOUND)
  find_package(pybind11 CONFIG QUIET)
endif()
set(_crush_python_default OFF)
if(pybind11_FOUND AND NOT CRUSH_SANITIZE)
  set(_crush_python_default ON)
endif()
option(CRUSH_BUILD_PYTHON "Build the crushkit Python module (needs pybind11-dev, python3-dev)"
       ${_crush_python_default})
if(CRUSH_BUILD_PYTHON)
  if(NOT pybind11_FOUND)
    message(FATAL_ERROR "CRUSH_BUILD_PYTHON needs pybind11 and Python 3 headers "
                        "(apt-get install pybind11-dev python3-dev)")
  endif()
  add_subdirectory(tools/python)
endif()
