# arbiter-replay's whole verify path: fuzz-replay_verify in the fuzz preset,
# seeded by scripts/fuzz.sh from tests/fuzz/corpus/replay_verify (a small recorded session);
# in test builds test_fuzz_replay_verify_corpus runs the target over those seeds.
if(NOT TARGET arbiter_replay_tool)
  return()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(replay_verify SOURCE ${CMAKE_CURRENT_LIST_DIR}/../replay/fuzz_replay_verify.c
                LIBS arbiter_replay_tool LABELS unit fuzz replay)
