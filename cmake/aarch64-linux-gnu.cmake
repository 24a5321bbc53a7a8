# Toolchain for cross-compiling tilec's runtime (-DTILEC_RUNTIME_ONLY=ON) and host programs
# for AArch64 Linux from an x86-64 Debian machine: clang with lld, against the arm64
# multiarch libraries (dpkg --add-architecture arm64; libc6-dev:arm64, libgcc-12-dev:arm64).
# scripts/setup.sh installs them; tests/cross/aarch64_test.sh uses this file.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER clang-22)
endif()
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_EXE_LINKER_FLAGS_INIT -fuse-ld=lld)
set(CMAKE_SHARED_LINKER_FLAGS_INIT -fuse-ld=lld)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Libraries come from the target's multiarch directories (and /usr/local's, where setup.sh
# puts the arm64 OpenMP runtime), never from the host's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_LIBRARY_PATH /usr/local/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
