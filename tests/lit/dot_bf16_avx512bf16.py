# tl.dot of bf16 tiles into fp32 on a CPU with AVX512-BF16: B is packed as pairs of rows
# (bf16 bits interleaved) straight from its loads (no 32x128 bf16 buffer; 32 columns per
# 64-byte load), an A pair is one 32-bit load broadcast, and every step of the microkernel
# is one VDPBF16PS covering two values of K for 16 columns; nothing is widened to fp32 in
# the K loop. An odd K pads the last pair with zeros (K = 1: the A pair is the element
# alone). The named x86-64-v4 level has no AVX512-BF16: there the tiles widen to fp32 and
# FMAs remain. Columns taken `% N` (the tutorial's wrap-around) are contiguous in runs of
# 16 only when N is a multiple of 16: B is packed 16 columns per load there, not gathered.
# (Results: tests/lang, the dot_bf16 cases.)
# REQUIRES: avx512bf16
# RUN: %tilec compile %s -k dot_bf16 -s "*bf16, *bf16, *fp32, 64, 128, 32" --emit vector | FileCheck %s --check-prefix=VEC
# RUN: %tilec compile %s -k dot_bf16 -s "*bf16, *bf16, *fp32, 16, 64, 16" --emit asm | FileCheck %s --check-prefix=ASM
# RUN: %tilec compile %s -k dot_bf16 -s "*bf16, *bf16, *fp32, 16, 16, 1" --emit vector | FileCheck %s --check-prefix=ODD
# RUN: %tilec compile %s -k dot_bf16 -s "*bf16, *bf16, *fp32, 16, 64, 16" --target x86-64-v4 --emit asm | FileCheck %s --check-prefix=V4
# RUN: %tilec compile %s -k dot_bf16_wrap -s "*bf16, *bf16, *fp32, i32:16, 16, 64, 32" --emit vector | FileCheck %s --check-prefix=WRAP
import triton
import triton.language as tl


@triton.jit
def dot_bf16(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


@triton.jit
def dot_bf16_wrap(a_ptr, b_ptr, c_ptr, n, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N) % n
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * n + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))

# VEC-NOT: memref<4096xbf16>
# VEC: vector.load {{.*}} : memref<?xbf16>, vector<32xbf16>
# VEC: vector.interleave {{.*}} : vector<32xi16> -> vector<64xi16>
# VEC: vector.bitcast {{.*}} : vector<64xi16> to vector<32xi32>
# VEC: scf.for {{.*}} iter_args
# VEC: vector.load {{.*}} : memref<{{.*}}xbf16>, vector<2xbf16>
# VEC: vector.bitcast {{.*}} : vector<2xbf16> to vector<1xi32>
# VEC: vector.broadcast {{.*}} : vector<1xi32> to vector<16xi32>
# VEC: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
# VEC-NOT: arith.extf
# VEC-NOT: math.fma
# ASM: vdpbf16ps {{.*}}zmm
# ASM-NOT: vfmadd
# ASM-NOT: vpmovzxwd
# ODD: %[[Z:.*]] = arith.constant dense<0> : vector<16xi16>
# ODD: vector.interleave %{{.*}}, %[[Z]] : vector<16xi16> -> vector<32xi16>
# ODD: memref.load {{.*}} : memref<16xbf16>
# ODD-NEXT: arith.bitcast {{.*}} : bf16 to i16
# ODD-NEXT: arith.extui {{.*}} : i16 to i32
# ODD-NEXT: vector.broadcast {{.*}} : i32 to vector<16xi32>
# ODD: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
# V4-NOT: vdpbf16ps
# V4: vfmadd231ps {{.*}}zmm
# V4-NOT: vdpbf16ps
# WRAP-NOT: vector.gather
# WRAP: vector.interleave {{.*}} : vector<16xi16> -> vector<32xi16>
# WRAP-NOT: vector.gather
# WRAP: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
