"""Cases of the lang family 'diagnostics': bad kernels that must fail with a located error (diag
cases), and a chained comparison (its kernels are in diagnostics/kernels.py)."""
import numpy as np

from harness import add, diag, line_of


def cases():
    F = "diagnostics"
    K = "diagnostics/kernels.py"
    diag(F, "diag_broadcast_shape_mismatch", K, "shape_mismatch_kernel", "*i32", expect=("16", "32"),
         line="tl.store(x_ptr")
    diag(F, "diag_store_rank_mismatch", K, "store_rank_mismatch_kernel", "*fp32, *fp32",
         expect=("Cannot broadcast, rank mismatch: [1, 32], [4, 4, 32]",),
         line="x[None, :])")
    diag(F, "diag_store_wider_value", K, "store_wider_value_kernel", "*i32",
         expect=("expanded size of the tensor (1) must match the existing size (16) at non-singleton dimension 1",),
         line="tl.store(z_ptr + r[:, None], r[:, None] + r[None, :])")
    diag(F, "diag_store_block_to_scalar_pointer", K, "store_block_to_scalar_kernel", "*i32",
         expect=("Value argument cannot be block type if pointer argument is not a block",),
         line="tl.store(z_ptr, tl.arange(0, 16))")
    diag(F, "diag_atomic_rank_mismatch", K, "atomic_rank_mismatch_kernel", "*i32",
         expect=("Cannot broadcast, rank mismatch: [16], [1, 16]",), line="tl.atomic_add(z_ptr + r[None, :], r)")
    diag(F, "diag_reduce_scalar_runtime_axis", K, "reduce_scalar_runtime_axis_kernel", "*fp32, *fp32, 16",
         expect=("axis must be a constexpr",), line="tl.store(y_ptr, tl.max(m, blk))")
    diag(F, "diag_reduce_scalar_axis", K, "reduce_scalar_axis_kernel", "*fp32",
         expect=("invalid axis 0. Expected 0 <= axis < 0",), line="tl.store(y_ptr, tl.sum(m, 0))")
    diag(F, "diag_const_pointer_store", K, "const_store_kernel", "*fp32, *fp32, 16",
         expect=("Cannot store to a constant pointer",), line="tl.store(p, tl.load(src + offs))")
    diag(F, "diag_const_pointer_atomic", K, "const_atomic_kernel", "*fp32",
         expect=("Cannot store to a constant pointer",), line="tl.atomic_add(dst, 1.0)")
    diag(F, "diag_const_pointer_runtime_choice", K, "const_runtime_choice_kernel", "*fp32, *fp32, i32",
         expect=("inconsistent types", "*const fp32", "*fp32"), line="p = b if pick > 0 else a")
    diag(F, "diag_const_pointer_helper_return", K, "const_helper_return_kernel", "*fp32, *fp32, i32",
         expect=("Inconsistent return types", "*const fp32", "*fp32"))
    diag(F, "diag_load_scalar_pointer_block_mask", K, "load_scalar_block_mask_kernel", "*i32",
         expect=("Mask argument cannot be block type if pointer argument is not a block",),
         line="v = tl.load(z_ptr, mask=r < 4, other=0)")
    diag(F, "diag_broadcast_shape_mismatch_2d", K, "shape_mismatch_2d_kernel", "*i32", expect=("16", "8"),
         line="tl.store(x_ptr + a, tl.sum")
    diag(F, "diag_dot_dtype_mismatch", K, "dot_dtype_kernel", "*fp32, *fp16, *fp32", expect=("fp32", "fp16"),
         line="tl.store(c_ptr")
    # tl.dot's input_precision: Triton's names (any case), checked for every dtype; not
    # together with allow_tf32
    for (name, sig) in (("fp32", "*fp32, *fp32, 'fp16', False"), ("fp16_dot", "*fp16, *fp32, 'tf16', False"),
                        ("empty", "*fp32, *fp32, '', False")):
        diag(F, "diag_dot_input_precision_" + name, K, "dot_precision_kernel", sig,
             expect=("input_precision must be one of ('tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6'). Got",),
             line="c = tl.dot(a, a, input_precision=P)\n")
    diag(F, "diag_dot_input_precision_not_str", K, "dot_precision_kernel", "*fp32, *fp32, 3, False",
         expect=("input_precision must be a constexpr string",), line="c = tl.dot(a, a, input_precision=P)\n")
    diag(F, "diag_dot_input_precision_and_allow_tf32", K, "dot_precision_kernel", "*fp32, *fp32, 'tf32', True",
         expect=("Only one of input_precision and allow_tf32 can be specified",),
         line="c = tl.dot(a, a, input_precision=P, allow_tf32=True)")
    diag(F, "diag_dot_shape_mismatch", K, "dot_shape_kernel", "*fp32, *fp32",
         line="tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, a))")
    diag(F, "diag_unknown_tl_function", K, "unknown_fn_kernel", "*i32", expect=("frobulate",),
         line="tl.store(x_ptr + r")
    # Triton: "Loop-carried variable acc has initial type int32 but is re-assigned to fp32"
    diag(F, "diag_loop_carried_scalar_type_change", K, "loop_type_change_kernel", "*fp32, i32", expect=("acc",))
    diag(F, "diag_loop_carried_tile_dtype_change", K, "loop_tile_dtype_change_kernel", "*fp32, i32", expect=("acc",))
    diag(F, "diag_loop_carried_shape_change", K, "loop_shape_change_kernel", "*fp32, i32", expect=("acc",))
    diag(F, "diag_helper_call_chain", K, "helper_chain_kernel", "*i32",
         expect=("arange's range must be a power of 2 (in chain_inner(), called at kernels.py:%d, in chain_outer(), "
                 "called at kernels.py:%d)" % (line_of(K, "return chain_inner(W) + 1"),
                                               line_of(K, "chain_outer(6))")),),
         line="return tl.arange(0, W)")
    diag(F, "diag_arange_not_pow2", K, "arange_not_pow2_kernel", "*i32", expect=("arange's range must be a power of 2",), line="r = tl.arange(0, 12)")
    diag(F, "diag_undefined_name", K, "undefined_name_kernel", "*i32", expect=("not_defined_anywhere",),
         line="tl.store(x_ptr + r, r +")
    diag(F, "diag_tensor_index", K, "tensor_index_kernel", "*i32", expect=("index",), line="tl.store(x_ptr, r[3])")
    diag(F, "diag_big_int_compile_time_arith", K, "big_int_fold_kernel", "*i64", expect=("2**63",),
         line="K: tl.constexpr =")
    diag(F, "diag_if_branch_shape_mismatch", K, "if_type_mismatch_kernel", "*fp32, i32",
         expect=("Mismatched type for v between then block",))
    diag(F, "diag_static_assert", K, "static_assert_kernel", "*i32, 8", expect=("multiple of 16",),
         line="tl.static_assert")
    diag(F, "diag_reshape_numel", K, "reshape_numel_kernel", "*i32", expect=("reshape",),
         line="tl.store(x_ptr + tl.arange(0, 8)")
    diag(F, "diag_missing_argument", K, "wrong_arg_count_kernel", "*i32", expect=("'b'",),
         line="tl.store(x_ptr + r, _two_args")
    # Triton 3.9 evaluates a chained comparison as Python does: (0 < r) and (r < n)
    add(F, "chained_comparison", K, "chained_compare_kernel", (1,), dict(x_ptr=np.full(16, -1, np.int32), n=9),
        ["x_ptr"], lambda a: {"x_ptr": np.where((np.arange(16) > 0) & (np.arange(16) < 9), np.arange(16), -1)})
    diag(F, "diag_nested_def", K, "nested_def_kernel", "*i32", expect=("nested",), line="def inner(v):")
