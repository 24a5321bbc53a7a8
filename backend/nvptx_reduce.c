/* backend/nvptx_reduce.c — reductions the CTA's threads compute together, the way a GPU
 * does: each thread folds its share of a row (chunks dealt round-robin, as nests deal
 * them), the 32 lanes of a warp combine their partials through shuffles (shfl.sync.down,
 * five steps, which leave the warp's value in lane 0), lane 0 of each warp leaves it in
 * shared memory, and after a barrier every thread combines the warps' values in warp order,
 * so every thread holds the row's result. A tile result is written by thread 0 into a
 * shared buffer; a tile of many rows is reduced where the nests deal its chunks when they are
 * unrolled (reduce_dealt: a tile kept in the threads' registers is read in place), else a row
 * per group of lanes (reduce_row_groups). A 2-D tile reduced along axis 0 is folded where the
 * nests deal it too (reduce_columns_dealt); other reductions over a leading axis need no
 * shuffles: the output's chunks are dealt to the threads (the CPU emitter over this backend's
 * nests). Inside code one thread runs for the program, the CPU's emitter runs as is.
 *
 * Order: a thread folds chunks t, t + T, ..., and the warps' shuffle tree pairs lanes
 * (i, i + 16), (i, i + 8), ...: the combine function must be associative and commutative,
 * as Triton's GPU reductions also assume. Threads without a chunk (rows shorter than the
 * CTA) carry a validity flag, so no identity element is needed.
 * In: a tile.reduce root. Out: scalar results in every thread, or a buffered tile. */
#include "backend/nvptx.h"

#include "conversion/analyses.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"
#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#define MAXV TC_REDUCE_MAX_VALUES
#define WARP TC_WARP_SIZE

/* ---- shuffles -------------------------------------------------------------------------- */

static MlirValue shfl_i32(tc_lower *L, tc_builder *b, MlirValue v, int delta, tc_shfl_kind kind) {
  static const char *const emu[] = {"tilec_rt_emu_shfl_down", "tilec_rt_emu_shfl_up", "tilec_rt_emu_shfl_xor"};
  static const char *const ptx[] = {"#nvvm<shfl_kind down>", "#nvvm<shfl_kind up>", "#nvvm<shfl_kind bfly>"};
  MlirType i32 = tcb_int_type(L->ctx, 32);
  MlirValue d = tcb_const_int(b, i32, delta);
  if (L->target->gpu_emulation) {
    MlirValue args[2] = {v, d};
    return tc_call_runtime_value(L, b, emu[kind], i32, 2, args);
  }
  /* all 32 lanes take part, no sub-warp segments; the clamp: lane 31 down and xor, lane 0 up */
  MlirValue ops[4] = {tcb_const_int(b, i32, -1), v, d, tcb_const_int(b, i32, kind == TC_SHFL_UP ? 0 : 0x1f)};
  MlirNamedAttribute k = tcb_named(L->ctx, "kind", tcb_attr(L->ctx, ptx[kind]));
  return tcb_op1(b, "nvvm.shfl.sync", i32, 4, ops, 1, &k);
}

MlirValue tc_nvptx_shfl(tc_lower *L, tc_builder *b, MlirValue v, int delta, tc_shfl_kind kind) {
  MlirType t = mlirValueGetType(v);
  unsigned bits = tcb_bitwidth(t);
  MlirType it = tcb_int_type(L->ctx, bits), i32 = tcb_int_type(L->ctx, 32);
  MlirValue x = tcb_is_float(t) ? tcb_cast(b, "arith.bitcast", v, it) : v, r;
  if (bits == 64) {
    MlirValue lo = tcb_cast(b, "arith.trunci", x, i32);
    MlirValue hi = tcb_cast(b, "arith.trunci", tcb_binary(b, "arith.shrui", x, tcb_const_int(b, it, 32)), i32);
    lo = tcb_cast(b, "arith.extui", shfl_i32(L, b, lo, delta, kind), it);
    hi = tcb_cast(b, "arith.extui", shfl_i32(L, b, hi, delta, kind), it);
    r = tcb_binary(b, "arith.ori", tcb_binary(b, "arith.shli", hi, tcb_const_int(b, it, 32)), lo);
  } else if (bits < 32) {
    r = tcb_cast(b, "arith.trunci", shfl_i32(L, b, tcb_cast(b, "arith.extui", x, i32), delta, kind), it);
  } else {
    r = shfl_i32(L, b, x, delta, kind);
  }
  return tcb_is_float(t) ? tcb_cast(b, "arith.bitcast", r, t) : r;
}

/* ---- a row reduced by all threads ------------------------------------------------------- */

typedef struct coop {
  MlirOperation op;
  int nvals;
  MlirValue olds[MAXV];
  MlirType types[MAXV];  /* result element types */
  MlirValue slots[MAXV]; /* shared: one value per warp */
  MlirValue valid_slot;  /* shared: i8 per warp, whether the warp had a chunk */
  int64_t n, width;      /* row length, chunk width */
  int64_t nthreads, nwarps;
  MlirValue tid, lane, warp;
} coop;

static MlirValue zero_of(tc_builder *b, MlirType t) { /* a scalar or a vector */
  return tcb_is_float(tcb_element_type(t)) ? tcb_const_float(b, t, 0.0) : tcb_const_int(b, t, 0);
}

static MlirValue load1(tc_builder *b, MlirValue mem, MlirValue idx) {
  MlirValue ops[2] = {mem, idx};
  return tcb_op1(b, "memref.load", tcb_element_type(mlirValueGetType(mem)), 2, ops, 0, NULL);
}

static void store1(tc_builder *b, MlirValue v, MlirValue mem, MlirValue idx) {
  MlirType mt = tcb_element_type(mlirValueGetType(mem));
  if (!mlirTypeEqual(mt, mlirValueGetType(v))) v = tcb_cast(b, "arith.extui", v, mt); /* i1 kept as i8 */
  MlirValue ops[3] = {v, mem, idx};
  tcb_op(b, "memref.store", 0, NULL, 3, ops, 0, NULL);
}

/* The operands at chunk i of the row (thread tid's i-th: chunk tid + i * T) into v, at
 * builder *at: with a bound, a chunk wholly inside it evaluates unmasked (vector loads).
 * With ubound (the bound of a mask that never splits a chunk), no branch: the chunk's bound
 * mask is one predicate, `end <= ubound`, for all its lanes (predicated vector loads). */
static void eval_slot(tc_lower *L, tc_builder *at, const coop *k, const tc_pos *row, MlirValue bound_mask,
                      MlirValue bound, MlirValue ubound, bool full, int64_t i, MlirValue *v) {
  MlirValue c = tcb_binary(at, "arith.addi", k->tid, tcb_const_index(at, i * k->nthreads));
  tc_pos p = *row;
  p.chunked = true;
  p.idx[p.rank - 1] = tcb_binary(at, "arith.muli", c, tcb_const_index(at, k->width));
  MlirType vt[MAXV];
  for (int j = 0; j < k->nvals; j++)
    vt[j] = tc_vec_type(L->ctx, k->width, mlirShapedTypeGetElementType(mlirValueGetType(k->olds[j])));
  tc_builder fb, gb;
  MlirOperation iff = {NULL};
  MlirValue tail = {NULL};
  if (!full && !mlirValueIsNull(ubound)) {
    MlirValue end = tcb_binary(at, "arith.addi", p.idx[p.rank - 1], tcb_const_index(at, k->width));
    tail = tc_splat_vec(at, tcb_cmpi(at, "ule", end, ubound), k->width);
    bound = (MlirValue){NULL};
  }
  if (!mlirValueIsNull(bound)) {
    MlirValue end = tcb_binary(at, "arith.addi", p.idx[p.rank - 1], tcb_const_index(at, k->width));
    iff = tcb_if(at, tcb_cmpi(at, "ule", end, bound), k->nvals, vt, &fb, &gb);
  } else {
    gb = *at;
  }
  for (int f = mlirValueIsNull(bound) ? 0 : 1; f >= 0 && !L->status; f--) {
    tc_builder *x = f ? &fb : &gb;
    bool is_full = f || full; /* full: known inside the bound (bound_mask its mask) */
    tc_chunk ch;
    tc_chunk_init(&ch, L, x->block, k->width);
    ch.b = *x;
    ch.mode = is_full ? TC_CHUNK_FULL : !mlirValueIsNull(tail) ? TC_CHUNK_TAIL : TC_CHUNK_GENERIC;
    ch.bound_mask = is_full || !mlirValueIsNull(tail) ? bound_mask : (MlirValue){NULL};
    ch.tail_mask = tail;
    ch.root = p;
    ch.slot = (int)i + 1;
    MlirValue r[MAXV];
    for (int j = 0; j < k->nvals && !L->status; j++) r[j] = tc_eval(&ch, k->olds[j], &p).vec;
    if (!mlirOperationIsNull(iff) && !L->status) tcb_op(&ch.b, "scf.yield", 0, NULL, k->nvals, r, 0, NULL);
    if (mlirOperationIsNull(iff)) {
      for (int j = 0; j < k->nvals; j++) v[j] = r[j];
      *at = ch.b;
    }
    tc_chunk_free(&ch);
  }
  if (!mlirOperationIsNull(iff))
    for (int j = 0; j < k->nvals; j++) v[j] = mlirOperationGetResult(iff, j);
}

