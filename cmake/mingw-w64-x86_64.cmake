# cmake/mingw-w64-x86_64.cmake - cross-compiles stance for Windows x86-64
# with Debian's mingw-w64 (x86_64-w64-mingw32-gcc, the posix thread model);
# scripts/cross_test.sh windows uses it and runs the tests under wine.
#   cmake -S . -B build-windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# libgcc (and libstdc++ / winpthread if linked) are linked statically, so
# the .exe files run without copies of the toolchain's DLLs.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(STANCE_CROSS_PREFIX x86_64-w64-mingw32)
find_program(CMAKE_C_COMPILER NAMES ${STANCE_CROSS_PREFIX}-gcc-posix ${STANCE_CROSS_PREFIX}-gcc REQUIRED)
find_program(CMAKE_CXX_COMPILER NAMES ${STANCE_CROSS_PREFIX}-g++-posix ${STANCE_CROSS_PREFIX}-g++)
find_program(CMAKE_RC_COMPILER NAMES ${STANCE_CROSS_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${STANCE_CROSS_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# no host .pc files (the host's assimp, tinygltf and jansson are not Windows libraries)
set(ENV{PKG_CONFIG_LIBDIR} /usr/${STANCE_CROSS_PREFIX}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc -static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_CROSSCOMPILING_EMULATOR wine)
