/* conversion/shape_ops.c — the shape family: broadcast, expand_dims, reshape, trans and
 * gather. At a position each reads its source at the position it maps to: broadcast,
 * expand_dims and reshapes that keep the last dim's chunks read the source lazily; trans,
 * gather and other reshapes are roots whose source is first materialized (a flat buffer
 * in row-major order) and then read at the permuted / gathered / flattened index.
 * In: the old op and a position. Out: the new value (tc_cval). */
#include "backend/backend.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

void tc_lower_reshape(tc_lower *L, MlirOperation op) {
  if (!tc_reshape_is_unit(op)) tc_lower_grouped(L, op); /* else evaluated where consumed */
}

/* A chunk of a flat buffer of `mem` elements: lane i is buf[base + offs[i]]. */
static MlirValue gather_lanes(tc_chunk *c, MlirValue buf, MlirValue base, MlirValue offs, MlirType mem) {
  tc_builder *b = &c->b;
  MlirType vt = tc_vec_type(c->L->ctx, c->width, mem);
  MlirValue ops[5] = {buf, base, offs,
                      tcb_const_int(b, tc_vec_type(c->L->ctx, c->width, tcb_int_type(c->L->ctx, 1)), 1),
                      tcb_is_float(mem) ? tcb_const_float(b, vt, 0) : tcb_const_int(b, vt, 0)};
  return tcb_op1(b, "vector.gather", vt, 5, ops, 0, NULL);
}

/* broadcast, expand_dims, reshape: the source at the mapped position. */
tc_cval tc_eval_moved(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirValue old = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(old);
  MlirType elem = mlirShapedTypeGetElementType(t);
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(t, shape);
  tile_op_id k = tile_op_of(op);
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
      tc_fail(L, op, TILEC_ERROR_INTERNAL, "internal error: the source of tl.reshape was read before it was computed");
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
  return r;
}

/* trans: out[i..] = src[perm^-1 ...] from the materialized source. */
tc_cval tc_eval_trans(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirValue old = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(old);
  MlirType elem = mlirShapedTypeGetElementType(t);
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(t, shape);
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue src = mlirOperationGetOperand(op, 0);
  tc_special *s = tc_special_of(L, src);
  int64_t sshape[TC_RANK];
  int srank = tc_shape_of(mlirValueGetType(src), sshape);
  MlirAttribute order = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("order"));
  if (!s || s->kind != TC_SPECIAL_BUFFER || mlirAttributeIsNull(order)) {
    tc_fail(L, op, TILEC_ERROR_INTERNAL, "internal error: the source of tl.trans was read before it was computed");
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
    MlirValue idx =
        tcb_binary(b, "arith.muli", tc_iota(b, c->width), tcb_const_int(b, tc_vec_type(L->ctx, c->width, i32), stride));
    r.vec = gather_lanes(c, s->buffer, lin, idx, mem);
    if (!mlirTypeEqual(mem, elem)) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, mlirValueGetType(r.vec), 0));
  }
  return r;
}

/* ---- trans in square blocks (backends that transpose in registers) ---------------- */

/* The side of the square blocks op's transpose is written in: the lanes of a chunk (fewer
 * for elements wider than 32 bits), halved until it divides the last two dims; 0 where
 * op does not swap exactly the last two dims, the elements are pointers, or a block would
 * be narrower than 4. *outer is the product of the leading dims, *rows x *cols the
 * source's last two. */
static int64_t transpose_block(tc_lower *L, MlirOperation op, int64_t *outer, int64_t *rows, int64_t *cols) {
  if (!L->backend->transpose_in_registers) return 0; /* a one-thread program: never redundant */
  MlirValue src = mlirOperationGetOperand(op, 0);
  int64_t s[TC_RANK];
  int r = tc_shape_of(mlirValueGetType(src), s);
  MlirAttribute order = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("order"));
  if (r < 2 || mlirAttributeIsNull(order) || mlirDenseArrayGetNumElements(order) != r) return 0;
  for (int d = 0; d < r; d++)
    if (mlirDenseI32ArrayGetElement(order, d) != (d < r - 2 ? d : d == r - 2 ? r - 1 : r - 2)) return 0;
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(src));
  if (tile_type_is_ptr(elem)) return 0;
  int64_t bits = tcb_bitwidth(tc_memory_type(L->ctx, elem)), reg = L->backend->chunk_bits(L->target);
  int64_t w = reg / 32;
  while (w > 1 && w * bits > reg) w /= 2;
  while (w >= 4 && (s[r - 1] % w || s[r - 2] % w)) w /= 2;
  if (w < 4) return 0;
  *outer = tc_numel(r - 2, s);
  *rows = s[r - 2];
  *cols = s[r - 1];
  return w;
}

