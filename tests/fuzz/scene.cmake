# Scene loader + game layer fuzzing. fuzz-scene in the fuzz preset
# (scripts/fuzz.sh seeds it from tests/fuzz/corpus/scene); in test builds the same
# target function runs over the seed corpus and every scene in tests/scenes.
if(ARB_BUILD_FUZZ)
  add_executable(fuzz-scene ${CMAKE_CURRENT_LIST_DIR}/fuzz_scene.c)
  target_compile_definitions(fuzz-scene PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-scene PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-scene PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz-scene PRIVATE arbiter_game)
elseif(ARB_BUILD_TESTS)
  add_executable(test_fuzz_scene_corpus ${CMAKE_CURRENT_LIST_DIR}/fuzz_scene.c
                                        ${CMAKE_CURRENT_LIST_DIR}/corpus_main.c)
  target_compile_definitions(test_fuzz_scene_corpus PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(test_fuzz_scene_corpus PRIVATE arbiter_game)
  add_test(NAME test_fuzz_scene_corpus
           COMMAND test_fuzz_scene_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/scene
                   ${CMAKE_CURRENT_LIST_DIR}/../scenes)
  set_tests_properties(test_fuzz_scene_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 60)
endif()
