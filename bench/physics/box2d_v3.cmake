# Box2D v3 as the reference engine of bench-physics, built from a source tree the user
# gives (Box2D v3 is not packaged by Debian and is never vendored here):
#   cmake --preset release -DBOX2D_V3_SRC=/path/to/box2d     (or BOX2D_V3_SRC in the environment)
# It is built by its own CMake project (ExternalProject: its flags, Release, SSE2 (AVX2 with
# -DBOX2D_V3_AVX2=ON), its
# library and its benchmark scene code in shared/), outside the product build, and only
# when the path is given. Without it bench-physics prints "not built" in its column.
set(BOX2D_V3_SRC "$ENV{BOX2D_V3_SRC}" CACHE PATH "Box2D v3 source tree for bench-physics (empty: not built)")
# Its own AVX2 option (8-wide solver), to compare with arbiter's 8-lane path; default SSE2.
option(BOX2D_V3_AVX2 "Build the Box2D v3 reference with its BOX2D_AVX2 option" OFF)

if(NOT BOX2D_V3_SRC)
  message(STATUS "bench-physics: BOX2D_V3_SRC not given, Box2D v3 not built")
  return()
endif()
if(NOT EXISTS "${BOX2D_V3_SRC}/include/box2d/box2d.h" OR NOT EXISTS "${BOX2D_V3_SRC}/shared/benchmarks.c")
  message(FATAL_ERROR "BOX2D_V3_SRC=${BOX2D_V3_SRC}: not a Box2D v3 source tree "
                      "(no include/box2d/box2d.h or shared/benchmarks.c)")
endif()

include(ExternalProject)
set(_b3_bin "${CMAKE_CURRENT_BINARY_DIR}/box2d_v3")
ExternalProject_Add(box2d_v3_build
  SOURCE_DIR "${BOX2D_V3_SRC}"
  BINARY_DIR "${_b3_bin}"
  CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release -DBOX2D_SAMPLES=OFF -DBOX2D_UNIT_TESTS=OFF
             -DBOX2D_BENCHMARKS=ON -DBOX2D_VALIDATE=OFF -DBOX2D_PROFILE=OFF
             -DBOX2D_AVX2=${BOX2D_V3_AVX2}
             -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER}
  BUILD_COMMAND ${CMAKE_COMMAND} --build "${_b3_bin}" --target box2d shared benchmark
  INSTALL_COMMAND ""
  BUILD_BYPRODUCTS "${_b3_bin}/src/libbox2d.a" "${_b3_bin}/shared/libshared.a"
  EXCLUDE_FROM_ALL TRUE)

find_package(Threads REQUIRED)
# Its own headers stay private to this one file, so nothing else sees Box2D v3's
# box2d/box2d.h (Box2D 2.4's header has the same name).
add_library(bench_box2d_v3 STATIC engine_box2d_v3.c scene_arena_box2d_v3.c
                                  scene_bouncy_box2d_v3.c)
add_dependencies(bench_box2d_v3 box2d_v3_build)
target_include_directories(bench_box2d_v3 PRIVATE "${BOX2D_V3_SRC}/include" "${BOX2D_V3_SRC}/shared")
target_compile_options(bench_box2d_v3 PRIVATE -O2 -Wno-pedantic)
target_link_libraries(bench_box2d_v3 PUBLIC "${_b3_bin}/shared/libshared.a" "${_b3_bin}/src/libbox2d.a"
                                            Threads::Threads m)
target_link_libraries(bench-physics PRIVATE bench_box2d_v3)
target_compile_definitions(bench-physics PRIVATE BENCH_HAVE_BOX2D_V3)
if(BOX2D_V3_AVX2)
  target_compile_definitions(bench_box2d_v3 PRIVATE BENCH_BOX2D_V3_AVX2)
endif()
