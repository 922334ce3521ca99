# cmake/aarch64-linux-gnu.cmake - cross-compiles stance for Linux ARM64 with
# Debian's gcc-aarch64-linux-gnu; scripts/cross_test.sh arm64 uses it and
# runs the tests under qemu-aarch64 -L /usr/aarch64-linux-gnu.
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# simd.h takes its NEON form there (ARMv8-A has NEON in every core).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(STANCE_CROSS_PREFIX aarch64-linux-gnu)
find_program(CMAKE_C_COMPILER NAMES ${STANCE_CROSS_PREFIX}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${STANCE_CROSS_PREFIX}-g++)
set(CMAKE_FIND_ROOT_PATH /usr/${STANCE_CROSS_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# no host .pc files: the host's assimp, tinygltf and jansson are x86-64 libraries
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${STANCE_CROSS_PREFIX}/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/${STANCE_CROSS_PREFIX})
