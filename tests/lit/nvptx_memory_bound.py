# Memory-bound kernels on nvptx (backend/nvptx.c): a nest whose threads run at most 16
# chunks each is straight-line code (chunk tid + k * nthreads is the thread's k-th), its
# stores after all its loads; with a bound (`offs < n`) that never splits a chunk, each chunk
# is one predicated access (`@%p ld.global.v4` / `@%p st.global.v4`, as Triton's: no branch,
# so ptxas issues a thread's loads of several tiles together); with another bound a thread
# whose chunks are all inside it runs them unmasked in one branch. A tile several nests read
# at the same positions stays in the registers of the thread that computed it (softmax's
# row: read from global memory once, exp computed once, no shared memory but one value per
# warp for each reduction). Barriers only where they order something: none in vector add,
# one per reduction in softmax. No local memory. A kernel whose tile accesses are all 16-bit
# gets chunks of 8 lanes: 16-byte accesses too.
# RUN: %tilec compile %s -k softmax -s "*fp32:16, *fp32:16, i32:16, i32:16, 8192" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=SOFTMAX --implicit-check-not=ld.global.b32 --implicit-check-not=st.global.b32
# RUN: %tilec compile %s -k softmax -s "*fp32:16, *fp32:16, i32:16, i32, 8192" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=SPLIT
# RUN: %tilec compile %s -k online -s "*fp32:16, *fp32:16, i32:16, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=ONLINE
# RUN: %tilec compile %s -k vadd -s "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=VADD --implicit-check-not=ld.global.b32 --implicit-check-not=st.global.b32
# RUN: %tilec compile %s -k scaled -s "*fp32:16, *fp32:16, i32:16, 4096" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=ROWNORM --implicit-check-not=ld.global.b32 --implicit-check-not=st.global.b32
# RUN: %tilec compile %s -k double16 -s "*bf16:16, *bf16:16, 2048" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=BF16
# RUN: %tilec compile %s -k softmax -s "*fp32:16, *fp32:16, i32:16, 1024, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=FULL
# RUN: %tilec compile %s -k scalar64 -s "*i64:16, *i64:16, i32" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=S64
# A tile a loop carries (layer norm's `acc += x` over column blocks), read after the loop only
# where each thread produced it (a row sum), stays in the threads' registers: no shared
# buffer of BLOCK floats (32 KB here), only the reduction's per-warp slots.
# RUN: %tilec compile %s -k carried -s "*fp32:16, *fp32:16, i32:16, 8192" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=CARRIED
# RMSNorm's backward (bench/kernels/rmsnorm.py, Liger's form): w loaded before the row loop
# and read in its body, the body's xn read by a reduction, by dx and by `dw += dy * xn` (a
# yield into the carried dw): all in the threads' registers, as Triton keeps them; only the
# reduction's per-warp slots in shared memory (w and dw were 24,576 bytes of shared buffers,
# 47 LDS and 20 STS in the SASS). Its bf16 rows, read and written in the loop, are 16-byte
# accesses (8-lane chunks: the loop's accesses choose; dw's fp32 store after the loop is two
# 16-byte stores a chunk): they were 8-byte ones (ld.global.v2.b32) when dw's fp32 chose 4 lanes.
# RUN: %tilec compile %S/../../bench/kernels/rmsnorm.py -k rmsnorm_bwd_kernel -s "*bf16:16, *bf16:16, *bf16:16, *bf16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 4096" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | FileCheck %s --check-prefix=RMSBWD --implicit-check-not=ld.global.v2.b32 --implicit-check-not=st.global.v2.b32 --implicit-check-not=ld.global.v4.b16
# In the row loop a thread's four 16-byte loads (two chunks of x and of dy) and rstd's are
# straight-line code before the reduction: issued together, one DRAM latency a trip (with a
# branch around each nest's accesses ptxas issued them in three batches). The memory ops in
# order, on one line (P: a predicated one):
# RUN: %tilec compile %S/../../bench/kernels/rmsnorm.py -k rmsnorm_bwd_kernel -s "*bf16:16, *bf16:16, *bf16:16, *bf16:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 4096" --target nvptx --arch sm_90 --num-warps 8 --emit ptx | grep -oE "@%%p[0-9]+ ld.global.v4.b32|ld.global.b32|ld.global.v4.b32|bra|shfl.sync.down.b32|st.global.v4.b32|bar.sync" | sed 's/^@%%p[0-9]* /P:/' | tr '\n' ' ' | FileCheck %s --check-prefix=RMSLOOP
# RMSLOOP: P:ld.global.v4.b32 P:ld.global.v4.b32 P:ld.global.v4.b32 P:ld.global.v4.b32 ld.global.b32 shfl.sync.down.b32
# Several rows a program, reduced along the last axis (bench/kernels/softmax.py's
# softmax_rows_kernel): each thread folds the chunks the nests deal it, so the 16x256 tile
# stays in its registers (it was 16,464 bytes of shared memory) and, the mask being a row
# condition & a column bound, a thread's rows load as 16-byte vectors (they were masked
# lane by lane: ld.global.b32). 4x1024 at 4 warps: 4 rows spanning the CTA.
# RUN: %tilec compile %S/../../bench/kernels/softmax.py -k softmax_rows_kernel -s "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 16, 256" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=ROWS --implicit-check-not=ld.global.b32
# RUN: %tilec compile %S/../../bench/kernels/softmax.py -k softmax_rows_kernel -s "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 4, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=ROWS --implicit-check-not=ld.global.b32
# A tile reduced along its rows (axis 0: column sums, layer norm backward's dw) and along its
# columns is folded by each thread over the chunks the nests gave it: with rows of more chunks
# than threads, a thread's column sums are the result's chunks it would store, so neither the
# 8x1024 tile nor the column sums go through shared memory (36,896 bytes before; 192 now: the
# row sums' per-warp slots and buffer).
# RUN: %tilec compile %s -k col_sums -s "*fp32:16, *fp32:16, *fp32:16, i32:16, 8, 1024" --target nvptx --arch sm_90 --num-warps 4 --emit ptx | FileCheck %s --check-prefix=COLS --implicit-check-not=ld.global.b32
import triton
import triton.language as tl