/* Whether the transpose reads its source's rows where it computes them (a load, or an
 * elementwise expression, read by nothing else) instead of from a buffer filled first:
 * a 2-D or 3-D source without a buffer whose elements are their own memory type. (A load
 * a store of the group could overwrite has been given a buffer by tc_flush already.) */
static bool source_read_in_place(tc_lower *L, MlirValue src) {
  MlirType t = mlirValueGetType(src);
  MlirType elem = mlirShapedTypeGetElementType(t);
  MlirOpOperand u = mlirValueGetFirstUse(src);
  return mlirShapedTypeGetRank(t) <= 3 && !tc_special_of(L, src) && mlirValueIsAOpResult(src) &&
         (tc_is_lazy_op(mlirOpResultGetOwner(src)) || tile_op_of(mlirOpResultGetOwner(src)) == TILE_LOAD) &&
         mlirTypeEqual(tc_memory_type(L->ctx, elem), elem) && !mlirOpOperandIsNull(u) &&
         mlirOpOperandIsNull(mlirOpOperandGetNextUse(u));
}

/* Rows r[0..w) of a block -> its columns, in log2(w) stages: stage h exchanges bit h of
 * the row index with bit h of the column index, a shuffle of each row pair (i, i + h). */
static void transpose_in_registers(tc_builder *b, MlirContext ctx, MlirValue *r, int64_t w, MlirType vt) {
  for (int64_t h = 1; h < w; h *= 2) {
    int64_t lo[64], hi[64];
    for (int64_t c = 0; c < w; c++) {
      lo[c] = c & h ? w + (c ^ h) : c; /* row i: its own lanes with bit h clear, else row i + h's */
      hi[c] = c & h ? w + c : c | h;   /* row i + h: row i's lanes with bit h set, else its own */
    }
    MlirNamedAttribute mlo = tcb_named(ctx, "mask", mlirDenseI64ArrayGet(ctx, w, lo));
    MlirNamedAttribute mhi = tcb_named(ctx, "mask", mlirDenseI64ArrayGet(ctx, w, hi));
    for (int64_t i = 0; i < w; i++) {
      if (i & h) continue;
      MlirValue ops[2] = {r[i], r[i + h]};
      r[i] = tcb_op1(b, "vector.shuffle", vt, 2, ops, 1, &mlo);
      r[i + h] = tcb_op1(b, "vector.shuffle", vt, 2, ops, 1, &mhi);
    }
  }
}

/* Row i of the source block at (o, row, col): from its buffer sbuf, or (sbuf null) the
 * source evaluated there, a chunk of w lanes. */
static MlirValue source_row(tc_lower *L, tc_builder *b, MlirValue src, MlirValue sbuf, MlirValue flat, MlirValue o,
                            MlirValue row, MlirValue col, int64_t w, MlirType vt) {
  if (!mlirValueIsNull(sbuf)) {
    MlirValue ops[2] = {sbuf, flat};
    return tcb_op1(b, "vector.load", vt, 2, ops, 0, NULL);
  }
  int rank = (int)mlirShapedTypeGetRank(mlirValueGetType(src)), d = 0;
  tc_pos pos = {.rank = rank, .chunked = true};
  if (rank == 3) pos.idx[d++] = o;
  pos.idx[d++] = row;
  pos.idx[d] = col;
  return tc_eval_chunk_at(L, b, src, &pos, w);
}

/* dbuf[o, j, i] = src[o, i, j] (flat buffers, source [outer, R, C]), one w x w block per
 * iteration: w rows read, the shuffles, w row stores. */
