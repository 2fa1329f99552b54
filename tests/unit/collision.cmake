# Math, shapes, manifolds, ray casts and time of impact (shared/src/math.c, geometry.c,
# manifold.c, raycast.c, distance.c). Pure functions: fast (< 1 s together), no I/O.
foreach(t test_math test_geometry test_manifold test_raycast test_toi)
  arb_add_test(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS arbiter_shared LABELS unit TIMEOUT 60)
endforeach()
