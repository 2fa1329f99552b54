# Client snapshot assembly fuzzing (client/src/cl_snapshot.c). fuzz-client_snapshot
# in the fuzz preset (scripts/fuzz.sh seeds it from tests/fuzz/corpus/client_snapshot); in
# test builds the same target function runs over the seed corpus. Seeds: real snapshot
# packets (arb_proto_encode_snapshot) framed as in fuzz_client_snapshot.c, plus regressions.
if(NOT TARGET arbiter_client)
  return()
endif()
if(ARB_BUILD_FUZZ)
  add_executable(fuzz-client_snapshot ${CMAKE_CURRENT_LIST_DIR}/fuzz_client_snapshot.c)
  target_compile_definitions(fuzz-client_snapshot PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-client_snapshot PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-client_snapshot PRIVATE -fsanitize=fuzzer,address,undefined)
  target_include_directories(fuzz-client_snapshot PRIVATE ${PROJECT_SOURCE_DIR}/client/src)
  target_link_libraries(fuzz-client_snapshot PRIVATE arbiter_client arbiter_protocol arbiter_shared)
elseif(ARB_BUILD_TESTS)
  add_executable(test_fuzz_client_snapshot_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_client_snapshot.c
                                                  ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
  target_compile_definitions(test_fuzz_client_snapshot_corpus PRIVATE _POSIX_C_SOURCE=200809L)
  target_include_directories(test_fuzz_client_snapshot_corpus PRIVATE ${PROJECT_SOURCE_DIR}/client/src)
  target_link_libraries(test_fuzz_client_snapshot_corpus PRIVATE arbiter_client arbiter_protocol arbiter_shared)
  add_test(NAME test_fuzz_client_snapshot_corpus
           COMMAND test_fuzz_client_snapshot_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/client_snapshot)
  set_tests_properties(test_fuzz_client_snapshot_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
endif()
