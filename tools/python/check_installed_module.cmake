# ctest python_installed_prefix: installs the python component of BUILD_DIR
# into a scratch prefix and imports crushkit from there with PYTHON (no
# PYTHONPATH to the build tree), mapping one PG of SAMPLE to prove the
# module loads and works.
set(prefix "${BUILD_DIR}/python-install-check")
file(REMOVE_RECURSE "${prefix}")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}"
                        --component python
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install --component python failed (${rc})")
endif()
file(GLOB installed "${prefix}/${MODULE_DIR}/crushkit*.so")
if(NOT installed)
  message(FATAL_ERROR "no crushkit module under ${prefix}/${MODULE_DIR}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH "PYTHONPATH=${prefix}/${MODULE_DIR}"
          ${PYTHON} -c "import crushkit, sys; assert crushkit.__file__.startswith(sys.argv[1]), crushkit.__file__; m = crushkit.CrushMap.from_binary(open(sys.argv[2], 'rb').read()); print(crushkit.__version__, m.do_rule(0, 17, 3))"
          "${prefix}" "${SAMPLE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE_RECURSE "${prefix}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import crushkit from the installed prefix failed: ${err}")
endif()
message(STATUS "installed module: ${out}")
