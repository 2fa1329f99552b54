# The server's HTTP request parser (untrusted TCP bytes). fuzz-http in the fuzz preset
# (scripts/fuzz.sh seeds it from tests/fuzz/corpus/http); in test builds the same
# function runs over the seed corpus.
if(TARGET arbiter_server)
  if(ARB_BUILD_FUZZ)
    add_executable(fuzz-http ${CMAKE_CURRENT_LIST_DIR}/fuzz_http.c)
    target_compile_definitions(fuzz-http PRIVATE ARB_FUZZING)
    target_compile_options(fuzz-http PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz-http PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz-http PRIVATE arbiter_server)
  elseif(ARB_BUILD_TESTS)
    add_executable(test_fuzz_http_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_http.c
                                       ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
    target_link_libraries(test_fuzz_http_corpus PRIVATE arbiter_server)
    add_test(NAME test_fuzz_http_corpus COMMAND test_fuzz_http_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/http)
    set_tests_properties(test_fuzz_http_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
  endif()
endif()
