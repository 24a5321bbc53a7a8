# tl.dot's input_precision as Triton's core.dot decides it on NVIDIA, carried on tile.dot:
# the argument (any case), else TRITON_F32_DEFAULT (even over allow_tf32=False, as Triton),
# else "tf32" unless allow_tf32=False ("ieee"); a bad TRITON_F32_DEFAULT is Triton's error.
# RUN: %tilec compile %s -k mm -s "*fp32, *fp32, 'default'" --emit tile | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k mm -s "*fp32, *fp32, 'allow_tf32=True'" --emit tile | FileCheck %s --check-prefix=TF32
# RUN: %tilec compile %s -k mm -s "*fp32, *fp32, 'TF32x3'" --emit tile | FileCheck %s --check-prefix=X3
# RUN: %tilec compile %s -k mm -s "*fp32, *fp32, 'allow_tf32=False'" --emit tile | FileCheck %s --check-prefix=IEEE
# RUN: env TRITON_F32_DEFAULT=ieee %tilec compile %s -k mm -s "*fp32, *fp32, 'default'" --emit tile | FileCheck %s --check-prefix=IEEE
# RUN: env TRITON_F32_DEFAULT=tf32x3 %tilec compile %s -k mm -s "*fp32, *fp32, 'allow_tf32=False'" --emit tile | FileCheck %s --check-prefix=X3
# RUN: env TRITON_F32_DEFAULT=ieee %tilec compile %s -k mm -s "*fp32, *fp32, 'BF16x6'" --emit tile | FileCheck %s --check-prefix=BF6
# RUN: env TRITON_F32_DEFAULT=fp64 not %tilec compile %s -k mm -s "*fp32, *fp32, 'default'" --emit tile 2>&1 | FileCheck %s --check-prefix=BAD
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, c_ptr, P: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    if P == "default":
        c = tl.dot(a, a)
    elif P == "allow_tf32=True":
        c = tl.dot(a, a, allow_tf32=True)
    elif P == "allow_tf32=False":
        c = tl.dot(a, a, allow_tf32=False)
    else:
        c = tl.dot(a, a, input_precision=P)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)

# TF32: "tile.dot"({{.*}}) {input_precision = "tf32"}
# X3: "tile.dot"({{.*}}) {input_precision = "tf32x3"}
# IEEE: "tile.dot"({{.*}}) {input_precision = "ieee"}
# BF6: "tile.dot"({{.*}}) {input_precision = "bf16x6"}
# BAD: error: input_precision must be one of ('tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6'). Got fp64 (from TRITON_F32_DEFAULT)
