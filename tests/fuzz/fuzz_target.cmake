# arb_fuzz_target(): one libFuzzer target and its seed-corpus test, the pattern every
# fragment in this folder shares. With ARB_BUILD_FUZZ it builds fuzz-<name> (libFuzzer +
# ASan/UBSan); in test builds it links the same target function with corpus_main.c into
# test_fuzz_<test>_corpus and runs it over the CORPUS paths under ctest.
#   arb_fuzz_target(<name> SOURCE <file> LIBS <libs...> [CORPUS <paths...>]
#                   [TEST <stem>] [DEFINITIONS <defs...>] [INCLUDES <dirs...>]
#                   [LABELS <labels...>])
# CORPUS defaults to corpus/<name> (where scripts/fuzz.sh seeds fuzz-<name> from); TEST to
# <name>; LABELS to "unit;fuzz".
include_guard(GLOBAL)

function(arb_fuzz_target name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE;TEST" "LIBS;CORPUS;DEFINITIONS;INCLUDES;LABELS")
  if(NOT arg_TEST)
    set(arg_TEST ${name})
  endif()
  if(NOT arg_CORPUS)
    set(arg_CORPUS ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/corpus/${name})
  endif()
  if(NOT arg_LABELS)
    set(arg_LABELS unit fuzz)
  endif()
  if(ARB_BUILD_FUZZ)
    set(target fuzz-${name})
    add_executable(${target} ${arg_SOURCE})
    target_compile_definitions(${target} PRIVATE ARB_FUZZING ${arg_DEFINITIONS})
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer,address,undefined)
  elseif(ARB_BUILD_TESTS)
    set(target test_fuzz_${arg_TEST}_corpus)
    add_executable(${target} ${arg_SOURCE} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/corpus_main.c)
    target_compile_definitions(${target} PRIVATE _POSIX_C_SOURCE=200809L ${arg_DEFINITIONS})
    add_test(NAME ${target} COMMAND ${target} ${arg_CORPUS})
    set_tests_properties(${target} PROPERTIES LABELS "${arg_LABELS}" TIMEOUT 60)
  else()
    return()
  endif()
  if(arg_INCLUDES)
    target_include_directories(${target} PRIVATE ${arg_INCLUDES})
  endif()
  target_link_libraries(${target} PRIVATE ${arg_LIBS})
endfunction()
