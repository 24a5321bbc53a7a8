/* conversion/eval.c — evaluates pure tile ops at a position: range, splat, broadcast,
 * expand_dims, reshape, arith/math, addptr, constants, and buffered or loop-carried
 * tiles. In: an old tile value and a position. Out: a vector (chunked position) or a
 * scalar, memoized per nest body so each value is computed once per position. */
#include "conversion/lower.h"

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

/* ---- helpers ------------------------------------------------------------------------ */

int tc_shape_of(MlirType t, int64_t *shape) {
  if (!mlirTypeIsAShaped(t)) return 0;
  int r = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < r && i < TC_RANK; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  return r;
}

int64_t tc_numel(int rank, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= shape[i];
  return n;
}

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

MlirValue tc_splat_vec(tc_builder *b, MlirValue s, int64_t width) {
  return tcb_op1(b, "vector.broadcast", tc_vec_type(b->ctx, width, mlirValueGetType(s)), 1, &s, 0, NULL);
}

MlirOperation tc_clone_elementwise(tc_builder *b, MlirOperation op, const MlirValue *operands, MlirType result) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  char buf[96];
  size_t n = name.length < sizeof buf - 1 ? name.length : sizeof buf - 1;
  memcpy(buf, name.data, n);
  buf[n] = 0;
  if (tc_is_guarded_int_op(buf)) return tc_build_guarded_int_op(b, buf, operands[0], operands[1], result);
  intptr_t nattr = mlirOperationGetNumAttributes(op);
  MlirNamedAttribute attrs[16];
  if (nattr > 16) nattr = 16;
  for (intptr_t i = 0; i < nattr; i++) attrs[i] = mlirOperationGetAttribute(op, i);
  return tcb_op(b, buf, 1, &result, mlirOperationGetNumOperands(op), operands, nattr, attrs);
}

static bool is_elementwise(MlirOperation op) {
  return (tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math")) && !tc_op_is(op, "arith.constant") &&
         mlirOperationGetNumResults(op) == 1;
}

bool tc_is_lazy_op(MlirOperation op) {
  if (mlirOperationGetNumResults(op) != 1) return false;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)))) return false;
  if (tile_op_of(op)) return tile_op_has(op, TILE_TRAIT_LAZY);
  return tc_op_in_dialect(op, "arith") || tc_op_in_dialect(op, "math");
}

static MlirAttribute splat_constant(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a)) return mlirDenseElementsAttrGetSplatValue(a);
  if (mlirAttributeIsAInteger(a) || mlirAttributeIsAFloat(a)) return a;
  return mlirAttributeGetNull();
}

static MlirValue iota(tc_builder *b, int64_t width) {
  int32_t vals[64]; /* a chunk has at most 64 lanes (512 bits of i8) */
  if (width > 64) width = 64;
  for (int64_t i = 0; i < width; i++) vals[i] = (int32_t)i;
  MlirType vt = tc_vec_type(b->ctx, width, tcb_int_type(b->ctx, 32));
  MlirAttribute a = mlirDenseElementsAttrInt32Get(vt, width, vals);
  MlirNamedAttribute na = tcb_named(b->ctx, "value", a);
  return tcb_op1(b, "arith.constant", vt, 0, NULL, 1, &na);
}

/* Widens the narrower of two integer values (sign-extending: tile offsets are signed). */
static void widen_pair(tc_builder *b, MlirValue *x, MlirValue *y) {
  unsigned wx = tcb_bitwidth(tcb_element_type(mlirValueGetType(*x)));
  unsigned wy = tcb_bitwidth(tcb_element_type(mlirValueGetType(*y)));
  if (wx == wy) return;
  MlirValue *n = wx < wy ? x : y, *w = wx < wy ? y : x;
  MlirType to = mlirValueGetType(*w);
  if (mlirTypeIsAVector(mlirValueGetType(*n)) != mlirTypeIsAVector(to)) {
    /* scalar + vector never meet here: both sides come from the same position */
    return;
  }
  *n = tcb_cast(b, "arith.extsi", *n, to);
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

/* The int64 addresses of a pointer (tile) value of pointer type ptr_ty: base + offset *
 * sizeof(pointee). */
static MlirValue pointer_address(tc_chunk *c, tc_cval p, MlirType ptr_ty, bool chunked) {
  tc_builder *b = &c->b;
  tc_lower *L = c->L;
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue base = tcb_cast(b, "llvm.ptrtoint", p.base, i64);
  MlirValue addr = chunked ? tc_splat_vec(b, base, c->width) : base;
  if (mlirValueIsNull(p.vec)) return addr;
  int64_t sz = (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(ptr_ty))) + 7) / 8;
  MlirType wt = chunked ? tc_vec_type(L->ctx, c->width, i64) : i64;
  MlirValue off = p.vec;
  if (tcb_bitwidth(tcb_element_type(mlirValueGetType(off))) < 64) off = tcb_cast(b, "arith.extsi", off, wt);
  off = tcb_binary(b, "arith.muli", off, tcb_const_int(b, wt, sz));
  return tcb_binary(b, "arith.addi", addr, off);
}

