# Listing of springs and joints (arb_world_get_springs/_joints, anchors, joint type) and the
# per-wheel radius getter, used by arbiter-view. Run time: milliseconds.
arb_add_test(test_extras_lists SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_extras_lists.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
