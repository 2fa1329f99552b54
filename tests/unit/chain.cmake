# Chain shapes (one-sided terrain with ghost vertices): sliding across inner vertices,
# one-sidedness, continuous collision at 25/100/400 m/s, one-sided rays, save/restore,
# refused definitions, point ownership, the link tree against a scan of every link (reads
# shared/src). Run time in release: about a second.
arb_add_test(test_chain SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chain.c
             LIBS arbiter_shared INCLUDES ${PROJECT_SOURCE_DIR}/shared/src LABELS unit TIMEOUT 60)
# Chains on the wire (pieces, welcome) and in scene files (keys, errors, the built world).
if(TARGET arbiter_game)
  arb_add_test(test_chain_wire SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_chain_wire.c
               LIBS arbiter_shared arbiter_protocol arbiter_game LABELS unit TIMEOUT 60)
endif()
