# Capsule shapes: pure geometry (mass, bounds, ray casts, distance, manifolds against every
# kind) and their behaviour in a world (resting on the side, falling over from the end,
# continuous collision, save/restore, scene keys). Run time in release: about a second.
arb_add_test(test_capsule SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_capsule.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
if(TARGET arbiter_game)
  arb_add_test(test_capsule_world SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_capsule_world.c
               LIBS arbiter_shared arbiter_game LABELS unit TIMEOUT 120)
endif()
