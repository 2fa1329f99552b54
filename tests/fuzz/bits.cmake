# Bit reader fuzzing (protocol/src/bitstream.c): fuzz-bits with ARB_BUILD_FUZZ; in test
# builds the same target function runs over the seed corpus tests/fuzz/corpus/bits.
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(bits SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_bits.c LIBS arbiter_protocol)
