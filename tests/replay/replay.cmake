# arbiter-replay and the determinism guarantee (docs/DETERMINISM.md).
#  - replay_verify_<log>: every committed log in tests/replay/ re-simulates bit for bit
#    (*.arbrec, and *.arbrec.xz: the 10-minute, 16-bot soak session).
#  - test_replay_tool: the subcommands on logs built in memory (divergences, corruption).
#  - replay_cli: the program on files (--help, info/dump/seek, perturbation, corrupted copies).
#  - replay_determinism_matrix (release build only; docs/DETERMINISM.md gives the time): the
#    tool built with gcc -O0/-O2, clang -O2, gcc -O3 -march=x86-64-v3, for aarch64 (qemu),
#    i386 with SSE2 and wasm32 (node) verifies every committed log with the final hashes
#    the recording server computed (the soak log in replay_determinism_matrix_soak, on the
#    same builds). The pair migrate-a/migrate-b (a match moved between two live servers)
#    is verified as one match, and every build continues migrate-a from its own state at
#    tick 120: the continuations must be byte-identical and each platform's is verified by
#    every build (--continue; docs/DETERMINISM.md, "Moving a match across platforms"). Needs scripts/install-deps.sh --matrix (make test); without it the
#    builds that can run still verify, and the test reports SKIPPED (exit 77, ctest's
#    SKIP_RETURN_CODE) unless ARBITER_REQUIRE_MATRIX=1 (.ci/run), which makes it a failure.
#  - replay_broken_builds_diverge (release build only): x87 arithmetic is refused by the
#    build, and x87 forced, FMA contraction and -ffast-math each diverge on default.arbrec.
#    Skipped the same way without the i386 cross compiler.
#  - check_determinism_rejects: scripts/check-determinism.sh fails on a libm call in shared/.
#  (fuzz-replay_verify, the tool's whole verify path on arbitrary bytes: tests/fuzz/replay_tool.cmake)
if(ARB_BUILD_TESTS AND TARGET arbiter-replay)
  file(GLOB _arb_replay_logs CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.arbrec
       ${CMAKE_CURRENT_LIST_DIR}/*.arbrec.xz)
  list(SORT _arb_replay_logs)
  foreach(log ${_arb_replay_logs})
    get_filename_component(name ${log} NAME_WE)  # soak.arbrec.xz -> soak
    add_test(NAME replay_verify_${name} COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/verify_log.sh
             $<TARGET_FILE:arbiter-replay> ${log})
    set_tests_properties(replay_verify_${name} PROPERTIES LABELS "replay;determinism" TIMEOUT 300
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

  add_test(NAME check_determinism_rejects COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check_rejects.sh
           ${PROJECT_SOURCE_DIR})
  set_tests_properties(check_determinism_rejects PROPERTIES LABELS "unit;determinism" TIMEOUT 60)

  # Builds seven more copies of the tool (three for other platforms) and four broken ones:
  # once per `make test` (the release pass), serial so their compiles do not fight the other
  # tests for the 2 cores. The build trees are kept and reused by the next run. The long
  # soak log is verified by a second test on the builds the first one made: one core for
  # about two minutes (qemu-aarch64), beside the other tests instead of holding both.
  # COST puts both first, so the soak runs while the rest of the suite does.
  if(CMAKE_BUILD_TYPE STREQUAL "Release" AND NOT CMAKE_C_FLAGS MATCHES "sanitize" AND _arb_replay_logs)
    set(_arb_matrix_logs ${_arb_replay_logs})
    list(FILTER _arb_matrix_logs EXCLUDE REGEX "/(soak|migrate-[ab])[.]arbrec")
    set(_arb_migrate_a ${CMAKE_CURRENT_LIST_DIR}/migrate-a.arbrec)
    set(_arb_migrate_b ${CMAKE_CURRENT_LIST_DIR}/migrate-b.arbrec)
    set(_arb_matrix_continue)
    if(EXISTS ${_arb_migrate_a} AND EXISTS ${_arb_migrate_b})
      list(APPEND _arb_matrix_logs ${_arb_migrate_a}+${_arb_migrate_b})
      set(_arb_matrix_continue --continue ${_arb_migrate_a}@120)
    endif()
    set(_arb_soak_logs ${_arb_replay_logs})
    list(FILTER _arb_soak_logs INCLUDE REGEX "/soak[.]arbrec")
    if(_arb_matrix_logs)
      add_test(NAME replay_determinism_matrix
               COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/determinism-matrix.sh
                       --work ${CMAKE_BINARY_DIR}/determinism-matrix --jobs 2 --skip-status 77
                       ${_arb_matrix_continue} ${_arb_matrix_logs})
      # The timeout is a cap for a machine shared with other work; the time on an idle CI
      # machine is in DETERMINISM.md.
      set_tests_properties(replay_determinism_matrix PROPERTIES LABELS "replay;determinism"
        TIMEOUT 2700 RUN_SERIAL TRUE COST 1000 FIXTURES_SETUP determinism_builds SKIP_RETURN_CODE 77)
    endif()
    if(_arb_soak_logs)
      # qemu runs the 10-minute soak log at a few hundred ticks/s. Niced: the live tests
      # beside it wait on their clocks and come first.
      add_test(NAME replay_determinism_matrix_soak
               COMMAND nice -n 19 bash ${PROJECT_SOURCE_DIR}/scripts/determinism-matrix.sh
                       --work ${CMAKE_BINARY_DIR}/determinism-matrix --jobs 1 --skip-status 77
                       ${_arb_soak_logs})
      set_tests_properties(replay_determinism_matrix_soak PROPERTIES LABELS "replay;determinism"
        TIMEOUT 2700 COST 900 FIXTURES_REQUIRED determinism_builds SKIP_RETURN_CODE 77)
    endif()
    if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/default.arbrec)
      add_test(NAME replay_broken_builds_diverge
               COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/broken_builds.sh
                       ${CMAKE_BINARY_DIR}/determinism-matrix ${CMAKE_CURRENT_LIST_DIR}/default.arbrec)
      set_tests_properties(replay_broken_builds_diverge PROPERTIES LABELS "replay;determinism"
        TIMEOUT 900 RUN_SERIAL TRUE SKIP_RETURN_CODE 77)
    endif()
  endif()
endif()
