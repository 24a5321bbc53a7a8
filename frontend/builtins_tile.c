/* frontend/builtins_tile.c — builtins that change shapes or combine elements: reshape,
 * expand_dims, broadcast_to, trans/permute, join/split/cat, reductions (sum, max, min,
 * argmax, argmin, xor_sum, reduce with a @triton.jit combine function) and dot.
 * In: evaluated call arguments. Out: tile ops; reductions get a private combine func. */
#include "frontend/builtins.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tc_val tensor_arg(tc_cg *cg, const tc_val *v, const char *fn, tc_loc loc) {
  if (v && v->kind == TV_TENSOR) return *v;
  if (v && tv_is_number(v)) return cg_to_tensor(cg, v, loc);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects a tensor, got %s", fn, v ? tv_kind_name(v) : "nothing");
}

/* The input tile(s) and combine_fn of tl.reduce / tl.associative_scan: fills xs (up to 8
 * tiles) and returns their count, or 0 after an error. */
static int combine_inputs(tc_cg *cg, const tc_val *in, const tc_val *cf, const char *what, tc_val xs[8], const char *fn,
                          tc_loc loc) {
  if (!cf || cf->kind != TV_JITFN) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.%s's combine_fn must be a @triton.jit function", what);
    return 0;
  }
  int n = 1;
  if (in->kind == TV_TUPLE) {
    if (in->nitems < 1 || in->nitems > 8) {
      cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "tl.%s over %d tiles", what, in->nitems);
      return 0;
    }
    n = in->nitems;
    for (int i = 0; i < n; i++) xs[i] = tensor_arg(cg, &in->items[i], fn, loc);
  } else {
    xs[0] = tensor_arg(cg, in, fn, loc);
  }
  return cg->err ? 0 : n;
}

static int norm_axis(tc_cg *cg, int64_t axis, int rank, const char *fn, tc_loc loc) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s: invalid axis %lld. Expected %d <= axis < %d (a tile of rank %d)", fn,
             (long long)axis, -rank, rank, rank);
    return -1;
  }
  return (int)a;
}

static tc_val reshape(tc_cg *cg, tc_val x, int rank, const int64_t *shape, tc_loc loc) {
  if (x.rank == rank) {
    bool same = true;
    for (int i = 0; i < rank; i++) same &= x.shape[i] == shape[i];
    if (same) return x;
  }
  int64_t n = 1, m = 1;
  for (int i = 0; i < rank; i++) n *= shape[i];
  for (int i = 0; i < x.rank; i++) m *= x.shape[i];
  if (n != m)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot reshape %lld elements into %lld", (long long)m,
                    (long long)n);
  MlirType t = cg_tensor_type(cg, x.ty, rank, shape);
  if (x.rank == 0) return tv_tensor(tile_build_splat(&cg->b, x.v, t), x.ty, rank, shape);
  if (rank == 0) return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "reshaping a tile into a scalar is not supported");
  return tv_tensor(tile_build_reshape(&cg->b, x.v, t), x.ty, rank, shape);
}

static tc_val expand(tc_cg *cg, tc_val x, int axis, tc_loc loc) {
  if (x.rank >= TC_MAX_RANK)
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "tiles of rank > %d are not supported", TC_MAX_RANK);
  int64_t s[TC_MAX_RANK];
  int k = 0;
  for (int i = 0; i <= x.rank; i++) s[i] = i == axis ? 1 : x.shape[k++];
  if (x.rank == 0) return reshape(cg, x, 1, s, loc);
  MlirType t = cg_tensor_type(cg, x.ty, x.rank + 1, s);
  return tv_tensor(tile_build_expand_dims(&cg->b, x.v, axis, t), x.ty, x.rank + 1, s);
}

/* shape from a tuple argument or from the remaining positional arguments */
static bool shape_args(tc_cg *cg, tc_callargs *a, int first, const char *kw, tc_loc loc, int *rank, int64_t *shape) {
  const tc_val *v = NULL;
  for (int k = 0; k < a->nkw; k++)
    if (!strcmp(a->kwnames[k], kw)) v = &a->kwargs[k];
  if (!v && a->nargs == first + 1) v = &a->args[first];
  if (v) return cg_get_shape(cg, v, loc, rank, shape);
  tc_val t = {.kind = TV_TUPLE, .items = a->args + first, .nitems = a->nargs - first};
  return cg_get_shape(cg, &t, loc, rank, shape);
}

static tc_val trans(tc_cg *cg, tc_val x, const int *order, tc_loc loc) {
  if (x.rank < 2) return x;
  int64_t s[TC_MAX_RANK];
  bool identity = true;
  bool seen[TC_MAX_RANK] = {false};
  for (int i = 0; i < x.rank; i++) {
    if (order[i] < 0 || order[i] >= x.rank || seen[order[i]])
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "permutation is not a permutation of 0..%d", x.rank - 1);
    seen[order[i]] = true;
    s[i] = x.shape[order[i]];
    identity &= order[i] == i;
  }
  if (identity) return x;
  int32_t o[TC_MAX_RANK];
  for (int i = 0; i < x.rank; i++) o[i] = order[i];
  MlirValue r = tile_build_trans(&cg->b, x.v, o, x.rank, cg_tensor_type(cg, x.ty, x.rank, s));
  return tv_tensor(r, x.ty, x.rank, s);
}

/* iota along `axis`, broadcast to shape (int32) */
static tc_val axis_iota(tc_cg *cg, int rank, const int64_t *shape, int axis, tc_loc loc) {
  MlirValue r = tile_build_range(&cg->b, 0, (int32_t)shape[axis]);
  int64_t n = shape[axis];
  tc_val v = tv_tensor(r, tc_ty_make(TILEC_DTYPE_I32), 1, &n);
  int64_t s[TC_MAX_RANK];
  for (int i = 0; i < rank; i++) s[i] = i == axis ? shape[axis] : 1;
  v = reshape(cg, v, rank, s, loc);
  return cg_broadcast_to(cg, v, rank, shape, loc);
}

/* out[..i..] = src[..index[..i..]..] along axis (lowered by reading the materialized src) */
static tc_val gather_op(tc_cg *cg, tc_val src, tc_val idx, int axis, tc_loc loc) {
  if (tc_ty_bits(idx.ty) != 32) idx = cg_cast(cg, idx, tc_ty_make(TILEC_DTYPE_I32), false, loc);
  cg_set_loc(cg, loc);
  MlirValue r = tile_build_gather(&cg->b, src.v, idx.v, axis, cg_tensor_type(cg, src.ty, idx.rank, idx.shape));
  return tv_tensor(r, src.ty, idx.rank, idx.shape);
}

