# Continuous collision (shared/src/ccd.c, the speculative margin in contact.c) and its
# world setting / scene key. Run time in release: about a second.
if(TARGET arbiter_game)
  arb_add_test(test_continuous SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_continuous.c
               LIBS arbiter_shared arbiter_game LABELS unit TIMEOUT 120)
endif()
