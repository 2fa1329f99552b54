# cmake -DSOURCE=... -DBINARY=... -DDIST=... -DHEADERS=... -DPREFIX=... -DTOOLCHAIN=...
#       -P build-wasm.cmake
# Configures (once) and builds the WebAssembly client in BINARY with emscripten, then
# copies the module to DIST. The compile flags are those of the determinism matrix's
# wasm32 build (-O2; -ffp-contract=off and the rest come from the top CMakeLists.txt), so
# the predicted avatar is the server's, bit for bit.
# Debian's emscripten finds its node modules (acorn, for -O2) there; a nodejs from
# elsewhere does not.
set(ENV{NODE_PATH} "/usr/share/nodejs")
if(NOT EXISTS ${BINARY}/CMakeCache.txt)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BINARY} -G Ninja -DCMAKE_BUILD_TYPE=None
            -DCMAKE_C_FLAGS=-O2 -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN} -DARB_WASM_PREFIX=${PREFIX}
            -DARB_WEB_ONLY=ON -DARB_WERROR=OFF -DARB_MSGPACK_INCLUDE_DIR=${HEADERS}
            -DXXHASH_INCLUDE_DIRS=${HEADERS}
    RESULT_VARIABLE rc)
  if(rc)
    file(REMOVE ${BINARY}/CMakeCache.txt)
    message(FATAL_ERROR "configuring the WebAssembly client failed (${rc})")
  endif()
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BINARY} --parallel 2 --target arbiter_web
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the WebAssembly client failed (${rc})")
endif()
file(MAKE_DIRECTORY ${DIST})
# The glue is a classic script (a CommonJS module to Node) in a "type": "module" package.
file(WRITE ${DIST}/package.json "{ \"type\": \"commonjs\" }\n")
foreach(f arbiter_web.js arbiter_web.wasm)
  file(COPY_FILE ${BINARY}/dist/${f} ${DIST}/${f} ONLY_IF_DIFFERENT)
endforeach()