/* ---- reductions ------------------------------------------------------------------ */

typedef enum combine_kind {
  C_SUM,
  C_PROD,
  C_MAX,
  C_MIN,
  C_XOR,
  C_OR,
  C_ARGMAX,
  C_ARGMIN,
  C_FIRST,
  C_LAST,
  C_JIT
} combine_kind;

/* Emits func.func private @__tilec_combine_N(a..., b...) -> (...) before the kernel. */
static MlirAttribute make_combine(tc_cg *cg, combine_kind kind, bool tie_left, const tc_func *fn, int n,
                                  const tc_ty *tys, tc_loc loc) {
  char name[64]; /* unique in this module: numbered per compile, not per process */
  snprintf(name, sizeof name, "__tilec_combine_%d", cg->ncombines++);
  MlirType types[16];
  MlirLocation locs[16];
  for (int i = 0; i < 2 * n; i++) {
    types[i] = tc_ty_mlir(cg->ctx, tys[i % n]);
    locs[i] = cg->b.loc;
  }
  MlirBlock body = mlirBlockCreate(2 * n, types, locs);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirType ftype = mlirFunctionTypeGet(cg->ctx, 2 * n, types, n, types);
  MlirNamedAttribute attrs[3] = {
      tcb_named(cg->ctx, "sym_name", mlirStringAttrGet(cg->ctx, mlirStringRefCreateFromCString(name))),
      tcb_named(cg->ctx, "function_type", mlirTypeAttrGet(ftype)),
      tcb_named(cg->ctx, "sym_visibility", mlirStringAttrGet(cg->ctx, mlirStringRefCreateFromCString("private")))};
  tc_builder saved = cg->b;
  tc_builder fb = cg->b;
  tcb_set_before(&fb, cg->func);
  tcb_op_regions(&fb, "func.func", 0, NULL, 0, NULL, 3, attrs, 1, &region);
  tcb_set_end(&cg->b, body);
  tc_val a[8], b[8], r[8];
  for (int i = 0; i < n; i++) {
    a[i] = tv_tensor(mlirBlockGetArgument(body, i), tys[i], 0, NULL);
    b[i] = tv_tensor(mlirBlockGetArgument(body, n + i), tys[i], 0, NULL);
  }
  switch (kind) {
    case C_SUM: r[0] = cg_binary(cg, TC_OP_ADD, a[0], b[0], loc); break;
    case C_PROD: r[0] = cg_binary(cg, TC_OP_MUL, a[0], b[0], loc); break;
    case C_XOR: r[0] = cg_binary(cg, TC_OP_BITXOR, a[0], b[0], loc); break;
    case C_OR: r[0] = cg_binary(cg, TC_OP_BITOR, a[0], b[0], loc); break;
    case C_MAX: r[0] = cg_minmax(cg, true, a[0], b[0], false, loc); break;
    case C_MIN: r[0] = cg_minmax(cg, false, a[0], b[0], false, loc); break;
    case C_FIRST: r[0] = a[0]; break;
    case C_LAST: r[0] = b[0]; break;
    case C_ARGMAX:
    case C_ARGMIN: {
      tc_val better = cg_compare(cg, kind == C_ARGMAX ? TC_CMP_GT : TC_CMP_LT, a[0], b[0], loc);
      if (tie_left) {
        tc_val eq = cg_compare(cg, TC_CMP_EQ, a[0], b[0], loc);
        tc_val lt = cg_compare(cg, TC_CMP_LT, a[1], b[1], loc);
        better = cg_logical(cg, false, better, cg_logical(cg, true, eq, lt, loc), loc);
      }
      r[0] = cg_where(cg, better, a[0], b[0], loc);
      r[1] = cg_where(cg, better, a[1], b[1], loc);
      break;
    }
    case C_JIT: {
      tc_val args[16];
      for (int i = 0; i < n; i++) {
        args[i] = a[i];
        args[n + i] = b[i];
      }
      tc_val res = cg_call_jit(cg, fn, args, 2 * n, NULL, NULL, 0, loc);
      if (cg->err) break;
      if (n == 1 && res.kind != TV_TUPLE) r[0] = res;
      else if (res.kind == TV_TUPLE && res.nitems == n)
        for (int i = 0; i < n; i++) r[i] = res.items[i];
      else
        cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "the combine function '%s' must return %d value%s", fn->name, n,
                 n > 1 ? "s" : "");
      break;
    }
  }
  MlirValue rv[8];
  for (int i = 0; i < n && !cg->err; i++) {
    tc_val x = cg_cast(cg, r[i], tys[i], false, loc);
    if (!cg->err && x.rank != 0) cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a combine function must return scalars");
    rv[i] = x.v;
  }
  if (!cg->err) tcb_op(&cg->b, "func.return", 0, NULL, n, rv, 0, NULL);
  cg->b = saved;
  return mlirFlatSymbolRefAttrGet(cg->ctx, mlirStringRefCreateFromCString(name));
}

