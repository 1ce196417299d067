# Shared build rules: warnings, sanitizers, one library per layer.

set(KSCHED_WARNINGS -Wall -Wextra -Werror -Wno-missing-field-initializers)

if(KSCHED_SANITIZE STREQUAL "thread")
  # Boost.Asio's OpenSSL glue uses std::atomic_thread_fence, which GCC 12 warns TSan cannot see;
  # the warning is about a library header, not our code.
  list(APPEND KSCHED_WARNINGS -Wno-tsan)
  # With -fsanitize=thread GCC 12 loses track of std::optional's engaged flag when a decoded
  # optional member is reset (api/codec_impl.h) and warns of an uninitialized ExtraFields; the
  # release and ASan builds, which see the same code, do not.
  list(APPEND KSCHED_WARNINGS -Wno-maybe-uninitialized)
endif()
if(KSCHED_SANITIZE)
  add_compile_options(-fsanitize=${KSCHED_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${KSCHED_SANITIZE})
endif()

# Link with lld (Debian's lld package) when the compiler takes it: GNU ld spent ~5x the CPU on the
# same test binary (2.1 s against 0.4 s user for test_controllers), and `make test` links about fifty
# large binaries on CI's two cores.
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=lld" KSCHED_HAVE_LLD)
if(KSCHED_HAVE_LLD)
  add_link_options(-fuse-ld=lld)
endif()

# Boost.Asio: no deprecated names; Boost.JSON/URL are linked as compiled libraries.
add_compile_definitions(BOOST_ASIO_NO_DEPRECATED BOOST_BEAST_USE_STD_STRING_VIEW)

# ksched_layer(<name> DIR <dir> DEPS <libs...> [PCH])
# Builds every .cpp under <dir> into the static library ksched_<name>.
function(ksched_layer name)
  cmake_parse_arguments(L "PCH" "DIR" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${L_DIR}/*.cpp)
  set(target ksched_${name})
  if(srcs)
    add_library(${target} STATIC ${srcs})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_compile_options(${target} PRIVATE ${KSCHED_WARNINGS})
    target_link_libraries(${target} PUBLIC ${L_DEPS})
    if(L_PCH AND NOT KSCHED_FUZZ)
      target_precompile_headers(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/util/pch_net.h)
    endif()
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${target} INTERFACE ${L_DEPS})
  endif()
endfunction()

# ksched_test(<layer> DEPS <libs...>): one GoogleTest binary per tests/<layer> folder.
function(ksched_test layer)
  cmake_parse_arguments(T "" "" "DEPS;LABELS" ${ARGN})
  # Called from tests/CMakeLists.txt (sources in tests/<layer>/) or from tests/<layer>/CMakeLists.txt.
  get_filename_component(here ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  if(here STREQUAL layer)
    file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  else()
    file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${layer}/*.cpp)
  endif()
  if(NOT srcs)
    return()
  endif()
  set(target test_${layer})
  add_executable(${target} ${srcs})
  target_compile_options(${target} PRIVATE ${KSCHED_WARNINGS})
  # Test code itself does little work: in the optimized build (what `make test` builds on CI's two
  # cores) it compiles at -O1 without debug info, about a quarter less compile CPU per test file
  # (tests/scheduler/scheduler_test.cpp: 34.7 s user at -O2 -g1, 25.4 s at -O1 -g0). The code under
  # test is the libraries', built with the preset's flags; the debug and sanitizer presets keep theirs.
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
    target_compile_options(${target} PRIVATE -O1 -g0)
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${target} PRIVATE
    KSCHED_SOURCE_DIR="${PROJECT_SOURCE_DIR}" KSCHED_BINARY_DIR="${PROJECT_BINARY_DIR}")
  target_link_libraries(${target} PRIVATE ${T_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${layer};${T_LABELS}" TIMEOUT 300)
endfunction()
