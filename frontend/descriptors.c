/* frontend/descriptors.c — tensor descriptors as Triton has them: tl.make_tensor_descriptor
 * in a kernel and tensordesc<T[B...]> kernel parameters (a pointer to the caller's
 * tilec_tensor_descriptor, include/tilec/abi.h), with desc.load/store, gather/scatter of
 * rows, atomic_add/min/max/and/or/xor, and the attributes block_shape, shape, strides,
 * dtype. Every access is a pointer tile plus the descriptor's boundary mask (builtins_block.c
 * builds them). Value: TV_TDESC, items = base, shape[r] (i64), strides[r] (i64), padding (0
 * zero / 1 NaN: a constexpr int, or a runtime i64 for parameters). In: call arguments.
 * Out: tile loads/stores/atomics, or a located error. */
#include "frontend/builtins.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static tc_val *items_of(tc_cg *cg, int n) { return cg_alloc(cg, sizeof(tc_val) * (size_t)(n + 1)); }

static tc_val new_desc(tc_cg *cg, tc_ty ptr_ty, int rank, const int64_t *block) {
  tc_val r = {.kind = TV_TDESC, .ty = ptr_ty, .rank = rank, .nitems = 2 + 2 * rank};
  memcpy(r.shape, block, sizeof(int64_t) * (size_t)rank);
  r.items = items_of(cg, r.nitems);
  return r;
}

static bool check_block(tc_cg *cg, int rank, const int64_t *bs, tc_loc loc) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (bs[i] < 1 || (bs[i] & (bs[i] - 1))) {
      cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "block_shape element %d must be a power of 2, got %lld", i,
               (long long)bs[i]);
      return false;
    }
    n *= bs[i];
  }
  if (n > TC_MAX_NUMEL) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "numel (%lld) exceeds triton maximum tensor numel (%d)", (long long)n,
             TC_MAX_NUMEL);
    return false;
  }
  return true;
}

static tc_val make_tensor_descriptor(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig s = b->sig;
  tc_val base = *cg_arg(a, &s, "base");
  if (base.kind != TV_TENSOR || base.rank != 0 || !tc_ty_is_ptr(base.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.make_tensor_descriptor: base must be a scalar pointer");
  int rank;
  int64_t bs[TC_MAX_RANK];
  if (!cg_get_shape(cg, cg_arg(a, &s, "block_shape"), loc, &rank, bs) || !check_block(cg, rank, bs, loc))
    return (tc_val){0};
  /* Triton's rules for a descriptor made in a kernel (what a TMA needs), with its messages. */
  tc_ty elem = base.ty;
  elem.ptr_depth--;
  elem.is_const = false;
  int64_t esize = tc_ty_bits(elem) / 8;
  if (bs[rank - 1] * esize < 16)
    return cg_error(
        cg, loc, TILEC_ERROR_SEMANTIC,
        "Descriptor block shape must have at least 16 bytes in the last dimension, but got %lld * %lld = %lld bytes",
        (long long)bs[rank - 1], (long long)esize, (long long)(bs[rank - 1] * esize));
  tc_val *strides = cg_arg(a, &s, "strides");
  if (strides->kind == TV_TUPLE && strides->nitems == rank) {
    const tc_val *last = &strides->items[rank - 1];
    if (tv_is_number(last) && !(last->kind == TV_INT && last->i == 1))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Tensor descriptor last dim must be 1 but got %lld",
                      (long long)last->i);
    for (int i = 0; i < rank - 1; i++) {
      const tc_val *st = &strides->items[i];
      if (st->kind == TV_INT && (st->i * esize) % 16 != 0)
        return cg_error(
            cg, loc, TILEC_ERROR_SEMANTIC,
            "Tensor descriptor strides must be 16-byte aligned, but got a stride of %lld * %lld = %lld bytes",
            (long long)st->i, (long long)esize, (long long)(st->i * esize));
    }
  }
  tc_val r = new_desc(cg, base.ty, rank, bs);
  r.items[0] = base;
  tc_ty i64 = tc_ty_make(TILEC_DTYPE_I64);
  if (!cg_block_scalars(cg, cg_arg(a, &s, "shape"), rank, i64, r.items + 1, "shape", loc) ||
      !cg_block_scalars(cg, strides, rank, i64, r.items + 1 + rank, "strides", loc))
    return (tc_val){0};
  const tc_val *pad = cg_arg(a, &s, "padding_option");
  int64_t padding = 0;
  if (!cg_is_none(pad)) {
    if (pad->kind != TV_STR ||
        !((pad->slen == 4 && !memcmp(pad->s, "zero", 4)) || (pad->slen == 3 && !memcmp(pad->s, "nan", 3))))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "padding_option must be 'zero' or 'nan'");
    padding = pad->slen == 3;
    if (padding && !tc_ty_is_float(elem))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                      "padding_option='nan' is only supported for floating-point tensors");
  }
  r.items[1 + 2 * rank] = tv_int(padding);
  return r;
}

