# bench/gpu/configs.py — the GPU bench's configurations, shared by pack.py (here: builds each
# one's tilec GPU library) and run.py (on the GPU machine: times tilec, Triton and torch).
# In: nothing. Out: CONFIGS, one dict per row of the report:
#   name       the row's key (--only NAME, the library's file name)
#   file       bench/kernels/FILE (the same source for tilec and Triton), kernel the @triton.jit
#   signature  tilec's --signature: one entry per kernel parameter, in order, Triton's AOT format;
#              the specialization Triton itself picks for these arguments (pointers 16-byte
#              aligned, integers divisible by 16 ":16", integers equal to 1 ":1", constexprs as
#              values); run.py --dry-run checks every argument it passes against it
#   warps      num_warps for both compilers (8 where BLOCK >= 4096, else 4)
#   stages     num_stages for both compilers (stages(c): DEFAULT_STAGES = 3, Triton's default on
#              sm_80+, where a row does not say); tilec reads it as the depth of a K loop's
#              tl.dot operand pipeline, so the rows with a tl.dot say it; the others take the
#              default in both compilers
#   dims, dtype  what run.py allocates (its setup functions read them)
#   what       the config in words (the report's "config" column)
# Standard library only: pack.py runs with no torch or triton.

CONFIGS = [
    dict(name="vector_add", file="vector_add.py", kernel="vadd_kernel", warps=4, dims=(1 << 26,), dtype="fp32",
         signature="*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", what="2^26 fp32, BLOCK 1024, 4 warps"),
    dict(name="softmax_8192", file="softmax.py", kernel="softmax_kernel", warps=8, dims=(4096, 8192), dtype="fp32",
         signature="*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 8192",
         what="4096x8192 fp32, BLOCK 8192, 8 warps"),
    dict(name="softmax_1024", file="softmax.py", kernel="softmax_kernel", warps=4, dims=(4096, 1024), dtype="fp32",
         signature="*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 1024",
         what="4096x1024 fp32, BLOCK 1024, 4 warps"),
    dict(name="softmax_rows", file="softmax.py", kernel="softmax_rows_kernel", warps=4, dims=(32768, 256),
         dtype="fp32", signature="*fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, 16, 256",
         what="32768x256 fp32, 16 rows a program, BLOCK 256, 4 warps"),
    dict(name="layernorm", file="layernorm.py", kernel="layernorm_fwd_kernel", warps=8, dims=(4096, 8192),
         dtype="fp32", signature="*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192",
         what="fwd 4096x8192 fp32, BLOCK 8192, 8 warps"),
    dict(name="rmsnorm_fwd", file="rmsnorm.py", kernel="rmsnorm_fwd_kernel", warps=8, dims=(4096, 4096),
         dtype="bf16", signature="*bf16:16, *bf16:16, *bf16:16, *fp32:16, i32:16, i32:16, fp32, 4096",
         what="4096x4096 bf16, BLOCK 4096, 8 warps"),
    dict(name="swiglu_fwd", file="swiglu.py", kernel="swiglu_fwd_kernel", warps=8, dims=(4096, 8192), dtype="bf16",
         signature="*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, 8192",
         what="4096x8192 bf16, BLOCK 8192, 8 warps"),
    dict(name="rmsnorm_bwd", file="rmsnorm.py", kernel="rmsnorm_bwd_kernel", warps=8, dims=(4096, 4096),
         dtype="bf16", signature="*bf16:16, *bf16:16, *bf16:16, *bf16:16, *fp32:16, *fp32:16, i32:16, i32:16, "
                                 "i32:16, i32:16, 4096",
         what="4096x4096 bf16 (dx, dw partials), 32 rows a program, BLOCK 4096, 8 warps"),
    dict(name="swiglu_bwd", file="swiglu.py", kernel="swiglu_bwd_kernel", warps=8, dims=(4096, 8192), dtype="bf16",
         signature="*bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, 8192",
         what="4096x8192 bf16 (da, db), BLOCK 8192, 8 warps"),
    dict(name="cross_entropy", file="cross_entropy.py", kernel="cross_entropy_kernel", warps=8, dims=(4096, 32000),
         dtype="bf16", signature="*bf16:16, *bf16:16, *i64:16, *fp32:16, i32:16, i32:16, i32, i32, 4096",
         what="4096x32000 bf16 (loss + in-place dlogits), BLOCK 4096, 8 warps"),
    dict(name="matmul_fp16", file="matmul.py", kernel="matmul_kernel", warps=4, stages=3, dims=(4096, 4096, 4096),
         dtype="fp16", signature="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, "
                                 "i32:16, i32:1, 128, 128, 32, 8",
         what="4096^3 fp16 in, fp32 acc, fp16 out, 128x128x32, group 8, 4 warps, 3 stages"),
    dict(name="matmul_fp32", file="matmul.py", kernel="matmul_kernel", warps=4, stages=3, dims=(4096, 4096, 4096),
         dtype="fp32", signature="*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, "
                                 "i32:16, i32:1, 128, 128, 32, 8",
         what="4096^3 fp32, 128x128x32, group 8, 4 warps, 3 stages (tf32: tilec, Triton, torch)"),
    dict(name="matmul_i8", file="matmul_i8.py", kernel="mm8", warps=4, stages=3, dims=(4096, 4096, 4096),
         dtype="i8", signature="*i8:16, *i8:16, *i32:16, i32:16, i32:16, i32:16, 128, 128, 64",
         what="4096^3 int8 -> int32, 128x128x64, 4 warps, 3 stages"),
    dict(name="attention", file="attention.py", kernel="attn_fwd_kernel", warps=4, stages=3, dims=(1, 32, 4096, 64),
         dtype="fp16", signature="*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, fp32, i32:16, i32:16, i32:16, "
                                 "i32:16, i32:16, 64, 128, 64, False",
         what="fwd 1x32x4096x64 fp16, non-causal, BLOCK_M 128, BLOCK_N 64, 4 warps, 3 stages"),
]

BY_NAME = {c["name"]: c for c in CONFIGS}

DEFAULT_STAGES = 3


def stages(c):
    """The row's num_stages for both compilers."""
    return c.get("stages", DEFAULT_STAGES)


def uses_dot(c):
    """The rows whose kernel is a tl.dot K loop (they name their num_stages): run.py times
    Triton's mma.sync code for them too."""
    return "stages" in c
