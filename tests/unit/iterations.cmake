# arb_world_def.solve_iterations / relax_iterations (solver passes per substep) and their
# scene keys. Run time in release: well under a second.
if(TARGET arbiter_game)
  arb_add_test(test_iterations SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_iterations.c
               LIBS arbiter_shared arbiter_game LABELS unit TIMEOUT 60)
endif()
