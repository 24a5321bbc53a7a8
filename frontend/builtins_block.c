/* frontend/builtins_block.c — block pointers (tl.make_block_ptr, tl.advance), materialized
 * as a pointer tile plus a boundary mask, so the lowering sees ordinary masked loads and
 * stores; the helpers that build those tiles are shared with tensor descriptors
 * (descriptors.c). In: call arguments. Out: structured values, or tile loads/stores. */
#include "frontend/builtins.h"

#include <math.h>
#include <string.h>

static tc_val *items_of(tc_cg *cg, int n) { return cg_alloc(cg, sizeof(tc_val) * (size_t)(n + 1)); }

/* A tuple of ints / scalar tensors as scalar tensors of type t. */
bool cg_block_scalars(tc_cg *cg, const tc_val *v, int rank, tc_ty t, tc_val *out, const char *what, tc_loc loc) {
  if (!v || v->kind != TV_TUPLE || v->nitems != rank) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s must be a tuple of %d values", what, rank);
    return false;
  }
  for (int i = 0; i < rank; i++) {
    const tc_val *x = &v->items[i];
    if (!(tv_is_number(x) || (x->kind == TV_TENSOR && x->rank == 0 && tc_ty_is_int(x->ty)))) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s must hold integers", what);
      return false;
    }
    out[i] = cg_cast(cg, *x, t, false, loc);
  }
  return !cg->err;
}

static tc_val make_block_ptr(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig s = b->sig;
  tc_val base = *cg_arg(a, &s, "base");
  if (base.kind != TV_TENSOR || base.rank != 0 || !tc_ty_is_ptr(base.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.make_block_ptr: base must be a scalar pointer");
  int rank;
  int64_t bs[TC_MAX_RANK];
  if (!cg_get_shape(cg, cg_arg(a, &s, "block_shape"), loc, &rank, bs)) return (tc_val){0};
  tc_val r = {.kind = TV_BLOCKPTR, .ty = base.ty, .rank = rank, .nitems = 1 + 3 * rank};
  memcpy(r.shape, bs, sizeof bs);
  r.items = items_of(cg, r.nitems);
  r.items[0] = base;
  tc_ty i64 = tc_ty_make(TILEC_DTYPE_I64), i32 = tc_ty_make(TILEC_DTYPE_I32);
  if (!cg_block_scalars(cg, cg_arg(a, &s, "shape"), rank, i64, r.items + 1, "shape", loc) ||
      !cg_block_scalars(cg, cg_arg(a, &s, "strides"), rank, i64, r.items + 1 + rank, "strides", loc) ||
      !cg_block_scalars(cg, cg_arg(a, &s, "offsets"), rank, i32, r.items + 1 + 2 * rank, "offsets", loc))
    return (tc_val){0};
  return r;
}

static tc_val advance(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs != 2 || a->args[0].kind != TV_BLOCKPTR)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.advance(block_ptr, offsets) needs a block pointer");
  tc_val bp = a->args[0];
  tc_val d[TC_MAX_RANK];
  if (!cg_block_scalars(cg, &a->args[1], bp.rank, tc_ty_make(TILEC_DTYPE_I32), d, "offsets", loc)) return (tc_val){0};
  tc_val r = bp;
  r.items = items_of(cg, bp.nitems);
  memcpy(r.items, bp.items, sizeof(tc_val) * (size_t)bp.nitems);
  for (int i = 0; i < bp.rank; i++)
    r.items[1 + 2 * bp.rank + i] = cg_binary(cg, TC_OP_ADD, bp.items[1 + 2 * bp.rank + i], d[i], loc);
  return r;
}

/* Pointer tile and boundary mask of a block at `offs` (rank scalars). check: bitmask of
 * dims to bound-check. */
bool cg_block_tile(tc_cg *cg, tc_val base, int rank, const int64_t *bshape, const tc_val *shape, const tc_val *strides,
                   const tc_val *offs, unsigned check, tc_val *ptrs, tc_val *mask, tc_loc loc) {
  tc_val p = cg_broadcast_to(cg, base, rank, bshape, loc);
  tc_val m = {0};
  bool have_mask = false;
  for (int d = 0; d < rank && !cg->err; d++) {
    int64_t n = bshape[d];
    tc_val r = tv_tensor(tile_build_range(&cg->b, 0, (int32_t)n), tc_ty_make(TILEC_DTYPE_I32), 1, &n);
    tc_val idx = cg_binary(cg, TC_OP_ADD, r, offs[d], loc);
    int64_t s1[TC_MAX_RANK];
    for (int k = 0; k < rank; k++) s1[k] = k == d ? n : 1;
    MlirType t1 = cg_tensor_type(cg, idx.ty, rank, s1);
    if (rank > 1) idx = tv_tensor(tile_build_reshape(&cg->b, idx.v, t1), idx.ty, rank, s1);
    idx = cg_broadcast_to(cg, idx, rank, bshape, loc);
    p = cg_binary(cg, TC_OP_ADD, p,
                  cg_binary(cg, TC_OP_MUL, cg_cast(cg, idx, tc_ty_make(TILEC_DTYPE_I64), false, loc), strides[d], loc),
                  loc);
    if (check & (1u << d)) {
      tc_val in = cg_logical(
          cg, true, cg_compare(cg, TC_CMP_GE, idx, tv_int(0), loc),
          cg_compare(cg, TC_CMP_LT, cg_cast(cg, idx, tc_ty_make(TILEC_DTYPE_I64), false, loc), shape[d], loc), loc);
      m = have_mask ? cg_logical(cg, true, m, in, loc) : in;
      have_mask = true;
    }
  }
  *ptrs = p;
  *mask = have_mask ? m : (tc_val){0};
  return !cg->err;
}

static bool check_dims(tc_cg *cg, const tc_val *bc, int rank, unsigned *out, tc_loc loc) {
  *out = 0;
  if (!bc || bc->kind == TV_NONE) return true;
  const tc_val *items = bc->kind == TV_TUPLE ? bc->items : bc;
  int n = bc->kind == TV_TUPLE ? bc->nitems : 1;
  for (int i = 0; i < n; i++) {
    if (items[i].kind != TV_INT || items[i].i < 0 || items[i].i >= rank) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "boundary_check must list dimensions in 0..%d", rank - 1);
      return false;
    }
    *out |= 1u << items[i].i;
  }
  return true;
}

