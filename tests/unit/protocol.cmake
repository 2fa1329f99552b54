# Protocol tests (protocol/, PROTOCOL.md). All fast, no sockets.
if(NOT ARB_BUILD_TESTS)  # the fuzz preset includes the fragments without ArbiterTesting
  return()
endif()
set(_proto_libs arbiter_protocol arb::msgpack)
arb_add_test(test_proto_codec SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_proto_codec.c
             LIBS ${_proto_libs} LABELS unit)
arb_add_test(test_proto_replay SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_proto_replay.c
             LIBS ${_proto_libs} LABELS unit replay INCLUDES ${XXHASH_INCLUDE_DIRS})
arb_add_test(test_proto_golden SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_proto_golden.c
             LIBS ${_proto_libs} LABELS unit ARGS ${CMAKE_CURRENT_LIST_DIR}/../../protocol/PROTOCOL.md)
arb_add_test(test_proto_malformed SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_proto_malformed.c
             LIBS ${_proto_libs} LABELS unit INCLUDES ${XXHASH_INCLUDE_DIRS})
arb_add_test(test_proto_gate SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_proto_gate.c
             LIBS arbiter_protocol LABELS unit ARGS ${CMAKE_CURRENT_LIST_DIR}/../../protocol/PROTOCOL.md)
if(TARGET arbiter_token)
  arb_add_test(test_proto_token SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_proto_token.c
               LIBS arbiter_token LABELS unit ARGS ${CMAKE_CURRENT_LIST_DIR}/../../protocol/PROTOCOL.md)
  target_compile_definitions(test_proto_token PRIVATE _POSIX_C_SOURCE=200809L)
endif()
arb_add_test(test_bitstream SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bitstream.c
             LIBS arbiter_protocol LABELS unit)
arb_add_test(test_snapshot SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_snapshot.c
             LIBS arbiter_protocol LABELS unit
             INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../../protocol/src)
arb_add_test(test_snapshot_drawn SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_snapshot_drawn.c
             LIBS arbiter_protocol LABELS unit)
arb_add_test(test_snapshot_changes SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_snapshot_changes.c
             LIBS arbiter_protocol LABELS unit
             INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../../protocol/src)
arb_add_test(test_snapshot_stream SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_snapshot_stream.c
             LIBS arbiter_protocol LABELS unit
             INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../../protocol/src)
if(TARGET arbiter_server)
  arb_add_test(test_sv_capture SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sv_capture.c
               LIBS arbiter_server LABELS unit ARGS ${CMAKE_CURRENT_LIST_DIR}/../scenes/extras.json)
  arb_add_test(test_sv_migrate_image SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sv_migrate_image.c
               LIBS arbiter_server LABELS unit)
  arb_add_test(test_sv_ban SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sv_ban.c
               LIBS arbiter_server LABELS unit)
  arb_add_test(test_sv_snap_workers SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sv_snap_workers.c
               LIBS arbiter_server LABELS unit CORES 2 ARGS ${CMAKE_CURRENT_LIST_DIR}/../scenes/extras.json)
  if(TARGET arbiter_client)
    arb_add_test(test_sv_snap_converge SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sv_snap_converge.c
                 LIBS arbiter_server arbiter_client LABELS unit
                 INCLUDES ${PROJECT_SOURCE_DIR}/client/src
                 ARGS ${CMAKE_CURRENT_LIST_DIR}/../scenes/extras.json)
  endif()
  if(TARGET arbiter-replay)
    arb_add_test(test_sv_record SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sv_record.c
                 LIBS arbiter_server LABELS unit
                 ARGS ${CMAKE_CURRENT_LIST_DIR}/../scenes/extras.json $<TARGET_FILE:arbiter-replay>)
    target_compile_definitions(test_sv_record PRIVATE _POSIX_C_SOURCE=200809L _DEFAULT_SOURCE)
  endif()
endif()
