/* conversion/nest.c — loop nests over tile shapes: scf.for over the leading dims and
 * native-width chunks over the last; with a bound mask, unmasked full chunks plus one
 * masked tail. Also materialization of a tile into a flat stack buffer.
 * In: a shape and a body callback. Out: scf/vector IR at the current insertion point. */
#include "backend/backend.h"
#include "conversion/lower.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

int64_t tc_nest_width(tc_lower *L, int64_t last_dim) {
  int64_t w = (L->chunk_bits ? L->chunk_bits : L->backend->chunk_bits(L->target)) / 32;
  while (w > 1 && (w > last_dim || last_dim % w)) w /= 2;
  return w < 1 ? 1 : w;
}

MlirBlock tc_build_for(tc_lower *L, tc_builder *b, MlirValue lb, MlirValue ub, MlirValue step, intptr_t niter,
                       const MlirValue *inits, MlirOperation *for_op) {
  MlirType types[1 + TC_MAX_ITER_ARGS];
  MlirLocation locs[1 + TC_MAX_ITER_ARGS];
  MlirValue ops[3 + TC_MAX_ITER_ARGS] = {lb, ub, step};
  if (niter > TC_MAX_ITER_ARGS) {
    tc_fail(L, (MlirOperation){NULL}, TILEC_ERROR_INTERNAL, "a loop with more than %d carried values",
            TC_MAX_ITER_ARGS);
    niter = 0;
  }
  types[0] = mlirValueGetType(lb);
  locs[0] = b->loc;
  for (intptr_t i = 0; i < niter; i++) {
    types[i + 1] = mlirValueGetType(inits[i]);
    locs[i + 1] = b->loc;
    ops[3 + i] = inits[i];
  }
  MlirBlock body = mlirBlockCreate(1 + niter, types, locs);
  MlirRegion r = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(r, body);
  MlirOperation f = tcb_op_regions(b, "scf.for", niter, types + 1, 3 + niter, ops, 0, NULL, 1, &r);
  if (for_op) *for_op = f;
  return body;
}

static void run_body(tc_lower *L, MlirBlock block, tc_builder *at, const tc_pos *pos, int64_t width, tc_chunk_mode mode,
                     MlirValue bound_mask, MlirValue tail_mask, tc_nest_body body, void *user) {
  tc_chunk c;
  tc_chunk_init(&c, L, block, width);
  if (at) c.b = *at;
  c.mode = mode;
  c.bound_mask = bound_mask;
  c.tail_mask = tail_mask;
  c.root = *pos;
  body(&c, pos, user);
  tc_chunk_free(&c);
}

