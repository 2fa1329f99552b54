# Snapshot decoder + apply fuzzing (protocol/src/snapshot_*.c): fuzz-snapshot with
# ARB_BUILD_FUZZ; in test builds the same target function runs over tests/fuzz/corpus/snapshot
# (seeds written by `test_snapshot --write-corpus tests/fuzz/corpus/snapshot`).
include(${CMAKE_CURRENT_LIST_DIR}/fuzz_target.cmake)
arb_fuzz_target(snapshot SOURCE ${CMAKE_CURRENT_LIST_DIR}/fuzz_snapshot.c LIBS arbiter_protocol)
