# v2 snapshot decoder + apply fuzzing (protocol/src/snap2_*.c): fuzz-snap2 with
# ARB_BUILD_FUZZ; in test builds the same target function runs over tests/fuzz/corpus/snap2
# (seeds written by `test_snap2 --write-corpus tests/fuzz/corpus/snap2`).
if(ARB_BUILD_FUZZ)
  add_executable(fuzz-snap2 ${CMAKE_CURRENT_LIST_DIR}/fuzz_snap2.c)
  target_compile_definitions(fuzz-snap2 PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-snap2 PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-snap2 PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz-snap2 PRIVATE arbiter_protocol)
elseif(ARB_BUILD_TESTS)
  add_executable(test_fuzz_snap2_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_snap2.c
                                        ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
  target_compile_definitions(test_fuzz_snap2_corpus PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(test_fuzz_snap2_corpus PRIVATE arbiter_protocol)
  add_test(NAME test_fuzz_snap2_corpus COMMAND test_fuzz_snap2_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/snap2)
  set_tests_properties(test_fuzz_snap2_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
endif()
