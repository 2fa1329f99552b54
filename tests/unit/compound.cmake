# Compound bodies (several shapes per body): analytic mass, centre and inertia, a table on
# two legs, per-shape friction and sensors, queries, save/restore. About a second in release.
arb_add_test(test_compound SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_compound.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
