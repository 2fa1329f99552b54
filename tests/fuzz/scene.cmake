# Scene loader + game layer fuzzing. fuzz-scene in the fuzz preset
# (scripts/fuzz.sh seeds it from tests/fuzz/corpus/scene); in test builds the same
# target function runs over the seed corpus and every scene in tests/scenes.
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(scene SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_scene.c LIBS arbiter_game
                CORPUS ${CMAKE_CURRENT_LIST_DIR}/corpus/scene ${CMAKE_CURRENT_LIST_DIR}/../scenes)
