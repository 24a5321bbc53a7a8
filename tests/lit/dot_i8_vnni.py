# tl.dot of int8 tiles into int32 on a CPU with AVX-512 VNNI: B is packed as pairs of rows
# (sign-extended to i16, interleaved) and every step of the microkernel is one VPDPWSSD
# covering two values of K for 16 columns; no 32-bit multiplies remain. (Results:
# tests/lang, the dot_i8 cases.)
# REQUIRES: avx512vnni
# RUN: %tilec compile %s -k dot_i8 -s "*i8, *i8, *i32, 64, 64, 32" --emit vector | FileCheck %s --check-prefix=VEC
# RUN: %tilec compile %s -k dot_i8 -s "*i8, *i8, *i32, 32, 64, 64" --emit asm | FileCheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def dot_i8(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))

# VEC: vector.interleave {{.*}} : vector<16xi16> -> vector<32xi16>
# VEC: vector.bitcast {{.*}} : vector<32xi16> to vector<16xi32>
# VEC: scf.for {{.*}} iter_args
# VEC: llvm.call_intrinsic "llvm.x86.avx512.vpdpwssd.512"
# VEC-NOT: arith.muli {{.*}} : vector<16xi32>
# ASM: vpdpwssd {{.*}}zmm
# ASM-NOT: vpmulld
