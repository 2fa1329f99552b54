# World, bodies, solver, hash and save/restore (shared/src/world.c and friends; owner:
# world). Total run time in release: a few seconds.

# A test of this file: tests/unit/NAME.c linked with arbiter_shared; the other arguments
# (LABELS, TIMEOUT, INCLUDES, CORES) go to arb_add_test as given.
function(arb_world_test name)
  arb_add_test(${name} SOURCES ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.c LIBS arbiter_shared ${ARGN})
endfunction()
foreach(t test_world test_seed_behaviours test_sleep)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    arb_world_test(${t} LABELS unit TIMEOUT 120)
  endif()
endforeach()
arb_world_test(test_determinism LABELS "unit;determinism" TIMEOUT 120)
# ARB_ASSERT: fires (abort, checked from a forked child) on programmer errors in builds
# with asserts (debug, asan), soft failure in release, never on untrusted bytes.
arb_world_test(test_assert LABELS unit TIMEOUT 60)
# The validation walkers (shared/src/world_validate.c): silent on real worlds, assert on each
# kind of broken invariant; in ARB_VALIDATE builds arb_world_step runs them (reads shared/src).
arb_world_test(test_validate INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 60)
if(ARB_VALIDATE)
  target_compile_definitions(test_validate PRIVATE ARB_VALIDATE_TESTS=1)
endif()
# Sensor shapes: overlap begin/end events, no response, the same events after restore and
# in every build (golden event stream).
arb_world_test(test_sensors LABELS "unit;determinism" TIMEOUT 120)
# Contact begin/end and hit events (outputs of the step; golden event stream).
arb_world_test(test_events LABELS "unit;determinism" TIMEOUT 120)
# Contact recycling: resting manifolds kept, separations follow motion, off means off.
arb_world_test(test_contact_recycling LABELS unit TIMEOUT 60)
# The hash's reuse of the encoded bytes of bodies at rest equals the full encoding; its
# two XXH3 update builds equal XXH3 (reads shared/src/xxh3_update.h).
arb_world_test(test_hash_cache INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 120)
# The worker pool itself: every item once, thread indexes in range, block sizes.
arb_world_test(test_worker_pool LABELS unit TIMEOUT 60 CORES 2)
# Worker threads: the same hash with 1, 2 and 4 workers (reads the pool pointer in
# shared/src/world.h to know the threads started).
arb_world_test(test_workers INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS "unit;determinism" TIMEOUT 300 CORES 2)
# The broad phase's AABB tree: structure, height bound and queries after random and
# degenerate operations; results independent of the tree's shape (reads shared/src).
arb_world_test(test_broad_phase INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS "unit;determinism" TIMEOUT 120 CORES 2)
# The contact solver's lane widths: 8 lanes (AVX2, where the CPU has it) step every tick
# exactly as 4 lanes do (reads shared/src/contact_lanes.h to choose the width).
arb_world_test(test_solver_lanes INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS "unit;determinism" TIMEOUT 300 CORES 2)
# The shape module: the contact order read from the collide table (pinned), the any-kind
# functions against the per-kind ones, unknown kinds (reads shared/src/world.h, shape.h).
arb_world_test(test_shape_module INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit)
# The awake-contact list (marked from either side) and the contact briefs against the
# contact array they are kept beside (reads shared/src/world.h).
arb_world_test(test_contact_lists INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 120)
# The energy and stability stress suite (generated worlds: energy never above the start,
# nothing leaves a closed box, speeds within the clamp, no NaN). `.ci/run` varies the seed
# (ARBITER_STRESS_SEED); the long variant runs in `make soak`.
arb_add_test(test_energy SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_energy.c
             LIBS arbiter_shared m LABELS unit TIMEOUT 600)
add_test(NAME test_energy_soak COMMAND test_energy)
set_tests_properties(test_energy_soak PROPERTIES LABELS soak ENVIRONMENT ARBITER_STRESS_LONG=1 TIMEOUT 3600)
