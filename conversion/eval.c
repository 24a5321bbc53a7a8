/* conversion/eval.c — evaluates pure tile ops at a position: range, splat, broadcast,
 * expand_dims, reshape, arith/math, addptr, constants, and buffered or loop-carried
 * tiles. In: an old tile value and a position. Out: a vector (chunked position) or a
 * scalar, memoized per nest body so each value is computed once per position. */
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- memo keyed by (value, position) ------------------------------------------------- */

static uint64_t memo_hash(const void *v, const tc_pos *p) {
  uint64_t h = (uint64_t)(uintptr_t)v * 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < p->rank; i++) h = (h ^ (uint64_t)(uintptr_t)p->idx[i].ptr) * 0xff51afd7ed558ccdULL;
  return h ^ (uint64_t)p->chunked ^ ((uint64_t)p->rank << 8);
}

static bool memo_match(const tc_memo_entry *e, const void *v, const tc_pos *p) {
  if (e->v != v || e->rank != p->rank || e->chunked != (int)p->chunked) return false;
  for (int i = 0; i < p->rank; i++)
    if (e->idx[i] != p->idx[i].ptr) return false;
  return true;
}

static tc_cval *memo_get(tc_memo *m, const void *v, const tc_pos *p) {
  if (!m->nslots) return NULL;
  for (size_t i = memo_hash(v, p) & (m->nslots - 1);; i = (i + 1) & (m->nslots - 1)) {
    if (!m->slots[i].v) return NULL;
    if (memo_match(&m->slots[i], v, p)) return &m->slots[i].val;
  }
}

static void memo_put(tc_memo *m, const void *v, const tc_pos *p, tc_cval val) {
  if ((m->count + 1) * 2 > m->nslots) {
    size_t n = m->nslots ? m->nslots * 2 : 128;
    tc_memo_entry *s = calloc(n, sizeof *s);
    if (!s) return;
    for (size_t i = 0; i < m->nslots; i++) {
      if (!m->slots[i].v) continue;
      tc_pos q = {.rank = m->slots[i].rank, .chunked = m->slots[i].chunked};
      for (int d = 0; d < q.rank; d++) q.idx[d].ptr = (void *)m->slots[i].idx[d];
      size_t j = memo_hash(m->slots[i].v, &q) & (n - 1);
      while (s[j].v) j = (j + 1) & (n - 1);
      s[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = s;
    m->nslots = n;
  }
  size_t i = memo_hash(v, p) & (m->nslots - 1);
  while (m->slots[i].v) i = (i + 1) & (m->nslots - 1);
  m->slots[i].v = v;
  m->slots[i].rank = p->rank;
  m->slots[i].chunked = p->chunked;
  for (int d = 0; d < p->rank; d++) m->slots[i].idx[d] = p->idx[d].ptr;
  m->slots[i].val = val;
  m->count++;
}

void tc_chunk_init(tc_chunk *c, tc_lower *L, MlirBlock block, int64_t width) {
  memset(c, 0, sizeof *c);
  c->L = L;
  tcb_init(&c->b, L->ctx);
  c->b.loc = L->b.loc;
  tcb_set_end(&c->b, block);
  c->width = width;
}

void tc_chunk_free(tc_chunk *c) { free(c->memo.slots); }

void tc_chunk_bind(tc_chunk *c, MlirValue old, const tc_pos *pos, tc_cval v) { memo_put(&c->memo, old.ptr, pos, v); }

/* ---- positions ---------------------------------------------------------------------- */

tc_pos tc_pos_with(const tc_pos *p, bool chunked) {
  tc_pos q = *p;
  q.chunked = chunked;
  return q;
}

bool tc_pos_equal(const tc_pos *a, const tc_pos *b) {
  if (a->rank != b->rank || a->chunked != b->chunked) return false;
  for (int i = 0; i < a->rank; i++)
    if (!mlirValueEqual(a->idx[i], b->idx[i])) return false;
  return true;
}

MlirValue tc_linear_index(tc_builder *b, const tc_pos *pos, const int64_t *shape) {
  MlirValue acc = {NULL};
  int64_t stride = 1;
  for (int d = pos->rank - 1; d >= 0; d--) {
    MlirValue term = pos->idx[d];
    if (stride != 1) term = tcb_binary(b, "arith.muli", term, tcb_const_index(b, stride));
    acc = mlirValueIsNull(acc) ? term : tcb_binary(b, "arith.addi", acc, term);
    stride *= shape[d];
  }
  return mlirValueIsNull(acc) ? tcb_const_index(b, 0) : acc;
}

static bool is_elementwise(MlirOperation op) {
  return (tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math")) && !tc_op_is(op, "arith.constant") &&
         mlirOperationGetNumResults(op) == 1;
}

static MlirAttribute splat_constant(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a)) return mlirDenseElementsAttrGetSplatValue(a);
  if (mlirAttributeIsAInteger(a) || mlirAttributeIsAFloat(a)) return a;
  return mlirAttributeGetNull();
}

/* Adds a scalar delta to a value at pos (vector or scalar), widening as needed. */
static MlirValue add_delta(tc_chunk *c, MlirValue v, MlirValue delta, bool chunked) {
  tc_builder *b = &c->b;
  MlirType et = tcb_element_type(mlirValueGetType(v));
  MlirType dt = mlirValueGetType(delta);
  if (tcb_bitwidth(dt) < tcb_bitwidth(et)) delta = tcb_cast(b, "arith.extsi", delta, et);
  else if (tcb_bitwidth(dt) > tcb_bitwidth(et)) {
    MlirType wide = chunked ? tc_vec_type(c->L->ctx, c->width, dt) : dt;
    v = tcb_cast(b, "arith.extsi", v, wide);
  }
  MlirValue d = chunked ? tc_splat_vec(b, delta, c->width) : delta;
  return tcb_binary(b, "arith.addi", v, d);
}

static tc_cval eval_op(tc_chunk *c, MlirValue old, const tc_pos *pos);

MlirValue tc_eval_chunk_at(tc_lower *L, tc_builder *b, MlirValue v, const tc_pos *pos, int64_t w) {
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, w);
  c.b = *b;
  c.root = *pos;
  tc_cval r = tc_eval(&c, v, pos);
  *b = c.b;
  tc_chunk_free(&c);
  return r.vec;
}