tc_val cg_tdesc_from_arg(tc_cg *cg, tc_val slots, tc_ty elem, int rank, const int64_t *block, tc_loc loc) {
  /* slot 0: base, 1..4: shape, 5..8: strides, 9: padding (tilec_tensor_descriptor) */
  tc_ty i64 = tc_ty_make(TILEC_DTYPE_I64), ptr = elem;
  ptr.ptr_depth++;
  cg_set_loc(cg, loc);
  tc_val r = new_desc(cg, ptr, rank, block);
  MlirType st = cg_tensor_type(cg, i64, 0, NULL);
  tc_val field[10];
  for (int k = 0; k < 10; k++) {
    if (k >= 1 + rank && k < 1 + TILEC_TENSOR_DESC_MAX_RANK) continue;
    if (k >= 5 + rank && k < 5 + TILEC_TENSOR_DESC_MAX_RANK) continue;
    tc_val addr = cg_binary(cg, TC_OP_ADD, slots, tv_int(k), loc);
    if (cg->err) return addr;
    field[k] = tv_tensor(tile_build_load(&cg->b, addr.v, (MlirValue){NULL}, (MlirValue){NULL}, st), i64, 0, NULL);
  }
  r.items[0] = cg_cast(cg, field[0], ptr, false, loc);
  for (int i = 0; i < rank; i++) {
    r.items[1 + i] = field[1 + i];
    /* the ABI requires a contiguous last dimension: a constant stride keeps rows vector loads */
    r.items[1 + rank + i] = i == rank - 1 ? tv_int(1) : field[5 + i];
  }
  r.items[1 + 2 * rank] = field[9];
  return r;
}

/* ---- accesses -------------------------------------------------------------------------- */

/* The value out-of-bounds loads read: 0, NaN, or a runtime choice between them. */
static tc_val padding_other(tc_cg *cg, const tc_val *d, tc_loc loc) {
  tc_val pad = d->items[1 + 2 * d->rank];
  tc_ty elem = d->ty;
  elem.ptr_depth--;
  elem.is_const = false;
  if (pad.kind == TV_INT) return pad.i ? tv_float(NAN) : tv_int(0);
  if (!tc_ty_is_float(elem)) return tv_int(0);
  tc_val nan = cg_cast(cg, tv_float(NAN), elem, false, loc), zero = cg_cast(cg, tv_int(0), elem, false, loc);
  return cg_where(cg, cg_compare(cg, TC_CMP_NE, pad, tv_int(0), loc), nan, zero, loc);
}

static bool block_at(tc_cg *cg, const tc_val *d, const tc_val *offsets, tc_val *ptrs, tc_val *mask, tc_loc loc) {
  tc_val offs[TC_MAX_RANK];
  if (!cg_block_scalars(cg, offsets, d->rank, tc_ty_make(TILEC_DTYPE_I32), offs, "offsets", loc)) return false;
  unsigned all = (1u << d->rank) - 1;
  return cg_block_tile(cg, d->items[0], d->rank, d->shape, d->items + 1, d->items + 1 + d->rank, offs, all, ptrs, mask,
                       loc);
}

static bool value_matches(tc_cg *cg, const tc_val *v, int rank, const int64_t *shape, const char *what, tc_loc loc) {
  if (v->kind != TV_TENSOR || !v->rank) return true; /* scalars broadcast */
  if (v->rank == rank && !memcmp(v->shape, shape, sizeof(int64_t) * (size_t)rank)) return true;
  char d[64];
  tv_describe(v, d, sizeof d);
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s: the value %s does not match the block shape", what, d);
  return false;
}

