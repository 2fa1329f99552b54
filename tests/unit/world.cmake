# World, bodies, solver, hash and save/restore (shared/src/world.c and friends; owner:
# world). Total run time in release: a few seconds.
foreach(t test_world test_seed_behaviours test_sleep)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    arb_add_test(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS arbiter_shared LABELS unit TIMEOUT 120)
  endif()
endforeach()
arb_add_test(test_determinism SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_determinism.c
             LIBS arbiter_shared LABELS "unit;determinism" TIMEOUT 120)
# ARB_ASSERT: fires (abort, checked from a forked child) on programmer errors in builds
# with asserts (debug, asan), soft failure in release, never on untrusted bytes.
arb_add_test(test_assert SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_assert.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
# The validation walkers (shared/src/world_validate.c): silent on real worlds, assert on each
# kind of broken invariant; in ARB_VALIDATE builds arb_world_step runs them (reads shared/src).
arb_add_test(test_validate SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_validate.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 60)
if(ARB_VALIDATE)
  target_compile_definitions(test_validate PRIVATE ARB_VALIDATE_TESTS=1)
endif()
# Sensor shapes: overlap begin/end events, no response, the same events after restore and
# in every build (golden event stream).
arb_add_test(test_sensors SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sensors.c
             LIBS arbiter_shared LABELS "unit;determinism" TIMEOUT 120)
# Contact begin/end and hit events (outputs of the step; golden event stream).
arb_add_test(test_events SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_events.c
             LIBS arbiter_shared LABELS "unit;determinism" TIMEOUT 120)
# Contact recycling: resting manifolds kept, separations follow motion, off means off.
arb_add_test(test_contact_recycling SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_contact_recycling.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
# The hash's reuse of the encoded bytes of bodies at rest equals the full encoding; its
# two XXH3 update builds equal XXH3 (reads shared/src/xxh3_update.h).
arb_add_test(test_hash_cache SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_hash_cache.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 120)
# The worker pool itself: every item once, thread indexes in range, block sizes.
arb_add_test(test_worker_pool SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_worker_pool.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60 CORES 2)
# Worker threads: the same hash with 1, 2 and 4 workers (reads the pool pointer in
# shared/src/world.h to know the threads started).
arb_add_test(test_workers SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_workers.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS "unit;determinism" TIMEOUT 300 CORES 2)
# The broad phase's AABB tree: structure, height bound and queries after random and
# degenerate operations; results independent of the tree's shape (reads shared/src).
arb_add_test(test_broad_phase SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_broad_phase.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS "unit;determinism" TIMEOUT 120 CORES 2)
# The contact solver's lane widths: 8 lanes (AVX2, where the CPU has it) step every tick
# exactly as 4 lanes do (reads shared/src/contact_lanes.h to choose the width).
arb_add_test(test_solver_lanes SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_solver_lanes.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS "unit;determinism" TIMEOUT 300 CORES 2)
# The shape module: the contact order read from the collide table (pinned), the any-kind
# functions against the per-kind ones, unknown kinds (reads shared/src/world.h, shape.h).
arb_add_test(test_shape_module SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_shape_module.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit)
# The awake-contact list (marked from either side) and the contact briefs against the
# contact array they are kept beside (reads shared/src/world.h).
arb_add_test(test_contact_lists SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_contact_lists.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 120)
# The energy and stability stress suite (generated worlds: energy never above the start,
# nothing leaves a closed box, speeds within the clamp, no NaN). `.ci/run` varies the seed
# (ARBITER_STRESS_SEED); the long variant runs in `make soak`.
arb_add_test(test_energy SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_energy.c
             LIBS arbiter_shared m LABELS unit TIMEOUT 600)
add_test(NAME test_energy_soak COMMAND test_energy)
set_tests_properties(test_energy_soak PROPERTIES LABELS soak ENVIRONMENT ARBITER_STRESS_LONG=1 TIMEOUT 3600)