/* Reduces the n tiles (same shape) along axis (or all dims when axis is None). */
static tc_val reduce(tc_cg *cg, tc_val *xs, int n, const tc_val *axis_v, bool keep_dims, combine_kind kind,
                     bool tie_left, const tc_func *fn, const char *what, tc_loc loc) {
  int rank0 = xs[0].rank;
  int64_t shape0[TC_MAX_RANK];
  memcpy(shape0, xs[0].shape, sizeof shape0);
  for (int i = 1; i < n; i++)
    if (xs[i].rank != rank0 || memcmp(xs[i].shape, shape0, sizeof(int64_t) * (size_t)rank0))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s: all tiles must have the same shape", what);
  if (rank0 == 0) {
    /* Triton reduces a 0-d tensor as a 1-element one when axis is None; any axis is out of
     * range (an axis that is not a constexpr, e.g. tl.max(m, other_scalar) meant as
     * tl.maximum, is an error too, not a no-op). */
    int64_t a;
    if (!cg_is_none(axis_v) && (!cg_const_int(cg, axis_v, "axis", loc, &a) || norm_axis(cg, a, 0, what, loc) < 0))
      return (tc_val){0};
    return n == 1 ? xs[0] : (tc_val){.kind = TV_TUPLE, .items = xs, .nitems = n};
  }
  int axis;
  if (cg_is_none(axis_v)) {
    int64_t numel = 1;
    for (int i = 0; i < rank0; i++) numel *= shape0[i];
    for (int i = 0; i < n; i++) xs[i] = reshape(cg, xs[i], 1, &numel, loc);
    axis = 0;
  } else {
    int64_t a;
    if (!cg_const_int(cg, axis_v, "axis", loc, &a)) return (tc_val){0};
    axis = norm_axis(cg, a, rank0, what, loc);
    if (axis < 0) return (tc_val){0};
  }
  if (cg->err) return (tc_val){0};
  tc_ty tys[8];
  for (int i = 0; i < n; i++) tys[i] = xs[i].ty;
  MlirAttribute combine = make_combine(cg, kind, tie_left, fn, n, tys, loc);
  if (cg->err) return (tc_val){0};
  int rank = xs[0].rank;
  int64_t rs[TC_MAX_RANK];
  int rr = 0;
  for (int d = 0; d < rank; d++)
    if (d != axis) rs[rr++] = xs[0].shape[d];
  MlirType rtypes[8];
  MlirValue ops[8];
  for (int i = 0; i < n; i++) {
    rtypes[i] = cg_tensor_type(cg, tys[i], rr, rs);
    ops[i] = xs[i].v;
  }
  cg_set_loc(cg, loc);
  MlirOperation op = tile_build_reduce(&cg->b, n, ops, rtypes, axis, combine);
  tc_val out[8];
  for (int i = 0; i < n; i++) {
    out[i] = tv_tensor(mlirOperationGetResult(op, i), tys[i], rr, rs);
    if (keep_dims) {
      if (cg_is_none(axis_v)) {
        int64_t ones[TC_MAX_RANK];
        for (int d = 0; d < rank0; d++) ones[d] = 1;
        out[i] = reshape(cg, out[i], rank0, ones, loc);
      } else {
        out[i] = expand(cg, out[i], axis, loc);
      }
    }
  }
  if (n == 1) return out[0];
  tc_val t = {.kind = TV_TUPLE, .nitems = n};
  t.items = cg_alloc(cg, sizeof(tc_val) * (size_t)n);
  memcpy(t.items, out, sizeof(tc_val) * (size_t)n);
  return t;
}

static bool flag(const tc_val *v) { return v && (v->kind == TV_BOOL || v->kind == TV_INT) && v->i; }

/* Inclusive scans along axis with a combine function; results keep the input shape. */
static tc_val scan(tc_cg *cg, tc_val *xs, int n, const tc_val *axis_v, bool reverse, combine_kind kind,
                   const tc_func *fn, const char *what, tc_loc loc) {
  for (int i = 1; i < n; i++)
    if (xs[i].rank != xs[0].rank || memcmp(xs[i].shape, xs[0].shape, sizeof(int64_t) * (size_t)xs[0].rank))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s: all tiles must have the same shape", what);
  if (xs[0].rank == 0) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s needs a tile, got a scalar", what);
  int64_t a = 0;
  if (!cg_is_none(axis_v) && !cg_const_int(cg, axis_v, "axis", loc, &a)) return (tc_val){0};
  int axis = norm_axis(cg, a, xs[0].rank, what, loc);
  if (axis < 0) return (tc_val){0};
  tc_ty tys[8];
  MlirType rtypes[8];
  MlirValue ops[8];
  for (int i = 0; i < n; i++) {
    tys[i] = xs[i].ty;
    rtypes[i] = cg_tensor_type(cg, xs[i].ty, xs[i].rank, xs[i].shape);
    ops[i] = xs[i].v;
  }
  MlirAttribute combine = make_combine(cg, kind, false, fn, n, tys, loc);
  if (cg->err) return (tc_val){0};
  cg_set_loc(cg, loc);
  MlirOperation op = tile_build_scan(&cg->b, n, ops, rtypes, axis, combine, reverse);
  if (n == 1) return tv_tensor(mlirOperationGetResult(op, 0), tys[0], xs[0].rank, xs[0].shape);
  tc_val t = {.kind = TV_TUPLE, .nitems = n};
  t.items = cg_alloc(cg, sizeof(tc_val) * (size_t)n);
  for (int i = 0; i < n; i++) t.items[i] = tv_tensor(mlirOperationGetResult(op, i), tys[i], xs[i].rank, xs[i].shape);
  return t;
}

/* ---- dot ----------------------------------------------------------------------------- */

/* tl.dot's input_precision as Triton's core.dot decides it for NVIDIA: the argument; else
 * TRITON_F32_DEFAULT where set (even over allow_tf32=False, as Triton); else "tf32" unless
 * allow_tf32 (deprecated) is false, then "ieee". Giving both is an error; names are checked
 * for every dtype (only fp32 dots use them) and case-insensitively. CPU targets compute
 * every precision exactly (conversion/dot.c); nvptx runs all but ieee on tensor cores
 * (backend/nvptx_dot.c). */
static bool dot_precision(tc_cg *cg, const cg_sig *s, tc_callargs *args, tc_loc loc, tile_dot_precision *out) {
  tc_val *ip = cg_arg(args, s, "input_precision"), *at = cg_arg(args, s, "allow_tf32");
  if (!cg_is_none(ip) && !cg_is_none(at)) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Only one of input_precision and allow_tf32 can be specified");
    return false;
  }
  const char *name;
  size_t len;
  const char *env = getenv("TRITON_F32_DEFAULT");
  if (!cg_is_none(ip)) {
    if (ip->kind != TV_STR) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dot input_precision must be a constexpr string, one of %s",
               TILE_DOT_PRECISIONS);
      return false;
    }
    name = ip->s, len = ip->slen;
  } else if (env && *env) {
    name = env, len = strlen(env);
  } else {
    bool allow = true;
    if (!cg_is_none(at) && !cg_truthy_constexpr(cg, at, loc, &allow)) {
      if (!cg->err) cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dot allow_tf32 must be a constexpr bool");
      return false;
    }
    *out = allow ? TILE_DOT_TF32 : TILE_DOT_IEEE;
    return true;
  }
  if (!tile_dot_precision_parse(name, len, out)) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "input_precision must be one of %s. Got %.*s%s", TILE_DOT_PRECISIONS,
             (int)(len > 64 ? 64 : len), name, cg_is_none(ip) ? " (from TRITON_F32_DEFAULT)" : "");
    return false;
  }
  return true;
}

