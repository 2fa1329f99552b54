# Every public header must compile on its own, in C and in C++ (catches missing includes
# and C-only constructs). One translation unit per header and language, all in one program.
file(GLOB ARB_PUBLIC_HEADERS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/shared/include/arbiter/*.h
     ${PROJECT_SOURCE_DIR}/game/include/arbiter/*.h
     ${PROJECT_SOURCE_DIR}/protocol/include/arbiter/*.h
     ${PROJECT_SOURCE_DIR}/client/include/arbiter/*.h)
set(header_tus "")
foreach(h ${ARB_PUBLIC_HEADERS})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${h})
  string(MAKE_C_IDENTIFIER ${rel} id)
  get_filename_component(hname ${h} NAME)
  foreach(ext c cc)
    set(tu ${CMAKE_CURRENT_BINARY_DIR}/headers/${id}.${ext})
    file(CONFIGURE OUTPUT ${tu} CONTENT
         "#include <arbiter/${hname}>\n#include <arbiter/${hname}> /* include guard */\nint ${id}_${ext}(void);\nint ${id}_${ext}(void) { return 0; }\n")
    list(APPEND header_tus ${tu})
  endforeach()
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/headers/main.c CONTENT
     "int main(void) { return 0; }\n")
add_executable(test_headers ${CMAKE_CURRENT_BINARY_DIR}/headers/main.c ${header_tus})
foreach(dir shared/include game/include protocol/include client/include)
  target_include_directories(test_headers PRIVATE ${PROJECT_SOURCE_DIR}/${dir})
endforeach()
target_include_directories(test_headers PRIVATE ${ENET_INCLUDE_DIRS} ${UV_INCLUDE_DIRS})
add_test(NAME test_headers COMMAND test_headers)
set_tests_properties(test_headers PROPERTIES LABELS unit)

add_test(NAME check_determinism COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-determinism.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(check_determinism PROPERTIES LABELS unit)
