# Checks every packaging consumer runs on what it received from mccc.
#
# mccc_consumer_checks([SUBPROJECT])
#   - mccc::mccc exists and imposes no compile options or definitions (warning flags stay inside
#     mccc's own build) and does not link mccc's internal warnings target;
#   - SUBPROJECT: mccc's tests, examples, benchmarks and install rules default to OFF, and the
#     internal mccc_warnings target does not exist.
function(mccc_consumer_checks)
  cmake_parse_arguments(arg "SUBPROJECT" "" "" ${ARGN})
  if(NOT TARGET mccc::mccc)
    message(FATAL_ERROR "consumer: target mccc::mccc is missing")
  endif()
  foreach(prop IN ITEMS INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_DEFINITIONS)
    get_target_property(value mccc::mccc ${prop})
    if(value)
      message(FATAL_ERROR "consumer: mccc::mccc must not impose ${prop} on consumers: ${value}")
    endif()
  endforeach()
  get_target_property(libs mccc::mccc INTERFACE_LINK_LIBRARIES)
  if(libs MATCHES "warnings")
    message(FATAL_ERROR "consumer: mccc::mccc links a warnings target: ${libs}")
  endif()
  if(arg_SUBPROJECT)
    foreach(opt IN ITEMS MCCC_BUILD_TESTS MCCC_BUILD_EXAMPLES MCCC_BUILD_BENCHMARKS MCCC_INSTALL)
      if(${opt})
        message(FATAL_ERROR "consumer: ${opt} must default to OFF when mccc is a subproject")
      endif()
    endforeach()
    if(TARGET mccc_warnings)
      message(FATAL_ERROR "consumer: mccc created its internal mccc_warnings target as a subproject")
    endif()
  endif()
  message(STATUS "consumer checks passed (mccc::mccc carries no warning flags)")
endfunction()