tc_cval tc_eval(tc_chunk *c, MlirValue old, const tc_pos *pos) {
  tc_cval r = {0};
  tc_lower *L = c->L;
  if (L->status) return r;
  MlirType t = mlirValueGetType(old);
  if (!mlirTypeIsARankedTensor(t)) {
    MlirValue s = tc_scalar(L, old);
    if (tile_type_is_ptr(t)) {
      r.is_ptr = true;
      r.base = s;
    } else {
      r.vec = pos->chunked ? tc_splat_vec(&c->b, s, c->width) : s;
    }
    return r;
  }
  tc_cval *m = memo_get(&c->memo, old.ptr, pos);
  if (m) return *m;
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(t, shape);
  MlirType elem = mlirShapedTypeGetElementType(t);
  MlirValue known;
  if (tcb_bitwidth(elem) == 1 && pos->chunked && tc_chunk_bound_mask(c, old, pos, &known)) {
    /* `tl.where(cols < N, ...)` inside a nest bounded by `cols < N` */
    r.vec = !mlirValueIsNull(known) ? known : tcb_const_int(&c->b, tc_vec_type(L->ctx, c->width, elem), 1);
    memo_put(&c->memo, old.ptr, pos, r);
    return r;
  }
  tc_special *sp = tc_special_of(L, old);
  if (sp && sp->kind == TC_SPECIAL_BUFFER) {
    if (tile_type_is_ptr(elem)) {
      /* Pointer tiles in memory are stored as raw addresses. */
      MlirValue a = tc_buffer_read(c, sp->buffer, tcb_int_type(L->ctx, 64), pos, shape);
      r.is_ptr = true;
      r.base = tcb_op1(&c->b, "llvm.mlir.zero", tcb_type(L->ctx, "!llvm.ptr"), 0, NULL, 0, NULL);
      r.vec = a; /* byte addresses: memory.c scales by the element size when base is null */
      r.vec = tcb_binary(&c->b, "arith.divsi", a,
                         pos->chunked
                             ? tcb_const_int(&c->b, tc_vec_type(L->ctx, c->width, tcb_int_type(L->ctx, 64)),
                                             (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(elem))) + 7) / 8)
                             : tcb_const_int(&c->b, tcb_int_type(L->ctx, 64),
                                             (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(elem))) + 7) / 8));
    } else {
      MlirValue m = mlirValueIsNull(sp->mask) ? sp->mask : tc_chunk_mask(c, sp->mask, pos);
      r.vec = tc_buffer_read_masked(c, sp->buffer, elem, pos, shape, m);
    }
  } else if (sp && sp->kind == TC_SPECIAL_AFFINE) {
    tc_cval base = tc_eval(c, sp->init, pos);
    if (L->status) return r;
    r = base;
    if (base.is_ptr) {
      if (mlirValueIsNull(base.vec)) {
        MlirValue d = sp->delta;
        r.vec = pos->chunked ? tc_splat_vec(&c->b, d, c->width) : d;
      } else {
        r.vec = add_delta(c, base.vec, sp->delta, pos->chunked);
      }
    } else {
      r.vec = add_delta(c, base.vec, sp->delta, pos->chunked);
    }
  } else if (mlirValueIsABlockArgument(old)) {
    tc_fail(L, (MlirOperation){NULL}, TILEC_ERROR_INTERNAL, "a tile block argument has no lowering");
    return r;
  } else {
    r = eval_op(c, old, pos);
  }
  (void)rank;
  if (L->status) return r;
  memo_put(&c->memo, old.ptr, pos, r);
  return r;
}