static tc_val dot(tc_cg *cg, const cg_builtin *bi, tc_callargs *args, tc_loc loc) {
  const cg_sig s = bi->sig;
  tc_val a = tensor_arg(cg, cg_arg(args, &s, "input"), "tl.dot", loc);
  tc_val b = tensor_arg(cg, cg_arg(args, &s, "other"), "tl.dot", loc);
  if (cg->err) return a;
  if (a.rank < 2 || a.rank > 3 || b.rank != a.rank)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dot needs two 2-D (or two 3-D) tiles, got ranks %d and %d",
                    a.rank, b.rank);
  int r = a.rank;
  if (a.shape[r - 1] != b.shape[r - 2] || (r == 3 && a.shape[0] != b.shape[0])) {
    char sa[64], sb[64];
    tv_describe(&a, sa, sizeof sa);
    tv_describe(&b, sb, sizeof sb);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dot shapes do not match: %s x %s", sa, sb);
  }
  if (tc_ty_is_fp8(a.ty) && tc_ty_is_fp8(b.ty)) {
    /* Triton checks the fp8 dot's max_num_imprecise_acc (a Hopper accumulation interval)
     * against K; tilec accumulates every product in fp32, so the value is otherwise unused */
    const tc_val *mi = cg_arg(args, &s, "max_num_imprecise_acc");
    int64_t imprecise;
    if (!cg_is_none(mi) && cg_const_int(cg, mi, "max_num_imprecise_acc", loc, &imprecise) && imprecise > a.shape[r - 1])
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "max_num_imprecise_acc (%lld) must be <= K (%lld)",
                      (long long)imprecise, (long long)a.shape[r - 1]);
    if (cg->err) return a;
    /* every fp8 value is exact in fp16: the product accumulates in fp32 like fp16's */
    a = cg_cast(cg, a, tc_ty_make(TILEC_DTYPE_F16), false, loc);
    b = cg_cast(cg, b, tc_ty_make(TILEC_DTYPE_F16), false, loc);
    if (cg->err) return a;
  }
  if (!tc_ty_eq(a.ty, b.ty)) {
    char na[16], nb[16];
    tc_ty_name(a.ty, na, sizeof na);
    tc_ty_name(b.ty, nb, sizeof nb);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dot operands must have the same dtype, got %s and %s", na, nb);
  }
  tc_ty out = tc_ty_make(TILEC_DTYPE_F32);
  tc_val *od = cg_arg(args, &s, "out_dtype");
  if (!cg_is_none(od) && !cg_get_dtype(cg, od, "out_dtype", loc, &out)) return (tc_val){0};
  if (tc_ty_is_int(a.ty)) {
    if (tc_ty_bits(a.ty) != 8)
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "integer tl.dot supports int8/uint8 inputs");
    out = tc_ty_make(TILEC_DTYPE_I32);
  } else if (a.ty.dt == TILEC_DTYPE_F64) {
    out = a.ty;
  }
  int64_t cs[3];
  for (int i = 0; i < r - 2; i++) cs[i] = a.shape[i];
  cs[r - 2] = a.shape[r - 2];
  cs[r - 1] = b.shape[r - 1];
  tc_val *accp = cg_arg(args, &s, "acc");
  tc_val acc;
  if (cg_is_none(accp)) {
    acc = cg_constant(cg, out, 0, 0, r, cs);
  } else {
    acc = tensor_arg(cg, accp, "tl.dot", loc);
    if (cg->err) return acc;
    if (acc.rank != r || memcmp(acc.shape, cs, sizeof(int64_t) * (size_t)r)) {
      char sa[64];
      tv_describe(&acc, sa, sizeof sa);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dot accumulator %s does not match the product shape", sa);
    }
    out = acc.ty;
  }
  tile_dot_precision prec;
  if (!dot_precision(cg, &s, args, loc, &prec)) return (tc_val){0};
  cg_set_loc(cg, loc);
  MlirValue res = tile_build_dot(&cg->b, a.v, b.v, acc.v, cg_tensor_type(cg, out, r, cs), prec);
  return tv_tensor(res, out, r, cs);
}

/* ---- the builtins: reductions, scans, gather, sort, shape ops --------------------------- */