static tc_val padding_value(tc_cg *cg, const tc_val *pad, tc_ty elem, tc_loc loc) {
  if (pad && pad->kind == TV_STR && pad->slen == 3 && !memcmp(pad->s, "nan", 3)) {
    if (!tc_ty_is_float(elem))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "padding_option='nan' needs a float pointer");
    return tv_float(NAN);
  }
  if (pad && pad->kind == TV_STR && pad->slen && !(pad->slen == 4 && !memcmp(pad->s, "zero", 4)))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "padding_option must be '', 'zero' or 'nan', got '%.*s'",
                    (int)pad->slen, pad->s);
  return tv_int(0);
}

tc_val cg_block_load_tile(tc_cg *cg, tc_val ptrs, tc_val mask, tc_val other, tc_loc loc) {
  tc_ty elem = ptrs.ty;
  elem.ptr_depth--;
  elem.is_const = false;
  MlirValue mv = {NULL}, ov = {NULL};
  if (mask.kind == TV_TENSOR) {
    mv = mask.v;
    ov = cg_broadcast_to(cg, cg_cast(cg, other, elem, false, loc), ptrs.rank, ptrs.shape, loc).v;
  }
  if (cg->err) return (tc_val){0};
  MlirValue r = tile_build_load(&cg->b, ptrs.v, mv, ov, cg_tensor_type(cg, elem, ptrs.rank, ptrs.shape));
  return tv_tensor(r, elem, ptrs.rank, ptrs.shape);
}

void cg_block_store_tile(tc_cg *cg, tc_val ptrs, tc_val mask, tc_val value, tc_loc loc) {
  tc_ty elem = ptrs.ty;
  elem.ptr_depth--;
  elem.is_const = false;
  value = cg_cast(cg, value, elem, false, loc);
  value = cg_broadcast_to(cg, value, ptrs.rank, ptrs.shape, loc);
  if (cg->err) return;
  tile_build_store(&cg->b, ptrs.v, value.v, mask.kind == TV_TENSOR ? mask.v : (MlirValue){NULL});
}

tc_val cg_block_load(tc_cg *cg, const tc_val *bp, const tc_val *boundary_check, const tc_val *padding, tc_loc loc) {
  unsigned check;
  if (!check_dims(cg, boundary_check, bp->rank, &check, loc)) return (tc_val){0};
  tc_val ptrs, mask;
  int r = bp->rank;
  if (!cg_block_tile(cg, bp->items[0], r, bp->shape, bp->items + 1, bp->items + 1 + r, bp->items + 1 + 2 * r, check,
                     &ptrs, &mask, loc))
    return (tc_val){0};
  tc_ty elem = bp->ty;
  elem.ptr_depth--;
  elem.is_const = false;
  tc_val other = padding_value(cg, padding, elem, loc);
  if (cg->err) return other;
  return cg_block_load_tile(cg, ptrs, mask, other, loc);
}

void cg_block_store(tc_cg *cg, const tc_val *bp, tc_val value, const tc_val *boundary_check, tc_loc loc) {
  unsigned check;
  if (!check_dims(cg, boundary_check, bp->rank, &check, loc)) return;
  tc_val ptrs, mask;
  int r = bp->rank;
  if (!cg_block_tile(cg, bp->items[0], r, bp->shape, bp->items + 1, bp->items + 1 + r, bp->items + 1 + 2 * r, check,
                     &ptrs, &mask, loc))
    return;
  if (value.kind == TV_TENSOR && value.rank &&
      (value.rank != r || memcmp(value.shape, bp->shape, sizeof(int64_t) * (size_t)r))) {
    char d[64];
    tv_describe(&value, d, sizeof d);
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "storing %s through a block pointer of a different block shape", d);
    return;
  }
  cg_block_store_tile(cg, ptrs, mask, value, loc);
}

static const char *const p_make_block_ptr[] = {"base", "shape", "strides", "offsets", "block_shape", "order", NULL};

const cg_builtin cg_builtins_block[] = {
    {"make_block_ptr", make_block_ptr, {"tl.make_block_ptr", p_make_block_ptr}, 5, NULL},
    {"advance", advance, {"tl.advance", NULL}, 0, NULL},
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