/* Does the axis analysis prove runs of w (a multiple of them) along v's last dimension:
 * consecutive values (`contiguous`) or equal ones? A scalar is uniform. Proven, not promised
 * (tl.max_contiguous of `rm % M` wraps inside a run: two lanes then equal a value). */
static bool runs_of(tc_lower *L, MlirValue v, int64_t w, bool contiguous) {
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) return !contiguous;
  tc_axis ax = tc_axis_of(&L->axis_proven, v);
  if (ax.rank < 1) return false;
  int64_t run = contiguous ? ax.contiguity[ax.rank - 1] : ax.constancy[ax.rank - 1];
  return run >= w && run % w == 0;
}

/* arith.cmpi eq / ne at a chunked position of a tile whose lanes there are consecutive
 * (x0, x0 + 1, ..., maybe through one extsi / extui) against one whose lanes are equal (t):
 * lane k holds when t - x0 == k, one scalar difference compared with the lane numbers
 * (cross entropy's `cols == target`: no tile of lane values per chunk kept in registers
 * across the loop, 8 of them a trip on nvptx). Exact in wrapping arithmetic: x0 + k wraps as
 * the lanes do, and ext(a) == t iff t == ext(trunc(t)) and trunc(t) == a. Null when the
 * operands are not of this form. */
static MlirValue cmp_consecutive(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  int64_t w = c->width;
  MlirAttribute pa = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("predicate"));
  if (!pos->chunked || w < 2 || w > 64 || !tc_op_is(op, "arith.cmpi") || mlirAttributeIsNull(pa) ||
      !mlirAttributeIsAInteger(pa) || mlirIntegerAttrGetValueInt(pa) > 1)
    return (MlirValue){NULL};
  bool eq = mlirIntegerAttrGetValueInt(pa) == 0;
  for (int s = 0; s < 2; s++) {
    MlirValue x = mlirOperationGetOperand(op, s), t = mlirOperationGetOperand(op, 1 - s);
    const char *ext = NULL;
    if (mlirValueIsAOpResult(x) && mlirTypeIsARankedTensor(mlirValueGetType(x))) {
      MlirOperation d = mlirOpResultGetOwner(x);
      if (tc_op_is(d, "arith.extsi") || tc_op_is(d, "arith.extui")) {
        ext = tc_op_is(d, "arith.extsi") ? "arith.extsi" : "arith.extui";
        x = mlirOperationGetOperand(d, 0);
      }
    }
    MlirType nt = tcb_element_type(mlirValueGetType(x)), mt = tcb_element_type(mlirValueGetType(t));
    unsigned nbits = tcb_bitwidth(nt), mbits = tcb_bitwidth(mt);
    if (!tcb_is_int(nt) || !tcb_is_int(mt) || nbits < 8 || nbits > 64 || (ext ? mbits <= nbits : mbits != nbits) ||
        !runs_of(L, x, w, true) || !runs_of(L, t, w, false))
      continue;
    tc_cval xv = tc_eval(c, x, pos), tv = tc_eval(c, t, pos);
    if (L->status || xv.is_ptr || tv.is_ptr || mlirValueIsNull(xv.vec) || mlirValueIsNull(tv.vec))
      return (MlirValue){NULL};
    MlirValue t0 = mlirTypeIsAVector(mlirValueGetType(tv.vec)) ? tc_vec_lane(b, tv.vec, 0) : tv.vec, tn = t0;
    MlirValue fits = {NULL};
    if (ext) {
      tn = tcb_cast(b, "arith.trunci", t0, nt);
      fits = tcb_cmpi(b, "eq", tcb_cast(b, ext, tn, mt), t0);
    }
    MlirValue d = tcb_binary(b, "arith.subi", tn, tc_vec_lane(b, xv.vec, 0));
    MlirValue hit = tcb_cmpi(b, "ult", d, tcb_const_int(b, nt, w));
    if (ext) hit = tcb_binary(b, "arith.andi", hit, fits);
    MlirType i32 = tcb_int_type(L->ctx, 32);
    MlirValue d32 = nbits > 32   ? tcb_cast(b, "arith.trunci", d, i32)
                    : nbits < 32 ? tcb_cast(b, "arith.extui", d, i32)
                                 : d;
    MlirValue e = tcb_select(b, hit, d32, tcb_const_int(b, i32, w));
    return tcb_cmpi(b, eq ? "eq" : "ne", tc_iota(b, w), tc_splat_vec(b, e, w));
  }
  return (MlirValue){NULL};
}