static tc_val sum_like(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  const char *name = b->name;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  if (cg->err) return (tc_val){0};
  tc_val *dt = cg_arg(a, &s, "dtype");
  tc_ty t;
  if (!cg_is_none(dt)) {
    if (!cg_get_dtype(cg, dt, "dtype", loc, &t)) return (tc_val){0};
    x = cg_cast(cg, x, t, false, loc);
  } else if (!strcmp(name, "sum") && tc_ty_is_int(x.ty) && tc_ty_bits(x.ty) < 32) {
    /* Triton sums narrow integers in 32 bits of the same signedness (int1 is unsigned). */
    x = cg_cast(cg, x, tc_ty_make(tc_ty_is_signed(x.ty) ? TILEC_DTYPE_I32 : TILEC_DTYPE_U32), false, loc);
  }
  if (strcmp(name, "sum") && !tc_ty_is_int(x.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s is only defined on integers", fn);
  /* A sum of 16-bit (or fp8) floats keeps its dtype but accumulates in fp32 and rounds
   * once: Triton leaves the order of a reduction open, and rounding every partial sum to
   * 8 (bf16) or 11 (fp16) significant bits loses most of a long row. */
  tc_ty narrow = x.ty;
  bool widen = !strcmp(name, "sum") && tc_ty_is_float(x.ty) && tc_ty_bits(x.ty) < 32;
  if (widen) x = cg_cast(cg, x, tc_ty_make(TILEC_DTYPE_F32), false, loc);
  combine_kind k = !strcmp(name, "sum") ? C_SUM : !strcmp(name, "xor_sum") ? C_XOR : C_OR;
  tc_val r = reduce(cg, &x, 1, cg_arg(a, &s, "axis"), flag(cg_arg(a, &s, "keep_dims")), k, false, NULL, fn, loc);
  return widen && !cg->err ? cg_cast(cg, r, narrow, false, loc) : r;
}

static tc_val max_min(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  const char *name = b->name;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  if (cg->err) return (tc_val){0};
  bool is_max = !strcmp(name, "max");
  bool keep = flag(cg_arg(a, &s, "keep_dims"));
  tc_val *tb = cg_arg(a, &s, "return_indices_tie_break_left");
  bool tie_left = !tb || flag(tb);
  if (tc_ty_bits(x.ty) < 32)
    x = cg_cast(cg, x,
                tc_ty_make(tc_ty_is_float(x.ty)    ? TILEC_DTYPE_F32
                           : tc_ty_is_signed(x.ty) ? TILEC_DTYPE_I32
                                                   : TILEC_DTYPE_U32),
                false, loc);
  if (flag(cg_arg(a, &s, "return_indices"))) {
    tc_val *ax = cg_arg(a, &s, "axis");
    int64_t axis;
    if (cg_is_none(ax) || !cg_const_int(cg, ax, "axis", loc, &axis)) {
      if (!cg->err) cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s(return_indices=True) needs an axis", fn);
      return (tc_val){0};
    }
    int an = norm_axis(cg, axis, x.rank, fn, loc);
    if (an < 0) return (tc_val){0};
    tc_val xs[2] = {x, axis_iota(cg, x.rank, x.shape, an, loc)};
    return reduce(cg, xs, 2, ax, keep, is_max ? C_ARGMAX : C_ARGMIN, tie_left, NULL, fn, loc);
  }
  return reduce(cg, &x, 1, cg_arg(a, &s, "axis"), keep, is_max ? C_MAX : C_MIN, false, NULL, fn, loc);
}

static tc_val argmax_argmin(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  const char *name = b->name;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  if (cg->err) return (tc_val){0};
  if (tc_ty_bits(x.ty) < 32)
    x = cg_cast(cg, x, tc_ty_make(tc_ty_is_float(x.ty) ? TILEC_DTYPE_F32 : TILEC_DTYPE_I32), false, loc);
  int64_t axis;
  tc_val *ax = cg_arg(a, &s, "axis");
  if (!cg_const_int(cg, ax, "axis", loc, &axis)) return (tc_val){0};
  int an = norm_axis(cg, axis, x.rank, fn, loc);
  if (an < 0) return (tc_val){0};
  tc_val *tb = cg_arg(a, &s, "tie_break_left");
  tc_val xs[2] = {x, axis_iota(cg, x.rank, x.shape, an, loc)};
  tc_val r = reduce(cg, xs, 2, ax, flag(cg_arg(a, &s, "keep_dims")), !strcmp(name, "argmax") ? C_ARGMAX : C_ARGMIN,
                    !tb || flag(tb), NULL, fn, loc);
  return r.kind == TV_TUPLE ? r.items[1] : r;
}

/* Triton's tl.reduce / tl.associative_scan give a tuple for a tuple input, also a tuple of
 * one (`sum0, = tl.reduce((x,), 0, f)`), and a tensor for a tensor. */
static tc_val one_tuple(tc_cg *cg, const tc_val *in, tc_val r) {
  if (cg->err || in->kind != TV_TUPLE || r.kind == TV_TUPLE) return r;
  tc_val t = {.kind = TV_TUPLE, .nitems = 1};
  t.items = cg_alloc(cg, sizeof(tc_val) * 2);
  t.items[0] = r;
  return t;
}

static tc_val reduce_fn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val xs[8], *cf = cg_arg(a, &s, "combine_fn");
  int n = combine_inputs(cg, cg_arg(a, &s, "input"), cf, "reduce", xs, fn, loc);
  if (n == 0) return (tc_val){0};
  tc_val r = reduce(cg, xs, n, cg_arg(a, &s, "axis"), flag(cg_arg(a, &s, "keep_dims")), C_JIT, false, cf->fn, fn, loc);
  return one_tuple(cg, cg_arg(a, &s, "input"), r);
}

static tc_val cumsum_cumprod(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  const char *name = b->name;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  if (cg->err) return (tc_val){0};
  tc_val *dt = cg_arg(a, &s, "dtype");
  tc_ty t;
  if (!cg_is_none(dt)) {
    if (!cg_get_dtype(cg, dt, "dtype", loc, &t)) return (tc_val){0};
    x = cg_cast(cg, x, t, false, loc);
  } else if (tc_ty_is_int(x.ty) && tc_ty_bits(x.ty) < 32) {
    /* Triton scans narrow integers in 32 bits of the same signedness (int1 is unsigned). */
    x = cg_cast(cg, x, tc_ty_make(tc_ty_is_signed(x.ty) ? TILEC_DTYPE_I32 : TILEC_DTYPE_U32), false, loc);
  }
  /* As for tl.sum: a scan of 16-bit (or fp8) floats keeps its dtype but accumulates in fp32
   * and rounds each prefix once; rounding every partial sum/product to 8 (bf16) or 11 (fp16)
   * significant bits drifts further from the exact prefix the longer the axis. */
  tc_ty narrow = x.ty;
  bool widen = tc_ty_is_float(x.ty) && tc_ty_bits(x.ty) < 32;
  if (widen) x = cg_cast(cg, x, tc_ty_make(TILEC_DTYPE_F32), false, loc);
  tc_val *ax = cg_arg(a, &s, "axis");
  tc_val zero = tv_int(0);
  tc_val r = scan(cg, &x, 1, cg_is_none(ax) ? &zero : ax, flag(cg_arg(a, &s, "reverse")),
                  !strcmp(name, "cumsum") ? C_SUM : C_PROD, NULL, fn, loc);
  return widen && !cg->err ? cg_cast(cg, r, narrow, false, loc) : r;
}

static tc_val associative_scan(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val xs[8], *cf = cg_arg(a, &s, "combine_fn");
  int n = combine_inputs(cg, cg_arg(a, &s, "input"), cf, "associative_scan", xs, fn, loc);
  if (n == 0) return (tc_val){0};
  tc_val r = scan(cg, xs, n, cg_arg(a, &s, "axis"), flag(cg_arg(a, &s, "reverse")), C_JIT, cf->fn, fn, loc);
  return one_tuple(cg, cg_arg(a, &s, "input"), r);
}

static tc_val gather(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val src = tensor_arg(cg, cg_arg(a, &s, "src"), fn, loc), idx = tensor_arg(cg, cg_arg(a, &s, "index"), fn, loc);
  int64_t ax;
  if (cg->err || !cg_const_int(cg, cg_arg(a, &s, "axis"), "axis", loc, &ax)) return (tc_val){0};
  int axis = norm_axis(cg, ax, src.rank, fn, loc);
  if (axis < 0) return (tc_val){0};
  if (!tc_ty_is_int(idx.ty) || idx.rank != src.rank)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.gather needs an integer index tile of the source's rank");
  for (int d = 0; d < src.rank; d++)
    if (d != axis && idx.shape[d] != src.shape[d])
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.gather: index dimension %d must match the source", d);
  return gather_op(cg, src, idx, axis, loc);
}

static tc_val flip(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "x"), fn, loc);
  if (cg->err) return (tc_val){0};
  if (!x.rank) return x;
  int64_t d = x.rank - 1;
  tc_val *dv = cg_arg(a, &s, "dim");
  if (!cg_is_none(dv) && !cg_const_int(cg, dv, "dim", loc, &d)) return (tc_val){0};
  int axis = norm_axis(cg, d, x.rank, fn, loc);
  if (axis < 0) return (tc_val){0};
  tc_val k = axis_iota(cg, x.rank, x.shape, axis, loc);
  tc_val rev = cg_binary(cg, TC_OP_SUB, tv_int(x.shape[axis] - 1), k, loc);
  return gather_op(cg, x, rev, axis, loc);
}

