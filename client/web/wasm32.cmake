# Toolchain file of the WebAssembly client's build (build-wasm.cmake): Debian's emscripten,
# with libraries (jansson) from ARB_WASM_PREFIX.
include(/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake)
if(NOT ARB_WASM_PREFIX)
  set(ARB_WASM_PREFIX /opt/arbiter/wasm32)
endif()
list(APPEND CMAKE_FIND_ROOT_PATH ${ARB_WASM_PREFIX})
set(ENV{PKG_CONFIG_LIBDIR} "${ARB_WASM_PREFIX}/lib/pkgconfig")
