# Client library, arbiter-bot and arbiter-netem integration tests (issue 6). Real
# processes on 127.0.0.1 with ephemeral ports; two run side by side (cmake/ArbiterTesting.cmake)
# but for those that assert rates.
# Total about 60 s in release.
if(NOT ARB_BUILD_TESTS)  # the fuzz preset includes the fragments without ArbiterTesting
  return()
endif()
if(TARGET arbiter_client AND TARGET arbiter-bot AND TARGET arbiter_protocol)
  add_library(arbiter_client_testutil STATIC ${CMAKE_CURRENT_LIST_DIR}/test_client_util.c)
  target_include_directories(arbiter_client_testutil PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(arbiter_client_testutil PUBLIC arbiter_client arb::jansson)

  # Garbage from a fake server (an ENet host inside the test): needs no real server.
  arb_add_test(test_client_garbage
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_garbage.c
    LIBS arbiter_client_testutil arbiter_client arbiter_protocol arbiter_shared arb::enet
    INCLUDES ${PROJECT_SOURCE_DIR}/client/src ${PROJECT_SOURCE_DIR}/tests/unit
    LABELS integration TIMEOUT 60)

  if(TARGET arbiter-server)
    # Asserts the snapshot rate the bots received: alone (CORES 2), as the rate tests of
    # server.cmake.
    arb_add_test(test_client_live
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_live.c
      LIBS arbiter_client_testutil arbiter_client
      LABELS integration TIMEOUT 120 CORES 2
      ARGS $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-bot>)
    if(TARGET arbiter-netem)
      arb_add_test(test_client_netem_live
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_netem_live.c
        LIBS arbiter_client_testutil arbiter_client
        LABELS integration TIMEOUT 120
        ARGS $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-bot> $<TARGET_FILE:arbiter-netem>)
      # 20 % loss, 100 +- 100 ms: 30 s in every run; the 10-minute soak only with
      # `make soak` (label soak, excluded by the test presets).
      arb_add_test(test_client_badnet_live
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_badnet_live.c
        LIBS arbiter_client_testutil arbiter_client
        LABELS integration TIMEOUT 120
        ARGS $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-bot> $<TARGET_FILE:arbiter-netem> 30)
      add_test(NAME test_client_badnet_soak
               COMMAND test_client_badnet_live $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-bot>
                       $<TARGET_FILE:arbiter-netem> 600)
      set_tests_properties(test_client_badnet_soak PROPERTIES LABELS soak RUN_SERIAL ON TIMEOUT 900)
    endif()
    # Compound bodies: welcome statics one entry per shape, descriptions with every shape.
    arb_add_test(test_client_compound_live
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_compound_live.c
      LIBS arbiter_client_testutil arbiter_client
      LABELS integration TIMEOUT 60
      ARGS $<TARGET_FILE:arbiter-server> ${PROJECT_SOURCE_DIR}/tests/scenes/compound.json)
    if(TARGET arbiter-netem AND TARGET arbiter-replay)
      # Particles, links and wheels: client state == the replay log's quantized state,
      # directly and through arbiter-netem; the per-client budget per second of ticks.
      arb_add_test(test_client_extras_live
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_extras_live.c
        LIBS arbiter_client_testutil arbiter_client arbiter_protocol
        LABELS integration TIMEOUT 180 CORES 2
        ARGS $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-netem> $<TARGET_FILE:arbiter-replay>
             ${PROJECT_SOURCE_DIR}/tests/scenes/extras.json)
      # Lag-compensated shots through a 100 ms round trip; the session's log verifies.
      arb_add_test(test_client_fire_live
        SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_fire_live.c
        LIBS arbiter_client_testutil arbiter_client
        LABELS integration TIMEOUT 120
        ARGS $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-netem> $<TARGET_FILE:arbiter-replay>)
    endif()
  endif()
endif()

# Install the "client" component and build a program with pkg-config only.
if(TARGET arbiter_client AND TARGET arbiter-bot)
  # The consumer is compiled with this build's flags (an ASan build installs sanitized
  # archives, which need the sanitizer runtime at link time).
  string(TOUPPER "${CMAKE_BUILD_TYPE}" ARB_BT)
  set(ARB_CONSUMER_FLAGS "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${ARB_BT}} ${CMAKE_EXE_LINKER_FLAGS}")
  add_test(NAME test_client_install
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/test_client_install.sh ${CMAKE_BINARY_DIR} "${ARB_CONSUMER_FLAGS}")
  set_tests_properties(test_client_install PROPERTIES LABELS integration TIMEOUT 60)
endif()
