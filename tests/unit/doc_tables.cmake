# The code's tables (messages.def, shapes.def, sv_metrics.def) against PROTOCOL.md and
# docs/SERVER.md: fails when one is changed without the other.
if(NOT ARB_BUILD_TESTS)
  return()
endif()
arb_add_test(test_doc_tables SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_doc_tables.c
             LIBS arbiter_protocol LABELS unit
             INCLUDES ${CMAKE_CURRENT_LIST_DIR}/../../server/src)
target_compile_definitions(test_doc_tables PRIVATE
  ARB_PROTOCOL_MD="${PROJECT_SOURCE_DIR}/protocol/PROTOCOL.md" ARB_SERVER_MD="${PROJECT_SOURCE_DIR}/docs/SERVER.md")
# Every file path and C name the reference documents give in backticks exists
# (tests/docs/check_names.sh): a rename or a move fails here until the document follows.
add_test(NAME test_doc_names
         COMMAND ${PROJECT_SOURCE_DIR}/tests/docs/check_names.sh ${PROJECT_SOURCE_DIR}
                 docs/ARCHITECTURE.md docs/DETERMINISM.md docs/SCENES.md docs/CLIENT.md
                 docs/SERVER.md docs/SECURITY.md docs/SCALING.md README.md protocol/PROTOCOL.md)
set_tests_properties(test_doc_names PROPERTIES LABELS unit TIMEOUT 120)