/* arith/math on tiles: the op cloned on its operands' values at the position. */
static tc_cval eval_elementwise(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_cval r = {0};
  r.vec = cmp_consecutive(c, op, pos);
  if (L->status || !mlirValueIsNull(r.vec)) return r;
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue ops[4];
  if (n > 4) {
    tc_fail(L, op, TILEC_ERROR_INTERNAL, "too many operands");
    return r;
  }
  for (intptr_t i = 0; i < n; i++) {
    tc_cval v = tc_eval(c, mlirOperationGetOperand(op, i), pos);
    if (L->status) return r;
    if (v.is_ptr) {
      tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "arithmetic on pointer tiles is not supported");
      return r;
    }
    ops[i] = v.vec;
  }
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(op, 0)));
  MlirType rt = pos->chunked ? tc_vec_type(L->ctx, c->width, elem) : elem;
  r.vec = mlirOperationGetResult(tc_clone_elementwise(&c->b, op, ops, rt), 0);
  return r;
}

static tc_cval eval_op(tc_chunk *c, MlirValue old, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirOperation op = mlirOpResultGetOwner(old);
  MlirLocation saved = b->loc;
  b->loc = mlirOperationGetLocation(op);
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(old));
  const tc_op_lowering *row = tc_op_lowering_of(L, op);
  if (row && row->eval) {
    r = row->eval(c, op, pos);
  } else if (row) {
    /* a root's result read before its nest was emitted: a bug of the lowering's ordering */
    tc_fail(L, op, TILEC_ERROR_INTERNAL, "internal error: the result of %s was read before it was computed",
            tc_op_user_name(op));
  } else if (tc_op_is(op, "arith.constant")) {
    MlirAttribute a = splat_constant(op);
    if (mlirAttributeIsNull(a)) {
      tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "non-splat tile constants are not supported");
    } else {
      MlirType st = pos->chunked ? tc_vec_type(L->ctx, c->width, elem) : elem;
      MlirAttribute v = pos->chunked ? mlirDenseElementsAttrSplatGet(st, a) : a;
      MlirNamedAttribute na = tcb_named(L->ctx, "value", v);
      r.vec = tcb_op1(b, "arith.constant", st, 0, NULL, 1, &na);
    }
  } else if (tc_op_is(op, "arith.select") && tile_type_is_ptr(elem)) {
    r = tc_eval_pointer_select(c, op, pos); /* tl.where on pointer tiles (pointers.c) */
  } else if (is_elementwise(op)) {
    r = eval_elementwise(c, op, pos);
  } else {
    MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "'%.*s' on tiles is not supported by the lowering yet", (int)nm.length,
            nm.data);
  }
  b->loc = saved;
  return r;
}

/* ---- rows of the op table (op_table.c) ---------------------------------------------- */

tc_cval tc_eval_range(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_builder *b = &c->b;
  MlirType i32 = tcb_int_type(c->L->ctx, 32);
  tc_cval r = {0};
  MlirValue s = tcb_const_int(b, i32, tile_int_attr(op, "start", 0));
  MlirValue first = tcb_binary(b, "arith.addi", tcb_cast(b, "arith.index_cast", pos->idx[0], i32), s);
  r.vec = pos->chunked ? tcb_binary(b, "arith.addi", tc_splat_vec(b, first, c->width), tc_iota(b, c->width)) : first;
  return r;
}

/* splat, hint: the operand at the same position (a scalar operand is splat by tc_eval). */
tc_cval tc_eval_operand(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  return tc_eval(c, mlirOperationGetOperand(op, 0), pos);
}

/* hint on a scalar: the value itself. */
void tc_lower_forward(tc_lower *L, MlirOperation op) {
  tc_map_scalar(L, mlirOperationGetResult(op, 0), tc_scalar(L, mlirOperationGetOperand(op, 0)));
}
