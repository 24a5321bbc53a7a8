/* frontend/cg.h — internals of the code generator: compile-time values (Python
 * constants, dtypes, tuples, modules, functions) and runtime tensors (MLIR values with a
 * Triton element type and a shape), plus the generator state shared by its files. */
#ifndef TILEC_FRONTEND_CG_H
#define TILEC_FRONTEND_CG_H

#include "dialects/tile.h"
#include "frontend/arena.h"
#include "frontend/ast.h"
#include "frontend/frontend.h"
#include "frontend/types.h"

#define TC_MAX_RANK 16
#define TC_MAX_NUMEL (1 << 20) /* Triton's TRITON_MAX_TENSOR_NUMEL */

typedef enum tc_val_kind {
  TV_INVALID = 0,
  TV_NONE,
  TV_INT,
  TV_FLOAT,
  TV_BOOL,
  TV_STR,
  TV_DTYPE,          /* ty; rank > 0: Triton's block_type(ty, shape), the .type of a tile;
                        ptr_block: pointer_type(block_type(ty, shape)), a block pointer's .type */
  TV_TUPLE,          /* items */
  TV_TENSOR,         /* runtime scalar (rank 0) or tile: v, ty, rank, shape */
  TV_JITFN,          /* fn */
  TV_MODULE,         /* name: "tl", "tl.math", "libdevice", "triton", ... */
  TV_BUILTIN,        /* name: "tl.load", "py.min", ... */
  TV_METHOD,         /* name bound to *self */
  TV_CONSTEXPR_TYPE, /* the `tl.constexpr` annotation marker */
  TV_SLICE,          /* `:` in a subscript */
  TV_BLOCKPTR,       /* tl.make_block_ptr: items = base, shape[rank], strides[rank], offsets[rank];
                        shape[] = block shape */
  TV_TDESC,          /* tensor descriptor (descriptors.c): items = base, shape[rank],
                        strides[rank], padding; shape[] = block shape */
  TV_CONSTEXPR_OF,   /* tl.constexpr_type(v), the .type of a compile-time value v: *self */
  TV_TUPLE_CLASS     /* a NamedTuple class: name; s, slen: its fields "f0,f1" (a NamedTuple
                        value's s); items[nitems]: each field's default (TV_INVALID: none) */
} tc_val_kind;

typedef struct tc_val tc_val;
struct tc_val {
  tc_val_kind kind;
  int64_t i;
  bool u64;       /* TV_INT: i holds the bits of a value in [2^63, 2^64) */
  bool weak;      /* INT/FLOAT/BOOL bound by a plain assignment (`acc = 0`): Triton makes it a
                rank-0 tensor of the literal's type, so methods and arithmetic treat it as one */
  bool ptr_block; /* TV_DTYPE: see there */
  double f;
  const char *s;
  size_t slen;
  tc_ty ty;
  MlirValue v;
  int rank;
  int64_t shape[TC_MAX_RANK];
  tc_val *items;
  int nitems;
  const tc_func *fn;
  const char *name;
  tc_val *self;
};

typedef struct tc_binding {
  const char *name;
  tc_val val;
} tc_binding;

typedef struct tc_scope {
  tc_binding *vars;
  int nvars, cap;
} tc_scope;

typedef struct tc_frame {
  tc_scope scope;
  const tc_func *fn;
  const tc_module *mod; /* module the function comes from (a source unit or the prelude) */
  int unit;             /* its unit in the module context (module_context.h); -1: the prelude */
  bool returned;
  tc_val ret;
  bool has_ret;
  /* Early returns under runtime conditions (control.c): inside a runtime 'if' a return
   * binds the names "@returned" (i1) and "@retval" instead of ending the function, and
   * the statements after such an 'if' run under `if not @returned`. */
  int rt_if_depth;  /* runtime 'if' branches of this function being generated */
  int loop_depth;   /* runtime loops of this function being generated */
  int unroll_depth; /* tl.static_range / tuple loops of this function being unrolled */
  tc_loc call_loc;  /* where the caller called this function */
  tc_loc ret_loc;   /* the last return under a runtime condition generated (its type may disagree) */
  /* A compile-time Python function (@triton.constexpr_function, @tl.constexpr; tc_func's
   * is_pyfn), run as Python runs it: names hold plain values (no rank-0 tensors), if/for/while
   * are decided and repeated at compile time, break/continue work (loop_ctl: 1 break,
   * 2 continue, pending until the enclosing loop takes it). */
  bool pyfn;
  int loop_ctl;
  int pyfn_loops; /* compile-time loops of this function being run */
} tc_frame;