static tc_val sort_topk(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  const char *name = b->name;
  bool topk = !strcmp(name, "topk");
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "x"), fn, loc);
  if (cg->err) return (tc_val){0};
  if (!x.rank) return x;
  int64_t d = x.rank - 1;
  tc_val *dv = cg_arg(a, &s, "dim");
  if (!cg_is_none(dv) && !cg_const_int(cg, dv, "dim", loc, &d)) return (tc_val){0};
  if (norm_axis(cg, d, x.rank, fn, loc) != x.rank - 1) {
    if (!cg->err) cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "%s only sorts along the last dimension", fn);
    return (tc_val){0};
  }
  /* tl.topk(x, k, dim=None, descending=True) in Triton 3.9: the k largest, or smallest */
  tc_val *dsc = cg_arg(a, &s, "descending");
  bool desc = topk && cg_is_none(dsc) ? true : flag(dsc);
  cg_set_loc(cg, loc);
  MlirValue r = tile_build_sort(&cg->b, x.v, desc, tc_ty_is_int(x.ty) && !tc_ty_is_signed(x.ty));
  tc_val sorted = tv_tensor(r, x.ty, x.rank, x.shape);
  if (!topk) return sorted;
  int64_t k;
  if (!cg_const_int(cg, cg_arg(a, &s, "k"), "k", loc, &k)) return (tc_val){0};
  if (k < 1 || k > x.shape[x.rank - 1])
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.topk: k must be in 1..%lld", (long long)x.shape[x.rank - 1]);
  int64_t ks[TC_MAX_RANK];
  memcpy(ks, x.shape, sizeof ks);
  ks[x.rank - 1] = k;
  return gather_op(cg, sorted, axis_iota(cg, x.rank, ks, x.rank - 1, loc), x.rank - 1, loc);
}

static tc_val histogram(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  int64_t bins;
  if (cg->err || !cg_const_int(cg, cg_arg(a, &s, "num_bins"), "num_bins", loc, &bins)) return (tc_val){0};
  if (x.rank != 1 || !tc_ty_is_int(x.ty) || bins < 1)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.histogram needs a 1-D integer tile and num_bins >= 1");
  /* counts[b] = sum_i (x[i] == b) over the [n, bins] comparison, reduced along i */
  int64_t n = x.shape[0];
  int64_t sh[2] = {n, bins};
  tc_val xe = cg_broadcast_to(cg, expand(cg, x, 1, loc), 2, sh, loc);
  tc_val bin = axis_iota(cg, 2, sh, 1, loc);
  tc_val hit = cg_compare(cg, TC_CMP_EQ, xe, bin, loc);
  tc_val *mk = cg_arg(a, &s, "mask");
  if (!cg_is_none(mk)) {
    tc_val m = cg_to_bool(cg, *mk, loc);
    if (m.rank == 1) m = cg_broadcast_to(cg, expand(cg, m, 1, loc), 2, sh, loc);
    hit = cg_logical(cg, true, hit, m, loc);
  }
  tc_val cnt = cg_cast(cg, hit, tc_ty_make(TILEC_DTYPE_I32), false, loc);
  tc_val zero = tv_int(0);
  return reduce(cg, &cnt, 1, &zero, false, C_SUM, false, NULL, fn, loc);
}

/* A keyword argument given as True (a compile-time truthy value). */
static bool kw_true(const tc_callargs *a, const char *name) {
  for (int k = 0; k < a->nkw; k++)
    if (!strcmp(a->kwnames[k], name)) return tv_is_number(&a->kwargs[k]) && a->kwargs[k].i;
  return false;
}

static tc_val reshape_fn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  if (a->nargs < 1) return cg_builtin_not_yet(cg, b, loc);
  if (!strcmp(b->name, "view")) cg_warn(cg, loc, "view is deprecated, please use reshape with can_reorder being true.");
  else if (kw_true(a, "can_reorder"))
    cg_warn(cg, loc,
            "tl.reshape(can_reorder=True) is deprecated and will be removed in Triton 3.10. Pass can_reorder=False "
            "(the default) to adopt the new behavior.");
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  tc_callargs rest = *a;
  rest.nkw = 0;
  for (int k = 0; k < a->nkw; k++)
    if (!strcmp(a->kwnames[k], "shape")) rest = *a;
  if (cg->err || !shape_args(cg, &rest, 1, "shape", loc, &rank, shape)) return (tc_val){0};
  return reshape(cg, x, rank, shape, loc);
}

static tc_val ravel(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  if (a->nargs < 1) return cg_builtin_not_yet(cg, b, loc);
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc);
  int64_t n = 1;
  for (int i = 0; i < x.rank; i++) n *= x.shape[i];
  return cg->err ? x : reshape(cg, x, 1, &n, loc);
}

