# The server's parsers of untrusted bytes: the HTTP request parser (TCP), what its Agones
# SDK client reads back (HTTP responses, GameServer JSON), and the connection gate and ENet
# command checks that see every UDP datagram before ENet. fuzz-http, fuzz-agones-response,
# fuzz-datagram in the fuzz preset (scripts/fuzz.sh seeds them from tests/fuzz/corpus/<name>);
# in test builds the same functions run over the seed corpora.
if(TARGET arbiter_server)
  foreach(pair "http;http" "agones-response;agones_response" "datagram;datagram")
    list(GET pair 0 name)
    list(GET pair 1 stem)
    if(ARB_BUILD_FUZZ)
      add_executable(fuzz-${name} ${CMAKE_CURRENT_LIST_DIR}/fuzz_${stem}.c)
      target_compile_definitions(fuzz-${name} PRIVATE ARB_FUZZING)
      target_compile_options(fuzz-${name} PRIVATE -fsanitize=fuzzer)
      target_link_options(fuzz-${name} PRIVATE -fsanitize=fuzzer,address,undefined)
      target_link_libraries(fuzz-${name} PRIVATE arbiter_server)
    elseif(ARB_BUILD_TESTS)
      add_executable(test_fuzz_${stem}_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_${stem}.c
                                               ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
      target_link_libraries(test_fuzz_${stem}_corpus PRIVATE arbiter_server)
      add_test(NAME test_fuzz_${stem}_corpus COMMAND test_fuzz_${stem}_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/${name})
      set_tests_properties(test_fuzz_${stem}_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
    endif()
  endforeach()
endif()
