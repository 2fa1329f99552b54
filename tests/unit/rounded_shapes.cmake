# Capsules and rounded polygons: pure geometry (mass, bounds, ray casts, distance,
# manifolds against every kind) and their behaviour in a world (resting on the side,
# falling over from the end, continuous collision, save/restore, the wire form, scene
# keys). Run time in release: about a second each.
arb_add_test(test_rounded_shapes SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rounded_shapes.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
if(TARGET arbiter_game)
  arb_add_test(test_rounded_shapes_world SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_rounded_shapes_world.c
               LIBS arbiter_shared arbiter_protocol arbiter_game LABELS unit TIMEOUT 120)
endif()