/* Row gather/scatter: a [1, BY] block, rows x_offsets (1-D int16/int32), columns from y. */
static bool rows_at(tc_cg *cg, const tc_val *d, tc_val xo, tc_val y, tc_val *ptrs, tc_val *mask, int64_t *shape,
                    const char *what, tc_loc loc) {
  if (d->rank != 2 || d->shape[0] != 1) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "desc.%s needs a 2-D descriptor whose block has 1 row", what);
    return false;
  }
  if (xo.kind != TV_TENSOR || xo.rank != 1 || !(xo.ty.dt == TILEC_DTYPE_I32 || xo.ty.dt == TILEC_DTYPE_I16) ||
      tc_ty_is_ptr(xo.ty)) {
    char t[64];
    tv_describe(&xo, t, sizeof t);
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "desc.%s: x offsets must be a 1-D int16 or int32 tensor, got %s", what, t);
    return false;
  }
  tc_ty i64 = tc_ty_make(TILEC_DTYPE_I64);
  int64_t R = xo.shape[0], C = d->shape[1];
  shape[0] = R;
  shape[1] = C;
  int64_t rs[2] = {R, 1}, cs[2] = {1, C};
  tc_val rows = cg_cast(cg, xo, i64, false, loc);
  rows = tv_tensor(tile_build_reshape(&cg->b, rows.v, cg_tensor_type(cg, i64, 2, rs)), i64, 2, rs);
  tc_val cols = tv_tensor(tile_build_range(&cg->b, 0, (int32_t)C), tc_ty_make(TILEC_DTYPE_I32), 1, &C);
  cols = cg_binary(cg, TC_OP_ADD, cg_cast(cg, cols, i64, false, loc), cg_cast(cg, y, i64, false, loc), loc);
  if (cg->err) return false;
  cols = tv_tensor(tile_build_reshape(&cg->b, cols.v, cg_tensor_type(cg, i64, 2, cs)), i64, 2, cs);
  tc_val off = cg_binary(cg, TC_OP_ADD, cg_binary(cg, TC_OP_MUL, rows, d->items[3], loc),
                         cg_binary(cg, TC_OP_MUL, cols, d->items[4], loc), loc);
  tc_val in_r = cg_logical(cg, true, cg_compare(cg, TC_CMP_GE, rows, tv_int(0), loc),
                           cg_compare(cg, TC_CMP_LT, rows, d->items[1], loc), loc);
  tc_val in_c = cg_logical(cg, true, cg_compare(cg, TC_CMP_GE, cols, tv_int(0), loc),
                           cg_compare(cg, TC_CMP_LT, cols, d->items[2], loc), loc);
  *mask = cg_broadcast_to(cg, cg_logical(cg, true, in_r, in_c, loc), 2, shape, loc);
  *ptrs = cg_binary(cg, TC_OP_ADD, cg_broadcast_to(cg, d->items[0], 2, shape, loc),
                    cg_broadcast_to(cg, off, 2, shape, loc), loc);
  return !cg->err;
}

static tc_val atomic(tc_cg *cg, const char *op, tc_val ptrs, tc_val mask, tc_val value, tc_loc loc) {
  tc_val args[2] = {ptrs, value};
  const char *kwn[1] = {"mask"};
  tc_val kwv[1] = {mask};
  tc_callargs ca = {.args = args, .nargs = 2, .kwnames = kwn, .kwargs = kwv, .nkw = mask.kind == TV_TENSOR};
  const cg_builtin *b = cg_builtin_find(op);
  if (!b) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "no builtin %s", op);
  return cg_builtin_call(cg, b, &ca, loc);
}

static bool nargs_are(tc_cg *cg, tc_callargs *a, int n, const char *usage, tc_loc loc) {
  if (a->nargs == n + 1 && !a->nkw) return true;
  cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "desc.%s", usage);
  return false;
}

