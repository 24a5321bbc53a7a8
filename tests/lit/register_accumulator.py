# An accumulator tile carried by a loop over a row (the tutorials' `acc += tl.load(...)`):
# each lane evolves on its own, so a tile that fits in half the vector registers is
# carried as vector iter_args instead of being loaded and stored in a stack tile every
# chunk. Iterations whose tile lies inside `cols < N` run unmasked (scf.while), the rest
# masked (scf.for); the tile is written to its buffer once, after the loop. Larger tiles
# keep the buffer.
# RUN: %tilec compile %s -k acc_sum -s "*fp32:16, *fp32:16, i32, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=ONE
# RUN: %tilec compile %s -k acc_sum -s "*fp32:16, *fp32:16, i32, 1024" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=BIG
# RUN: %tilec compile %s -k acc_sum -s "*fp32:16, *fp32:16, i32, 64" --target x86-64-v3 --emit vector | FileCheck %s --check-prefix=AVX2
# RUN: %tilec compile %s -k not_lanewise -s "*fp32:16, *fp32:16, i32, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=CROSS
import triton
import triton.language as tl


@triton.jit
def acc_sum(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def not_lanewise(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc = acc + tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.) - tl.max(acc, axis=0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))

# BLOCK 256 on AVX-512: the tile is 16 zmm registers.
# ONE: memref.alloca() {{.*}} : memref<256xf32>
# ONE-NOT: scf.for %{{.*}} = %c0 to %c256
# ONE: scf.while ({{.*}}) : (i32, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
# ONE: arith.cmpi
# ONE: scf.condition
# ONE-NOT: vector.maskedload
# ONE-NOT: memref<256xf32>
# ONE: scf.yield
# ONE: scf.for {{.*}} iter_args
# ONE: vector.maskedload
# ONE: scf.yield
# ONE-COUNT-16: vector.store {{.*}} memref<256xf32>
# ONE-NOT: vector.store {{.*}} memref<256xf32>

# BLOCK 1024 (64 chunks) keeps the stack tile.
# BIG-NOT: scf.while
# BIG: scf.for {{.*}} : i32 {
# BIG: vector.load {{.*}} memref<1024xf32>

# AVX2 (16 ymm registers): BLOCK 64 is 8 chunks of 8 lanes.
# AVX2: scf.while ({{.*}}) : (i32, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)

# A loop that reads the whole carried tile (its max) keeps it in a buffer.
# CROSS-NOT: scf.while
# CROSS: scf.for {{.*}} : i32 {
# CROSS: vector.load {{.*}} memref<256xf32>
