# An accumulator tile carried by a loop over a row (the tutorials' `acc += tl.load(...)`):
# each lane evolves on its own, so the loop runs strip by strip with the strip's chunks in
# registers (vector iter_args) instead of loading and storing a stack tile every chunk.
# Iterations whose strip lies inside `cols < N` run unmasked (scf.while), the rest masked
# (scf.for); the strip is written to the tile's buffer once, after the loop.
# RUN: %tilec compile %s -k acc_sum -s "*fp32:16, *fp32:16, i32, 256" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=ONE
# RUN: %tilec compile %s -k acc_sum -s "*fp32:16, *fp32:16, i32, 1024" --target x86-64-v4 --emit vector | FileCheck %s --check-prefix=FOUR
# RUN: %tilec compile %s -k acc_sum -s "*fp32:16, *fp32:16, i32, 256" --target x86-64-v3 --emit vector | FileCheck %s --check-prefix=AVX2
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

# BLOCK 256 on AVX-512: the whole tile is one strip of 16 zmm registers; no strip loop.
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

# BLOCK 1024: four strips of 16 chunks.
# FOUR: scf.for %{{.*}} = %c0 to %c1024 step %c256 {
# FOUR: scf.while

# AVX2 (16 ymm registers): strips of 8 chunks of 8 lanes.
# AVX2: scf.for %{{.*}} = %c0 to %c256 step %c64 {
# AVX2: scf.while ({{.*}}) : (i32, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)

# A loop that reads the whole carried tile (its max) keeps it in a buffer.
# CROSS-NOT: scf.while
# CROSS: scf.for {{.*}} : i32 {
# CROSS: vector.load {{.*}} memref<256xf32>
