# Finds the Debian packages the project builds on (scripts/install-deps.sh installs them).
# Each found library becomes an imported target arb::<name>.
find_package(PkgConfig REQUIRED)

if(ARB_REPLAY_ONLY)
  # arbiter-replay links jansson (the scene parser) and uses msgpack-c's packer and xxHash
  # header-only. Cross builds find the headers in /usr/include (the same files for every
  # Debian architecture); a wasm32 build passes ARB_MSGPACK_INCLUDE_DIR and
  # XXHASH_INCLUDE_DIRS pointing at a directory holding only those headers.
  pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
  add_library(arb::jansson ALIAS PkgConfig::JANSSON)
  find_path(ARB_MSGPACK_INCLUDE_DIR msgpack.h REQUIRED)
  find_path(XXHASH_INCLUDE_DIRS xxhash.h REQUIRED)
  add_library(arb_msgpack_headers INTERFACE)
  target_include_directories(arb_msgpack_headers SYSTEM INTERFACE ${ARB_MSGPACK_INCLUDE_DIR})
  add_library(arb::msgpack ALIAS arb_msgpack_headers)
  return()
endif()

pkg_check_modules(LIBUV REQUIRED IMPORTED_TARGET libuv)
add_library(arb::uv ALIAS PkgConfig::LIBUV)

pkg_check_modules(LIBENET REQUIRED IMPORTED_TARGET libenet)
add_library(arb::enet ALIAS PkgConfig::LIBENET)

# libmsgpack-dev also installs the C++ package under the same CMake name "msgpack";
# try the C one explicitly and fall back to pkg-config (see DEPENDENCIES notes in docs/).
find_package(msgpack-c CONFIG QUIET)
if(TARGET msgpack-c)
  add_library(arb::msgpack ALIAS msgpack-c)
else()
  find_package(msgpack 4.0...<4.1 CONFIG QUIET)
  if(TARGET msgpackc)
    add_library(arb::msgpack ALIAS msgpackc)
  else()
    pkg_check_modules(MSGPACK REQUIRED IMPORTED_TARGET msgpack)
    add_library(arb::msgpack ALIAS PkgConfig::MSGPACK)
  endif()
endif()

pkg_check_modules(JANSSON REQUIRED IMPORTED_TARGET jansson)
add_library(arb::jansson ALIAS PkgConfig::JANSSON)

pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
add_library(arb::xxhash ALIAS PkgConfig::XXHASH)

if(ARB_BUILD_TESTS)
  pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
  add_library(arb::cmocka ALIAS PkgConfig::CMOCKA)
endif()

if(ARB_BUILD_VIEW)
  pkg_check_modules(SDL2 QUIET IMPORTED_TARGET sdl2)
  if(SDL2_FOUND)
    add_library(arb::sdl2 ALIAS PkgConfig::SDL2)
  else()
    message(STATUS "SDL2 not found: arbiter-view will not be built")
  endif()
endif()
