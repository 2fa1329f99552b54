# Integration tests of arbiter-server (docs/SERVER.md): real server processes on
# 127.0.0.1 with ephemeral ports, driven by the small protocol client in testclient.c.
# All SERIAL (they measure rates and use sockets); total about 45 s in release.
if(TARGET arbiter-server AND TARGET arbiter_protocol AND TARGET arbiter_game)
  add_library(arbiter_testclient STATIC ${CMAKE_CURRENT_LIST_DIR}/testclient.c)
  target_include_directories(arbiter_testclient PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(arbiter_testclient PUBLIC arbiter_protocol arbiter_shared arb::enet)
  target_compile_definitions(arbiter_testclient PUBLIC _POSIX_C_SOURCE=200809L)

  foreach(t config snapshots capacity malformed shutdown http replay)
    if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_server_${t}.c)
      continue()
    endif()
    arb_add_test(test_server_${t}
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_${t}.c
      LIBS arbiter_testclient arbiter_game arbiter_protocol arbiter_shared arb::enet
      LABELS integration SERIAL TIMEOUT 120
      ARGS $<TARGET_FILE:arbiter-server>)
  endforeach()
  # The building blocks in-process (no sockets, well under a second).
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/test_server_modules.c)
    arb_add_test(test_server_modules SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_server_modules.c
      LIBS arbiter_server LABELS integration TIMEOUT 60)
  endif()
endif()
