# Live equals offline: a fresh 10 s session of arbiter-server with 4
# arbiter-bot clients over loopback is recorded and verified with arbiter-replay at once.
if(ARB_BUILD_TESTS AND TARGET arbiter-replay AND TARGET arbiter-server AND TARGET arbiter-bot)
  add_test(NAME replay_live_equals_offline
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_replay_live.sh $<TARGET_FILE_DIR:arbiter-replay>)
  set_tests_properties(replay_live_equals_offline PROPERTIES LABELS "integration"
    TIMEOUT 90)
endif()
