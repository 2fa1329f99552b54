# Chain shapes (one-sided terrain with ghost vertices): sliding across inner vertices,
# one-sidedness, continuous collision at 25/100/400 m/s, one-sided rays, save/restore,
# refused definitions, point ownership. Run time in release: about a second.
arb_add_test(test_chain SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chain.c
             LIBS arbiter_shared LABELS unit TIMEOUT 60)