static void yield_at_end(tc_lower *L, MlirBlock block) {
  tc_builder yb;
  tcb_init(&yb, L->ctx);
  yb.loc = L->b.loc;
  tcb_set_end(&yb, block);
  tcb_op(&yb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

int tc_open_loops(tc_lower *L, tc_builder *b, int ndims, const int64_t *shape, tc_pos *pos, MlirBlock *opened) {
  int nopened = 0;
  for (int d = 0; d < ndims; d++) {
    if (shape[d] == 1) {
      pos->idx[d] = tcb_const_index(b, 0);
      continue;
    }
    MlirBlock blk =
        tc_build_for(L, b, tcb_const_index(b, 0), tcb_const_index(b, shape[d]), tcb_const_index(b, 1), 0, NULL, NULL);
    pos->idx[d] = mlirBlockGetArgument(blk, 0);
    tcb_set_end(b, blk);
    opened[nopened++] = blk;
  }
  return nopened;
}

void tc_close_loops(tc_lower *L, const MlirBlock *opened, int nopened) {
  for (int i = nopened - 1; i >= 0; i--) yield_at_end(L, opened[i]);
}

void tc_emit_scalar_nest(tc_lower *L, int rank, const int64_t *shape, tc_nest_body body, void *user) {
  if (L->status) return;
  tc_builder b = L->b;
  tc_pos pos = {.rank = rank, .chunked = false};
  MlirBlock opened[TC_RANK];
  int nopened = tc_open_loops(L, &b, rank, shape, &pos, opened);
  tc_chunk c;
  tc_chunk_init(&c, L, b.block, 1);
  c.b = b;
  body(&c, &pos, user);
  tc_chunk_free(&c);
  tc_close_loops(L, opened, nopened);
}

void tc_emit_chunked_nest(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, bool complete,
                          tc_nest_body body, void *user) {
  if (L->status) return;
  tc_builder b = L->b;
  tc_pos pos = {.rank = rank, .chunked = true};
  MlirBlock opened[TC_RANK];
  int nopened = tc_open_loops(L, &b, rank - 1, shape, &pos, opened);
  int64_t n = rank ? shape[rank - 1] : 1;
  int64_t w = tc_nest_width(L, n);
  MlirValue bound = {NULL};
  if (!mlirValueIsNull(bound_mask)) {
    tc_chunk pre;
    tc_chunk_init(&pre, L, b.block, w);
    pre.b = b;
    tc_pos row = pos;
    row.chunked = false;
    row.idx[rank - 1] = tcb_const_index(&pre.b, 0);
    bound = tc_mask_bound(&pre, bound_mask, &row, n);
    b = pre.b;
    tc_chunk_free(&pre);
  }
  if (!mlirValueIsNull(bound)) {
    MlirValue full = tcb_binary(&b, "arith.andi", bound, tcb_const_index(&b, -w));
    MlirBlock blk = tc_build_for(L, &b, tcb_const_index(&b, 0), full, tcb_const_index(&b, w), 0, NULL, NULL);
    tc_pos p = pos;
    p.idx[rank - 1] = mlirBlockGetArgument(blk, 0);
    run_body(L, blk, NULL, &p, w, TC_CHUNK_FULL, bound_mask, (MlirValue){NULL}, body, user);
    yield_at_end(L, blk);
    MlirValue has_tail = tcb_cmpi(&b, "ult", full, bound);
    tc_builder ib;
    tcb_if(&b, has_tail, 0, NULL, &ib, NULL);
    MlirBlock tb = ib.block;
    MlirValue rem = tcb_binary(&ib, "arith.subi", bound, full);
    MlirValue tail =
        tcb_op1(&ib, "vector.create_mask", tc_vec_type(L->ctx, w, tcb_int_type(L->ctx, 1)), 1, &rem, 0, NULL);
    p.idx[rank - 1] = full;
    run_body(L, tb, &ib, &p, w, TC_CHUNK_TAIL, bound_mask, tail, body, user);
    yield_at_end(L, tb);
    if (complete || L->check_bounds) {
      /* Chunks past the bound still have to be produced (with their masks all-false); with
       * bounds checks they run too, so an unmasked load there (a bug the bound would hide:
       * `tl.load(x_ptr + offs)` beside `tl.store(..., mask=offs < n)`) is checked wherever
       * the vector width puts the bound. */
      MlirValue after = tcb_binary(&b, "arith.andi", tcb_binary(&b, "arith.addi", bound, tcb_const_index(&b, w - 1)),
                                   tcb_const_index(&b, -w));
      MlirBlock rb = tc_build_for(L, &b, after, tcb_const_index(&b, n), tcb_const_index(&b, w), 0, NULL, NULL);
      tc_pos q = pos;
      q.idx[rank - 1] = mlirBlockGetArgument(rb, 0);
      run_body(L, rb, NULL, &q, w, TC_CHUNK_GENERIC, (MlirValue){NULL}, (MlirValue){NULL}, body, user);
      yield_at_end(L, rb);
    }
  } else if (w == n) {
    tc_pos p = pos;
    p.idx[rank - 1] = tcb_const_index(&b, 0);
    run_body(L, b.block, &b, &p, w, TC_CHUNK_GENERIC, (MlirValue){NULL}, (MlirValue){NULL}, body, user);
  } else {
    MlirBlock blk =
        tc_build_for(L, &b, tcb_const_index(&b, 0), tcb_const_index(&b, n), tcb_const_index(&b, w), 0, NULL, NULL);
    tc_pos p = pos;
    p.idx[rank - 1] = mlirBlockGetArgument(blk, 0);
    run_body(L, blk, NULL, &p, w, TC_CHUNK_GENERIC, (MlirValue){NULL}, (MlirValue){NULL}, body, user);
    yield_at_end(L, blk);
  }
  tc_close_loops(L, opened, nopened);
}

void tc_emit_nest_ex(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, bool complete,
                     tc_nest_body body, void *user) {
  L->backend->emit_nest(L, rank, shape, bound_mask, complete, body, user);
}

void tc_emit_nest(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, tc_nest_body body, void *user) {
  tc_emit_nest_ex(L, rank, shape, bound_mask, false, body, user);
}

typedef struct materialize_ctx {
  MlirValue old, buf;
  int64_t shape[TC_RANK];
} materialize_ctx;

static void materialize_body(tc_chunk *c, const tc_pos *pos, void *user) {
  materialize_ctx *m = user;
  tc_cval v = tc_eval(c, m->old, pos);
  if (c->L->status) return;
  MlirValue x = v.vec;
  if (v.is_ptr) {
    /* Pointer tiles are kept as raw addresses. */
    tc_builder *b = &c->b;
    MlirType i64 = tcb_int_type(c->L->ctx, 64);
    MlirType pointee = tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(m->old)));
    int64_t sz = (tcb_bitwidth(tc_memory_type(c->L->ctx, pointee)) + 7) / 8;
    MlirType wt = pos->chunked ? tc_vec_type(c->L->ctx, c->width, i64) : i64;
    MlirValue base = tcb_cast(b, "llvm.ptrtoint", v.base, i64);
    x = pos->chunked ? tc_splat_vec(b, base, c->width) : base;
    if (!mlirValueIsNull(v.vec)) {
      MlirValue off = v.vec;
      if (tcb_bitwidth(tcb_element_type(mlirValueGetType(off))) < 64) off = tcb_cast(b, "arith.extsi", off, wt);
      x = tcb_binary(b, "arith.addi", x, tcb_binary(b, "arith.muli", off, tcb_const_int(b, wt, sz)));
    }
  }
  tc_buffer_write(c, m->buf, x, pos, m->shape);
}