typedef struct tc_cg {
  MlirContext ctx;
  const tc_module *mod;     /* the kernel file */
  const tc_module *prelude; /* tl.* functions written in the kernel language (frontend/prelude.py) */
  const char *filename;
  tc_builder b;
  tc_arena *arena;
  tilec_status *err;
  tc_frame *frames[64];
  int depth;
  MlirOperation func;
  bool uses_assert;
  tc_kernel_info *info; /* for static_print notes */
  struct tc_mctx *mctx; /* module context: globals, module-level statements, other sources */
  bool in_default;      /* evaluating a parameter default (plain globals are allowed there) */
  int builtin_depth;    /* inside a tl.* function or tensor method: its errors are TILEC_ORIGIN_BUILTIN */
  int ncombines;        /* combine functions emitted so far (builtins_tile.c names them) */
  int loop_stages;      /* tl.range(..., num_stages=N) of the loop cg_runtime_for builds next (0: none) */
  int map_depth;        /* inside tl.map_elementwise's function: an 'if' on the mapped elements (a tile)
                         * runs both branches and selects per element (control.c select_if) */
} tc_cg;

/* --- value constructors ------------------------------------------------------------ */
tc_val tv_none(void);
tc_val tv_int(int64_t i);
tc_val tv_float(double f);
tc_val tv_bool(bool b);
tc_val tv_str(const char *s, size_t n);
tc_val tv_dtype(tc_ty t);
/* Triton's block_type(t, shape) (rank > 0), the type of a tile. */
tc_val tv_block_type(tc_ty t, int rank, const int64_t *shape);
/* Two dtype values the same type (block shapes and pointer-to-block included). */
bool tv_dtype_eq(const tc_val *a, const tc_val *b);
/* A dtype value in Triton's spelling: "fp32", "pointer<fp16>", "<(16, 16), fp32>". */
void tv_dtype_name(const tc_val *d, char *buf, size_t n);
tc_val tv_tensor(MlirValue v, tc_ty ty, int rank, const int64_t *shape);
bool tv_is_constexpr(const tc_val *v); /* NONE INT FLOAT BOOL STR DTYPE */
bool tv_is_number(const tc_val *v);    /* INT FLOAT BOOL */
/* A compile-time value: tv_is_constexpr, or a tuple of such values (nested). */
bool cg_is_compile_time(const tc_val *v);
/* tl.constexpr_type(v), what .type of compile-time value v is in Triton. */
tc_val cg_constexpr_type_of(tc_cg *cg, const tc_val *v);
const char *tv_kind_name(const tc_val *v);
void tv_describe(const tc_val *v, char *buf, size_t n); /* "fp32[1024]", "int constexpr 3" */

/* --- codegen.c --------------------------------------------------------------------- */
/* One trip of a loop in a compile-time Python function (tc_frame's pyfn): false when the loop
 * ends there (break, return, an error). */
