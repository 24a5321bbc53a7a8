#!/usr/bin/env bash
# tests/install_test.sh BUILD_DIR SOURCE_DIR LIBDIR — installs the build into a temporary
# prefix, then builds and runs the vector_add JIT example with only `pkg-config --cflags
# --libs tilec`, and again from a CMake project with find_package(tilec), and checks that
# libraries and kernel libraries resolve inside the prefix.
set -euo pipefail

BUILD=$1 SRC=$2 LIBDIR=$3
PREFIX=$(mktemp -d "${TMPDIR:-/tmp}/tilec-install-XXXXXX")
trap 'rm -rf "$PREFIX"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
for f in include/tilec/tilec.h include/tilec/runtime.h include/tilec/abi.h include/tilec/status.h include/tilec/export.h \
         "$LIBDIR/libtilec.so" "$LIBDIR/libtilec-runtime.so" bin/tilec "$LIBDIR/pkgconfig/tilec.pc"; do
  [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done

export PKG_CONFIG_PATH="$PREFIX/$LIBDIR/pkgconfig"
FLAGS=$(pkg-config --cflags --libs tilec)
case "$FLAGS" in *"$PREFIX"*) ;; *) fail "pkg-config flags do not point into the prefix: $FLAGS" ;; esac
# The JIT example, copied out of the source tree with the one header it shares.
mkdir -p "$PREFIX/work/vector_add"
cp "$SRC/examples/vector_add/jit.c" "$SRC/examples/vector_add/add.py" "$PREFIX/work/vector_add/"
cp "$SRC/examples/jit_common.h" "$PREFIX/work/"
# shellcheck disable=SC2086  # FLAGS is a list of words
${CC:-cc} -std=c17 -Wall -Wextra -Werror "$PREFIX/work/vector_add/jit.c" $FLAGS -o "$PREFIX/work/jit"

# Nothing may come from the build tree. (Output captured first: grep -q closing the pipe
# early would fail the pipeline under pipefail.)
DEPS=$(ldd "$PREFIX/work/jit")
TOOL_DEPS=$(ldd "$PREFIX/bin/tilec")
case "$DEPS" in *"$BUILD/"*) fail "example resolves libraries in the build tree: $DEPS" ;; esac
case "$DEPS" in *"=> $PREFIX/$LIBDIR/libtilec-runtime.so"*) ;; *) fail "runtime not from the prefix: $DEPS" ;; esac
case "$TOOL_DEPS" in *"libtilec.so.0 => $PREFIX/"*) ;; *) fail "tilec tool: $TOOL_DEPS" ;; esac

export TILEC_CACHE_DIR="$PREFIX/cache"
OUT=$("$PREFIX/work/jit" "$PREFIX/work/vector_add/add.py")
echo "$OUT"
case "$OUT" in "vector_add (jit): N=98432 max_abs_err=0 OK [compiled in"*) ;; *) fail "unexpected output" ;; esac
OUT=$("$PREFIX/work/jit" "$PREFIX/work/vector_add/add.py")
echo "$OUT"
case "$OUT" in *"[loaded from the disk cache in"*) ;; *) fail "second run did not use the cache" ;; esac

# Kernel libraries built by the installed compiler link against the installed runtime.
KLIB=$(ls "$TILEC_CACHE_DIR"/*.so)
KDYN=$(readelf -d "$KLIB")
case "$KDYN" in *"path: [$PREFIX/$LIBDIR]"*) ;; *) fail "JIT kernel library rpath: $KDYN" ;; esac
"$PREFIX/bin/tilec" compile "$PREFIX/work/vector_add/add.py" -k add_kernel -s "*fp32, *fp32, *fp32, i32, 256" \
  -o "$PREFIX/work/add.so"
KDEPS=$(ldd "$PREFIX/work/add.so")
case "$KDEPS" in *"libtilec-runtime.so.0 => $PREFIX/$LIBDIR/"*) ;; *) fail "AOT kernel library: $KDEPS" ;; esac

# The same example from a CMake project: find_package(tilec) and the imported target.
[ -e "$PREFIX/$LIBDIR/cmake/tilec/tilecConfig.cmake" ] || fail "not installed: $LIBDIR/cmake/tilec/tilecConfig.cmake"
mkdir -p "$PREFIX/work/cmake_user"
cat > "$PREFIX/work/cmake_user/CMakeLists.txt" <<'CML'
cmake_minimum_required(VERSION 3.20)
project(uses_tilec C)
find_package(tilec 0.1 REQUIRED)
add_executable(jit ../vector_add/jit.c)
target_include_directories(jit PRIVATE ${CMAKE_SOURCE_DIR}/..)
target_link_libraries(jit PRIVATE tilec::tilec)
CML
cmake -S "$PREFIX/work/cmake_user" -B "$PREFIX/work/cmake_user/b" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null ||
  fail "find_package(tilec) failed"
cmake --build "$PREFIX/work/cmake_user/b" >/dev/null || fail "building against tilec::tilec failed"
CDEPS=$(ldd "$PREFIX/work/cmake_user/b/jit")
case "$CDEPS" in *"libtilec.so.0 => $PREFIX/$LIBDIR/"*) ;; *) fail "find_package example: $CDEPS" ;; esac
OUT=$("$PREFIX/work/cmake_user/b/jit" "$PREFIX/work/vector_add/add.py")
echo "$OUT (find_package)"
case "$OUT" in "vector_add (jit): N=98432 max_abs_err=0 OK"*) ;; *) fail "find_package example output" ;; esac
echo "install: OK"