static bool combine_into(tc_lower *L, tc_builder *b, const coop *k, MlirValue *acc, const MlirValue *v) {
  MlirValue args[2 * MAXV];
  for (int j = 0; j < k->nvals; j++) {
    args[j] = acc[j];
    args[k->nvals + j] = v[j];
  }
  return tc_apply_combine(L, b, k->op, args, 2 * k->nvals, acc);
}

/* thread_part for a row of at most TC_NVPTX_UNROLL_MAX chunks per thread: the chunks are
 * evaluated one after the other in straight-line code (their loads all in flight; a tile
 * kept in registers is read at the nests' slots) and folded as a tree. */
static MlirValue thread_part_unrolled(tc_lower *L, tc_builder *b, const coop *k, const tc_pos *row, int64_t slots,
                                      MlirValue *part) {
  int64_t per_row = k->n / k->width;
  MlirValue valid = tcb_cmpi(b, "ult", k->tid, tcb_const_index(b, per_row));
  MlirValue bound_mask = {NULL}, bound = {NULL}, ubound = {NULL};
  for (int j = 0; j < k->nvals && mlirValueIsNull(bound_mask); j++)
    bound_mask = tc_load_mask_within(L, k->olds[j], mlirValueGetType(k->olds[j]), 0);
  if (!mlirValueIsNull(bound_mask)) {
    tc_chunk pre;
    tc_chunk_init(&pre, L, b->block, k->width);
    pre.b = *b;
    tc_pos r = *row;
    r.chunked = false;
    r.idx[r.rank - 1] = tcb_const_index(&pre.b, 0);
    bound = tc_mask_bound(&pre, bound_mask, &r, k->n);
    *b = pre.b;
    tc_chunk_free(&pre);
    if (!mlirValueIsNull(bound) && tc_mask_bound_chunk_uniform(&L->axis, bound_mask, k->n, k->width)) ubound = bound;
  }
  MlirValue vals[TC_NVPTX_UNROLL_MAX][MAXV], last[MAXV], guard = {NULL};
  int64_t whole = per_row / k->nthreads; /* rounds in which every thread has a chunk */
  if (whole > slots) whole = slots;
  if (whole > 1 && !mlirValueIsNull(bound)) {
    /* one branch: the thread's chunks all inside the bound (their loads unmasked) or not */
    MlirValue lastc = tcb_binary(b, "arith.addi", k->tid, tcb_const_index(b, (whole - 1) * k->nthreads));
    MlirValue end = tcb_binary(b, "arith.muli", tcb_binary(b, "arith.addi", lastc, tcb_const_index(b, 1)),
                               tcb_const_index(b, k->width));
    MlirType vt[TC_NVPTX_UNROLL_MAX * MAXV];
    for (int64_t i = 0; i < whole; i++)
      for (int j = 0; j < k->nvals; j++)
        vt[i * k->nvals + j] =
            tc_vec_type(L->ctx, k->width, mlirShapedTypeGetElementType(mlirValueGetType(k->olds[j])));
    tc_builder fb, gb;
    MlirOperation iff = tcb_if(b, tcb_cmpi(b, "ule", end, bound), whole * k->nvals, vt, &fb, &gb);
    for (int full = 1; full >= 0 && !L->status; full--) {
      tc_builder *x = full ? &fb : &gb;
      MlirValue r[TC_NVPTX_UNROLL_MAX * MAXV];
      for (int64_t i = 0; i < whole && !L->status; i++)
        eval_slot(L, x, k, row, full || !mlirValueIsNull(ubound) ? bound_mask : (MlirValue){NULL}, (MlirValue){NULL},
                  ubound, full, i, r + i * k->nvals);
      if (!L->status) tcb_op(x, "scf.yield", 0, NULL, whole * k->nvals, r, 0, NULL);
    }
    for (int64_t i = 0; i < whole; i++)
      for (int j = 0; j < k->nvals; j++) vals[i][j] = mlirOperationGetResult(iff, i * k->nvals + j);
  } else {
    for (int64_t i = 0; i < whole && !L->status; i++) eval_slot(L, b, k, row, bound_mask, bound, ubound, 0, i, vals[i]);
  }
  for (int64_t i = whole; i < slots && !L->status; i++) {
    /* the last round: a thread past the row's end yields zeros, which nothing combines */
    MlirType vt[MAXV];
    for (int j = 0; j < k->nvals; j++)
      vt[j] = tc_vec_type(L->ctx, k->width, mlirShapedTypeGetElementType(mlirValueGetType(k->olds[j])));
    guard = tcb_cmpi(b, "ult", tcb_binary(b, "arith.addi", k->tid, tcb_const_index(b, i * k->nthreads)),
                     tcb_const_index(b, per_row));
    tc_builder gb, eb;
    MlirOperation iff = tcb_if(b, guard, k->nvals, vt, &gb, &eb);
    MlirValue v[MAXV], z[MAXV];
    eval_slot(L, &gb, k, row, bound_mask, bound, ubound, 0, i, v);
    if (L->status) break;
    tcb_op(&gb, "scf.yield", 0, NULL, k->nvals, v, 0, NULL);
    for (int j = 0; j < k->nvals; j++) z[j] = zero_of(&eb, vt[j]);
    tcb_op(&eb, "scf.yield", 0, NULL, k->nvals, z, 0, NULL);
    for (int j = 0; j < k->nvals; j++) last[j] = mlirOperationGetResult(iff, j);
  }
  if (L->status) return valid;
  MlirValue acc[MAXV];
  if (whole) {
    for (int64_t step = 1; step < whole && !L->status; step *= 2) /* a tree: independent combines */
      for (int64_t i = 0; i + step < whole; i += 2 * step)
        if (!combine_into(L, b, k, vals[i], vals[i + step])) return valid;
    for (int j = 0; j < k->nvals; j++) acc[j] = vals[0][j];
    if (!mlirValueIsNull(guard)) {
      MlirValue with[MAXV];
      for (int j = 0; j < k->nvals; j++) with[j] = acc[j];
      if (!combine_into(L, b, k, with, last)) return valid;
      for (int j = 0; j < k->nvals; j++) acc[j] = tcb_select(b, guard, with[j], acc[j]);
    }
  } else {
    for (int j = 0; j < k->nvals; j++) acc[j] = last[j];
  }
  tc_reduce_horizontal(L, b, k->op, k->nvals, acc, k->width, part);
  return valid;
}

/* This thread's fold of its chunks of the row at `row` (chunks tid, tid + T, ...): scalars
 * in part, and whether it had a chunk. */