bool cg_pyfn_trip(tc_cg *cg, const tc_block *body);
/* Records the first error at loc (later ones are dropped); returns an invalid value. */
tc_val cg_error(tc_cg *cg, tc_loc loc, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A compile-time warning at loc (Triton's UserWarnings: deprecated forms, shifts past the
 * type's width), kept in the kernel info for the tool and the drop-in to show. */
void cg_warn(tc_cg *cg, tc_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cg_set_loc(tc_cg *cg, tc_loc loc);
tc_val cg_expr(tc_cg *cg, const tc_expr *e);
bool cg_truthy_constexpr(tc_cg *cg, const tc_val *v, tc_loc loc, bool *out);
tc_frame *cg_frame(tc_cg *cg);
tc_val *cg_lookup(tc_cg *cg, const char *name);
void cg_bind(tc_cg *cg, const char *name, tc_val v);
void cg_block(tc_cg *cg, const tc_block *blk);
/* One iteration of an unrolled loop body (last: no iteration follows). */
void cg_unrolled_body(tc_cg *cg, const tc_block *body, bool last, tc_loc loc);
void cg_assign_target(tc_cg *cg, const tc_expr *target, tc_val v);
/* Triton's assignment of a Python number: marks number leaves weak (see tc_val.weak). */
tc_val cg_assigned_value(tc_cg *cg, tc_val v);

/* --- fp8.c: fp8 storage types (casts through fp32, arithmetic in fp32); the bool
 * functions return true when an fp8 operand made them handle the operation ---------- */
tc_val cg_fp8_constant(tc_cg *cg, tc_ty ty, double v, int rank, const int64_t *shape);
tc_val cg_fp8_cast(tc_cg *cg, tc_val v, tc_ty to, tc_loc loc);
bool cg_fp8_binary(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc, tc_val *out);
bool cg_fp8_compare(tc_cg *cg, tc_cmpop op, tc_val a, tc_val b, tc_loc loc, tc_val *out);
bool cg_fp8_minmax(tc_cg *cg, bool is_max, tc_val a, tc_val b, bool propagate_nan, tc_loc loc, tc_val *out);
bool cg_fp8_negate(tc_cg *cg, tc_val a, tc_loc loc, tc_val *out);
/* x.to(dtype, fp_downcast_rounding="rtne" | "rtz"): only on narrowing float conversions */
tc_val cg_cast_rounded(tc_cg *cg, tc_val v, tc_ty to, const tc_val *rounding, tc_loc loc);

/* --- tuples.c: compile-time tuples (==, <, +, *, slices); true when handled ------- */
bool cg_tuple_compare(tc_cg *cg, tc_cmpop op, const tc_val *a, const tc_val *b, tc_loc loc, tc_val *out);
bool cg_tuple_binary(tc_cg *cg, tc_binop op, const tc_val *a, const tc_val *b, tc_loc loc, tc_val *out);
tc_val cg_tuple_slice(tc_cg *cg, const tc_val *t, const tc_expr *slice);
void cg_for_tuple(tc_cg *cg, const tc_stmt *s, const tc_val *t); /* `for v in tuple:` unrolled */

/* --- control.c: runtime control flow (scf.if / scf.for / scf.while) ------------- */
void cg_runtime_if(tc_cg *cg, const tc_stmt *s, tc_val cond);
/* Early returns: the value "@returned" had before a statement, and after it whether the
 * statement may have returned at run time (then the rest of the block is wrapped). */
tc_val cg_returned_state(tc_cg *cg);
bool cg_maybe_returned_since(tc_cg *cg, const tc_val *before);
/* Runs blk->stmts[from..] under `if not @returned`. */
void cg_rest_unless_returned(tc_cg *cg, const tc_block *blk, int from);
/* The function's result at its end: "@retval" when a return ran under a runtime condition. */
bool cg_runtime_result(tc_cg *cg, tc_val *out);
void cg_runtime_for(tc_cg *cg, const tc_stmt *s, const tc_val *bounds, int nbounds);
void cg_while(tc_cg *cg, const tc_stmt *s);

/* The module of the function being generated (kernel file or prelude). */
const tc_module *cg_current_module(tc_cg *cg);
tc_val cg_call_jit(tc_cg *cg, const tc_func *fn, const tc_val *args, int nargs, const char *const *kwnames,
                   const tc_val *kwargs, int nkw, tc_loc loc);
void *cg_alloc(tc_cg *cg, size_t n);

/* --- ops.c: tensor semantics ------------------------------------------------------- */
MlirType cg_tensor_type(tc_cg *cg, tc_ty ty, int rank, const int64_t *shape);
/* A Python constant as a scalar tensor of its natural type (int32/int64, fp32, i1). */
tc_val cg_to_tensor(tc_cg *cg, const tc_val *v, tc_loc loc);
tc_val cg_constant(tc_cg *cg, tc_ty ty, double fv, int64_t iv, int rank, const int64_t *shape);
tc_val cg_cast(tc_cg *cg, tc_val v, tc_ty to, bool bitcast, tc_loc loc);
tc_val cg_broadcast_to(tc_cg *cg, tc_val v, int rank, const int64_t *shape, tc_loc loc);
/* base.attr, as the expression `base.attr` evaluates it. */
tc_val cg_value_attr(tc_cg *cg, tc_val base, const char *attr, tc_loc loc);
/* Triton's broadcast_impl_shape rule (store values and masks, atomics' operands): a scalar, or a
 * tile of the same rank whose dimensions are 1 or equal to `shape`'s; else Triton's error. */
bool cg_broadcast_check(tc_cg *cg, const tc_val *v, int rank, const int64_t *shape, tc_loc loc);
bool cg_broadcast_shapes(tc_cg *cg, const tc_val *a, const tc_val *b, int *rank, int64_t *shape, tc_loc loc);
tc_val cg_binary(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc);
tc_val cg_compare(tc_cg *cg, tc_cmpop op, tc_val a, tc_val b, tc_loc loc);
tc_val cg_unary(tc_cg *cg, tc_unop op, tc_val a, tc_loc loc);
tc_val cg_logical(tc_cg *cg, bool is_and, tc_val a, tc_val b, tc_loc loc);
tc_val cg_where(tc_cg *cg, tc_val c, tc_val x, tc_val y, tc_loc loc);
tc_val cg_minmax(tc_cg *cg, bool is_max, tc_val a, tc_val b, bool propagate_nan, tc_loc loc);
tc_val cg_to_bool(tc_cg *cg, tc_val v, tc_loc loc); /* != 0 as i1 */
/* A binary operator between any two values (codegen.c): Python's arithmetic between
 * constexprs, Triton's otherwise (numbers assigned to names count as tensors). */
tc_val cg_binop(tc_cg *cg, tc_binop op, tc_val a, tc_val b, tc_loc loc);
/* Python arithmetic between two constexprs. */
tc_val cg_constexpr_binary(tc_cg *cg, tc_binop op, const tc_val *a, const tc_val *b, tc_loc loc);
tc_val cg_constexpr_compare(tc_cg *cg, tc_cmpop op, const tc_val *a, const tc_val *b, tc_loc loc);
/* A math.<name> op on a float tensor (result of the same type). */
tc_val cg_math_unary(tc_cg *cg, const char *mlir_op, tc_val x, tc_loc loc, const char *user_name);

/* --- builtins.c ------------------------------------------------------------------- */
typedef struct tc_callargs {
  tc_val *args;
  int nargs;
  const char **kwnames;
  tc_val *kwargs;
  int nkw;
} tc_callargs;

/* A builtin's parameter names (NULL-terminated) for argument binding. */
typedef struct cg_sig {
  const char *fn;
  const char *const *params;
} cg_sig;
bool cg_check_args(tc_cg *cg, tc_callargs *a, const cg_sig *s, int min_args, tc_loc loc);
tc_val *cg_arg(tc_callargs *a, const cg_sig *s, const char *name);
bool cg_is_none(const tc_val *v);
bool cg_const_int(tc_cg *cg, const tc_val *v, const char *what, tc_loc loc, int64_t *out);
bool cg_get_dtype(tc_cg *cg, const tc_val *v, const char *what, tc_loc loc, tc_ty *out);
bool cg_get_shape(tc_cg *cg, const tc_val *v, tc_loc loc, int *rank, int64_t *shape);
/* A load/store/atomic mask: a bool (int1) tensor or Python bool; anything else is Triton's
 * "Mask must have boolean scalar type" error. */
tc_val cg_mask(tc_cg *cg, const tc_val *mask, const char *fn, tc_loc loc);
/* Block pointers and tensor descriptors (builtins_block.c); the functions themselves are
 * rows of the builtin registry (frontend/builtins.h). */
tc_val cg_block_load(tc_cg *cg, const tc_val *bp, const tc_val *boundary_check, const tc_val *padding, tc_loc loc);
void cg_block_store(tc_cg *cg, const tc_val *bp, tc_val value, const tc_val *boundary_check, tc_loc loc);
/* Tiles of a block: scalars of a shape/strides/offsets tuple, the pointer tile and mask of
 * a block at offsets (bounds-checked dims in `check`), masked load/store of such a tile. */
bool cg_block_scalars(tc_cg *cg, const tc_val *v, int rank, tc_ty t, tc_val *out, const char *what, tc_loc loc);
bool cg_block_tile(tc_cg *cg, tc_val base, int rank, const int64_t *bshape, const tc_val *shape, const tc_val *strides,
                   const tc_val *offs, unsigned check, tc_val *ptrs, tc_val *mask, tc_loc loc);
tc_val cg_block_load_tile(tc_cg *cg, tc_val ptrs, tc_val mask, tc_val other, tc_loc loc);
void cg_block_store_tile(tc_cg *cg, tc_val ptrs, tc_val mask, tc_val value, tc_loc loc);
/* Tensor descriptors (descriptors.c). */
tc_val cg_tdesc_method(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc);
tc_val cg_tdesc_attr(tc_cg *cg, const tc_val *d, const char *attr, tc_loc loc);
/* A tensordesc<elem[block]> kernel parameter from the pointer to its i64 slots. */
tc_val cg_tdesc_from_arg(tc_cg *cg, tc_val slots, tc_ty elem, int rank, const int64_t *block, tc_loc loc);
/* device_print / device_assert (builtins_debug.c). */
tc_val cg_device_print(tc_cg *cg, const char *prefix, size_t plen, const tc_val *args, int nargs, bool hex, tc_loc loc);
tc_val cg_device_assert(tc_cg *cg, tc_val cond, const char *msg, size_t mlen, const tc_val *mask, tc_loc loc);

/* Module constants and classes of Triton's tl.* surface (builtins_api.c): true when it
 * handled module.attr (the value or an error is in *out); cg_api_is_class: a tl class
 * ("tl.tensor", ...), a name isinstance takes and a call refuses. */
bool cg_api_is_class(const char *full);
bool cg_api_module_attr(tc_cg *cg, const char *module, const char *attr, tc_loc loc, tc_val *out);

/* Resolves module.attr (e.g. tl.load, tl.float32, tl.math); reports unknown names. */
tc_val cg_module_attr(tc_cg *cg, const tc_val *module, const char *attr, tc_loc loc);
/* Resolves a bare name that is not a local: Python builtins, tl/triton modules. */
bool cg_global_name(tc_cg *cg, const char *name, tc_val *out);
tc_val cg_call_builtin(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc);
tc_val cg_tensor_attr(tc_cg *cg, const tc_val *t, const char *attr, tc_loc loc);
/* dtype_attrs.c: dtype attributes (name, primitive_bitwidth, ...) and methods (is_fp16(), ...);
 * Triton's dtype.name of a type ("int32", "fp16", "pointer<int32>"). */
void tc_ty_triton_name(tc_ty t, char *buf, size_t n);
tc_val cg_dtype_attr(tc_cg *cg, const tc_val *d, const char *attr, tc_loc loc);
tc_val cg_dtype_method(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc);

#endif
