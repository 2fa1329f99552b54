# Client snapshot assembly and decode fuzzing (client/src/cl_snapshot.c). fuzz-client_snapshot
# in the fuzz preset (scripts/fuzz.sh seeds it from tests/fuzz/corpus/client_snapshot); in
# test builds the same target function runs over the seed corpus. Seeds: real snapshot
# packets (arb_proto_encode_snapshot) framed as in fuzz_client_snapshot.c, plus regressions.
if(NOT TARGET arbiter_client)
  return()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(client_snapshot SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_client_snapshot.c
                LIBS arbiter_client arbiter_protocol arbiter_shared
                INCLUDES ${PROJECT_SOURCE_DIR}/client/src)