@triton.jit
def softmax(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(in_ptr + row * stride + cols, mask=valid, other=-float('inf'))
    num = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=valid)


@triton.jit
def vadd(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def double16(out_ptr, in_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, (tl.load(in_ptr + offs).to(tl.float32) * 2.0).to(tl.bfloat16))


@triton.jit
def scaled(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * BLOCK + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row * BLOCK + cols, x * tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + 1e-6), mask=cols < n_cols)

# 8192 fp32 over 256 threads: 8 chunks of 4 per thread, loaded once (the threads at the
# bound: a predicated v4 per chunk, the 8th known outside; the all-inside branch: 8 v4), two
# reductions of one barrier each, no shared row.
# SOFTMAX: .visible .entry softmax(
# SOFTMAX-NOT: .local
# SOFTMAX-COUNT-7: ld.global.v4.b32
# SOFTMAX-NOT: bar.sync
# SOFTMAX-COUNT-8: ld.global.v4.b32
# SOFTMAX-NOT: ld.global.v4
# SOFTMAX: shfl.sync.down.b32
# SOFTMAX: st.shared.b32
# SOFTMAX-NOT: st.shared
# SOFTMAX: bar.sync 0
# SOFTMAX-NOT: ld.global
# SOFTMAX: shfl.sync.down.b32
# SOFTMAX: st.shared.b32
# SOFTMAX-NOT: st.shared
# SOFTMAX: bar.sync 0
# SOFTMAX-NOT: bar.sync
# SOFTMAX-COUNT-7: st.global.v4.b32
# SOFTMAX-COUNT-8: st.global.v4.b32
# SOFTMAX-NOT: st.global.v4
# SOFTMAX-NOT: bar.sync
# SOFTMAX-NOT: st.shared
# SOFTMAX: ret;

# n_cols with no known divisor: the bound may split a chunk, so the threads at it read lane by
# lane (4 scalar loads per chunk); the others all 8 chunks as v4.
# SPLIT: .visible .entry softmax(
# SPLIT-COUNT-4: ld.global.b32
# SPLIT: ld.global.v4.b32

# 1024 fp32 over 128 threads: 2 chunks per thread; at the bound only the first chunk can be
# inside (predicated v4s); else all four loads before the first store.
# VADD: .visible .entry vadd(
# VADD-NOT: bar.sync
# VADD-NOT: .local
# VADD-COUNT-2: ld.global.v4.b32
# VADD-NOT: ld.global
# VADD: st.global.v4.b32
# VADD-NOT: st.global
# VADD: ld.global.v4.b32
# VADD-NOT: st.global
# VADD: ld.global.v4.b32
# VADD-NOT: st.global
# VADD: ld.global.v4.b32
# VADD-NOT: st.global
# VADD: ld.global.v4.b32
# VADD-NOT: ld.global.v4
# VADD: st.global.v4.b32
# VADD-NOT: ld.global.v4
# VADD: st.global.v4.b32
# VADD-NOT: ld.global.v4
# VADD-NOT: st.global.v4
# VADD-NOT: bar.sync

