# Client library unit tests (issue 6): interpolation and clock on synthetic streams,
# snapshot assembly against baselines. The internals are reached through client/src.
if(NOT ARB_BUILD_TESTS)  # the fuzz preset includes the fragments without ArbiterTesting
  return()
endif()
if(TARGET arbiter_client)
  arb_add_test(test_client_interp
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_interp.c
    LIBS arbiter_client arbiter_protocol arbiter_shared m
    INCLUDES ${PROJECT_SOURCE_DIR}/client/src
    LABELS unit TIMEOUT 60)
  arb_add_test(test_client_predict
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_predict.c
    LIBS arbiter_client arbiter_game arbiter_protocol arbiter_shared m
    INCLUDES ${PROJECT_SOURCE_DIR}/client/src
    LABELS unit TIMEOUT 60)
  arb_add_test(test_client_extras
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_extras.c
    LIBS arbiter_client arbiter_game arbiter_protocol arbiter_shared arb::enet m
    INCLUDES ${PROJECT_SOURCE_DIR}/client/src
    LABELS unit TIMEOUT 30)
  arb_add_test(test_client_input
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_input.c
    LIBS arbiter_client arbiter_protocol arbiter_shared
    INCLUDES ${PROJECT_SOURCE_DIR}/client/src
    LABELS unit TIMEOUT 30)
  arb_add_test(test_client_snapshot
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_snapshot.c
    LIBS arbiter_client arbiter_protocol arbiter_shared
    INCLUDES ${PROJECT_SOURCE_DIR}/client/src
    LABELS unit TIMEOUT 30)
endif()
if(TARGET arbiter_netem_model)
  arb_add_test(test_client_netem
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_netem.c
    LIBS arbiter_netem_model
    LABELS unit TIMEOUT 30)
endif()
