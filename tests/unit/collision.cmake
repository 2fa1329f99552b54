# Math, shapes, manifolds, ray casts and time of impact (shared/src/math.c, geometry.c,
# manifold.c, raycast.c, distance.c). Pure functions: fast (< 1 s together), no I/O.
foreach(t test_math test_geometry test_manifold test_raycast test_toi)
  arb_add_test(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS arbiter_shared LABELS unit TIMEOUT 60)
endforeach()
# The premise of the narrow phase's out-of-reach test (contact.c): no collide function
# reports a point for shapes farther apart than the margin plus the linear slop.
arb_add_test(test_manifold_reach SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_manifold_reach.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 120)