/* The int64 addresses of pointer tile `old` computed without going through its pointer form
 * when it comes from integers (int_to_ptr, where of such, addptr on such): the pointer form
 * keeps offsets in elements, so an address that is not a multiple of the element size
 * (arbitrary integers cast to pointers and back, as Triton's test_where does) would lose its
 * remainder. Null when `old` is not made that way. */
static MlirValue exact_address(tc_chunk *c, MlirValue old, const tc_pos *pos, int depth) {
  if (depth > 16 || !mlirValueIsAOpResult(old)) return (MlirValue){NULL};
  MlirOperation d = mlirOpResultGetOwner(old);
  tc_builder *b = &c->b;
  if (tile_op_of(d) == TILE_INT_TO_PTR) {
    MlirValue v = tc_eval(c, mlirOperationGetOperand(d, 0), pos).vec;
    if (c->L->status || mlirValueIsNull(v)) return (MlirValue){NULL};
    MlirType i64 = tcb_int_type(c->L->ctx, 64);
    MlirType wt = pos->chunked ? tc_vec_type(c->L->ctx, c->width, i64) : i64;
    if (tcb_bitwidth(tcb_element_type(mlirValueGetType(v))) < 64) v = tcb_cast(b, "arith.extsi", v, wt);
    return v;
  }
  if (tc_op_is(d, "arith.select")) {
    MlirValue t = exact_address(c, mlirOperationGetOperand(d, 1), pos, depth + 1);
    MlirValue f = mlirValueIsNull(t) ? t : exact_address(c, mlirOperationGetOperand(d, 2), pos, depth + 1);
    if (mlirValueIsNull(f)) return f;
    tc_cval cv = tc_eval(c, mlirOperationGetOperand(d, 0), pos);
    return c->L->status ? (MlirValue){NULL} : tcb_select(b, cv.vec, t, f);
  }
  return (MlirValue){NULL};
}

/* A pointer (tile) from int64 addresses: the first lane's address becomes the base pointer
 * and the lanes are element offsets from it. A null base with the whole address as the
 * offset would be arithmetic on null, which LLVM may treat as undefined (the -O1
 * reference build folded such a kernel to 'unreachable'). */
