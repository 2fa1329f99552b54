# Physics extras (springs, joints, Verlet particles, vehicles, bullets, queries, time
# scale; shared/src/{extras,spring,joint,joint_solver,particles,vehicle,ccd,world_query,
# time_scale,extras_io}.c). Total run time in release: a few seconds.
arb_add_test(test_extras_physics SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_extras_physics.c
             LIBS arbiter_shared m LABELS unit TIMEOUT 120)
arb_add_test(test_extras_determinism SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_extras_determinism.c
             LIBS arbiter_shared LABELS "unit;determinism" TIMEOUT 120
             INCLUDES ${XXHASH_INCLUDE_DIRS})
# Scene keys of the extras and the vehicle avatar (needs the scene library).
if(TARGET arbiter_game)
  arb_add_test(test_extras_scene SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_extras_scene.c
               LIBS arbiter_game LABELS "unit;determinism" TIMEOUT 60)
  target_compile_definitions(test_extras_scene PRIVATE ARB_TEST_SCENES_DIR="${CMAKE_CURRENT_LIST_DIR}/../scenes")
endif()
# Joints: limits, motors, springs, every joint type, save/restore mid-motion.
arb_add_test(test_joints SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_joints.c
             LIBS arbiter_shared LABELS unit TIMEOUT 120)
# Breakable joints: break force, break events, save/restore.
arb_add_test(test_joint_break SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_joint_break.c
             LIBS arbiter_shared LABELS unit TIMEOUT 120)
# World queries from the broad-phase trees against a slot-order scan (random worlds).
arb_add_test(test_overlap_query SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_overlap_query.c
             LIBS arbiter_shared LABELS unit TIMEOUT 120)
