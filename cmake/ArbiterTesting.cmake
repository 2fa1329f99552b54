# arb_add_test(NAME SOURCES a.c b.c LIBS lib... LABELS unit|integration|replay|fuzz
#              [ARGS ...] [TIMEOUT s] [CORES n] [INCLUDES dir...])
# Builds one cmocka test executable and registers it with ctest.
# CORES (default 1) is how many cores the test keeps busy: `ctest -j N` runs tests side by
# side only while their cores add up to N, so a test that runs two threads flat out
# (CORES 2) runs alone on the 2-core machines. Tests with live servers and bots on loopback
# share: they wait on their clocks most of the time (under ASan, 6-35 % of a core for most,
# ~1 core for the netem ones) and take ephemeral ports. Those that assert a rate (snapshots
# per second, a flood dropped over a rate limit) take CORES 2: a test busy on the other
# core (the determinism matrix's qemu run) once halved what a flood got dropped.
function(arb_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT;CORES" "SOURCES;LIBS;LABELS;ARGS;INCLUDES" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} arb::cmocka)
  if(T_INCLUDES)
    target_include_directories(${name} PRIVATE ${T_INCLUDES})
  endif()
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
  if(T_CORES)
    set_tests_properties(${name} PROPERTIES PROCESSORS ${T_CORES})
  endif()
endfunction()