static tc_val expand_dims(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  tc_val *ax = cg_arg(a, &s, "axis");
  if (cg->err) return (tc_val){0};
  int nax = ax->kind == TV_TUPLE ? ax->nitems : 1;
  int64_t axes[TC_MAX_RANK];
  for (int i = 0; i < nax && i < TC_MAX_RANK; i++)
    if (!cg_const_int(cg, ax->kind == TV_TUPLE ? &ax->items[i] : ax, "axis", loc, &axes[i])) return (tc_val){0};
  /* Triton: every axis is normalized against the final rank, duplicates are an error,
   * and the new axes are inserted in ascending order. */
  int final_rank = x.rank + nax;
  if (nax > TC_MAX_RANK || final_rank > TC_MAX_RANK)
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "%s: tiles of rank > %d are not supported", fn, TC_MAX_RANK);
  int at[TC_MAX_RANK];
  for (int i = 0; i < nax; i++) {
    if (axes[i] < -final_rank || axes[i] >= final_rank)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s: invalid axis %lld. Expected %d <= axis < %d", fn,
                      (long long)axes[i], -final_rank, final_rank);
    at[i] = (int)(axes[i] < 0 ? axes[i] + final_rank : axes[i]);
  }
  for (int i = 0; i < nax; i++)
    for (int j = 0; j < i; j++)
      if (at[i] == at[j]) {
        char list[64] = "";
        for (int k = 0; k < nax; k++)
          snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", k ? ", " : "", at[k]);
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s received duplicate axes, normalized axes = [%s]", fn, list);
      }
  for (int i = 1; i < nax; i++) /* ascending */
    for (int j = i; j > 0 && at[j - 1] > at[j]; j--) {
      int t = at[j];
      at[j] = at[j - 1];
      at[j - 1] = t;
    }
  for (int i = 0; i < nax && !cg->err; i++) x = expand(cg, x, at[i], loc);
  return x;
}

static tc_val squeeze(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const cg_sig s = b->sig;
  tc_val x = tensor_arg(cg, cg_arg(a, &s, "input"), fn, loc);
  int64_t d;
  if (cg->err || !cg_const_int(cg, cg_arg(a, &s, "dim"), "dim", loc, &d)) return (tc_val){0};
  int ax = norm_axis(cg, d, x.rank, fn, loc);
  if (ax < 0) return (tc_val){0};
  if (x.shape[ax] != 1)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.squeeze: dimension %d has size %lld, not 1", ax,
                    (long long)x.shape[ax]);
  int64_t sh[TC_MAX_RANK];
  int k = 0;
  for (int i = 0; i < x.rank; i++)
    if (i != ax) sh[k++] = x.shape[i];
  return reshape(cg, x, k, sh, loc);
}

static tc_val broadcast_to(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  if (a->nargs < 1) return cg_builtin_not_yet(cg, b, loc);
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (cg->err || !shape_args(cg, a, 1, "shape", loc, &rank, shape)) return (tc_val){0};
  return cg_broadcast_to(cg, x, rank, shape, loc);
}

static tc_val broadcast(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  if (a->nargs != 2) return cg_builtin_not_yet(cg, b, loc);
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc), y = tensor_arg(cg, &a->args[1], fn, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (cg->err || !cg_broadcast_shapes(cg, &x, &y, &rank, shape, loc)) return (tc_val){0};
  tc_val t = {.kind = TV_TUPLE, .nitems = 2};
  t.items = cg_alloc(cg, 2 * sizeof(tc_val));
  t.items[0] = cg_broadcast_to(cg, x, rank, shape, loc);
  t.items[1] = cg_broadcast_to(cg, y, rank, shape, loc);
  return t;
}

static tc_val trans_permute(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const char *name = b->name;
  if (a->nargs < 1) return cg_builtin_not_yet(cg, b, loc);
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc);
  if (cg->err) return (tc_val){0};
  int order[TC_MAX_RANK];
  int rank;
  int64_t dims[TC_MAX_RANK];
  bool given = a->nargs > 1 || a->nkw > 0;
  if (given) {
    rank = 0;
    const tc_val *src = a->args + 1;
    int cnt = a->nargs - 1;
    if (a->nkw == 1 && !strcmp(a->kwnames[0], "dims")) {
      src = &a->kwargs[0];
      cnt = 1;
    }
    if (cnt == 1 && src[0].kind == TV_TUPLE) {
      cnt = src[0].nitems;
      src = src[0].items;
    }
    for (int i = 0; i < cnt && i < TC_MAX_RANK; i++) {
      if (src[i].kind != TV_INT)
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s dims must be constexpr integers", fn);
      dims[rank++] = src[i].i;
    }
    if (rank != x.rank) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s needs %d dims, got %d", fn, x.rank, rank);
    for (int i = 0; i < rank; i++) order[i] = (int)dims[i];
  } else {
    if (x.rank > 2 && !strcmp(name, "trans"))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.trans of a rank-%d tile needs the permutation", x.rank);
    for (int i = 0; i < x.rank; i++) order[i] = x.rank - 1 - i;
  }
  return trans(cg, x, order, loc);
}

static tc_val join_interleave(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  const char *name = b->name;
  if (a->nargs != 2) return cg_builtin_not_yet(cg, b, loc);
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc), y = tensor_arg(cg, &a->args[1], fn, loc);
  if (cg->err) return (tc_val){0};
  tc_ty ct;
  char err[128];
  if (!tc_ty_computation(x.ty, false, y.ty, false, false, &ct, err, sizeof err) || !tc_ty_eq(x.ty, y.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s needs two tiles of the same dtype", fn);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &x, &y, &rank, shape, loc)) return (tc_val){0};
  x = cg_broadcast_to(cg, x, rank, shape, loc);
  y = cg_broadcast_to(cg, y, rank, shape, loc);
  /* join(x, y)[..., k] = k == 0 ? x : y, all lazily evaluated */
  tc_val xe = expand(cg, x, rank, loc), ye = expand(cg, y, rank, loc);
  if (cg->err) return (tc_val){0}; /* rank TC_MAX_RANK already: no room for the new axis */
  int64_t js[TC_MAX_RANK];
  memcpy(js, shape, sizeof js);
  js[rank] = 2;
  xe = cg_broadcast_to(cg, xe, rank + 1, js, loc);
  ye = cg_broadcast_to(cg, ye, rank + 1, js, loc);
  tc_val k = axis_iota(cg, rank + 1, js, rank, loc);
  tc_val first = cg_compare(cg, TC_CMP_EQ, k, tv_int(0), loc);
  tc_val j = cg_where(cg, first, xe, ye, loc);
  if (!strcmp(name, "interleave") && rank > 0) { /* two scalars interleave to join's [2] */
    int64_t is[TC_MAX_RANK];
    memcpy(is, shape, sizeof is);
    is[rank - 1] *= 2;
    j = reshape(cg, j, rank, is, loc);
  }
  return j;
}

static tc_val split(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  if (a->nargs != 1) return cg_builtin_not_yet(cg, b, loc);
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc);
  if (cg->err) return (tc_val){0};
  if (!x.rank || x.shape[x.rank - 1] != 2)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.split needs a last dimension of size 2");
  tc_val last = tv_int(-1);
  tc_val t = {.kind = TV_TUPLE, .nitems = 2};
  t.items = cg_alloc(cg, 2 * sizeof(tc_val));
  tc_val x1 = x;
  t.items[0] = reduce(cg, &x, 1, &last, false, C_FIRST, false, NULL, fn, loc);
  t.items[1] = reduce(cg, &x1, 1, &last, false, C_LAST, false, NULL, fn, loc);
  return t;
}

