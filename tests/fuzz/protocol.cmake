# Protocol decoders and the replay-log reader. With ARB_BUILD_FUZZ:
# libFuzzer programs fuzz-<name> (scripts/fuzz.sh seeds them from tests/fuzz/corpus/<name>).
# In test builds the same target functions run over the seed corpus under ctest.
# Seeds: the golden vectors (test_proto_golden --write-corpus tests/fuzz/corpus).
set(_arb_proto_fuzz_targets proto_control proto_input proto_snapshot replay)
set(_arb_proto_fuzz_index 1)
foreach(name ${_arb_proto_fuzz_targets})
  if(ARB_BUILD_FUZZ)
    add_executable(fuzz-${name} ${CMAKE_CURRENT_LIST_DIR}/fuzz_proto.c)
    target_compile_definitions(fuzz-${name} PRIVATE ARB_FUZZING FUZZ_TARGET=${_arb_proto_fuzz_index})
    target_compile_options(fuzz-${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz-${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz-${name} PRIVATE arbiter_protocol)
  elseif(ARB_BUILD_TESTS)
    add_executable(test_fuzz_${name}_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_proto.c
                                           ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
    target_compile_definitions(test_fuzz_${name}_corpus PRIVATE _POSIX_C_SOURCE=200809L
                               FUZZ_TARGET=${_arb_proto_fuzz_index})
    target_link_libraries(test_fuzz_${name}_corpus PRIVATE arbiter_protocol)
    add_test(NAME test_fuzz_${name}_corpus
             COMMAND test_fuzz_${name}_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/${name})
    set_tests_properties(test_fuzz_${name}_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
  endif()
  math(EXPR _arb_proto_fuzz_index "${_arb_proto_fuzz_index} + 1")
endforeach()
