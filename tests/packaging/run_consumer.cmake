# Script mode (cmake -P): one packaging check, selected by MODE. Driven by tests/packaging/CMakeLists.txt.
#
# MODE=install           cmake --install MCCC_BUILD_DIR into PREFIX; checks exactly the package
#                        files (headers, CMake package, mccc.pc) were installed.
# MODE=find_package      builds and runs consumers/find_package against PREFIX.
# MODE=add_subdirectory  builds and runs consumers/add_subdirectory on MCCC_SOURCE_DIR.
# MODE=fetchcontent      builds and runs consumers/fetchcontent on MCCC_SOURCE_DIR.
# MODE=pkg_config        pkg-config --modversion/--cflags/--libs mccc from PREFIX, then compiles and
#                        runs common/main.cpp with exactly those flags.
# Every consumer build must be free of mccc's warning flags; a subproject build must contain no
# mccc tests (`ctest -N` reports 0 tests).
cmake_minimum_required(VERSION 3.16)

foreach(_var IN ITEMS MODE MCCC_SOURCE_DIR MCCC_BUILD_DIR CONSUMERS_DIR WORK_DIR PREFIX GENERATOR
                      CXX_COMPILER EXPECTED_VERSION)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_consumer.cmake: -D${_var}=... is required")
  endif()
endforeach()

# A consumer build must only see what mccc::mccc gives it, not flags from the environment.
unset(ENV{CXXFLAGS})
unset(ENV{CPPFLAGS})
unset(ENV{LDFLAGS})
set(ENV{LC_ALL} C)

set(_warning_flags_regex "-W(all|extra|pedantic|conversion|shadow|sign-conversion|error)")

function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc STREQUAL "0")
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "packaging (${MODE}): ${what} failed (exit ${rc})\n  ${cmd}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# Configure, build and run one consumer project; then check its compile commands and tests.
function(build_consumer name)
  set(src "${CONSUMERS_DIR}/${name}")
  set(bin "${WORK_DIR}/${name}-build")
  file(REMOVE_RECURSE "${bin}")
  set(configure_args -S "${src}" -B "${bin}" -G "${GENERATOR}"
      "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" -DCMAKE_BUILD_TYPE=Release
      -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      "-DMCCC_EXPECTED_VERSION=${EXPECTED_VERSION}" ${ARGN})
  if(MAKE_PROGRAM)
    list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
  endif()
  run_checked("configure of consumer '${name}'" "${CMAKE_COMMAND}" ${configure_args})
  run_checked("build of consumer '${name}'" "${CMAKE_COMMAND}" --build "${bin}")
  run_checked("run of consumer '${name}'" "${bin}/consumer")
  message(STATUS "consumer '${name}': ${last_output}")

  if(NOT EXISTS "${bin}/compile_commands.json")
    message(FATAL_ERROR "packaging (${MODE}): ${bin}/compile_commands.json was not written")
  endif()
  file(READ "${bin}/compile_commands.json" commands)
  if(NOT commands MATCHES "main\\.cpp")
    message(FATAL_ERROR "packaging (${MODE}): main.cpp missing from compile_commands.json")
  endif()
  if(commands MATCHES "${_warning_flags_regex}")
    message(FATAL_ERROR "packaging (${MODE}): mccc leaked warning flag '${CMAKE_MATCH_0}' into "
                        "the consumer build:\n${commands}")
  endif()
  set(consumer_bin "${bin}" PARENT_SCOPE)
endfunction()

function(expect_no_tests bin)
  execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" -N WORKING_DIRECTORY "${bin}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT out MATCHES "Total Tests: 0")
    message(FATAL_ERROR "packaging (${MODE}): mccc registered tests in a consumer build:\n${out}")
  endif()
endfunction()