static MlirValue thread_part(tc_lower *L, tc_builder *b, const coop *k, const tc_pos *row, MlirValue *part) {
  int64_t slots = (k->n / k->width + k->nthreads - 1) / k->nthreads;
  if (slots <= TC_NVPTX_UNROLL_MAX) return thread_part_unrolled(L, b, k, row, slots, part);
  MlirValue start = tcb_binary(b, "arith.muli", k->tid, tcb_const_index(b, k->width));
  MlirValue valid = tcb_cmpi(b, "ult", start, tcb_const_index(b, k->n));
  tc_builder tb, eb;
  MlirOperation iff = tcb_if(b, valid, k->nvals, k->types, &tb, &eb);
  tc_chunk c;
  tc_chunk_init(&c, L, tb.block, k->width);
  c.b = tb;
  tc_pos p = *row;
  p.chunked = true;
  p.idx[p.rank - 1] = start;
  c.root = p;
  MlirValue acc[MAXV], out[MAXV];
  for (int i = 0; i < k->nvals && !L->status; i++) acc[i] = tc_eval(&c, k->olds[i], &p).vec;
  if (!L->status && k->n > k->nthreads * k->width) {
    MlirOperation f;
    MlirValue step = tcb_const_index(&c.b, k->nthreads * k->width);
    MlirBlock blk = tc_build_for(L, &c.b, tcb_binary(&c.b, "arith.addi", start, step), tcb_const_index(&c.b, k->n),
                                 step, k->nvals, acc, &f);
    tc_chunk in;
    tc_chunk_init(&in, L, blk, k->width);
    in.b.loc = b->loc;
    tc_pos q = *row;
    q.chunked = true;
    q.idx[q.rank - 1] = mlirBlockGetArgument(blk, 0);
    in.root = q;
    MlirValue args[2 * MAXV], res[MAXV];
    for (int i = 0; i < k->nvals && !L->status; i++) {
      args[i] = mlirBlockGetArgument(blk, 1 + i);
      args[k->nvals + i] = tc_eval(&in, k->olds[i], &q).vec;
    }
    if (!L->status && tc_apply_combine(L, &in.b, k->op, args, 2 * k->nvals, res))
      tcb_op(&in.b, "scf.yield", 0, NULL, k->nvals, res, 0, NULL);
    tc_chunk_free(&in);
    for (int i = 0; i < k->nvals; i++) acc[i] = mlirOperationGetResult(f, i);
  }
  if (!L->status && tc_reduce_horizontal(L, &c.b, k->op, k->nvals, acc, k->width, out))
    tcb_op(&c.b, "scf.yield", 0, NULL, k->nvals, out, 0, NULL);
  tc_chunk_free(&c);
  MlirValue zeros[MAXV];
  for (int i = 0; i < k->nvals; i++) zeros[i] = zero_of(&eb, k->types[i]);
  tcb_op(&eb, "scf.yield", 0, NULL, k->nvals, zeros, 0, NULL);
  for (int i = 0; i < k->nvals; i++) part[i] = mlirOperationGetResult(iff, i);
  return valid;
}

