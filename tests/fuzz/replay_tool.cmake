# arbiter-replay's whole verify path: fuzz-replay_verify in the fuzz preset,
# seeded by scripts/fuzz.sh from tests/fuzz/corpus/replay_verify (a small recorded session);
# in test builds test_fuzz_replay_verify_corpus runs the target over those seeds.
if(ARB_BUILD_FUZZ AND TARGET arbiter_replay_tool)
  add_executable(fuzz-replay_verify ${CMAKE_CURRENT_LIST_DIR}/../replay/fuzz_replay_verify.c)
  target_compile_definitions(fuzz-replay_verify PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-replay_verify PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-replay_verify PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz-replay_verify PRIVATE arbiter_replay_tool)
elseif(ARB_BUILD_TESTS AND TARGET arbiter_replay_tool)
  # Test builds: the same target function over the seed corpus.
  add_executable(test_fuzz_replay_verify_corpus ${CMAKE_CURRENT_LIST_DIR}/../replay/fuzz_replay_verify.c
                                               ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
  target_compile_definitions(test_fuzz_replay_verify_corpus PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(test_fuzz_replay_verify_corpus PRIVATE arbiter_replay_tool)
  add_test(NAME test_fuzz_replay_verify_corpus
           COMMAND test_fuzz_replay_verify_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/replay_verify)
  set_tests_properties(test_fuzz_replay_verify_corpus PROPERTIES LABELS "unit;fuzz;replay" TIMEOUT 60)
endif()