if(MODE STREQUAL "install")
  foreach(_var IN ITEMS INCLUDEDIR CMAKEDIR PKGCONFIGDIR)
    if(NOT DEFINED ${_var})
      message(FATAL_ERROR "run_consumer.cmake: -D${_var}=... is required for MODE=install")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${PREFIX}")
  run_checked("cmake --install" "${CMAKE_COMMAND}" --install "${MCCC_BUILD_DIR}" --prefix "${PREFIX}")
  foreach(_file IN ITEMS "${INCLUDEDIR}/mccc/version.hpp" "${INCLUDEDIR}/mccc/config.hpp"
                         "${CMAKEDIR}/mcccConfig.cmake" "${CMAKEDIR}/mcccConfigVersion.cmake"
                         "${CMAKEDIR}/mcccTargets.cmake" "${PKGCONFIGDIR}/mccc.pc")
    if(NOT EXISTS "${PREFIX}/${_file}")
      message(FATAL_ERROR "packaging (install): ${PREFIX}/${_file} was not installed")
    endif()
  endforeach()
  # Nothing but headers and package files: no test, example or benchmark binaries.
  file(GLOB_RECURSE _installed RELATIVE "${PREFIX}" "${PREFIX}/*")
  foreach(_file IN LISTS _installed)
    if(NOT _file MATCHES "^(${INCLUDEDIR}/mccc/.*\\.hpp|${CMAKEDIR}/[^/]+\\.cmake|${PKGCONFIGDIR}/mccc\\.pc)$")
      message(FATAL_ERROR "packaging (install): unexpected installed file ${_file}")
    endif()
  endforeach()
  list(LENGTH _installed _count)
  message(STATUS "installed ${_count} files into ${PREFIX}")

elseif(MODE STREQUAL "find_package")
  build_consumer(find_package "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DMCCC_EXPECTED_PREFIX=${PREFIX}")

elseif(MODE STREQUAL "add_subdirectory")
  build_consumer(add_subdirectory "-DMCCC_SOURCE_DIR=${MCCC_SOURCE_DIR}")
  expect_no_tests("${consumer_bin}")

elseif(MODE STREQUAL "fetchcontent")
  build_consumer(fetchcontent "-DMCCC_SOURCE_DIR=${MCCC_SOURCE_DIR}")
  expect_no_tests("${consumer_bin}")

elseif(MODE STREQUAL "pkg_config")
  if(NOT DEFINED PKG_CONFIG OR NOT DEFINED PKGCONFIGDIR OR NOT DEFINED INCLUDEDIR)
    message(FATAL_ERROR "run_consumer.cmake: MODE=pkg_config needs -DPKG_CONFIG, -DPKGCONFIGDIR, -DINCLUDEDIR")
  endif()
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${PKGCONFIGDIR}")
  run_checked("pkg-config --modversion mccc" "${PKG_CONFIG}" --modversion mccc)
  string(STRIP "${last_output}" _version)
  if(NOT _version STREQUAL EXPECTED_VERSION)
    message(FATAL_ERROR "packaging (pkg_config): mccc.pc says version '${_version}', expected '${EXPECTED_VERSION}'")
  endif()
  run_checked("pkg-config --cflags mccc" "${PKG_CONFIG}" --cflags mccc)
  string(STRIP "${last_output}" _cflags)
  run_checked("pkg-config --libs mccc" "${PKG_CONFIG}" --libs mccc)
  string(STRIP "${last_output}" _libs)
  message(STATUS "pkg-config: --cflags '${_cflags}' --libs '${_libs}'")
  if(_cflags MATCHES "${_warning_flags_regex}")
    message(FATAL_ERROR "packaging (pkg_config): mccc.pc leaks warning flags: ${_cflags}")
  endif()
  if(NOT _cflags MATCHES "-I([^ ]+)")
    message(FATAL_ERROR "packaging (pkg_config): no -I in 'pkg-config --cflags mccc': ${_cflags}")
  endif()
  get_filename_component(_incdir "${CMAKE_MATCH_1}" REALPATH)
  get_filename_component(_expected_incdir "${PREFIX}/${INCLUDEDIR}" REALPATH)
  if(NOT _incdir STREQUAL _expected_incdir)
    message(FATAL_ERROR "packaging (pkg_config): -I points at ${_incdir}, expected ${_expected_incdir}")
  endif()
  separate_arguments(_cflags_list UNIX_COMMAND "${_cflags}")
  separate_arguments(_libs_list UNIX_COMMAND "${_libs}")
  set(_bin "${WORK_DIR}/pkg_config-build")
  file(REMOVE_RECURSE "${_bin}")
  file(MAKE_DIRECTORY "${_bin}")
  run_checked("compile with pkg-config flags" "${CXX_COMPILER}" -std=c++17 ${_cflags_list}
              "${CONSUMERS_DIR}/common/main.cpp" -o "${_bin}/consumer" ${_libs_list})
  run_checked("run of the pkg-config consumer" "${_bin}/consumer")
  message(STATUS "pkg-config consumer: ${last_output}")

else()
  message(FATAL_ERROR "run_consumer.cmake: unknown MODE '${MODE}'")
endif()
