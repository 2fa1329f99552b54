# The server's parsers of untrusted bytes: the HTTP request parser (TCP), the WebSocket
# upgrade and frames (fuzz-ws), what its Agones
# SDK client reads back (HTTP responses, GameServer JSON), and the connection gate and ENet
# command checks that see every UDP datagram before ENet. fuzz-http, fuzz-agones-response,
# fuzz-datagram in the fuzz preset (scripts/fuzz.sh seeds them from tests/fuzz/corpus/<name>);
# in test builds the same functions run over the seed corpora.
if(NOT TARGET arbiter_server)
  return()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(http SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_http.c LIBS arbiter_server)
arb_fuzz_target(agones-response TEST agones_response SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_agones_response.c
                LIBS arbiter_server)
arb_fuzz_target(datagram SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_datagram.c LIBS arbiter_server)
# The WebSocket input path: the upgrade parser, then the frames through wslay.
arb_fuzz_target(ws SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_ws.c LIBS arbiter_server)
# The state image a server receives when a match moves to it (--migrate-port).
arb_fuzz_target(migrate-image TEST migrate_image SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_migrate_image.c
                LIBS arbiter_server)
