# v2 snapshot decoder + apply fuzzing (protocol/src/snap2_*.c): fuzz-snap2 with
# ARB_BUILD_FUZZ; in test builds the same target function runs over tests/fuzz/corpus/snap2
# (seeds written by `test_snap2 --write-corpus tests/fuzz/corpus/snap2`).
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(snap2 SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_snap2.c LIBS arbiter_protocol)
