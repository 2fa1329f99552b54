# Integration tests of arbiter-server (docs/SERVER.md): real server processes on
# 127.0.0.1 with ephemeral ports, driven by the small protocol client in testclient.c.
# Two run side by side (ephemeral ports, mostly waiting: cmake/ArbiterTesting.cmake), but
# for those that assert rates.
if(TARGET arbiter-server AND TARGET arbiter_protocol AND TARGET arbiter_game)
  add_library(arbiter_testclient STATIC ${CMAKE_CURRENT_LIST_DIR}/testclient.c
              ${CMAKE_CURRENT_LIST_DIR}/tc_ws.c)
  target_include_directories(arbiter_testclient PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(arbiter_testclient PUBLIC arbiter_protocol arbiter_shared arb::enet)
  target_compile_definitions(arbiter_testclient PUBLIC _POSIX_C_SOURCE=200809L)

  # These assert rates or latencies under load (snapshots per second, a flood dropped over
  # the input rate limit, /healthz within 1 s during an attack), which a process busy on the
  # other core skews: each runs alone (CORES 2).
  set(_rate_tests snapshots capacity malformed abuse ws http)
  foreach(t config snapshots capacity malformed shutdown http replay drain abuse rejoin spectate ws)
    if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_server_${t}.c)
      continue()
    endif()
    set(_cores 1)
    if(t IN_LIST _rate_tests)
      set(_cores 2)
    endif()
    arb_add_test(test_server_${t}
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_${t}.c
      LIBS arbiter_testclient arbiter_game arbiter_protocol arbiter_shared arb::enet
      LABELS integration TIMEOUT 120 CORES ${_cores}
      ARGS $<TARGET_FILE:arbiter-server>)
  endforeach()
  if(TARGET test_server_ws)
    target_compile_definitions(test_server_ws PRIVATE ARB_SCENES_DIR="${PROJECT_SOURCE_DIR}/tests/scenes")
  endif()
  # The building blocks in-process (no sockets, well under a second).
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_server_modules.c)
    arb_add_test(test_server_modules SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_modules.c
      LIBS arbiter_server LABELS integration TIMEOUT 60)
  endif()
  if(TARGET arbiter-token)
    arb_add_test(test_server_auth SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_auth.c
      LIBS arbiter_testclient arbiter_token arbiter_protocol arbiter_shared arb::enet
      LABELS integration TIMEOUT 120
      ARGS $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-token>)
  endif()
  # The WebSocket transport with another implementation of RFC 6455: Node's ws package.
  add_test(NAME test_server_ws_node
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_server_ws_node.sh $<TARGET_FILE:arbiter-server>
                   ${PROJECT_SOURCE_DIR}/client/web/node_modules)
  set_tests_properties(test_server_ws_node PROPERTIES LABELS integration TIMEOUT 60
                       SKIP_RETURN_CODE 77)
  # wss:// through the nginx block docs/SERVER.md gives (TLS by a reverse proxy).
  add_test(NAME test_server_ws_tls
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_server_ws_tls.sh $<TARGET_FILE:arbiter-server>
                   ${PROJECT_SOURCE_DIR}/client/web/node_modules ${PROJECT_SOURCE_DIR}/docs/SERVER.md)
  set_tests_properties(test_server_ws_tls PROPERTIES LABELS integration TIMEOUT 60
                       SKIP_RETURN_CODE 77)
  # The WebSocket transport's parser and frame layer in-process, against PROTOCOL.md §1.2.
  arb_add_test(test_server_ws_golden SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_ws_golden.c
    LIBS arbiter_server LABELS unit TIMEOUT 60 ARGS ${PROJECT_SOURCE_DIR}/protocol/PROTOCOL.md)
  # The datagram guards (ENet command checks, connection gate) in-process, no traffic.
  arb_add_test(test_server_guard SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_guard.c
    LIBS arbiter_server LABELS unit TIMEOUT 60)
  # The tick applier live vs. from the recorded log, the recorder's buffers, init unwinding.
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_server_record.c)
    arb_add_test(test_server_record SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_record.c
      LIBS arbiter_server LABELS integration TIMEOUT 60)
  endif()
endif()

# Match lifecycle, Agones (against tests/integration/fake_agones_sdk.py, no Kubernetes) and
# four servers at once: python3 drivers around real arbiter-server, arbiter-bot and
# arbiter-replay processes on 127.0.0.1 (about 30 s together). The Kubernetes manifests in
# docker/k8s are checked against the Agones CRD field names and types (python3-yaml).
if(ARB_BUILD_TESTS AND TARGET arbiter-server)
  find_program(ARB_PYTHON3 python3 REQUIRED)
  if(TARGET arbiter-bot AND TARGET arbiter-replay)
    foreach(t agones lifecycle fleet admin migrate migrate_drain)
      add_test(NAME test_server_${t}
               COMMAND ${ARB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_server_${t}.py $<TARGET_FILE_DIR:arbiter-server>)
      set_tests_properties(test_server_${t} PROPERTIES LABELS integration TIMEOUT 180)
    endforeach()
  endif()
  add_test(NAME test_k8s_manifests
           COMMAND ${ARB_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_k8s_manifests.py ${PROJECT_SOURCE_DIR}/docker/k8s
                   $<TARGET_FILE:arbiter-server>)
  set_tests_properties(test_k8s_manifests PROPERTIES LABELS unit TIMEOUT 60)
endif()
if(TARGET arbiter_server AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_server_lifecycle_units.c)
  arb_add_test(test_server_lifecycle_units SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_lifecycle_units.c
    LIBS arbiter_server LABELS unit TIMEOUT 60)
endif()
