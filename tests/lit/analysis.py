# --emit analysis prints the facts the lowering decides from: axis info (contiguity,
# divisibility, constancy per dim) of each integer/pointer value and the bound of each mask.
# RUN: %tilec compile %s -k row_copy -s "*fp32:16, *fp32:16, i32:16, i32, 1024" --emit analysis | FileCheck %s
# RUN: %tilec compile %s -k gather_rows -s "*fp32, *i32, *fp32, 64" --emit analysis | FileCheck %s --check-prefix=GATHER
import triton
import triton.language as tl


@triton.jit
def row_copy(x_ptr, y_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + row * stride + offs, x * 2, mask=offs < n)

# CHECK: // axis info per value
# CHECK: [[OFFS:%[0-9]+]] = tile.range at {{.*}}analysis.py:12:{{[0-9]+}}: contiguity [1024] divisibility [max] constancy [1]
# stride is i32:16, so the row start is a multiple of 16 elements
# CHECK: = tile.addptr at {{.*}}analysis.py:13:{{[0-9]+}}: contiguity [1024] divisibility [16] constancy [1]
# CHECK: [[N:%[0-9]+]] = tile.splat at {{.*}}analysis.py:13:{{[0-9]+}}: contiguity [1] divisibility [1] constancy [1024]
# CHECK: mask {{%[0-9]+}} of tile.load at {{.*}}analysis.py:13:{{[0-9]+}}: bound over 1024 lanes: [[OFFS]] < [[N]]
# CHECK: mask {{%[0-9]+}} of tile.store at {{.*}}analysis.py:14:{{[0-9]+}}: bound over 1024 lanes: [[OFFS]] < {{%[0-9]+}}


@triton.jit
def gather_rows(x_ptr, idx_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = tl.load(idx_ptr + offs)
    v = tl.load(x_ptr + i, mask=i > 0)
    tl.store(y_ptr + offs, v)

# an index loaded from memory is nothing contiguous: a gather, and its mask has no bound
# GATHER: = tile.addptr at {{.*}}analysis.py:29:{{[0-9]+}}: contiguity [1] divisibility [1] constancy [1]
# GATHER: mask {{%[0-9]+}} of tile.load at {{.*}}analysis.py:29:{{[0-9]+}}: bound over 64 lanes: none (masked lane by lane)


# A 2-D mask of a row condition and a column bound, each broadcast from its own axis (the
# rows-and-columns mask of every 2-D tile): a bound per row, so a row's full chunks load
# unmasked (it was masked lane by lane).
# RUN: %tilec compile %s -k rows_cols -s "*fp32:16, *fp32:16, i32:16, i32:16, 16, 256" --emit analysis | FileCheck %s --check-prefix=ROWS
@triton.jit
def rows_cols(x_ptr, y_ptr, n_rows, n_cols, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * n_cols + cols[None, :], x + 1, mask=mask)

# ROWS: mask {{%[0-9]+}} of tile.load at {{.*}}analysis.py:{{[0-9]+}}:{{[0-9]+}}: bound over 256 lanes: min(row ({{%[0-9]+}} is constant along the last dim), broadcast({{%[0-9]+}} < {{%[0-9]+}}))
