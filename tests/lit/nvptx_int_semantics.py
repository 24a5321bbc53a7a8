# Integer results NVPTX's code generators got wrong on an H200, fixed after the optimizer
# (backend/nvptx.c, finish):
# - ptxas widens neg.s16 (or sub.s16 0, x) by re-using the negated 32-bit register as if it
#   were still sign-extended: -(-32768) widened to +32768. An i16 negation is not + add in
#   inline assembly, which ptxas sign-extends itself.
# - LLVM's instruction selection drops the guard select(y <u 64, x << y, 0), relying on PTX's
#   clamp of shift amounts, after truncating the 64-bit amount to 32 bits: x << (2^32 + 3)
#   was x << 3. A 64-bit amount is clamped to 64 (min.u64) before the truncation.
# RUN: %tilec compile %s -k neg16 -s "*i16, *i64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=NEG
# RUN: %tilec compile %s -k neg16_scalar -s "*i16, *i32" --target nvptx --emit ptx | FileCheck %s --check-prefix=NEGS
# RUN: %tilec compile %s -k shifts -s "*i64, *i64, *i64, *i64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=SHIFT
# RUN: %tilec compile %s -k shifts -s "*u64, *u64, *u64, *u64" --target nvptx --arch sm_90 --emit ptx | FileCheck %s --check-prefix=USHIFT
import triton
import triton.language as tl


@triton.jit
def neg16(x_ptr, o_ptr):
    i = tl.arange(0, 4)
    tl.store(o_ptr + i, (-tl.load(x_ptr + i)).to(tl.int64))


@triton.jit
def neg16_scalar(x_ptr, o_ptr):
    tl.store(o_ptr, (-tl.load(x_ptr)).to(tl.int32))


@triton.jit
def shifts(x_ptr, y_ptr, shl_ptr, shr_ptr):
    i = tl.arange(0, 2)
    x = tl.load(x_ptr + i)
    y = tl.load(y_ptr + i)
    tl.store(shl_ptr + i, x << y)
    tl.store(shr_ptr + i, x >> y)

# NEG-NOT: neg.s16
# NEG-NOT: sub.s16 {{.*}}, 0,
# NEG: { not.b16 %rs[[N:[0-9]+]], %rs{{[0-9]+}}; add.s16 %rs[[N]], %rs[[N]], 1; }
# NEG: cvt.s64.s16 %rd{{[0-9]+}}, %rs{{[0-9]+}};
# NEG-NOT: neg.s16

# NEGS-NOT: neg.s16
# NEGS: { not.b16 %rs[[N:[0-9]+]], %rs{{[0-9]+}}; add.s16 %rs[[N]], %rs[[N]], 1; }
# NEGS: cvt.s32.s16 %r{{[0-9]+}}, %rs[[N]];

# SHIFT: min.u64 %rd[[A:[0-9]+]], %rd{{[0-9]+}}, 64;
# SHIFT-NEXT: cvt.u32.u64 %r[[B:[0-9]+]], %rd[[A]];
# SHIFT: shl.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r[[B]];
# SHIFT: min.u64 %rd[[C:[0-9]+]], %rd{{[0-9]+}}, 63;
# SHIFT-NEXT: cvt.u32.u64 %r[[D:[0-9]+]], %rd[[C]];
# SHIFT: shr.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r[[D]];

# USHIFT: min.u64 %rd[[A:[0-9]+]], %rd{{[0-9]+}}, 64;
# USHIFT-NEXT: cvt.u32.u64 %r[[B:[0-9]+]], %rd[[A]];
# USHIFT: shr.u64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, %r[[B]];
