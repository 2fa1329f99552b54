# arbiter-replay's whole verify path (owner: replay): fuzz-replay_verify in the fuzz preset,
# seeded by scripts/fuzz.sh from tests/fuzz/corpus/replay_verify (a small recorded session).
if(ARB_BUILD_FUZZ AND TARGET arbiter_replay_tool)
  add_executable(fuzz-replay_verify ${CMAKE_CURRENT_LIST_DIR}/../replay/fuzz_replay_verify.c)
  target_compile_definitions(fuzz-replay_verify PRIVATE ARB_FUZZING)
  target_compile_options(fuzz-replay_verify PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz-replay_verify PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz-replay_verify PRIVATE arbiter_replay_tool)
endif()