# The row stays in registers between the sum of squares and the scaled store.
# ROWNORM: .visible .entry scaled(
# ROWNORM-NOT: .local
# ROWNORM-COUNT-3: ld.global.v4.b32
# ROWNORM-COUNT-4: ld.global.v4.b32
# ROWNORM-NOT: ld.global.v4
# ROWNORM: bar.sync 0
# ROWNORM-NOT: bar.sync
# ROWNORM-COUNT-3: st.global.v4.b32
# ROWNORM-COUNT-4: st.global.v4.b32
# ROWNORM-NOT: ld.global.v4
# ROWNORM-NOT: st.global.v4

# 2048 bf16 over 128 threads: 2 chunks of 8 lanes per thread, 16 bytes each.
# BF16: .visible .entry double16(
# BF16-NOT: ld.global.b16
# BF16-COUNT-2: ld.global.v4.b32
# BF16-NOT: ld.global
# BF16-COUNT-2: st.global.v4.b32
# BF16-NOT: st.global


@triton.jit
def online(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = float('-inf')
    d = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=float('-inf'))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    tl.store(out_ptr + row, m + tl.log(d))

# An online softmax's sweep (as cross entropy's): the loop body keeps one barrier per
# reduction, after its per-warp slot stores; none at the top of the body (the previous trip's
# slot reads and this trip's loads and slot stores touch different memory) nor at its end.
# ONLINE: .visible .entry online(
# ONLINE-NOT: .local
# ONLINE-COUNT-2: bar.sync 0
# ONLINE-NOT: bar.sync
# ONLINE: ret;

# n_cols a constant equal to BLOCK: every thread's chunks are inside the bound, which LLVM
# only sees with %tid.x's range [0, threads) (the body is a function of its own, the entry's
# .maxntid does not reach it): one straight-line copy, no bounds branch around the loads.
# FULL: .visible .entry softmax(
# FULL-NOT: bra
# FULL: mov.u32 {{.*}}%tid.x;
# FULL-NOT: bra
# FULL-COUNT-2: ld.global.v4.b32
# FULL-NOT: ld.global
# FULL: bar.sync 0
# FULL: bar.sync 0
# FULL-NOT: bar.sync
# FULL-NOT: ld.global
# FULL-COUNT-2: st.global.v4.b32
# FULL-NOT: st.global
# FULL: ret;


@triton.jit
def scalar64(out_ptr, in_ptr, i):
    tl.store(out_ptr + i, tl.load(in_ptr + i) * 3)

# A scalar access is aligned to its size (memory.c natural_alignment): an i64 is one 64-bit
# load and store, not two 32-bit halves (LLVM's default data layout aligns i64 to 4).
# S64: .visible .entry scalar64(
# S64-NOT: ld.global.b32
# S64: ld.global.b64
# S64-NOT: st.global.b32
# S64: st.global.b64
# S64: ret;


@triton.jit
def carried(out_ptr, in_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(in_ptr + row * n + cols, mask=cols < n, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))

# CARRIED: .visible .global .align 8 .u64 __tilec_shared_bytes_carried = {{[0-9]?[0-9]?[0-9]}};
# CARRIED-NOT: .local

# RMSBWD: .visible .global .align 8 .u64 __tilec_shared_bytes_rmsnorm_bwd_kernel = {{[0-9]?[0-9]?[0-9]}};
# RMSBWD-NOT: .local
# RMSBWD: st.global.v4.b32

# ROWS: .visible .global .align 8 .u64 __tilec_shared_bytes_softmax_rows_kernel = {{[0-9]?[0-9]?[0-9]}};
# ROWS: .visible .entry softmax_rows_kernel(
# ROWS-NOT: .local
# ROWS: ld.global.v4.b32
# ROWS-NOT: .local
# ROWS: st.global.v4.b32
# ROWS: ret;


@triton.jit
def col_sums(out_ptr, rows_ptr, in_ptr, n_rows, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    x = tl.load(in_ptr + rows[:, None] * BN + cols[None, :], mask=rows[:, None] < n_rows, other=0.0)
    x2 = x * x
    tl.store(out_ptr + cols, tl.sum(x2, axis=0))
    tl.store(rows_ptr + tl.program_id(0) * BM + rows, tl.sum(x2, axis=1))

# COLS: .visible .global .align 8 .u64 __tilec_shared_bytes_col_sums = {{[0-9]?[0-9]?[0-9]}};
# COLS: .visible .entry col_sums(
# COLS-NOT: .local
# COLS: ld.global.v4.b32
# COLS-NOT: .local
# COLS: st.global.v4.b32
# COLS: ret;
