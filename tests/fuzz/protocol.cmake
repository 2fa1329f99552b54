# Protocol decoders and the replay-log reader. With ARB_BUILD_FUZZ:
# libFuzzer programs fuzz-<name> (scripts/fuzz.sh seeds them from tests/fuzz/corpus/<name>).
# In test builds the same target functions run over the seed corpus under ctest.
# Seeds: the golden vectors (test_proto_golden --write-corpus tests/fuzz/corpus).
# FUZZ_TARGET picks the decoder inside fuzz_proto.c (1-based, in this list's order).
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
set(_arb_proto_fuzz_index 1)
foreach(name proto_control proto_input replay)
  arb_fuzz_target(${name} SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_proto.c LIBS arbiter_protocol
                  DEFINITIONS FUZZ_TARGET=${_arb_proto_fuzz_index})
  math(EXPR _arb_proto_fuzz_index "${_arb_proto_fuzz_index} + 1")
endforeach()