/* desc.NAME(...) (a->args[0] is the descriptor). */
tc_val cg_tdesc_method(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc) {
  tc_val d = a->args[0];
  tc_val ptrs, mask;
  if (!strcmp(name, "load")) {
    if (!nargs_are(cg, a, 1, "load(offsets) takes 1 argument", loc) ||
        !block_at(cg, &d, &a->args[1], &ptrs, &mask, loc))
      return (tc_val){0};
    return cg_block_load_tile(cg, ptrs, mask, padding_other(cg, &d, loc), loc);
  }
  if (!strcmp(name, "store")) {
    if (!nargs_are(cg, a, 2, "store(offsets, value) takes 2 arguments", loc) ||
        !value_matches(cg, &a->args[2], d.rank, d.shape, "desc.store", loc) ||
        !block_at(cg, &d, &a->args[1], &ptrs, &mask, loc))
      return (tc_val){0};
    cg_block_store_tile(cg, ptrs, mask, a->args[2], loc);
    return tv_none();
  }
  int64_t shape[2];
  if (!strcmp(name, "gather")) {
    if (!nargs_are(cg, a, 2, "gather(x_offsets, y_offset) takes 2 arguments", loc) ||
        !rows_at(cg, &d, a->args[1], a->args[2], &ptrs, &mask, shape, "gather", loc))
      return (tc_val){0};
    return cg_block_load_tile(cg, ptrs, mask, padding_other(cg, &d, loc), loc);
  }
  if (!strcmp(name, "scatter")) {
    if (!nargs_are(cg, a, 3, "scatter(value, x_offsets, y_offset) takes 3 arguments", loc) ||
        !rows_at(cg, &d, a->args[2], a->args[3], &ptrs, &mask, shape, "scatter", loc) ||
        !value_matches(cg, &a->args[1], 2, shape, "desc.scatter", loc))
      return (tc_val){0};
    cg_block_store_tile(cg, ptrs, mask, a->args[1], loc);
    return tv_none();
  }
  if (!strncmp(name, "atomic_", 7)) {
    char usage[96];
    snprintf(usage, sizeof usage, "%s(offsets, value) takes 2 arguments", name);
    if (!nargs_are(cg, a, 2, usage, loc) || !value_matches(cg, &a->args[2], d.rank, d.shape, name, loc) ||
        !block_at(cg, &d, &a->args[1], &ptrs, &mask, loc))
      return (tc_val){0};
    atomic(cg, name, ptrs, mask, cg_broadcast_to(cg, a->args[2], d.rank, d.shape, loc), loc);
    return cg->err ? (tc_val){0} : tv_none();
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tensor descriptor has no method '%s'", name);
}

static tc_val tuple_of(tc_cg *cg, const tc_val *items, int n) {
  tc_val t = {.kind = TV_TUPLE, .nitems = n};
  t.items = items_of(cg, n);
  memcpy(t.items, items, sizeof(tc_val) * (size_t)n);
  return t;
}

tc_val cg_tdesc_attr(tc_cg *cg, const tc_val *d, const char *attr, tc_loc loc) {
  static const char *const methods[] = {"load",       "store",      "gather",     "scatter",   "atomic_add",
                                        "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor"};
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
    if (!strcmp(attr, methods[i])) {
      size_t n = strlen(attr) + 7;
      char *full = cg_alloc(cg, n);
      snprintf(full, n, "tdesc.%s", attr);
      tc_val m = {.kind = TV_METHOD, .name = full};
      m.self = cg_alloc(cg, sizeof(tc_val));
      *m.self = *d;
      return m;
    }
  if (!strcmp(attr, "block_shape")) {
    tc_val b[TC_MAX_RANK];
    for (int i = 0; i < d->rank; i++) b[i] = tv_int(d->shape[i]);
    return tuple_of(cg, b, d->rank);
  }
  if (!strcmp(attr, "shape")) return tuple_of(cg, d->items + 1, d->rank);
  if (!strcmp(attr, "strides")) return tuple_of(cg, d->items + 1 + d->rank, d->rank);
  if (!strcmp(attr, "dtype")) {
    tc_ty e = d->ty;
    e.ptr_depth--;
    e.is_const = false;
    return tv_dtype(e);
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tensor descriptor has no attribute '%s'", attr);
}

static const char *const p_make_tensor_descriptor[] = {"base",        "shape",          "strides",
                                                       "block_shape", "padding_option", NULL};

const cg_builtin cg_builtins_descriptor[] = {
    {"make_tensor_descriptor",
     make_tensor_descriptor,
     {"tl.make_tensor_descriptor", p_make_tensor_descriptor},
     4,
     NULL},
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
