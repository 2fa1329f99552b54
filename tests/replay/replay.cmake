# arbiter-replay and the determinism guarantee (docs/DETERMINISM.md).
#  - replay_verify_<log>: every committed log in tests/replay/ re-simulates bit for bit.
#  - test_replay_tool: the subcommands on logs built in memory (divergences, corruption).
#  - replay_cli: the program on files (--help, info/dump/seek, perturbation, corrupted copies).
#  - replay_determinism_matrix (release build only, ~2-3 min the first time): the tool built
#    with gcc -O0/-O2, clang -O2 and gcc -O3 -march=x86-64-v3 gives identical final hashes.
#  (fuzz-replay_verify, the tool's whole verify path on arbitrary bytes: tests/fuzz/replay_tool.cmake)
if(ARB_BUILD_TESTS AND TARGET arbiter-replay)
  file(GLOB _arb_replay_logs CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.arbrec)
  list(SORT _arb_replay_logs)
  foreach(log ${_arb_replay_logs})
    get_filename_component(name ${log} NAME_WE)
    add_test(NAME replay_verify_${name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/verify_log.sh
             $<TARGET_FILE:arbiter-replay> ${log})
    set_tests_properties(replay_verify_${name} PROPERTIES LABELS "replay;determinism" TIMEOUT 120
      FAIL_REGULAR_EXPRESSION "DIVERGED")
  endforeach()

  arb_add_test(test_replay_tool SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_replay_tool.c
    LIBS arbiter_replay_tool INCLUDES ${XXHASH_INCLUDE_DIRS} LABELS replay TIMEOUT 120)

  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/default.arbrec)
    add_test(NAME replay_cli COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_checks.sh
             $<TARGET_FILE:arbiter-replay> ${CMAKE_CURRENT_LIST_DIR}/default.arbrec
             $<$<TARGET_EXISTS:arbiter-sim>:$<TARGET_FILE_DIR:arbiter-replay>/arbiter-sim>)
    set_tests_properties(replay_cli PROPERTIES LABELS "replay" TIMEOUT 120)
  endif()

  # Builds four more copies of the tool: once per `make test` (the release pass), serial
  # so its compiles do not fight the other tests for the 2 cores.
  if(CMAKE_BUILD_TYPE STREQUAL "Release" AND NOT CMAKE_C_FLAGS MATCHES "sanitize" AND _arb_replay_logs)
    add_test(NAME replay_determinism_matrix
             COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/determinism-matrix.sh
                     --work ${CMAKE_BINARY_DIR}/determinism-matrix --jobs 2 ${_arb_replay_logs})
    set_tests_properties(replay_determinism_matrix PROPERTIES LABELS "replay;determinism"
      TIMEOUT 600 RUN_SERIAL TRUE)
  endif()
endif()