static tc_val cat(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *fn = b->sig.fn;
  if (a->nargs < 2) return cg_builtin_not_yet(cg, b, loc);
  if (kw_true(a, "can_reorder") || (a->nargs > 2 && tv_is_number(&a->args[2]) && a->args[2].i))
    cg_warn(cg, loc,
            "tl.cat(can_reorder=True) is deprecated and will be removed in Triton 3.10, when concatenation will "
            "always be deterministic. Pass can_reorder=False (the default) to adopt the new behavior.");
  tc_val x = tensor_arg(cg, &a->args[0], fn, loc), y = tensor_arg(cg, &a->args[1], fn, loc);
  if (cg->err) return (tc_val){0};
  if (x.rank != y.rank || memcmp(x.shape, y.shape, sizeof(int64_t) * (size_t)x.rank) || !tc_ty_eq(x.ty, y.ty) ||
      !x.rank)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.cat needs two tiles of the same shape and dtype");
  /* stack on a new leading dim, then merge it with dim 0: row-major keeps x then y */
  tc_val xe = expand(cg, x, 0, loc), ye = expand(cg, y, 0, loc);
  int64_t js[TC_MAX_RANK];
  js[0] = 2;
  for (int i = 0; i < x.rank; i++) js[i + 1] = x.shape[i];
  xe = cg_broadcast_to(cg, xe, x.rank + 1, js, loc);
  ye = cg_broadcast_to(cg, ye, x.rank + 1, js, loc);
  tc_val k = axis_iota(cg, x.rank + 1, js, 0, loc);
  tc_val j = cg_where(cg, cg_compare(cg, TC_CMP_EQ, k, tv_int(0), loc), xe, ye, loc);
  int64_t cs[TC_MAX_RANK];
  memcpy(cs, x.shape, sizeof cs);
  cs[0] *= 2;
  return reshape(cg, j, x.rank, cs, loc);
}

/* ---- the registry rows ---------------------------------------------------------------- */

static const char *const p_dot[] = {
    "input", "other", "acc", "input_precision", "allow_tf32", "max_num_imprecise_acc", "out_dtype", NULL};
static const char *const p_sum[] = {"input", "axis", "keep_dims", "dtype", NULL};
static const char *const p_max[] = {"input",     "axis", "return_indices", "return_indices_tie_break_left",
                                    "keep_dims", NULL};
static const char *const p_argmax[] = {"input", "axis", "tie_break_left", "keep_dims", NULL};
static const char *const p_reduce[] = {"input", "axis", "combine_fn", "keep_dims", NULL};
static const char *const p_cumsum[] = {"input", "axis", "reverse", "dtype", NULL};
static const char *const p_scan[] = {"input", "axis", "combine_fn", "reverse", NULL};
static const char *const p_gather[] = {"src", "index", "axis", NULL};
static const char *const p_flip[] = {"x", "dim", NULL};
static const char *const p_sort[] = {"x", "dim", "descending", NULL};
static const char *const p_topk[] = {"x", "k", "dim", "descending", NULL};
static const char *const p_histogram[] = {"input", "num_bins", "mask", NULL};
static const char *const p_expand_dims[] = {"input", "axis", NULL};
static const char *const p_squeeze[] = {"input", "dim", NULL};

/* Rows without parameter names take their arguments positionally (a shape may also be
 * given as separate arguments); a call with too few is "tl.NAME is not supported yet". */
const cg_builtin cg_builtins_tile[] = {
    {"dot", dot, {"tl.dot", p_dot}, 2, NULL},
    {"sum", sum_like, {"tl.sum", p_sum}, 1, NULL},
    {"xor_sum", sum_like, {"tl.xor_sum", p_sum}, 1, NULL},
    {"reduce_or", sum_like, {"tl.reduce_or", p_sum}, 1, NULL},
    {"max", max_min, {"tl.max", p_max}, 1, NULL},
    {"min", max_min, {"tl.min", p_max}, 1, NULL},
    {"argmax", argmax_argmin, {"tl.argmax", p_argmax}, 2, NULL},
    {"argmin", argmax_argmin, {"tl.argmin", p_argmax}, 2, NULL},
    {"reduce", reduce_fn, {"tl.reduce", p_reduce}, 3, NULL},
    {"cumsum", cumsum_cumprod, {"tl.cumsum", p_cumsum}, 1, NULL},
    {"cumprod", cumsum_cumprod, {"tl.cumprod", p_cumsum}, 1, NULL},
    {"associative_scan", associative_scan, {"tl.associative_scan", p_scan}, 3, NULL},
    {"gather", gather, {"tl.gather", p_gather}, 3, NULL},
    {"flip", flip, {"tl.flip", p_flip}, 1, NULL},
    {"sort", sort_topk, {"tl.sort", p_sort}, 1, NULL},
    {"topk", sort_topk, {"tl.topk", p_topk}, 2, NULL},
    {"histogram", histogram, {"tl.histogram", p_histogram}, 2, NULL},
    {"reshape", reshape_fn, {"tl.reshape", NULL}, 0, NULL},
    {"view", reshape_fn, {"tl.view", NULL}, 0, NULL},
    {"ravel", ravel, {"tl.ravel", NULL}, 0, NULL},
    {"expand_dims", expand_dims, {"tl.expand_dims", p_expand_dims}, 2, NULL},
    {"unsqueeze", expand_dims, {"tl.unsqueeze", p_expand_dims}, 2, NULL},
    {"squeeze", squeeze, {"tl.squeeze", p_squeeze}, 2, NULL},
    {"broadcast_to", broadcast_to, {"tl.broadcast_to", NULL}, 0, NULL},
    {"broadcast", broadcast, {"tl.broadcast", NULL}, 0, NULL},
    {"trans", trans_permute, {"tl.trans", NULL}, 0, NULL},
    {"permute", trans_permute, {"tl.permute", NULL}, 0, NULL},
    {"join", join_interleave, {"tl.join", NULL}, 0, NULL},
    {"interleave", join_interleave, {"tl.interleave", NULL}, 0, NULL},
    {"split", split, {"tl.split", NULL}, 0, NULL},
    {"cat", cat, {"tl.cat", NULL}, 0, NULL},
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
