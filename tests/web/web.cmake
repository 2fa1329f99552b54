# The web page (docs/WEB.md).
#  - test_web_paths: which request paths reach which files below a web root, which are
#    refused (.., escapes, hidden files, symbolic links out of it), the content types.
#  - web_static_serving: arbiter-server's HTTP port serves the page's files (content types,
#    HEAD, 404, refused paths: .., escapes, hidden files, symbolic links out of the root,
#    the size bound; POST refused; /config.json; the page's URL in the startup log).
#  - web_replay_page: headless Chromium (playwright-core) opens every committed .arbrec in
#    the replay page served by arbiter-server; the WebAssembly re-simulation checks every
#    tick's hash; a falsified hash is reported at its tick. (Not migrate-a/-b: the page
#    plays a log from tick 0, and the second log of a moved match starts at a checkpoint.)
#  - web_play_page: the play page in Chromium against a live arbiter-server --ws-port with
#    native arbiter-bots: joined, >= 95 % of snapshots, moves with keys and only then,
#    prediction equal to the server bit for bit, the bots saw it join, move and leave; a
#    spectator page's camera box reaches the server.
# The browser tests are SKIPPED (exit 77) when node, Chromium, playwright-core (npm ci in
# client/web) or the bundle's WebAssembly (emcc) are missing, unless
# ARBITER_REQUIRE_MATRIX=1, which makes that a failure.
if(ARB_BUILD_TESTS AND TARGET arbiter-server)
  # The path rules in-process (no sockets).
  arb_add_test(test_web_paths SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_web_paths.c
    LIBS arbiter_server LABELS "unit;web" TIMEOUT 30)
  add_test(NAME web_static_serving
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_web_static.sh $<TARGET_FILE:arbiter-server>)
  set_tests_properties(web_static_serving PROPERTIES LABELS "integration;web" TIMEOUT 60
                       SKIP_RETURN_CODE 77)

  find_program(ARB_NODE node)
  file(GLOB _arb_web_logs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/replay/*.arbrec)
  list(FILTER _arb_web_logs EXCLUDE REGEX "/migrate-[ab][.]arbrec$")
  list(SORT _arb_web_logs)
  if(ARB_NODE)
    set(_arb_web_node ${ARB_NODE})
  else()
    # No node: the test still runs and says so (a skip, or a failure when required).
    set(_arb_web_node sh -c "echo 'SKIPPED: node is not installed'; [ \"$ARBITER_REQUIRE_MATRIX\" = 1 ] && exit 1; exit 77")
  endif()
  if(TARGET arbiter-replay AND _arb_web_logs)
    add_test(NAME web_replay_page
             COMMAND ${_arb_web_node} ${CMAKE_CURRENT_LIST_DIR}/test_web_replay.mjs
                     $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-replay> ${CMAKE_BINARY_DIR}/share/arbiter/web
                     ${_arb_web_logs})
    set_tests_properties(web_replay_page PROPERTIES LABELS "integration;web" TIMEOUT 300
                         SKIP_RETURN_CODE 77)
  endif()
  if(TARGET arbiter-bot)
    add_test(NAME web_play_page
             COMMAND ${_arb_web_node} ${CMAKE_CURRENT_LIST_DIR}/test_web_play.mjs
                     $<TARGET_FILE:arbiter-server> $<TARGET_FILE:arbiter-bot> ${CMAKE_BINARY_DIR}/share/arbiter/web)
    # The snapshot ratio is a rate: alone on the 2 cores.
    set_tests_properties(web_play_page PROPERTIES LABELS "integration;web" TIMEOUT 180
                         SKIP_RETURN_CODE 77 PROCESSORS 2)
  endif()
endif()
