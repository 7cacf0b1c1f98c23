# crush_link_cli_statically(TARGET): links an executable against the static
# archives of Abseil and protobuf, and libstdc++/libgcc statically, from the
# same Debian packages as the shared ones (libabsl-dev, libprotobuf-dev and
# libstdc++-12-dev ship both). Why: the dynamic loader spends ~3.5 ms mapping
# and relocating the ~35 shared libraries those bring, which is most of a
# short command (`crushkit osdmaptool MAP --upmap OUT --upmap-max 10` takes
# ~20 ms); linked this way `crushkit --version` runs in ~1.8 ms instead of
# ~5.3 ms.
#
# How: the archives of every Abseil target and of protobuf::libprotobuf in the
# target's link closure are linked whole, ahead of the other libraries, so
# each of their symbols is defined before any library asks for it; the
# shared copies the libraries' usage requirements still put on the link line
# then satisfy nothing, and --as-needed leaves them out of the executable.
# Only executables do this: the libraries, the tests and the Python module
# keep the shared libraries (a second, static protobuf inside the Python
# interpreter would clash with python3-protobuf's).
#
# Falls back to the shared libraries, with a message, when an archive is
# missing.
option(CRUSH_STATIC_CLI
       "Link the crushkit CLI against static Abseil, protobuf and libstdc++ (faster start-up)"
       ON)

# Targets in the link closure of `target`, in `out_var`.
function(_crush_link_closure target out_var)
  set(seen "")
  set(todo "${target}")
  while(todo)
    list(POP_FRONT todo t)
    if(NOT TARGET "${t}" OR "${t}" IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${t}")
    get_target_property(type "${t}" TYPE)
    set(deps "")
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      if(prop STREQUAL "LINK_LIBRARIES" AND type STREQUAL "INTERFACE_LIBRARY")
        continue()
      endif()
      get_target_property(items "${t}" ${prop})
      if(items)
        list(APPEND deps ${items})
      endif()
    endforeach()
    foreach(item IN LISTS deps)
      # Static libraries list their private dependencies as $<LINK_ONLY:x>.
      string(REGEX MATCHALL "[A-Za-z0-9_.+-]+(::[A-Za-z0-9_.+-]+)?" names "${item}")
      foreach(name IN LISTS names)
        if(TARGET "${name}" AND NOT "${name}" IN_LIST seen)
          list(APPEND todo "${name}")
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out_var} "${seen}" PARENT_SCOPE)
endfunction()

function(crush_link_cli_statically target)
  if(NOT CRUSH_STATIC_CLI OR CRUSH_SANITIZE)
    return()
  endif()
  _crush_link_closure(${target} closure)
  set(archives "")
  foreach(t IN LISTS closure)
    if(NOT t MATCHES "^(absl::|protobuf::libprotobuf$)")
      continue()
    endif()
    get_target_property(imported "${t}" IMPORTED)
    get_target_property(type "${t}" TYPE)
    if(NOT imported OR NOT type MATCHES "SHARED_LIBRARY|UNKNOWN_LIBRARY")
      continue()
    endif()
    get_target_property(location "${t}" LOCATION)
    # libabsl_status.so.20220623.0.0 -> libabsl_status.a
    string(REGEX REPLACE "\\.so(\\.[0-9.]+)?$" ".a" archive "${location}")
    if(NOT archive MATCHES "\\.a$" OR NOT EXISTS "${archive}")
      message(STATUS "crushkit CLI: no static archive for ${t} (${location}); linking shared")
      return()
    endif()
    list(APPEND archives "${archive}")
  endforeach()
  list(REMOVE_DUPLICATES archives)
  target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc LINKER:--as-needed)
  if(archives)
    string(REPLACE ";" "," archive_list "${archives}")
    target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${archive_list}>")
  endif()
  if(TARGET protobuf::libprotobuf)
    # protobuf's gzip streams.
    find_package(ZLIB REQUIRED)
    target_link_libraries(${target} PRIVATE ZLIB::ZLIB)
  endif()
  list(LENGTH archives n)
  message(STATUS "crushkit CLI: ${n} static archives (Abseil, protobuf), static libstdc++")
endfunction()