/* The row's result in every thread (v: this thread's part, valid: whether it has one). */
static void combine_cta(tc_lower *L, tc_builder *b, const coop *k, MlirValue *v, MlirValue valid, bool reused) {
  MlirValue args[2 * MAXV], comb[MAXV];
  bool all_valid = k->n >= k->nthreads * k->width; /* lane 0's fold reads only lanes that have one */
  /* the warp: thread t has a part iff t * width < n, so whether lane i's partner i + s has
   * one is known without asking it */
  for (int s = WARP / 2; s >= 1 && !L->status; s /= 2) {
    MlirValue partner = tcb_binary(b, "arith.addi", k->tid, tcb_const_index(b, s));
    MlirValue ov = tcb_cmpi(b, "ult", tcb_binary(b, "arith.muli", partner, tcb_const_index(b, k->width)),
                            tcb_const_index(b, k->n));
    MlirValue in_warp =
        tcb_cmpi(b, "ult", tcb_binary(b, "arith.addi", k->lane, tcb_const_index(b, s)), tcb_const_index(b, WARP));
    ov = tcb_binary(b, "arith.andi", ov, in_warp);
    for (int i = 0; i < k->nvals; i++) {
      args[i] = v[i];
      args[k->nvals + i] = tc_nvptx_shfl(L, b, v[i], s, TC_SHFL_DOWN);
    }
    if (!tc_apply_combine(L, b, k->op, args, 2 * k->nvals, comb)) return;
    for (int i = 0; i < k->nvals; i++) v[i] = all_valid ? comb[i] : tcb_select(b, ov, comb[i], v[i]);
  }
  /* the warps: lane 0 of each leaves its value (the whole fold is only in lane 0); all
   * threads read them in warp order — with one warp, this is lane 0's broadcast */
  tc_builder lb;
  tcb_if(b, tcb_cmpi(b, "eq", k->lane, tcb_const_index(b, 0)), 0, NULL, &lb, NULL);
  for (int i = 0; i < k->nvals; i++) store1(&lb, v[i], k->slots[i], k->warp);
  if (!all_valid) store1(&lb, valid, k->valid_slot, k->warp);
  tcb_op(&lb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_nvptx_barrier(L, b);
  MlirValue zero = tcb_const_index(b, 0);
  for (int i = 0; i < k->nvals; i++) { /* warp 0 always has a part: thread 0 has chunk 0 */
    v[i] = load1(b, k->slots[i], zero);
    if (!mlirTypeEqual(mlirValueGetType(v[i]), k->types[i])) v[i] = tcb_cast(b, "arith.trunci", v[i], k->types[i]);
  }
  for (int64_t w = 1; w < k->nwarps && !L->status; w++) {
    MlirValue wi = tcb_const_index(b, w);
    MlirValue wv = all_valid
                       ? (MlirValue){NULL}
                       : tcb_cmpi(b, "ne", load1(b, k->valid_slot, wi), tcb_const_int(b, tcb_int_type(L->ctx, 8), 0));
    for (int i = 0; i < k->nvals; i++) {
      args[i] = v[i];
      args[k->nvals + i] = load1(b, k->slots[i], wi);
      if (!mlirTypeEqual(mlirValueGetType(args[k->nvals + i]), k->types[i]))
        args[k->nvals + i] = tcb_cast(b, "arith.trunci", args[k->nvals + i], k->types[i]);
    }
    if (!tc_apply_combine(L, b, k->op, args, 2 * k->nvals, comb)) return;
    for (int i = 0; i < k->nvals; i++) v[i] = all_valid ? comb[i] : tcb_select(b, wv, comb[i], v[i]);
  }
  if (reused) tc_nvptx_barrier(L, b); /* the slots are free for the next row */
}

void tc_nvptx_publish_results(tc_lower *L, MlirOperation op, int n, const MlirValue *bufs) {
  tc_nvptx_barrier(L, &L->b); /* the result tiles are complete for every thread */
  for (int i = 0; i < n; i++) {
    tc_special *s = tc_special_put(L, mlirOperationGetResult(op, i));
    s->kind = TC_SPECIAL_BUFFER;
    s->buffer = bufs[i];
  }
}

/* The position of flattened row r (an index) of a tile of shape: its indices along the
 * leading dims, row-major; the last one 0. */
static tc_pos row_at(tc_builder *b, MlirValue r, int rank, const int64_t *shape) {
  tc_pos row = {.rank = rank, .chunked = true};
  int64_t stride = tc_numel(rank - 1, shape);
  for (int d = 0; d + 1 < rank; d++) {
    stride /= shape[d];
    MlirValue q = tcb_binary(b, "arith.divui", r, tcb_const_index(b, stride));
    row.idx[d] = d ? tcb_binary(b, "arith.remui", q, tcb_const_index(b, shape[d])) : q;
  }
  row.idx[rank - 1] = tcb_const_index(b, 0);
  return row;
}

/* The result tiles' element of the row at `row` (a position in the operand: its leading
 * indices) is v, written at *b (which advances). */
static void write_row_result(tc_lower *L, tc_builder *b, const coop *k, const MlirValue *bufs, const MlirValue *v,
                             const tc_pos *row, const int64_t *shape) {
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  tc_pos rp = {.rank = row->rank - 1, .chunked = false};
  for (int d = 0; d < rp.rank; d++) rp.idx[d] = row->idx[d];
  for (int i = 0; i < k->nvals && !L->status; i++) tc_buffer_write(&c, bufs[i], v[i], &rp, shape);
  *b = c.b;
  tc_chunk_free(&c);
}

/* ---- many rows at once ----------------------------------------------------------------
 * A tile of R rows reduced along its last axis (attention's row max and row sum of a
 * 128x64 score tile): rather than the CTA taking the rows one after another (two barriers
 * per row), groups of G lanes of one warp (G a power of 2 up to 32, at most the row's
 * chunks) each take a row: every lane folds its chunks of the row, the group combines them
 * with log2(G) shuffles, and the group's first lane writes the row's element of the result.
 * The CTA covers T / G rows per pass, with no barrier until the result is complete. Used
 * when the groups keep every thread busy (R * min(32, chunks) >= T); G is at least 8 lanes
 * where the row has 8 chunks (a row's 16-byte chunks read by 8 consecutive lanes: 128
 * contiguous bytes, no shared-memory bank conflicts) and larger when there are few rows.
 * Every lane runs every pass (the shuffles need the whole warp): a lane past the last row
 * folds the last row again and writes nothing. */
static int64_t row_group_size(const coop *k, int64_t rows) {
  int64_t chunks = k->n / k->width, cap = chunks < WARP ? chunks : WARP;
  if (rows * cap < k->nthreads) return 0;
  int64_t g = 1;
  while (g < cap && (g < 8 || g * rows < k->nthreads)) g *= 2;
  return g;
}

static void reduce_row_groups(tc_lower *L, tc_builder *b, coop *k, int rank, const int64_t *shape, int64_t rows,
                              int64_t g, MlirValue *bufs) {
  MlirValue tid = k->tid;
  int64_t per_pass = k->nthreads / g, passes = (rows + per_pass - 1) / per_pass;
  k->tid = tcb_binary(b, "arith.remui", tid, tcb_const_index(b, g)); /* the lane's place in its group */
  k->nthreads = g;
  MlirValue first = tcb_binary(b, "arith.divui", tid, tcb_const_index(b, g));
  MlirBlock blk =
      tc_build_for(L, b, tcb_const_index(b, 0), tcb_const_index(b, passes), tcb_const_index(b, 1), 0, NULL, NULL);
  tc_builder pb = *b;
  tcb_set_end(&pb, blk);
  MlirValue r = tcb_binary(&pb, "arith.addi", first,
                           tcb_binary(&pb, "arith.muli", mlirBlockGetArgument(blk, 0), tcb_const_index(&pb, per_pass)));
  MlirValue inside = tcb_cmpi(&pb, "ult", r, tcb_const_index(&pb, rows));
  MlirValue re = rows % per_pass ? tcb_select(&pb, inside, r, tcb_const_index(&pb, rows - 1)) : r;
  tc_pos row = row_at(&pb, re, rank, shape);
  MlirValue v[MAXV], args[2 * MAXV], comb[MAXV];
  thread_part(L, &pb, k, &row, v); /* every lane of a group has a chunk: g <= chunks */
  for (int s = (int)g / 2; s >= 1 && !L->status; s /= 2) {
    for (int i = 0; i < k->nvals; i++) {
      args[i] = v[i];
      args[k->nvals + i] = tc_nvptx_shfl(L, &pb, v[i], s, TC_SHFL_DOWN);
    }
    if (!tc_apply_combine(L, &pb, k->op, args, 2 * k->nvals, comb)) break;
    for (int i = 0; i < k->nvals; i++) v[i] = comb[i]; /* lane 0 of the group: the partner is in it */
  }
  if (L->status) return;
  MlirValue leader = tcb_cmpi(&pb, "eq", k->tid, tcb_const_index(&pb, 0));
  if (rows % per_pass) leader = tcb_binary(&pb, "arith.andi", leader, inside);
  tc_builder tb;
  tcb_if(&pb, leader, 0, NULL, &tb, NULL);
  write_row_result(L, &tb, k, bufs, v, &row, shape);
  tcb_op(&tb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_close_loops(L, &blk, 1);
}

/* ---- rows as nests deal them ------------------------------------------------------------
 * A tile of rows of P chunks reduced along its last axis, whose nest is unrolled (thread t
 * runs chunks t + i T, i < k <= 16) and where P and the CTA's T threads divide one another:
 * each thread folds the chunks nests give it, at their slots, so a tile kept in the
 * threads' registers (nvptx.c thread_tile: softmax's rows, loaded once) is read where it
 * lies and never goes through shared memory — Triton's blocked layout reduces so. Then the
 * TP = min(P, T) threads that share a row combine: shuffles down among min(TP, 32) lanes,
 * and where TP spans warps each warp's lane 0 leaves its value in shared memory and thread
 * r folds row r's in warp order. With P >= T every thread holds m = P / T chunks of each of
 * the k / m rows (row j: slots j m .. j m + m - 1, folded in column order); with P < T a
 * thread's slot j is one chunk of row t / P + j T / P. */
bool tc_nvptx_reduce_deals(tc_lower *L, int rank, const int64_t *shape, int axis) {
  int64_t k = rank >= 2 ? tc_nvptx_unrolled_chunks(L, rank, shape) : 0, nthreads = tc_target_threads(L->target);
  if (!k) return false;
  int64_t p = shape[rank - 1] / tc_nest_width(L, shape[rank - 1]);
  if (p % nthreads && nthreads % p) return false;
  if (axis == rank - 1) return true;
  return rank == 2 && axis == 0 && (shape[0] * p) % nthreads == 0; /* columns: every thread runs k chunks */
}

typedef struct dealt {
  const coop *k;
  MlirValue parts[MAXV]; /* the thread's own: its chunks' folds, by slot */
} dealt;

static void dealt_chunk(tc_chunk *c, const tc_pos *pos, void *user) {
  dealt *d = user;
  const coop *k = d->k;
  MlirValue v[MAXV], s[MAXV];
  for (int j = 0; j < k->nvals && !c->L->status; j++) v[j] = tc_eval(c, k->olds[j], pos).vec;
  if (c->L->status || !tc_reduce_horizontal(c->L, &c->b, k->op, k->nvals, v, c->width, s)) return;
  for (int j = 0; j < k->nvals; j++) store1(&c->b, s[j], d->parts[j], tcb_const_index(&c->b, c->slot - 1));
}

static MlirValue read_part(tc_builder *b, const coop *k, MlirValue mem, int j, MlirValue idx) {
  MlirValue v = load1(b, mem, idx);
  return mlirTypeEqual(mlirValueGetType(v), k->types[j]) ? v : tcb_cast(b, "arith.trunci", v, k->types[j]);
}

static void reduce_dealt(tc_lower *L, tc_builder *b, coop *k, int rank, const int64_t *shape, MlirValue *bufs) {
  int64_t nt = k->nthreads, kk = tc_nvptx_unrolled_chunks(L, rank, shape), p = k->n / k->width;
  int64_t rows = tc_numel(rank - 1, shape), total = rows * p;
  int64_t tp = p < nt ? p : nt, m = p > nt ? p / nt : 1, lanes = tp < WARP ? tp : WARP;
  int64_t wpr = tp > WARP ? tp / WARP : 0; /* warps a row spans (0: one warp or less) */
  dealt d = {.k = k};
  MlirValue bound_mask = {NULL}, args[2 * MAXV], comb[MAXV], v[MAXV], wslots[MAXV] = {{NULL}};
  for (int j = 0; j < k->nvals; j++) {
    d.parts[j] = tc_nvptx_private_array(L, k->types[j], kk);
    if (wpr) {
      MlirType mem = tc_memory_type(L->ctx, k->types[j]);
      int64_t nslots = rows * wpr;
      wslots[j] = tc_nvptx_alloc_shared(L, mlirMemRefTypeContiguousGet(mem, 1, &nslots, mlirAttributeGetNull()),
                                        nslots * ((tcb_bitwidth(mem) + 7) / 8));
    }
    if (mlirValueIsNull(bound_mask)) bound_mask = tc_load_mask_within(L, k->olds[j], mlirValueGetType(k->olds[j]), 0);
  }
  if (L->status) return;
  for (int64_t i = total / nt; i < kk; i++) /* slots a thread may not have: zeros, combined in no row */
    for (int j = 0; j < k->nvals; j++) store1(b, zero_of(b, k->types[j]), d.parts[j], tcb_const_index(b, i));
  tc_nvptx_deal_unrolled(L, b, rank, shape, bound_mask, dealt_chunk, &d);
  MlirValue group_tid = tcb_binary(b, "arith.remui", k->tid, tcb_const_index(b, tp));
  MlirValue first_row = tcb_binary(b, "arith.divui", k->tid, tcb_const_index(b, tp));
  for (int64_t r = 0; r < kk / m && !L->status; r++) {
    for (int j = 0; j < k->nvals; j++) v[j] = read_part(b, k, d.parts[j], j, tcb_const_index(b, r * m));
    for (int64_t i = 1; i < m && !L->status; i++) {
      MlirValue w[MAXV];
      for (int j = 0; j < k->nvals; j++) w[j] = read_part(b, k, d.parts[j], j, tcb_const_index(b, r * m + i));
      combine_into(L, b, k, v, w);
    }
    for (int s = (int)lanes / 2; s >= 1 && !L->status; s /= 2) { /* the group's first lane gets its row */
      for (int j = 0; j < k->nvals; j++) {
        args[j] = v[j];
        args[k->nvals + j] = tc_nvptx_shfl(L, b, v[j], s, TC_SHFL_DOWN);
      }
      if (!tc_apply_combine(L, b, k->op, args, 2 * k->nvals, comb)) return;
      for (int j = 0; j < k->nvals; j++) v[j] = comb[j];
    }
    MlirValue row = tcb_binary(b, "arith.addi", first_row, tcb_const_index(b, r * (nt / tp)));
    MlirValue leader = tcb_cmpi(b, "eq", wpr ? k->lane : group_tid, tcb_const_index(b, 0));
    if (kk * nt > total)
      leader = tcb_binary(b, "arith.andi", leader, tcb_cmpi(b, "ult", row, tcb_const_index(b, rows)));
    tc_builder tb;
    tcb_if(b, leader, 0, NULL, &tb, NULL);
    if (wpr) { /* the warp's place among its row's */
      MlirValue at = tcb_binary(&tb, "arith.addi", tcb_binary(&tb, "arith.muli", row, tcb_const_index(&tb, wpr)),
                                tcb_binary(&tb, "arith.remui", k->warp, tcb_const_index(&tb, wpr)));
      for (int j = 0; j < k->nvals; j++) store1(&tb, v[j], wslots[j], at);
    } else {
      tc_pos rp = row_at(&tb, row, rank, shape);
      write_row_result(L, &tb, k, bufs, v, &rp, shape);
    }
    tcb_op(&tb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  if (!wpr || L->status) return;
  tc_nvptx_barrier(L, b); /* thread r folds row r's warps (rows <= T) */
  tc_builder tb;
  tcb_if(b, tcb_cmpi(b, "ult", k->tid, tcb_const_index(b, rows)), 0, NULL, &tb, NULL);
  MlirValue base = tcb_binary(&tb, "arith.muli", k->tid, tcb_const_index(&tb, wpr));
  for (int j = 0; j < k->nvals; j++) v[j] = read_part(&tb, k, wslots[j], j, base);
  for (int64_t i = 1; i < wpr && !L->status; i++) {
    MlirValue w[MAXV], at = tcb_binary(&tb, "arith.addi", base, tcb_const_index(&tb, i));
    for (int j = 0; j < k->nvals; j++) w[j] = read_part(&tb, k, wslots[j], j, at);
    combine_into(L, &tb, k, v, w);
  }
  tc_pos rp = row_at(&tb, k->tid, rank, shape);
  write_row_result(L, &tb, k, bufs, v, &rp, shape);
  tcb_op(&tb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

/* ---- columns as nests deal them ---------------------------------------------------------
 * A [R, N] tile reduced along its rows (axis 0: a column sum) whose unrolled nest gives every
 * thread the same k chunks (R P a multiple of T): each thread folds, lane by lane, its chunks
 * of one column chunk, so a tile kept in its registers is read where it lies. With P >= T
 * thread t holds column chunks t + q T (q < P / T) of every row, row by row in its slots
 * (slot r P / T + q): its folds are the result's chunks, written as they are. With P < T it
 * holds column chunk t mod P of rows t / P + j T / P (slot j): the lanes of a warp holding
 * one column chunk combine by shuffles down (16 .. P apart), and where several warps hold it
 * each leaves its fold in shared memory and thread c < P folds column chunk c's in warp order. */

typedef struct dealt_cols {
  const coop *k;
  int64_t n;             /* elements of parts */
  MlirValue parts[MAXV]; /* the thread's own: its chunks, by slot */
} dealt_cols;

static tc_pos lane_at(MlirValue first) { /* the chunk of a rank-1 tile starting at element first */
  tc_pos at = {.rank = 1, .chunked = true};
  at.idx[0] = first;
  return at;
}

static void dealt_column_chunk(tc_chunk *c, const tc_pos *pos, void *user) {
  dealt_cols *d = user;
  tc_pos at = lane_at(tcb_const_index(&c->b, (c->slot - 1) * c->width));
  for (int j = 0; j < d->k->nvals && !c->L->status; j++) {
    MlirValue v = tc_eval(c, d->k->olds[j], pos).vec;
    if (!c->L->status) tc_buffer_write(c, d->parts[j], v, &at, &d->n);
  }
}

/* Lane by lane, v of lane laneid + s. */
static MlirValue shfl_down_vec(tc_lower *L, tc_builder *b, MlirValue v, int64_t width, int s) {
  MlirValue e[64];
  for (int64_t i = 0; i < width; i++) {
    MlirNamedAttribute a = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &i));
    e[i] = tc_nvptx_shfl(L, b, tcb_op1(b, "vector.extract", tcb_element_type(mlirValueGetType(v)), 1, &v, 1, &a), s,
                         TC_SHFL_DOWN);
  }
  return tcb_op1(b, "vector.from_elements", mlirValueGetType(v), (intptr_t)width, e, 0, NULL);
}

/* With P >= T a thread's folds are the chunks a nest over the result deals it (chunk t + q T
 * at slot q): where every reader of the results reads them so, they stay in its registers
 * (bufs: the threads' own arrays; true), else false (nothing allocated). */
static bool columns_in_registers(tc_lower *L, MlirOperation op, int nvals, const int64_t *shape, MlirValue *bufs) {
  int64_t nt = tc_target_threads(L->target), w = tc_nest_width(L, shape[1]), p = shape[1] / w;
  if (p < nt || tc_nvptx_unrolled_chunks(L, 1, &shape[1]) != p / nt) return false;
  for (int j = 0; j < nvals; j++)
    if (!tc_nvptx_thread_tile_ok(L, mlirOperationGetResult(op, j))) return false;
  for (int j = 0; j < nvals; j++) bufs[j] = tc_nvptx_thread_tile(L, mlirOperationGetResult(op, j));
  return true;
}

static void reduce_columns_dealt(tc_lower *L, tc_builder *b, coop *k, const int64_t *shape, bool in_regs,
                                 MlirValue *bufs) {
  int64_t nt = k->nthreads, kk = tc_nvptx_unrolled_chunks(L, 2, shape), w = k->width, p = shape[1] / w;
  int64_t out_shape[1] = {shape[1]};
  dealt_cols d = {.k = k, .n = kk * w};
  MlirValue bound_mask = {NULL}, acc[MAXV], x[MAXV], wslots[MAXV] = {{NULL}};
  int64_t holders = p < nt ? nt / (p > WARP ? p : WARP) : 1; /* warps holding one column chunk */
  for (int j = 0; j < k->nvals; j++) {
    d.parts[j] = tc_nvptx_private_array(L, k->types[j], kk * w);
    if (holders > 1) {
      MlirType mem = tc_memory_type(L->ctx, k->types[j]);
      int64_t nslots = holders * p * w;
      wslots[j] = tc_nvptx_alloc_shared(L, mlirMemRefTypeContiguousGet(mem, 1, &nslots, mlirAttributeGetNull()),
                                        nslots * ((tcb_bitwidth(mem) + 7) / 8));
    }
    if (mlirValueIsNull(bound_mask)) bound_mask = tc_load_mask_within(L, k->olds[j], mlirValueGetType(k->olds[j]), 0);
  }
  if (w > 64) /* shfl_down_vec's lanes; a chunk is 16 bytes */
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "a column reduction's chunk has more than 64 lanes");
  if (L->status) return;
  tc_nvptx_deal_unrolled(L, b, 2, shape, bound_mask, dealt_column_chunk, &d);
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, w);
  c.b = *b;
  int64_t m = p >= nt ? p / nt : 1, folds = p >= nt ? m : 1; /* the thread's column chunks */
  for (int64_t q = 0; q < folds && !L->status; q++) {
    for (int64_t r = 0; r < kk / m && !L->status; r++) { /* its rows, in order */
      tc_pos at = lane_at(tcb_const_index(&c.b, (r * m + q) * w));
      for (int j = 0; j < k->nvals; j++) x[j] = tc_buffer_read(&c, d.parts[j], k->types[j], &at, &d.n);
      if (r == 0)
        for (int j = 0; j < k->nvals; j++) acc[j] = x[j];
      else combine_into(L, &c.b, k, acc, x);
    }
    if (p >= nt) { /* chunk t + q T of the result is this thread's */
      MlirValue col = tcb_binary(&c.b, "arith.addi", k->tid, tcb_const_index(&c.b, q * nt));
      tc_pos at = lane_at(tcb_binary(&c.b, "arith.muli", col, tcb_const_index(&c.b, w)));
      for (int j = 0; j < k->nvals; j++) {
        if (!in_regs) {
          tc_buffer_write(&c, bufs[j], acc[j], &at, out_shape);
          continue;
        }
        MlirType mt = tcb_element_type(mlirValueGetType(bufs[j])); /* slot q of the thread's array */
        MlirValue v = mlirTypeEqual(mt, tcb_element_type(mlirValueGetType(acc[j])))
                          ? acc[j]
                          : tcb_cast(&c.b, "arith.extui", acc[j], tc_vec_type(L->ctx, w, mt));
        MlirValue ops[3] = {v, bufs[j], tcb_const_index(&c.b, q * w)};
        tcb_op(&c.b, "vector.store", 0, NULL, 3, ops, 0, NULL);
      }
    }
  }
  if (p >= nt || L->status) {
    *b = c.b;
    tc_chunk_free(&c);
    return;
  }
  MlirValue args[2 * MAXV], comb[MAXV];
  for (int s = WARP / 2; s >= p && !L->status; s /= 2) { /* lanes l < P of the warp: column chunk l's fold */
    for (int j = 0; j < k->nvals; j++) {
      args[j] = acc[j];
      args[k->nvals + j] = shfl_down_vec(L, &c.b, acc[j], w, s);
    }
    if (!tc_apply_combine(L, &c.b, k->op, args, 2 * k->nvals, comb)) break;
    for (int j = 0; j < k->nvals; j++) acc[j] = comb[j];
  }
  MlirValue col = tcb_binary(&c.b, "arith.remui", k->tid, tcb_const_index(&c.b, p));
  MlirValue holder = tcb_cmpi(&c.b, "ult", k->lane, tcb_const_index(&c.b, p < WARP ? p : WARP));
  tc_builder tb;
  tcb_if(&c.b, holder, 0, NULL, &tb, NULL);
  tc_chunk hc;
  tc_chunk_init(&hc, L, tb.block, w);
  hc.b = tb;
  if (holders == 1) { /* one warp holds each column chunk */
    tc_pos at = lane_at(tcb_binary(&hc.b, "arith.muli", col, tcb_const_index(&hc.b, w)));
    for (int j = 0; j < k->nvals; j++) tc_buffer_write(&hc, bufs[j], acc[j], &at, out_shape);
  } else { /* slot (warp's place among the column's holders, column chunk) */
    int64_t n = holders * p * w;
    MlirValue g = tcb_binary(&hc.b, "arith.divui", k->tid, tcb_const_index(&hc.b, p > WARP ? p : WARP));
    MlirValue at0 = tcb_binary(&hc.b, "arith.addi", tcb_binary(&hc.b, "arith.muli", g, tcb_const_index(&hc.b, p)), col);
    tc_pos at = lane_at(tcb_binary(&hc.b, "arith.muli", at0, tcb_const_index(&hc.b, w)));
    for (int j = 0; j < k->nvals; j++) tc_buffer_write(&hc, wslots[j], acc[j], &at, &n);
  }
  tcb_op(&hc.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_chunk_free(&hc);
  if (holders > 1 && !L->status) {
    int64_t n = holders * p * w;
    tc_nvptx_barrier(L, &c.b);
    tcb_if(&c.b, tcb_cmpi(&c.b, "ult", k->tid, tcb_const_index(&c.b, p)), 0, NULL, &tb, NULL);
    tc_chunk_init(&hc, L, tb.block, w);
    hc.b = tb;
    for (int64_t g = 0; g < holders && !L->status; g++) {
      MlirValue at0 = tcb_binary(&hc.b, "arith.addi", k->tid, tcb_const_index(&hc.b, g * p));
      tc_pos at = lane_at(tcb_binary(&hc.b, "arith.muli", at0, tcb_const_index(&hc.b, w)));
      for (int j = 0; j < k->nvals; j++) x[j] = tc_buffer_read(&hc, wslots[j], k->types[j], &at, &n);
      if (g == 0)
        for (int j = 0; j < k->nvals; j++) acc[j] = x[j];
      else combine_into(L, &hc.b, k, acc, x);
    }
    tc_pos at = lane_at(tcb_binary(&hc.b, "arith.muli", k->tid, tcb_const_index(&hc.b, w)));
    for (int j = 0; j < k->nvals && !L->status; j++) tc_buffer_write(&hc, bufs[j], acc[j], &at, out_shape);
    tcb_op(&hc.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    tc_chunk_free(&hc);
  }
  *b = c.b;
  tc_chunk_free(&c);
}

int tc_nvptx_emit_reduce(tc_lower *L, MlirOperation *roots, int n) {
  MlirOperation op = roots[0];
  coop k = {.op = op};
  int rank, axis;
  int64_t shape[TC_RANK];
  if (tc_nvptx_alone(L)) return tc_emit_reduce(L, roots, n);
  if (tc_nvptx_frag_reduce(L, op)) return 1; /* rows of a tile in MMA fragments (nvptx_frags.c) */
  if (!tc_reduce_operands(L, op, "reduce", "reductions", &k.nvals, k.olds, &rank, shape, &axis)) return 1;
  tc_builder *b = &L->b;
  if (axis != rank - 1 && !tc_nvptx_reduce_deals(L, rank, shape, axis))
    return tc_emit_reduce(L, roots, n); /* output chunks dealt to threads */
  b->loc = mlirOperationGetLocation(op);
  k.n = shape[rank - 1];
  k.width = tc_nest_width(L, k.n);
  k.nwarps = L->target->num_warps;
  k.nthreads = tc_target_threads(L->target);
  int rr = rank - 1;
  int64_t rows = tc_numel(rr, shape);
  bool deals = tc_nvptx_reduce_deals(L, rank, shape, axis);
  int64_t group = rr > 0 && !deals ? row_group_size(&k, rows) : 0;
  MlirValue bufs[MAXV] = {{NULL}};
  bool own = deals && axis != rank - 1 && columns_in_registers(L, op, k.nvals, shape, bufs);
  for (int i = 0; i < k.nvals; i++) {
    k.types[i] = tcb_element_type(mlirValueGetType(mlirOperationGetResult(op, i)));
    if (rr > 0 && !own) bufs[i] = tc_alloc_buffer(L, k.types[i], axis == rank - 1 ? rows : shape[1]);
    if (group || deals) continue;
    MlirType mem = tc_memory_type(L->ctx, k.types[i]);
    k.slots[i] = tc_nvptx_alloc_shared(L, mlirMemRefTypeContiguousGet(mem, 1, &k.nwarps, mlirAttributeGetNull()),
                                       k.nwarps * ((tcb_bitwidth(mem) + 7) / 8));
  }
  if (!group && !deals && k.n < k.nthreads * k.width) /* some threads have no chunk (combine_cta) */
    k.valid_slot = tc_nvptx_alloc_shared(
        L, mlirMemRefTypeContiguousGet(tcb_int_type(L->ctx, 8), 1, &k.nwarps, mlirAttributeGetNull()), k.nwarps);
  if (L->status) return 1;
  tc_nvptx_barrier(L, b); /* the operand may read what earlier nests wrote */
  MlirOperation fence = tc_nvptx_last_op(b);
  k.tid = tc_nvptx_thread_id(L, b);
  k.lane = tcb_binary(b, "arith.remui", k.tid, tcb_const_index(b, WARP));
  k.warp = tcb_binary(b, "arith.divui", k.tid, tcb_const_index(b, WARP));
  if (deals || group) {
    if (deals && axis != rank - 1) reduce_columns_dealt(L, b, &k, shape, own, bufs);
    else if (deals) reduce_dealt(L, b, &k, rank, shape, bufs);
    else reduce_row_groups(L, b, &k, rank, shape, rows, group, bufs);
    if (!L->status) tc_nvptx_publish_results(L, op, k.nvals, bufs);
    return 1;
  }
  tc_builder ob = *b;
  tc_pos row = {.rank = rank, .chunked = true};
  MlirBlock opened[TC_RANK];
  int nopened = tc_open_loops(L, &ob, rr, shape, &row, opened);
  row.idx[rank - 1] = tcb_const_index(&ob, 0);
  MlirValue v[MAXV];
  MlirValue valid = thread_part(L, &ob, &k, &row, v);
  /* an operand in registers (or computed from scalars) reads no memory to order; the slots
   * are written once unless the reduction runs again (rows, an enclosing loop) */
  if (!L->status && rr == 0 && !tc_nvptx_touches_memory(fence, &ob)) mlirOperationDestroy(fence);
  bool again = rr > 0;
  for (MlirOperation p = mlirBlockGetParentOperation(b->block); !mlirOperationIsNull(p) && !again;
       p = mlirOperationGetParentOperation(p))
    again = tc_op_is(p, "scf.for") || tc_op_is(p, "scf.while");
  if (!L->status) combine_cta(L, &ob, &k, v, valid, again);
  if (!L->status && rr == 0) {
    for (int i = 0; i < k.nvals; i++) tc_map_scalar(L, mlirOperationGetResult(op, i), v[i]);
  } else if (!L->status) { /* thread 0 writes the row's element of the result tile */
    tc_builder tb;
    tcb_if(&ob, tcb_cmpi(&ob, "eq", k.tid, tcb_const_index(&ob, 0)), 0, NULL, &tb, NULL);
    write_row_result(L, &tb, &k, bufs, v, &row, shape);
    tcb_op(&tb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  tc_close_loops(L, opened, nopened);
  if (rr > 0 && !L->status) tc_nvptx_publish_results(L, op, k.nvals, bufs);
  return 1;
}

/* ---- scans: reduce, then scan -------------------------------------------------------------
 * A row's chunks are dealt in contiguous runs (thread t: chunks t*B .. t*B + B - 1 in scan
 * order), since a scan's order matters. Each thread first folds its run to a total; the
 * totals' exclusive prefix in thread order comes from an inclusive shfl.sync.up scan in
 * each warp plus the earlier warps' totals from shared memory; then each thread scans its
 * run again, starting from that carry, and writes it. The combine function needs only be
 * associative (every combine keeps the earlier value first).
 * Rows short enough that a group of G <= 16 lanes (a power of 2, G >= the threads a row
 * needs) covers one (a [128, 64] fp32 cumsum along axis 1: 16 chunks, 16 lanes) are scanned
 * T / G at a time, a row per lane group: the group's shuffles stop at its first lane, no
 * shared memory, no barrier (the CTA per row left 7 threads in 8 idle and ran the rows one
 * after the other). */

typedef struct scan_coop {
  MlirOperation op;
  int nvals;
  bool reverse;
  MlirValue olds[MAXV], bufs[MAXV], slots[MAXV];
  MlirType types[MAXV];
  const int64_t *shape;
  int64_t n, width, chunks, run, nvalid; /* chunks per row, per thread; threads with a run */
  MlirValue tid, lane, warp;
  int64_t group;    /* lanes a row (row groups), or 0: the CTA scans one row at a time */
  MlirValue gtid;   /* the thread's index among its row's threads (tid, or tid mod group) */
  MlirValue row_ok; /* i1: the thread's row exists (row groups of the last pass), or null */
} scan_coop;

/* The position of chunk c (in scan order) of the row. */
static MlirValue chunk_start(tc_builder *b, const scan_coop *k, MlirValue c) {
  MlirValue off = tcb_binary(b, "arith.muli", c, tcb_const_index(b, k->width));
  return k->reverse ? tcb_binary(b, "arith.subi", tcb_const_index(b, k->n - k->width), off) : off;
}

static MlirValue scan_lane(tc_lower *L, tc_builder *b, MlirValue v, int64_t at) {
  MlirNamedAttribute a = tcb_named(L->ctx, "static_position", mlirDenseI64ArrayGet(L->ctx, 1, &at));
  return tcb_op1(b, "vector.extract", tcb_element_type(mlirValueGetType(v)), 1, &v, 1, &a);
}

/* Scans chunk c into v (from carry when there is one: has_carry null = always), writes it
 * when asked, and returns the chunk's last value in scan order in total. */
static bool scan_one(tc_lower *L, tc_chunk *ch, const scan_coop *k, const tc_pos *row, MlirValue c, MlirValue has_carry,
                     const MlirValue *carry, bool write, MlirValue *total) {
  tc_pos p = *row;
  p.chunked = true;
  p.idx[p.rank - 1] = chunk_start(&ch->b, k, c);
  ch->root = p;
  MlirValue v[MAXV];
  for (int i = 0; i < k->nvals && !L->status; i++) v[i] = tc_eval(ch, k->olds[i], &p).vec;
  if (L->status) return false;
  if (!mlirValueIsNull(has_carry)) {
    if (!tc_scan_chunk(L, &ch->b, k->op, k->nvals, k->reverse, v, k->width, NULL)) return false;
    MlirValue args[2 * MAXV], with[MAXV];
    for (int i = 0; i < k->nvals; i++) {
      args[i] = tc_splat_vec(&ch->b, carry[i], k->width);
      args[k->nvals + i] = v[i];
    }
    if (!tc_apply_combine(L, &ch->b, k->op, args, 2 * k->nvals, with)) return false;
    for (int i = 0; i < k->nvals; i++) v[i] = tcb_select(&ch->b, has_carry, with[i], v[i]);
  } else if (!tc_scan_chunk(L, &ch->b, k->op, k->nvals, k->reverse, v, k->width, carry)) {
    return false;
  }
  for (int i = 0; i < k->nvals; i++) {
    if (write) tc_buffer_write(ch, k->bufs[i], v[i], &p, k->shape);
    total[i] = scan_lane(L, &ch->b, v[i], k->reverse ? 0 : k->width - 1);
  }
  return true;
}

/* One pass of this thread over its run: the run's total (zeros where the thread has no
 * run); scanned and written when `write`, from carry where has_carry. */
static void scan_run(tc_lower *L, tc_builder *b, const scan_coop *k, const tc_pos *row, MlirValue has_carry,
                     const MlirValue *carry, bool write, MlirValue *total) {
  MlirValue first = tcb_binary(b, "arith.muli", k->gtid, tcb_const_index(b, k->run));
  MlirValue valid = tcb_cmpi(b, "ult", k->gtid, tcb_const_index(b, k->nvalid));
  if (!mlirValueIsNull(k->row_ok)) valid = tcb_binary(b, "arith.andi", valid, k->row_ok);
  tc_builder tb, eb;
  MlirOperation iff = tcb_if(b, valid, k->nvals, k->types, &tb, &eb);
  tc_chunk ch;
  tc_chunk_init(&ch, L, tb.block, k->width);
  ch.b = tb;
  MlirValue t[MAXV];
  bool ok = scan_one(L, &ch, k, row, first, has_carry, carry, write, t);
  if (ok && k->run > 1) {
    MlirValue end =
        tcb_binary(&ch.b, "arith.minui", tcb_binary(&ch.b, "arith.addi", first, tcb_const_index(&ch.b, k->run)),
                   tcb_const_index(&ch.b, k->chunks));
    MlirOperation f;
    MlirBlock blk = tc_build_for(L, &ch.b, tcb_binary(&ch.b, "arith.addi", first, tcb_const_index(&ch.b, 1)), end,
                                 tcb_const_index(&ch.b, 1), k->nvals, t, &f);
    tc_chunk in;
    tc_chunk_init(&in, L, blk, k->width);
    in.b.loc = b->loc;
    MlirValue cin[MAXV], cout[MAXV];
    for (int i = 0; i < k->nvals; i++) cin[i] = mlirBlockGetArgument(blk, 1 + i);
    ok = scan_one(L, &in, k, row, mlirBlockGetArgument(blk, 0), (MlirValue){NULL}, cin, write, cout);
    if (ok) tcb_op(&in.b, "scf.yield", 0, NULL, k->nvals, cout, 0, NULL);
    tc_chunk_free(&in);
    for (int i = 0; i < k->nvals; i++) t[i] = mlirOperationGetResult(f, i);
  }
  if (ok) tcb_op(&ch.b, "scf.yield", 0, NULL, k->nvals, t, 0, NULL);
  tc_chunk_free(&ch);
  MlirValue zeros[MAXV];
  for (int i = 0; i < k->nvals; i++) zeros[i] = zero_of(&eb, k->types[i]);
  tcb_op(&eb, "scf.yield", 0, NULL, k->nvals, zeros, 0, NULL);
  for (int i = 0; i < k->nvals; i++) total[i] = mlirOperationGetResult(iff, i);
}

/* v = has ? combine(v, w) : w, and has |= true — the running fold of an optional prefix. */
static bool fold_opt(tc_lower *L, tc_builder *b, const scan_coop *k, MlirValue take, MlirValue *has, MlirValue *v,
                     const MlirValue *w) {
  MlirValue args[2 * MAXV], comb[MAXV];
  for (int i = 0; i < k->nvals; i++) {
    args[i] = v[i];
    args[k->nvals + i] = w[i];
  }
  if (!tc_apply_combine(L, b, k->op, args, 2 * k->nvals, comb)) return false;
  for (int i = 0; i < k->nvals; i++) v[i] = tcb_select(b, take, tcb_select(b, *has, comb[i], w[i]), v[i]);
  *has = tcb_binary(b, "arith.ori", *has, take);
  return true;
}

/* The exclusive prefix of the threads' totals in thread order: carry, and whether there is
 * one (thread 0 has none). */
static bool thread_prefix(tc_lower *L, tc_builder *b, const scan_coop *k, const MlirValue *total, MlirValue *carry,
                          MlirValue *has) {
  MlirValue x[MAXV], args[2 * MAXV], comb[MAXV];
  for (int i = 0; i < k->nvals; i++) x[i] = total[i];
  MlirValue lane = k->group ? k->gtid : k->lane;              /* the lane's place in its warp or row group */
  for (int s = 1; s < (k->group ? k->group : WARP); s *= 2) { /* inclusive, in the warp or group */
    MlirValue from = tcb_cmpi(b, "uge", lane, tcb_const_index(b, s));
    for (int i = 0; i < k->nvals; i++) {
      args[i] = tc_nvptx_shfl(L, b, x[i], s, TC_SHFL_UP);
      args[k->nvals + i] = x[i];
    }
    if (!tc_apply_combine(L, b, k->op, args, 2 * k->nvals, comb)) return false;
    for (int i = 0; i < k->nvals; i++) x[i] = tcb_select(b, from, comb[i], x[i]);
  }
  MlirValue below[MAXV];
  for (int i = 0; i < k->nvals; i++) below[i] = tc_nvptx_shfl(L, b, x[i], 1, TC_SHFL_UP);
  *has = tcb_const_int(b, tcb_int_type(L->ctx, 1), 0);
  for (int i = 0; i < k->nvals; i++) carry[i] = zero_of(b, k->types[i]);
  int64_t warps = k->group ? 1 : (k->nvalid + WARP - 1) / WARP;
  if (warps > 1) { /* lane 31 of each warp leaves the warp's total; later warps fold them */
    tc_builder lb;
    MlirValue leaves = tcb_binary(b, "arith.andi", tcb_cmpi(b, "eq", k->lane, tcb_const_index(b, WARP - 1)),
                                  tcb_cmpi(b, "ult", k->warp, tcb_const_index(b, warps - 1))); /* the ones read */
    tcb_if(b, leaves, 0, NULL, &lb, NULL);
    for (int i = 0; i < k->nvals; i++) store1(&lb, x[i], k->slots[i], k->warp);
    tcb_op(&lb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    tc_nvptx_barrier(L, b);
    for (int64_t w = 0; w + 1 < warps; w++) {
      MlirValue wv[MAXV];
      for (int i = 0; i < k->nvals; i++) {
        wv[i] = load1(b, k->slots[i], tcb_const_index(b, w));
        if (!mlirTypeEqual(mlirValueGetType(wv[i]), k->types[i]))
          wv[i] = tcb_cast(b, "arith.trunci", wv[i], k->types[i]);
      }
      MlirValue take = tcb_cmpi(b, "ugt", k->warp, tcb_const_index(b, w));
      if (!fold_opt(L, b, k, take, has, carry, wv)) return false;
    }
    tc_nvptx_barrier(L, b); /* the slots are free for the next row */
  }
  MlirValue lane_has = tcb_cmpi(b, "uge", lane, tcb_const_index(b, 1));
  return fold_opt(L, b, k, lane_has, has, carry, below);
}

int tc_nvptx_emit_scan(tc_lower *L, MlirOperation *roots, int n) {
  MlirOperation op = roots[0];
  scan_coop k = {.op = op};
  int rank, axis;
  int64_t shape[TC_RANK];
  if (tc_nvptx_alone(L)) return tc_emit_scan(L, roots, n);
  if (!tc_reduce_operands(L, op, "scan", "scans", &k.nvals, k.olds, &rank, shape, &axis)) return 1;
  if (axis != rank - 1) return tc_emit_scan(L, roots, n); /* the other positions dealt to threads */
  MlirAttribute rv = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("reverse"));
  k.reverse = !mlirAttributeIsNull(rv) && mlirAttributeIsABool(rv) && mlirBoolAttrGetValue(rv);
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  k.shape = shape;
  k.n = shape[rank - 1];
  k.width = tc_nest_width(L, k.n);
  k.chunks = k.n / k.width;
  int64_t nthreads = tc_target_threads(L->target);
  k.run = (k.chunks + nthreads - 1) / nthreads;
  k.nvalid = (k.chunks + k.run - 1) / k.run;
  int64_t rows = tc_numel(rank - 1, shape), group = 1;
  while (group < k.nvalid) group *= 2;
  if (rows > 1 && group <= WARP / 2 && group < nthreads) k.group = group; /* row groups */
  int64_t warps = k.group ? 1 : (k.nvalid + WARP - 1) / WARP;
  for (int i = 0; i < k.nvals; i++) {
    k.types[i] = mlirShapedTypeGetElementType(mlirValueGetType(k.olds[i]));
    k.bufs[i] = tc_alloc_buffer(L, k.types[i], tc_numel(rank, shape));
    if (warps > 1) {
      MlirType mem = tc_memory_type(L->ctx, k.types[i]);
      k.slots[i] = tc_nvptx_alloc_shared(L, mlirMemRefTypeContiguousGet(mem, 1, &warps, mlirAttributeGetNull()),
                                         warps * ((tcb_bitwidth(mem) + 7) / 8));
    }
  }
  if (L->status) return 1;
  tc_nvptx_barrier(L, b);
  k.tid = tc_nvptx_thread_id(L, b);
  k.lane = tcb_binary(b, "arith.remui", k.tid, tcb_const_index(b, WARP));
  k.warp = tcb_binary(b, "arith.divui", k.tid, tcb_const_index(b, WARP));
  k.gtid = k.tid;
  tc_builder ob = *b;
  tc_pos row = {.rank = rank, .chunked = true};
  MlirBlock opened[TC_RANK];
  int nopened;
  if (k.group) { /* pass p: row p * (T / G) + tid / G, the last pass's missing rows computing row - 1's */
    int64_t per_pass = nthreads / k.group, passes = (rows + per_pass - 1) / per_pass;
    k.gtid = tcb_binary(b, "arith.remui", k.tid, tcb_const_index(b, k.group));
    MlirValue mine = tcb_binary(b, "arith.divui", k.tid, tcb_const_index(b, k.group));
    MlirBlock pass = tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, passes),
                                  tcb_const_index(&ob, 1), 0, NULL, NULL);
    tcb_set_end(&ob, pass);
    opened[0] = pass;
    nopened = 1;
    MlirValue r =
        tcb_binary(&ob, "arith.addi",
                   tcb_binary(&ob, "arith.muli", mlirBlockGetArgument(pass, 0), tcb_const_index(&ob, per_pass)), mine);
    if (rows % per_pass) {
      k.row_ok = tcb_cmpi(&ob, "ult", r, tcb_const_index(&ob, rows));
      r = tcb_binary(&ob, "arith.minui", r, tcb_const_index(&ob, rows - 1));
    }
    for (int d = rank - 2; d >= 0; d--) { /* the row's index along each leading dim */
      row.idx[d] = d ? tcb_binary(&ob, "arith.remui", r, tcb_const_index(&ob, shape[d])) : r;
      if (d) r = tcb_binary(&ob, "arith.divui", r, tcb_const_index(&ob, shape[d]));
    }
  } else {
    nopened = tc_open_loops(L, &ob, rank - 1, shape, &row, opened);
  }
  row.idx[rank - 1] = tcb_const_index(&ob, 0);
  MlirValue total[MAXV], carry[MAXV], has;
  scan_run(L, &ob, &k, &row, (MlirValue){NULL}, NULL, false, total);
  if (!L->status && thread_prefix(L, &ob, &k, total, carry, &has)) scan_run(L, &ob, &k, &row, has, carry, true, total);
  tc_close_loops(L, opened, nopened);
  if (L->status) return 1;
  tc_nvptx_barrier(L, b); /* the scanned tile is complete for every thread */
  for (int i = 0; i < k.nvals; i++) {
    tc_special *s = tc_special_put(L, mlirOperationGetResult(op, i));
    s->kind = TC_SPECIAL_BUFFER;
    s->buffer = k.bufs[i];
  }
  return 1;
}
