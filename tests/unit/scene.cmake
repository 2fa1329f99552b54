# Scene loader, game rules layer and arbiter-sim. Total run time: a few seconds.
# (The fuzz preset turns tests off but still reads the fragments: nothing to do then.)
if(NOT ARB_BUILD_TESTS)
  return()
endif()
arb_add_test(test_scene SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_scene.c
             LIBS arbiter_game LABELS unit TIMEOUT 60)
target_compile_definitions(test_scene PRIVATE
  ARB_TEST_SCENES_DIR="${CMAKE_CURRENT_LIST_DIR}/../scenes"
  ARB_DEFAULT_SCENE_FILE="${PROJECT_SOURCE_DIR}/game/default_scene.json")
arb_add_test(test_game SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_game.c
             LIBS arbiter_game LABELS unit determinism TIMEOUT 60)
target_compile_definitions(test_game PRIVATE ARB_TEST_SCENES_DIR="${CMAKE_CURRENT_LIST_DIR}/../scenes")
# arbiter-sim: golden final hashes of tests/scenes/*.json, exit status 2 on bad input.
if(TARGET arbiter-sim)
  add_test(NAME test_scene_sim_golden
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../scenes/check_sim.sh golden
                   $<TARGET_FILE:arbiter-sim> ${CMAKE_CURRENT_LIST_DIR}/../scenes)
  add_test(NAME test_scene_sim_bad
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../scenes/check_sim.sh bad
                   $<TARGET_FILE:arbiter-sim> ${CMAKE_CURRENT_LIST_DIR}/../scenes)
  set_tests_properties(test_scene_sim_golden PROPERTIES LABELS "unit;determinism" TIMEOUT 60)
  set_tests_properties(test_scene_sim_bad PROPERTIES LABELS "unit" TIMEOUT 60)
endif()
arb_add_test(test_game_fire SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_game_fire.c
             LIBS arbiter_game arbiter_protocol arbiter_shared LABELS unit determinism TIMEOUT 60)