MlirValue tc_load_mask_within(tc_lower *L, MlirValue old, MlirType shape, int depth) {
  MlirValue none = {NULL};
  if (depth > 4 || !mlirValueIsAOpResult(old) || !mlirTypeIsARankedTensor(mlirValueGetType(old))) return none;
  int64_t a[TC_RANK], b[TC_RANK];
  int ra = tc_shape_of(mlirValueGetType(old), a), rb = tc_shape_of(shape, b);
  if (ra != rb || memcmp(a, b, sizeof(int64_t) * (size_t)ra)) return none;
  MlirOperation op = mlirOpResultGetOwner(old);
  if ((tile_op_of(op) == TILE_LOAD)) return tc_special_of(L, old) ? none : tile_load_mask(op);
  /* elementwise ops only: their operands are evaluated at the same positions */
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (!(name.length > 6 && (!memcmp(name.data, "arith.", 6) || !memcmp(name.data, "math.", 5)))) return none;
  for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); k++) {
    MlirValue m = tc_load_mask_within(L, mlirOperationGetOperand(op, k), shape, depth + 1);
    if (!mlirValueIsNull(m)) return m;
  }
  return none;
}

void tc_materialize_into(tc_lower *L, MlirValue old, MlirValue buf) {
  materialize_ctx m = {old, buf, {0}};
  int rank = tc_shape_of(mlirValueGetType(old), m.shape);
  /* A masked load (also inside an elementwise expression, as in `acc += tl.load(p,
   * mask=offs < n)`) materializes with unmasked full chunks and one masked tail. */
  MlirValue bound = tc_load_mask_within(L, old, mlirValueGetType(old), 0);
  tc_emit_nest_ex(L, rank, m.shape, bound, true, materialize_body, &m);
}

MlirValue tc_materialize(tc_lower *L, MlirValue old) {
  tc_special *s = tc_special_of(L, old);
  if (s && s->kind == TC_SPECIAL_BUFFER) return s->buffer;
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(old), shape);
  MlirValue buf = L->backend->alloc_thread_tile ? L->backend->alloc_thread_tile(L, old) : (MlirValue){NULL};
  if (mlirValueIsNull(buf))
    buf = tc_alloc_buffer(L, mlirShapedTypeGetElementType(mlirValueGetType(old)), tc_numel(rank, shape));
  tc_materialize_into(L, old, buf);
  s = tc_special_put(L, old);
  if (s) {
    s->kind = TC_SPECIAL_BUFFER;
    s->buffer = buf;
    s->fill_block = L->b.block;
  }
  return buf;
}
