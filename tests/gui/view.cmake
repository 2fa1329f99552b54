# gui tests: arbiter-view screenshots (live: server + 3 bots + viewer; replay of the
# recording). Needs SDL2 (libsdl2-dev) and the server and bot programs; without them the
# test is registered anyway and reports SKIPPED with the reason (ctest SKIP_RETURN_CODE).
if(NOT ARB_BUILD_TESTS)  # the fuzz preset includes the fragments without ArbiterTesting
  return()
endif()

# The replay driver has no SDL in it: its test runs everywhere (label unit).
if(TARGET arbiter_game AND TARGET arbiter_protocol)
  arb_add_test(test_view_replay
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_view_replay.c ${PROJECT_SOURCE_DIR}/client/view/view_replay.c
    LIBS arbiter_game arbiter_protocol arbiter_shared
    INCLUDES ${PROJECT_SOURCE_DIR}/client/view ${PROJECT_SOURCE_DIR}/tests/replay
    LABELS unit TIMEOUT 60
    ARGS ${CMAKE_CURRENT_BINARY_DIR})
endif()

set(_view_skip "")
if(NOT TARGET arb::sdl2)
  set(_view_skip "SDL2 (Debian libsdl2-dev) is not installed, so arbiter-view is not built")
elseif(NOT TARGET arbiter-view)
  set(_view_skip "arbiter-view is not built (zlib or a library it needs is missing)")
elseif(NOT TARGET arbiter-server OR NOT TARGET arbiter-bot)
  set(_view_skip "arbiter-server or arbiter-bot is not built")
endif()
find_package(ZLIB QUIET)

if(_view_skip STREQUAL "" AND ZLIB_FOUND)
  # Camera, font table, key mapping, PNG writer: no window needed.
  set(_view_dir ${PROJECT_SOURCE_DIR}/client/view)
  arb_add_test(test_view_units
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_view_units.c ${CMAKE_CURRENT_LIST_DIR}/png_read.c
            ${_view_dir}/view_camera.c ${_view_dir}/view_frame.c ${_view_dir}/view_font.c
            ${_view_dir}/view_input.c ${_view_dir}/view_png.c
    LIBS arbiter_shared arb::sdl2 ZLIB::ZLIB m
    INCLUDES ${_view_dir}
    LABELS unit gui TIMEOUT 30
    ARGS ${CMAKE_CURRENT_BINARY_DIR})
  arb_add_test(test_view
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_view.c ${CMAKE_CURRENT_LIST_DIR}/png_read.c
    LIBS ZLIB::ZLIB
    INCLUDES ${PROJECT_SOURCE_DIR}/client/view
    LABELS gui TIMEOUT 60
    ARGS $<TARGET_FILE_DIR:arbiter-view> ${CMAKE_CURRENT_BINARY_DIR}/test_view.d
         ${PROJECT_SOURCE_DIR}/tests/scenes)
  # The programs must be built before the test runs them.
  add_dependencies(test_view arbiter-view arbiter-server arbiter-bot)
else()
  if(_view_skip STREQUAL "")
    set(_view_skip "zlib (zlib1g-dev) is not installed")
  endif()
  foreach(_t test_view test_view_units)
    add_test(NAME ${_t} COMMAND sh -c "echo 'SKIPPED: ${_t}: ${_view_skip}'; exit 77")
    set_tests_properties(${_t} PROPERTIES LABELS gui SKIP_RETURN_CODE 77)
  endforeach()
endif()