static void transpose_blocks(tc_lower *L, MlirValue src, MlirValue sbuf, MlirValue dbuf, int64_t outer, int64_t R,
                             int64_t C, int64_t w) {
  tc_builder *ob = &L->b;
  MlirType vt = tc_vec_type(L->ctx, w, tcb_element_type(mlirValueGetType(dbuf)));
  int64_t nbi = R / w, nbj = C / w;
  MlirBlock body = tc_build_for(L, ob, tcb_const_index(ob, 0), tcb_const_index(ob, outer * nbi * nbj),
                                tcb_const_index(ob, 1), 0, NULL, NULL);
  tc_builder bb;
  tcb_init(&bb, L->ctx);
  bb.loc = ob->loc;
  tcb_set_end(&bb, body);
  tc_builder *b = &bb;
  MlirValue q = mlirBlockGetArgument(body, 0);
  MlirValue per = tcb_const_index(b, nbi * nbj), nj = tcb_const_index(b, nbj);
  MlirValue o = tcb_binary(b, "arith.divui", q, per), rest = tcb_binary(b, "arith.remui", q, per);
  MlirValue bi = tcb_binary(b, "arith.divui", rest, nj), bj = tcb_binary(b, "arith.remui", rest, nj);
  MlirValue plane = tcb_binary(b, "arith.muli", o, tcb_const_index(b, R * C));
  /* source rows bi*w.., columns bj*w..; destination rows bj*w.., columns bi*w.. */
  MlirValue row0 = tcb_binary(b, "arith.muli", bi, tcb_const_index(b, w));
  MlirValue col0 = tcb_binary(b, "arith.muli", bj, tcb_const_index(b, w));
  MlirValue sbase =
      tcb_binary(b, "arith.addi", plane,
                 tcb_binary(b, "arith.addi", tcb_binary(b, "arith.muli", row0, tcb_const_index(b, C)), col0));
  MlirValue dbase =
      tcb_binary(b, "arith.addi", plane,
                 tcb_binary(b, "arith.addi", tcb_binary(b, "arith.muli", col0, tcb_const_index(b, R)), row0));
  MlirValue r[64];
  for (int64_t i = 0; i < w && !L->status; i++)
    r[i] = source_row(L, b, src, sbuf, tcb_binary(b, "arith.addi", sbase, tcb_const_index(b, i * C)), o,
                      tcb_binary(b, "arith.addi", row0, tcb_const_index(b, i)), col0, w, vt);
  if (!L->status) transpose_in_registers(b, L->ctx, r, w, vt);
  for (int64_t i = 0; i < w && !L->status; i++) {
    MlirValue ops[3] = {r[i], dbuf, tcb_binary(b, "arith.addi", dbase, tcb_const_index(b, i * R))};
    tcb_op(b, "vector.store", 0, NULL, 3, ops, 0, NULL);
  }
  tcb_op(b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

int tc_emit_trans(tc_lower *L, MlirOperation *roots, int n) {
  (void)n;
  MlirOperation op = roots[0];
  MlirValue src = mlirOperationGetOperand(op, 0);
  int64_t outer, R, C;
  int64_t w = transpose_block(L, op, &outer, &R, &C);
  MlirValue sbuf = {NULL};
  if (!w || !source_read_in_place(L, src)) {
    sbuf = tc_materialize(L, src);
    tc_special *sp = tc_special_of(L, src);
    if (!sp || sp->kind != TC_SPECIAL_BUFFER || !mlirValueIsNull(sp->mask)) w = 0; /* user memory, partly */
  }
  if (L->status || !w) return 1; /* read through tc_eval_trans where consumed */
  MlirValue old = mlirOperationGetResult(op, 0);
  MlirValue dbuf = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(old)), outer * R * C);
  if (L->status) return 1;
  transpose_blocks(L, src, sbuf, dbuf, outer, R, C, w);
  tc_special *s = tc_special_put(L, old);
  if (s) {
    s->kind = TC_SPECIAL_BUFFER;
    s->buffer = dbuf;
    s->fill_block = L->b.block;
  }
  return 1;
}

/* gather: out[pos] = src[pos with dim axis replaced by index[pos]]. */
tc_cval tc_eval_gather(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirValue old = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(old);
  MlirType elem = mlirShapedTypeGetElementType(t);
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(t, shape);
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue src = mlirOperationGetOperand(op, 0);
  tc_special *s = tc_special_of(L, src);
  int64_t sshape[TC_RANK];
  tc_shape_of(mlirValueGetType(src), sshape);
  int axis = (int)tile_int_attr(op, "axis", 0);
  if (!s || s->kind != TC_SPECIAL_BUFFER) {
    tc_fail(L, op, TILEC_ERROR_INTERNAL, "internal error: the source of tl.gather was read before it was computed");
    return r;
  }
  MlirValue idx = tc_eval(c, mlirOperationGetOperand(op, 1), pos).vec;
  if (L->status) return r;
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
    if (axis != rank - 1) off = tcb_binary(b, "arith.addi", off, tc_iota(b, c->width));
    r.vec = gather_lanes(c, s->buffer, lin, off, mem);
  } else {
    MlirValue off = tcb_cast(b, "arith.index_cast", tcb_binary(b, "arith.muli", idx, tcb_const_int(b, i32, stride)),
                             tcb_index(L->ctx));
    MlirValue ops[2] = {s->buffer, tcb_binary(b, "arith.addi", lin, off)};
    r.vec = tcb_op1(b, "memref.load", mem, 2, ops, 0, NULL);
  }
  if (!mlirTypeEqual(mem, elem)) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, mlirValueGetType(r.vec), 0));
  return r;
}
