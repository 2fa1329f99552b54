# World image fuzzing (arb_world_restore). fuzz-world-restore in the fuzz
# preset; in test builds a deterministic mutation sweep over a real image
# (test_fuzz_world_restore: every payload byte flipped three ways with a valid checksum,
# every truncation). Run time: about a second (release), a few seconds under ASan.
if(ARB_BUILD_FUZZ)
  add_executable(fuzz-world-restore ${CMAKE_CURRENT_LIST_DIR}/fuzz_world_restore.c)
  target_compile_definitions(fuzz-world-restore PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-world-restore PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-world-restore PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz-world-restore PRIVATE arbiter_shared)
  target_include_directories(fuzz-world-restore PRIVATE ${XXHASH_INCLUDE_DIRS})
elseif(ARB_BUILD_TESTS)
  add_executable(test_fuzz_world_restore ${CMAKE_CURRENT_LIST_DIR}/fuzz_world_restore.c)
  target_link_libraries(test_fuzz_world_restore PRIVATE arbiter_shared)
  target_include_directories(test_fuzz_world_restore PRIVATE ${XXHASH_INCLUDE_DIRS})
  file(GLOB seeds ${CMAKE_CURRENT_LIST_DIR}/corpus/world-restore/*)
  add_test(NAME test_fuzz_world_restore COMMAND test_fuzz_world_restore ${seeds})
  set_tests_properties(test_fuzz_world_restore PROPERTIES LABELS "unit;fuzz" TIMEOUT 120)
endif()
