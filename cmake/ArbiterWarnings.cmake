# Warning flags for every target of the project.
function(arb_add_subdirectory_if_present dir)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/CMakeLists.txt)
    add_subdirectory(${dir})
  endif()
endfunction()

add_compile_options(-Wall -Wextra -Wpedantic
                    $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>
                    $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>
                    -Wshadow -Wno-unused-parameter)
if(ARB_WERROR)
  add_compile_options(-Werror)
endif()
