# Finds the Debian packages the project builds on (scripts/install-deps.sh installs them).
# Each found library becomes an imported target arb::<name>.
find_package(PkgConfig REQUIRED)

# arb_pkg(<name> <pkg-config module>): the module, required, as the target arb::<name>.
# A macro, so pkg-config's <NAME>_INCLUDE_DIRS & co. stay visible to the caller.
macro(arb_pkg name module)
  string(TOUPPER "${name}" _arb_pkg_prefix)
  pkg_check_modules(${_arb_pkg_prefix} REQUIRED IMPORTED_TARGET ${module})
  add_library(arb::${name} ALIAS PkgConfig::${_arb_pkg_prefix})
endmacro()

if(ARB_REPLAY_ONLY OR ARB_WEB_ONLY)
  # arbiter-replay (and the WebAssembly client) links jansson (the scene parser) and uses msgpack-c's packer and xxHash
  # header-only. Cross builds find the headers in /usr/include (the same files for every
  # Debian architecture); a wasm32 build passes ARB_MSGPACK_INCLUDE_DIR and
  # XXHASH_INCLUDE_DIRS pointing at a directory holding only those headers.
  arb_pkg(jansson jansson)
  find_path(ARB_MSGPACK_INCLUDE_DIR msgpack.h REQUIRED)
  find_path(XXHASH_INCLUDE_DIRS xxhash.h REQUIRED)
  add_library(arb_msgpack_headers INTERFACE)
  target_include_directories(arb_msgpack_headers SYSTEM INTERFACE ${ARB_MSGPACK_INCLUDE_DIR})
  add_library(arb::msgpack ALIAS arb_msgpack_headers)
  return()
endif()

arb_pkg(uv libuv)
arb_pkg(enet libenet)

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
    arb_pkg(msgpack msgpack)
  endif()
endif()

arb_pkg(jansson jansson)
# libsodium: the server's connection-gate cookies and connect tokens (docs/SECURITY.md).
arb_pkg(sodium libsodium)
arb_pkg(xxhash libxxhash)
# The server's WebSocket transport (PROTOCOL.md §1.2): wslay frames the messages, nettle's
# SHA-1 and base64 make the handshake's Sec-WebSocket-Accept. libwslay-dev ships no
# pkg-config file, only a CMake package whose imported target is `wslay`.
find_package(wslay REQUIRED)
set_target_properties(wslay PROPERTIES IMPORTED_GLOBAL TRUE)
add_library(arb::wslay ALIAS wslay)
arb_pkg(nettle nettle)

if(ARB_BUILD_TESTS)
  arb_pkg(cmocka cmocka)
endif()

if(ARB_BUILD_VIEW)
  pkg_check_modules(SDL2 QUIET IMPORTED_TARGET sdl2)
  if(SDL2_FOUND)
    add_library(arb::sdl2 ALIAS PkgConfig::SDL2)
  else()
    message(STATUS "SDL2 not found: arbiter-view will not be built")
  endif()
endif()
