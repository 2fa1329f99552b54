# Scene loader, game rules layer and arbiter-sim (owner: scene). Total run time: a few seconds.
arb_add_test(test_scene SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_scene.c
             LIBS arbiter_scene LABELS unit TIMEOUT 60)
target_compile_definitions(test_scene PRIVATE
  ARB_TEST_SCENES_DIR="${CMAKE_CURRENT_LIST_DIR}/../scenes"
  ARB_DEFAULT_SCENE_FILE="${PROJECT_SOURCE_DIR}/shared/scene/default_scene.json")