static tc_cval address_to_pointer(tc_chunk *c, MlirValue addr, MlirType elem, bool chunked) {
  tc_builder *b = &c->b;
  tc_lower *L = c->L;
  MlirType i64 = tcb_int_type(L->ctx, 64);
  int64_t sz = (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(elem))) + 7) / 8;
  MlirValue first = addr;
  if (chunked) {
    int64_t zero = 0;
    MlirNamedAttribute a = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &zero));
    first = tcb_op1(b, "vector.extract", i64, 1, &addr, 1, &a);
  }
  tc_cval r = {0};
  r.is_ptr = true;
  r.base = tcb_cast(b, "llvm.inttoptr", first, tcb_type(L->ctx, "!llvm.ptr"));
  MlirValue rel = tcb_binary(b, "arith.subi", addr, chunked ? tc_splat_vec(b, first, c->width) : first);
  r.vec = tcb_binary(b, "arith.divsi", rel, tcb_const_int(b, mlirValueGetType(rel), sz));
  return r;
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
                         pos->chunked ? tcb_const_int(&c->b, tc_vec_type(L->ctx, c->width, tcb_int_type(L->ctx, 64)),
                                                      (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(elem))) + 7) / 8)
                                      : tcb_const_int(&c->b, tcb_int_type(L->ctx, 64),
                                                      (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(elem))) + 7) / 8));
    } else {
      r.vec = tc_buffer_read(c, sp->buffer, elem, pos, shape);
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

static tc_cval eval_op(tc_chunk *c, MlirValue old, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirOperation op = mlirOpResultGetOwner(old);
  MlirLocation saved = b->loc;
  b->loc = mlirOperationGetLocation(op);
  MlirType t = mlirValueGetType(old);
  MlirType elem = mlirShapedTypeGetElementType(t);
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(t, shape);
  tile_op_id k = tile_op_of(op);
  MlirType i32 = tcb_int_type(L->ctx, 32);
  if (k && k == TILE_RANGE) {
    MlirValue s = tcb_const_int(b, i32, tile_int_attr(op, "start", 0));
    MlirValue first = tcb_binary(b, "arith.addi", tcb_cast(b, "arith.index_cast", pos->idx[0], i32), s);
    r.vec = pos->chunked ? tcb_binary(b, "arith.addi", tc_splat_vec(b, first, c->width), iota(b, c->width)) : first;
  } else if (k && (k == TILE_SPLAT || k == TILE_HINT)) {
    r = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
  } else if (k && (k == TILE_BROADCAST || k == TILE_EXPAND_DIMS || k == TILE_RESHAPE)) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    int64_t sshape[TC_RANK];
    int srank = tc_shape_of(mlirValueGetType(src), sshape);
    tc_pos sp = {.rank = srank};
    bool last_kept = false; /* does the result's last dim come from the source's last dim? */
    bool ok = true;
    if (k == TILE_BROADCAST) {
      for (int d = 0; d < srank; d++) sp.idx[d] = sshape[d] == 1 && shape[d] != 1 ? tcb_const_index(b, 0) : pos->idx[d];
      last_kept = !(sshape[srank - 1] == 1 && shape[rank - 1] != 1);
    } else {
      /* expand_dims and reshape that only add or drop unit dims map indices directly. */
      int64_t ns[TC_RANK], nr = 0, rs[TC_RANK], nrr = 0;
      for (int d = 0; d < srank; d++)
        if (sshape[d] != 1) ns[nr++] = sshape[d];
      for (int d = 0; d < rank; d++)
        if (shape[d] != 1) rs[nrr++] = shape[d];
      ok = nr == nrr;
      for (int d = 0; ok && d < nr; d++) ok = ns[d] == rs[d];
      /* Same rule as the driver (lower.c): a chunk of the result's last dim must be a chunk
       * of the source's last dim, else the reshape reads the materialized source. */
      if (ok && k == TILE_RESHAPE && !(shape[rank - 1] == 1 || sshape[srank - 1] != 1)) ok = false;
      if (ok) {
        MlirValue nz[TC_RANK];
        int n = 0;
        for (int d = 0; d < rank; d++)
          if (shape[d] != 1) nz[n++] = pos->idx[d];
        n = 0;
        for (int d = 0; d < srank; d++) sp.idx[d] = sshape[d] != 1 ? nz[n++] : tcb_const_index(b, 0);
        /* The chunk stays contiguous if the last non-unit dim is last in both shapes. */
        last_kept = shape[rank - 1] != 1 && sshape[srank - 1] != 1;
        if (shape[rank - 1] == 1 && sshape[srank - 1] == 1) last_kept = true;
      }
    }
    if (!ok) {
      /* A general reshape: row-major order is kept, so read the flat buffer. */
      tc_special *s = tc_special_of(L, src);
      MlirValue buf = s && s->kind == TC_SPECIAL_BUFFER ? s->buffer : (MlirValue){NULL};
      if (mlirValueIsNull(buf)) {
        tc_fail(L, op, TILEC_ERROR_INTERNAL, "reshape source was not materialized");
        b->loc = saved;
        return r;
      }
      r.vec = tc_buffer_read(c, buf, elem, pos, shape);
    } else if (pos->chunked && !last_kept) {
      sp.chunked = false;
      tc_cval s = tc_eval(c, src, &sp);
      r = s;
      if (!s.is_ptr) r.vec = tc_splat_vec(b, s.vec, c->width);
      else if (!mlirValueIsNull(s.vec)) r.vec = tc_splat_vec(b, s.vec, c->width);
    } else {
      sp.chunked = pos->chunked;
      r = tc_eval(c, src, &sp);
    }
  } else if (k && k == TILE_ADDPTR) {
    tc_cval p = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
    tc_cval o = tc_eval(c, mlirOperationGetOperand(op, 1), pos);
    r = p;
    if (mlirValueIsNull(p.vec)) {
      r.vec = o.vec;
    } else {
      MlirValue x = p.vec, y = o.vec;
      widen_pair(b, &x, &y);
      r.vec = tcb_binary(b, "arith.addi", x, y);
    }
  } else if (k && k == TILE_LOAD) {
    r = tc_eval_load(c, op, pos);
  } else if (k && k == TILE_TRANS) {
    /* out[i..] = src[perm^-1 ...]: read the materialized source at the permuted index. */
    MlirValue src = mlirOperationGetOperand(op, 0);
    tc_special *s = tc_special_of(L, src);
    int64_t sshape[TC_RANK];
    int srank = tc_shape_of(mlirValueGetType(src), sshape);
    MlirAttribute order = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("order"));
    if (!s || s->kind != TC_SPECIAL_BUFFER || mlirAttributeIsNull(order)) {
      tc_fail(L, op, TILEC_ERROR_INTERNAL, "trans source was not materialized");
      b->loc = saved;
      return r;
    }
    /* result dim d is source dim order[d] */
    tc_pos spos = {.rank = srank};
    int last_src = -1;
    for (int d = 0; d < rank; d++) {
      int sd = (int)mlirDenseI32ArrayGetElement(order, d);
      spos.idx[sd] = pos->idx[d];
      if (d == rank - 1) last_src = sd;
    }
    MlirType mem = tc_memory_type(L->ctx, elem);
    if (!pos->chunked || last_src == srank - 1) {
      spos.chunked = pos->chunked;
      r.vec = tc_buffer_read(c, s->buffer, elem, &spos, sshape);
    } else {
      spos.chunked = false;
      MlirValue lin = tc_linear_index(b, &spos, sshape);
      int64_t stride = 1;
      for (int d = srank - 1; d > last_src; d--) stride *= sshape[d];
      MlirValue idx = tcb_binary(b, "arith.muli", iota(b, c->width),
                                 tcb_const_int(b, tc_vec_type(L->ctx, c->width, i32), stride));
      MlirValue ops[5] = {s->buffer, lin, idx, tcb_const_int(b, tc_vec_type(L->ctx, c->width, tcb_int_type(L->ctx, 1)), 1),
                          tcb_is_float(mem) ? tcb_const_float(b, tc_vec_type(L->ctx, c->width, mem), 0)
                                            : tcb_const_int(b, tc_vec_type(L->ctx, c->width, mem), 0)};
      r.vec = tcb_op1(b, "vector.gather", tc_vec_type(L->ctx, c->width, mem), 5, ops, 0, NULL);
      if (!mlirTypeEqual(mem, elem)) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, mlirValueGetType(r.vec), 0));
    }
  } else if (k && k == TILE_GATHER) {
    /* out[pos] = src[pos with dim axis replaced by index[pos]] from the materialized src */
    MlirValue src = mlirOperationGetOperand(op, 0);
    tc_special *s = tc_special_of(L, src);
    int64_t sshape[TC_RANK];
    tc_shape_of(mlirValueGetType(src), sshape);
    int axis = (int)tile_int_attr(op, "axis", 0);
    if (!s || s->kind != TC_SPECIAL_BUFFER) {
      tc_fail(L, op, TILEC_ERROR_INTERNAL, "gather source was not materialized");
      b->loc = saved;
      return r;
    }
    MlirValue idx = tc_eval(c, mlirOperationGetOperand(op, 1), pos).vec;
    if (L->status) {
      b->loc = saved;
      return r;
    }
    tc_pos base = *pos;
    base.chunked = false;
    base.idx[axis] = tcb_const_index(b, 0);
    MlirValue lin = tc_linear_index(b, &base, sshape); /* element (.., 0, ..) of the chunk's first lane */
    int64_t stride = 1;
    for (int d = rank - 1; d > axis; d--) stride *= sshape[d];
    MlirType mem = tc_memory_type(L->ctx, elem);
    if (pos->chunked) {
      MlirType vi = tc_vec_type(L->ctx, c->width, i32);
      MlirValue off = tcb_binary(b, "arith.muli", idx, tcb_const_int(b, vi, stride));
      if (axis != rank - 1) off = tcb_binary(b, "arith.addi", off, iota(b, c->width));
      MlirValue ops[5] = {s->buffer, lin, off, tcb_const_int(b, tc_vec_type(L->ctx, c->width, tcb_int_type(L->ctx, 1)), 1),
                          tcb_is_float(mem) ? tcb_const_float(b, tc_vec_type(L->ctx, c->width, mem), 0)
                                            : tcb_const_int(b, tc_vec_type(L->ctx, c->width, mem), 0)};
      r.vec = tcb_op1(b, "vector.gather", tc_vec_type(L->ctx, c->width, mem), 5, ops, 0, NULL);
    } else {
      MlirValue off = tcb_cast(b, "arith.index_cast", tcb_binary(b, "arith.muli", idx, tcb_const_int(b, i32, stride)),
                               tcb_index(L->ctx));
      MlirValue ops[2] = {s->buffer, tcb_binary(b, "arith.addi", lin, off)};
      r.vec = tcb_op1(b, "memref.load", mem, 2, ops, 0, NULL);
    }
    if (!mlirTypeEqual(mem, elem)) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, mlirValueGetType(r.vec), 0));
  } else if (tc_op_is(op, "arith.constant")) {
    MlirAttribute a = splat_constant(op);
    if (mlirAttributeIsNull(a)) {
      tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "non-splat tile constants are not supported");
      b->loc = saved;
      return r;
    }
    MlirType st = pos->chunked ? tc_vec_type(L->ctx, c->width, elem) : elem;
    MlirAttribute v = pos->chunked ? mlirDenseElementsAttrSplatGet(st, a) : a;
    MlirNamedAttribute na = tcb_named(L->ctx, "value", v);
    r.vec = tcb_op1(b, "arith.constant", st, 0, NULL, 1, &na);
  } else if (k && (k == TILE_PTR_TO_INT || k == TILE_INT_TO_PTR || k == TILE_BITCAST)) {
    bool from_ptr = k == TILE_PTR_TO_INT || (k == TILE_BITCAST && tile_type_is_ptr(elem));
    MlirValue exact = from_ptr ? exact_address(c, mlirOperationGetOperand(op, 0), pos, 0) : (MlirValue){NULL};
    tc_cval s = {0};
    if (mlirValueIsNull(exact)) s = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
    if (L->status) {
      b->loc = saved;
      return r;
    }
    MlirType sel = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetOperand(op, 0)));
    if (from_ptr) {
      MlirValue addr = mlirValueIsNull(exact) ? pointer_address(c, s, sel, pos->chunked) : exact;
      if (k == TILE_PTR_TO_INT) {
        r.vec = addr;
      } else {
        r = address_to_pointer(c, addr, elem, pos->chunked);
      }
    } else if (k == TILE_INT_TO_PTR) {
      r = address_to_pointer(c, s.vec, elem, pos->chunked);
    } else {
      MlirType to = pos->chunked ? tc_vec_type(L->ctx, c->width, elem) : elem;
      r.vec = tcb_cast(b, "arith.bitcast", s.vec, to);
    }
  } else if (tc_op_is(op, "arith.select") && tile_type_is_ptr(elem)) {
    /* tl.where on pointer tiles: select the addresses, then point at the chosen ones */
    tc_cval cv = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
    tc_cval tv = tc_eval(c, mlirOperationGetOperand(op, 1), pos);
    tc_cval fv = tc_eval(c, mlirOperationGetOperand(op, 2), pos);
    if (L->status) {
      b->loc = saved;
      return r;
    }
    MlirValue ta = exact_address(c, mlirOperationGetOperand(op, 1), pos, 0);
    MlirValue fa = exact_address(c, mlirOperationGetOperand(op, 2), pos, 0);
    MlirValue addr = tcb_select(b, cv.vec, mlirValueIsNull(ta) ? pointer_address(c, tv, elem, pos->chunked) : ta,
                                mlirValueIsNull(fa) ? pointer_address(c, fv, elem, pos->chunked) : fa);
    r = address_to_pointer(c, addr, elem, pos->chunked);
  } else if (is_elementwise(op)) {
    intptr_t n = mlirOperationGetNumOperands(op);
    MlirValue ops[4];
    if (n > 4) {
      tc_fail(L, op, TILEC_ERROR_INTERNAL, "too many operands");
      b->loc = saved;
      return r;
    }
    for (intptr_t i = 0; i < n; i++) {
      tc_cval v = tc_eval(c, mlirOperationGetOperand(op, i), pos);
      if (L->status) {
        b->loc = saved;
        return r;
      }
      if (v.is_ptr) {
        tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "arithmetic on pointer tiles is not supported");
        b->loc = saved;
        return r;
      }
      ops[i] = v.vec;
    }
    MlirType rt = pos->chunked ? tc_vec_type(L->ctx, c->width, elem) : elem;
    r.vec = mlirOperationGetResult(tc_clone_elementwise(b, op, ops, rt), 0);
  } else {
    MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
    tc_fail(L, op, TILEC_ERROR_UNSUPPORTED, "'%.*s' on tiles is not supported by the lowering yet", (int)nm.length,
            nm.data);
  }
  b->loc = saved;
  return r;
}
