# Connect tokens (arbiter/token.h): the text a hello carries, opened by the server before
# anything else of the client is trusted. fuzz-token in the fuzz preset (scripts/fuzz.sh
# seeds it from tests/fuzz/corpus/token); in test builds the same function runs over the
# seeds (raw token texts and field sets to mint, see fuzz_token.c).
if(NOT TARGET arbiter_token)
  return()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(token SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_token.c LIBS arbiter_token)
