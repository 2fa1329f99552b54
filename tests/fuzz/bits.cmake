# Bit reader fuzzing (protocol/src/bitstream.c): fuzz-bits with ARB_BUILD_FUZZ; in test
# builds the same target function runs over the seed corpus tests/fuzz/corpus/bits.
if(ARB_BUILD_FUZZ)
  add_executable(fuzz-bits ${CMAKE_CURRENT_LIST_DIR}/fuzz_bits.c)
  target_compile_definitions(fuzz-bits PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-bits PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-bits PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz-bits PRIVATE arbiter_protocol)
elseif(ARB_BUILD_TESTS)
  add_executable(test_fuzz_bits_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_bits.c
                                       ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
  target_compile_definitions(test_fuzz_bits_corpus PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(test_fuzz_bits_corpus PRIVATE arbiter_protocol)
  add_test(NAME test_fuzz_bits_corpus COMMAND test_fuzz_bits_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/bits)
  set_tests_properties(test_fuzz_bits_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
endif()
