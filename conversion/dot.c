/* conversion/dot.c — tile.dot: C[M,N] = A[M,K] x B[K,N] + acc (batched over a leading
 * dim for 3-D tiles). Operands are materialized in stack buffers (a bf16 B only the dot
 * reads goes straight into the pair layout below); each output chunk of a row is
 * accumulated in registers over K with FMAs of a broadcast A element and a B row chunk;
 * fp16/bf16 inputs widen to fp32, i8 to i32 — or, where the backend has a pair dot for
 * the type (i8, bf16), two steps of K at once on B packed as row pairs. An fp16/bf16 result
 * (out_dtype=tl.float16) is accumulated in fp32 too and rounded once, when it is stored.
 * fp32 dots are exact fp32 FMAs whatever their input_precision (as Triton's CPU backend): tf32
 * and its splits are how GPUs use tensor cores (backend/nvptx_dot.c).
 * In: a dot op. Out: a buffered tile. */
#include "backend/backend.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

MlirValue tc_dot_operand(tc_lower *L, MlirValue old) {
  tc_special *s = tc_special_of(L, old);
  if (s && s->kind == TC_SPECIAL_BUFFER) return s->buffer;
  return tc_materialize(L, old);
}

/* Converts an input element (scalar or vector) to the accumulator type. */
static MlirValue widen(tc_builder *b, MlirValue v, MlirType acc_elem) {
  MlirType t = mlirValueGetType(v);
  MlirType e = tcb_element_type(t);
  if (mlirTypeEqual(e, acc_elem)) return v;
  MlirType to = acc_elem;
  if (mlirTypeIsAVector(t)) {
    int64_t w = mlirShapedTypeGetDimSize(t, 0);
    to = mlirVectorTypeGet(1, &w, acc_elem);
  }
  if (tcb_is_float(e) && tcb_is_float(acc_elem))
    return tcb_cast(b, tcb_bitwidth(e) < tcb_bitwidth(acc_elem) ? "arith.extf" : "arith.truncf", v, to);
  if (tcb_is_int(e) && tcb_is_int(acc_elem)) return tcb_cast(b, "arith.extsi", v, to);
  if (tcb_is_int(e)) return tcb_cast(b, "arith.sitofp", v, to);
  return tcb_cast(b, "arith.fptosi", v, to);
}

/* ---- two steps of K at once (the backend's pair_dot: AVX-512 VNNI / BF16 on the CPU) ---- */
/* VPDPWSSD adds, in each i32 lane, the products of two signed 16-bit pairs; VDPBF16PS, in
 * each f32 lane, the products of two bf16 pairs. With B packed as pairs of rows (rows 2t
 * and 2t+1 of a column side by side, i8 sign-extended to i16; a zero row pads an odd K) and
 * two elements of an A row broadcast as one pair, one instruction does two steps of K for
 * 16 columns, where the generic path needs a multiply (after widening) and an add per step.
 * i8 sums wrap in i32 like the generic path's adds; bf16 sums are rounded per pair and
 * denormals flushed (the README's dot section), an order Triton leaves unspecified. */
static int pair_kind(tc_lower *L, MlirType ae, MlirType be, MlirType ce, int64_t w) {
  if (!L->backend->pair_dot_lanes) return -1;
  if (tcb_is_int(ae) && tcb_is_int(be) && tcb_bitwidth(ae) == 8 && tcb_bitwidth(be) == 8 && tcb_is_int(ce) &&
      tcb_bitwidth(ce) == 32)
    return L->backend->pair_dot_lanes(L->target, TC_PAIR_I16) == w ? TC_PAIR_I16 : -1;
  if (mlirTypeIsABF16(ae) && mlirTypeIsABF16(be) && mlirTypeIsAF32(ce))
    return L->backend->pair_dot_lanes(L->target, TC_PAIR_BF16) == w ? TC_PAIR_BF16 : -1;
  return -1;
}

/* Where the pair packing reads B: its stack buffer, or (bbuf null) the tile itself,
 * evaluated chunk by chunk as the packing needs it — a bf16 B read only by this dot is
 * loaded straight into the pair layout instead of being stored and reloaded first. */
typedef struct b_source {
  MlirValue bbuf, tile;
  MlirValue bi; /* batch index (batched dots) */
  bool batched;
} b_source;

/* Rows k of B at [base + k*N + j : +pw] as 16-bit values (i8 sign-extended, bf16 bits), or
 * zeros past K. */
static MlirValue b_row16(tc_lower *L, tc_builder *b, const b_source *src, MlirValue base, MlirValue k, int64_t N,
                         MlirValue j, int64_t pw, bool zero) {
  MlirType v16 = tc_vec_type(L->ctx, pw, tcb_int_type(L->ctx, 16));
  if (zero) return tcb_const_int(b, v16, 0);
  if (mlirValueIsNull(src->bbuf)) {
    tc_pos pos = {.rank = src->batched ? 3 : 2, .chunked = true};
    int d = 0;
    if (src->batched) pos.idx[d++] = src->bi;
    pos.idx[d++] = k;
    pos.idx[d] = j;
    MlirValue v = tc_eval_chunk_at(L, b, src->tile, &pos, pw);
    if (L->status) return tcb_const_int(b, v16, 0);
    return tcb_cast(b, "vector.bitcast", v, v16);
  }
  MlirValue bbuf = src->bbuf;
  MlirValue idx = tcb_binary(
      b, "arith.addi", tcb_binary(b, "arith.addi", base, tcb_binary(b, "arith.muli", k, tcb_const_index(b, N))), j);
  MlirValue ops[2] = {bbuf, idx};
  MlirType be = tcb_element_type(mlirValueGetType(bbuf));
  MlirValue v = tcb_op1(b, "vector.load", tc_vec_type(L->ctx, 16, be), 2, ops, 0, NULL);
  if (mlirTypeIsABF16(be)) return tcb_cast(b, "vector.bitcast", v, v16);
  return tcb_cast(b, "arith.extsi", v, v16);
}

/* Columns per packing step. Straight from a load whose rows the axis analysis proves
 * contiguous in runs of 32, a row chunk of 32 bf16 is one 64-byte load making two vectors
 * of pairs; else 16, the width every other nest uses (a `% N` column index is often
 * contiguous in runs of 16 only: 32 lanes would gather). */
static int64_t pack_width(tc_lower *L, const b_source *src, int64_t N) {
  if (!mlirValueIsNull(src->bbuf) || N % 32 || !mlirValueIsAOpResult(src->tile)) return 16;
  MlirOperation op = mlirOpResultGetOwner(src->tile);
  if (tile_op_of(op) != TILE_LOAD) return 16;
  tc_axis ax = tc_axis_of(&L->axis_proven, mlirOperationGetOperand(op, 0)); /* it reads the row as one load */
  return ax.rank > 0 && ax.contiguity[ax.rank - 1] >= 32 && ax.contiguity[ax.rank - 1] % 32 == 0 ? 32 : 16;
}

/* pbuf[(bi*KP + t)*N + j] = pair(B[bi, 2t, j], B[bi, 2t+1, j]) for every t and j. */
static void pack_b_pairs(tc_lower *L, tc_builder *ob, const b_source *src, MlirValue pbuf, MlirValue bi, int64_t K,
                         int64_t N) {
  int64_t kp = (K + 1) / 2;
  int64_t pw = pack_width(L, src, N);
  MlirValue bbase = tcb_binary(ob, "arith.muli", bi, tcb_const_index(ob, K * N));
  MlirValue pbase = tcb_binary(ob, "arith.muli", bi, tcb_const_index(ob, kp * N));
  for (int odd = 0; odd < 2; odd++) {
    /* full pairs, then the padded last pair of an odd K */
    int64_t lo = odd ? K / 2 : 0, hi = odd ? kp : K / 2;
    if (lo >= hi) continue;
    MlirBlock tb =
        tc_build_for(L, ob, tcb_const_index(ob, lo), tcb_const_index(ob, hi), tcb_const_index(ob, 1), 0, NULL, NULL);
    tc_builder tbb;
    tcb_init(&tbb, L->ctx);
    tbb.loc = ob->loc;
    tcb_set_end(&tbb, tb);
    MlirValue t = mlirBlockGetArgument(tb, 0);
    MlirBlock jb = tc_build_for(L, &tbb, tcb_const_index(&tbb, 0), tcb_const_index(&tbb, N), tcb_const_index(&tbb, pw),
                                0, NULL, NULL);
    tc_builder jbb;
    tcb_init(&jbb, L->ctx);
    jbb.loc = ob->loc;
    tcb_set_end(&jbb, jb);
    MlirValue j = mlirBlockGetArgument(jb, 0);
    MlirValue k0 = tcb_binary(&jbb, "arith.muli", t, tcb_const_index(&jbb, 2));
    MlirValue r0 = b_row16(L, &jbb, src, bbase, k0, N, j, pw, false);
    MlirValue r1 =
        b_row16(L, &jbb, src, bbase, tcb_binary(&jbb, "arith.addi", k0, tcb_const_index(&jbb, 1)), N, j, pw, odd);
    int64_t mask[64];
    for (int i = 0; i < pw; i++) mask[2 * i] = i, mask[2 * i + 1] = pw + i;
    MlirValue sops[2] = {r0, r1};
    MlirNamedAttribute ma = tcb_named(L->ctx, "mask", mlirDenseI64ArrayGet(L->ctx, 2 * pw, mask));
    MlirValue inter =
        tcb_op1(&jbb, "vector.shuffle", tc_vec_type(L->ctx, 2 * pw, tcb_int_type(L->ctx, 16)), 2, sops, 1, &ma);
    MlirValue pairs = tcb_cast(&jbb, "vector.bitcast", inter, tc_vec_type(L->ctx, pw, tcb_int_type(L->ctx, 32)));
    MlirValue idx = tcb_binary(
        &jbb, "arith.addi",
        tcb_binary(&jbb, "arith.addi", pbase, tcb_binary(&jbb, "arith.muli", t, tcb_const_index(&jbb, N))), j);
    MlirValue st[3] = {pairs, pbuf, idx};
    tcb_op(&jbb, "vector.store", 0, NULL, 3, st, 0, NULL);
    tcb_op(&jbb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    tcb_op(&tbb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
}

/* The bf16 pair (A[row, 2t], A[row, 2t+1]) as one i32 broadcast to 16 lanes. With K even it
 * is one 32-bit load (a vbroadcastss from memory); past an odd K the second element is +0,
 * not A[row, K-1] again: an Inf or NaN there times B's zero padding would be a NaN. */
static MlirValue a_pair_bf16(tc_lower *L, tc_builder *b, MlirValue abuf, MlirValue row, MlirValue t, int64_t K) {
  MlirType bf = mlirBF16TypeGet(L->ctx), i16 = tcb_int_type(L->ctx, 16), i32 = tcb_int_type(L->ctx, 32);
  MlirValue base = tcb_binary(b, "arith.muli", row, tcb_const_index(b, K));
  MlirValue k0 = tcb_binary(b, "arith.muli", t, tcb_const_index(b, 2));
  if (K % 2 == 0) {
    MlirValue o[2] = {abuf, tcb_binary(b, "arith.addi", base, k0)};
    MlirValue two = tcb_op1(b, "vector.load", tc_vec_type(L->ctx, 2, bf), 2, o, 0, NULL);
    MlirValue one = tcb_cast(b, "vector.bitcast", two, tc_vec_type(L->ctx, 1, i32));
    return tcb_op1(b, "vector.broadcast", tc_vec_type(L->ctx, 16, i32), 1, &one, 0, NULL);
  }
  MlirValue k1 = tcb_binary(b, "arith.addi", k0, tcb_const_index(b, 1));
  MlirValue k1c = tcb_binary(b, "arith.minsi", k1, tcb_const_index(b, K - 1));
  MlirValue o0[2] = {abuf, tcb_binary(b, "arith.addi", base, k0)},
            o1[2] = {abuf, tcb_binary(b, "arith.addi", base, k1c)};
  MlirValue e0 = tcb_cast(b, "arith.bitcast", tcb_op1(b, "memref.load", bf, 2, o0, 0, NULL), i16);
  MlirValue e1 = tcb_cast(b, "arith.bitcast", tcb_op1(b, "memref.load", bf, 2, o1, 0, NULL), i16);
  MlirValue in = tcb_cmpi(b, "slt", k1, tcb_const_index(b, K));
  e1 = tcb_select(b, in, e1, tcb_const_int(b, i16, 0));
  MlirValue lo = tcb_cast(b, "arith.extui", e0, i32), hi = tcb_cast(b, "arith.extui", e1, i32);
  MlirValue pair = tcb_binary(b, "arith.ori", lo, tcb_binary(b, "arith.shli", hi, tcb_const_int(b, i32, 16)));
  return tc_splat_vec(b, pair, 16);
}

/* The i8 pair (A[row, 2t], A[row, 2t+1]) sign-extended to i16, as one i32 broadcast to 16
 * lanes; past an odd K the second element is A[row, K-1] again, which meets B's zero
 * padding. */
static MlirValue a_pair(tc_lower *L, tc_builder *b, MlirValue abuf, MlirValue row, MlirValue t, int64_t K) {
  MlirType i8 = tcb_int_type(L->ctx, 8), i16 = tcb_int_type(L->ctx, 16), i32 = tcb_int_type(L->ctx, 32);
  MlirValue base = tcb_binary(b, "arith.muli", row, tcb_const_index(b, K));
  MlirValue k0 = tcb_binary(b, "arith.muli", t, tcb_const_index(b, 2));
  MlirValue k1 =
      tcb_binary(b, "arith.minsi", tcb_binary(b, "arith.addi", k0, tcb_const_index(b, 1)), tcb_const_index(b, K - 1));
  MlirValue o0[2] = {abuf, tcb_binary(b, "arith.addi", base, k0)},
            o1[2] = {abuf, tcb_binary(b, "arith.addi", base, k1)};
  MlirValue e0 = tcb_cast(b, "arith.extsi", tcb_op1(b, "memref.load", i8, 2, o0, 0, NULL), i16);
  MlirValue e1 = tcb_cast(b, "arith.extsi", tcb_op1(b, "memref.load", i8, 2, o1, 0, NULL), i16);
  MlirValue lo = tcb_cast(b, "arith.extui", e0, i32), hi = tcb_cast(b, "arith.extui", e1, i32);
  MlirValue pair = tcb_binary(b, "arith.ori", lo, tcb_binary(b, "arith.shli", hi, tcb_const_int(b, i32, 16)));
  return tc_splat_vec(b, pair, 16);
}

/* Is every reader of v the dot op's accumulator (operand 2), directly or through
 * elementwise ops whose results go only there? Then nothing reads v after the dot. */
static bool feeds_only_acc(MlirValue v, MlirOperation op, int depth) {
  if (depth > 16) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (mlirOperationEqual(user, op) && mlirOpOperandGetOperandNumber(u) == 2) continue;
    if (tile_op_of(user) || !tc_is_lazy_op(user) || mlirOperationGetNumResults(user) != 1 ||
        !feeds_only_acc(mlirOperationGetResult(user, 0), op, depth + 1))
      return false;
  }
  return true;
}

/* The buffer of the loop-carried tile the dot's result goes back into (`acc = tl.dot(a,
 * b, acc)` in a loop: the result's one use yields it into the slot of that tile), and the
 * loop body's argument for it in *arg; null where there is none. Not when every thread
 * of the program computes the dot (the backend's redundant): the carried buffer is shared by
 * them. Not when the body reads that tile other than into this dot's accumulator (`acc, t =
 * tl.dot(a, b, acc), acc + t`: evaluated after the dot, `acc + t` must see the old acc). */
static MlirValue carried_destination(tc_lower *L, MlirOperation op, MlirValue *arg) {
  MlirValue res = mlirOperationGetResult(op, 0), none = {NULL};
  MlirOpOperand u = mlirValueGetFirstUse(res);
  if ((L->backend->redundant && L->backend->redundant(L)) || mlirOpOperandIsNull(u) ||
      !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)))
    return none;
  MlirOperation y = mlirOpOperandGetOwner(u);
  if (!tc_op_is(y, "scf.yield") || !tc_op_is(mlirOperationGetParentOperation(y), "scf.for")) return none;
  MlirBlock blk = mlirOperationGetBlock(y);
  intptr_t slot = (intptr_t)mlirOpOperandGetOperandNumber(u) + 1; /* after the induction variable */
  if (slot >= mlirBlockGetNumArguments(blk)) return none;
  *arg = mlirBlockGetArgument(blk, slot);
  if (!feeds_only_acc(*arg, op, 0)) return none;
  tc_special *s = tc_special_of(L, *arg);
  return s && s->kind == TC_SPECIAL_BUFFER ? s->buffer : none;
}

/* How v, evaluated at a position, reads the tile in buffer `buf`: 1 at that position only
 * (elementwise ops of it), 0 not at all, -1 elsewhere too (or not known: *budget of
 * visited values spent). Values in buffers of their own are read from those. */
static int reads_at_position(tc_lower *L, MlirValue v, MlirValue buf, int *budget) {
  if (--*budget < 0) return -1;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) return 0; /* a scalar */
  tc_special *s = tc_special_of(L, v);
  if (s && s->kind == TC_SPECIAL_BUFFER) return mlirValueEqual(s->buffer, buf) ? 1 : 0;
  if (!mlirValueIsAOpResult(v)) return 0; /* a block argument with no buffer: a register tile */
  MlirOperation d = mlirOpResultGetOwner(v);
  bool elementwise = !tile_op_of(d) && tc_is_lazy_op(d);
  int r = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) {
    MlirValue o = mlirOperationGetOperand(d, i);
    int k = reads_at_position(L, o, buf, budget);
    if (k < 0 || (k > 0 && (!elementwise || !mlirTypeEqual(mlirValueGetType(o), mlirValueGetType(v))))) return -1;
    r |= k;
  }
  return r;
}

/* A buffer of the dot's own, the shape of its result. */
static MlirValue result_buffer(tc_lower *L, MlirOperation op) {
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  int64_t cs[TC_RANK];
  int cr = tc_shape_of(t, cs);
  return tc_alloc_buffer(L, mlirShapedTypeGetElementType(t), tc_numel(cr, cs));
}

MlirValue tc_dot_accumulator(tc_lower *L, MlirOperation op) {
  MlirValue acc = mlirOperationGetOperand(op, 2), arg = {NULL};
  MlirValue cbuf = carried_destination(L, op, &arg);
  if (!mlirValueIsNull(cbuf) && mlirValueEqual(acc, arg)) return cbuf;
  cbuf = result_buffer(L, op);
  tc_materialize_into(L, acc, cbuf);
  return cbuf;
}

/* Where a CPU dot accumulates: its register blocks start from acc evaluated at their
 * position (a zero constant costs nothing; `acc * alpha[:, None]` is computed there) and
 * end in this buffer. In place in the loop-carried buffer the result goes back into when
 * acc reads that buffer only at the position it is evaluated at (each block reads its
 * positions before it writes them); else a buffer of the dot's own. */
MlirValue tc_dot_destination(tc_lower *L, MlirOperation op) {
  MlirValue arg = {NULL};
  MlirValue cbuf = carried_destination(L, op, &arg);
  int budget = 64;
  if (!mlirValueIsNull(cbuf) && reads_at_position(L, mlirOperationGetOperand(op, 2), cbuf, &budget) >= 0) return cbuf;
  return result_buffer(L, op);
}

/* The lines of operand v ([rows, cols] tile, loaded through a pointer tile the K loop
 * advances) that block q of nq prefetches for the next trip: its share of the tile's
 * rows x ceil(cols / w) chunks. */
static void prefetch_share(tc_chunk *c, MlirValue v, int64_t rows, int64_t cols, MlirValue q, int64_t nq, int64_t w) {
  tc_builder *b = &c->b;
  int64_t per_row = (cols + w - 1) / w, lines = rows * per_row, share = (lines + nq - 1) / nq;
  MlirValue first = tcb_binary(b, "arith.muli", q, tcb_const_index(b, share));
  for (int64_t t = 0; t < share; t++) {
    MlirValue l = tcb_binary(b, "arith.minui", tcb_binary(b, "arith.addi", first, tcb_const_index(b, t)),
                             tcb_const_index(b, lines - 1));
    tc_pos p = {.rank = 2, .chunked = true};
    p.idx[0] = tcb_binary(b, "arith.divui", l, tcb_const_index(b, per_row));
    p.idx[1] = tcb_binary(b, "arith.muli", tcb_binary(b, "arith.remui", l, tcb_const_index(b, per_row)),
                          tcb_const_index(b, w));
    tc_prefetch_next_trip(c, v, &p);
  }
}

/* The A and B tiles the next trip of the K loop loads (`a_ptrs += BLOCK_K * stride_ak`),
 * prefetched a few lines per register block of this dot rather than all at once while
 * this trip's tiles are packed: a burst of hundreds of prefetches overflows the cache's
 * miss queues and most are dropped (tutorial matmul, 64x128x32, N = 2048, 1 thread:
 * 180.6 -> 171.7 ms; 167 ms when its tiles stay in cache). */
static void spread_prefetches(tc_lower *L, tc_builder *ob, MlirValue a, MlirValue bm, int64_t M, int64_t N, int64_t K,
                              int64_t mr, int64_t ncols, MlirValue i0, MlirValue j0, int64_t w) {
  bool pa = tc_load_prefetchable(L, a, w), pb = tc_load_prefetchable(L, bm, w);
  if (!pa && !pb) return;
  tc_chunk c;
  tc_chunk_init(&c, L, ob->block, w);
  c.b = *ob;
  int64_t nj = N / ncols, nq = (M / mr) * nj;
  MlirValue q =
      tcb_binary(&c.b, "arith.addi",
                 tcb_binary(&c.b, "arith.muli", tcb_binary(&c.b, "arith.divui", i0, tcb_const_index(&c.b, mr)),
                            tcb_const_index(&c.b, nj)),
                 tcb_binary(&c.b, "arith.divui", j0, tcb_const_index(&c.b, ncols)));
  if (pa) prefetch_share(&c, a, M, K, q, nq, w);
  if (pb) prefetch_share(&c, bm, K, N, q, nq, w);
  *ob = c.b;
  tc_chunk_free(&c);
}

/* acc[bi, i, j : j + w] evaluated where the register block starts. */
static MlirValue acc_at(tc_lower *L, tc_builder *b, MlirValue acc, bool batched, MlirValue bi, MlirValue i, MlirValue j,
                        int64_t w) {
  tc_pos pos = {.rank = batched ? 3 : 2, .chunked = true};
  int d = 0;
  if (batched) pos.idx[d++] = bi;
  pos.idx[d++] = i;
  pos.idx[d] = j;
  return tc_eval_chunk_at(L, b, acc, &pos, w);
}

static void emit_dot(tc_lower *L, MlirOperation op) {
  MlirValue a = mlirOperationGetOperand(op, 0), bm = mlirOperationGetOperand(op, 1);
  MlirValue res = mlirOperationGetResult(op, 0);
  int64_t as[TC_RANK], bs[TC_RANK], cs[TC_RANK];
  int ar = tc_shape_of(mlirValueGetType(a), as);
  tc_shape_of(mlirValueGetType(bm), bs);
  int cr = tc_shape_of(mlirValueGetType(res), cs);
  bool batched = cr == 3;
  int64_t B = batched ? cs[0] : 1, M = cs[cr - 2], N = cs[cr - 1], K = as[ar - 1];
  MlirType ce = mlirShapedTypeGetElementType(mlirValueGetType(res));
  /* The registers accumulate in fp32 for a 16-bit float result: Triton's MMAs (and its
   * interpreter) round once per dot, where fp16 sums would round at every step of K. */
  MlirType at = tcb_is_float(ce) && tcb_bitwidth(ce) < 32 ? mlirF32TypeGet(L->ctx) : ce;
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  int64_t w = tc_nest_width(L, N);
  /* the element types the operands' buffers hold decide the pair dot */
  int kind = pair_kind(L, tc_memory_type(L->ctx, mlirShapedTypeGetElementType(mlirValueGetType(a))),
                       tc_memory_type(L->ctx, mlirShapedTypeGetElementType(mlirValueGetType(bm))), at, w);
  bool paired = kind >= 0;
  /* the tiles' next-trip prefetches are spread over the register blocks (spread_prefetches) */
  bool spread = !batched && !paired;
  for (int i = 0; i < 2 && spread; i++) {
    MlirValue v = i ? bm : a;
    int *mark = tc_load_prefetchable(L, v, w) ? tc_valmap_put(&L->dot_prefetched, mlirOpResultGetOwner(v).ptr) : NULL;
    if (mark) *mark = 1;
  }
  MlirValue abuf = tc_dot_operand(L, a);
  if (L->status) return;
  /* A bf16 B that only this dot reads is packed into pairs straight from its loads. */
  MlirOpOperand bu = mlirValueGetFirstUse(bm);
  bool b_lazy = !tc_special_of(L, bm) && !mlirOpOperandIsNull(bu) && mlirOpOperandIsNull(mlirOpOperandGetNextUse(bu)) &&
                kind == TC_PAIR_BF16;
  MlirValue bbuf = b_lazy ? (MlirValue){NULL} : tc_dot_operand(L, bm);
  if (L->status) return;
  /* a backend whose threads share the blocks (shared_loop) fills C before they start */
  bool acc_lazy = !L->backend->shared_loop;
  MlirValue cbuf = acc_lazy ? tc_dot_destination(L, op) : tc_dot_accumulator(L, op);
  if (L->status) return;
  /* Register blocking: MR rows x NR chunks of accumulators stay in registers over K. */
  int64_t mr = M % 4 == 0 ? 4 : M % 2 == 0 ? 2 : 1;
  int64_t chunks = N / w;
  int64_t nr = chunks % 4 == 0 ? 4 : chunks % 2 == 0 ? 2 : 1;
  bool isf = tcb_is_float(ce);
  MlirValue zero = tcb_const_index(b, 0);
  tc_builder ob = *b;
  MlirBlock blocks[4];
  int nb = 0;
  MlirValue bi = zero;
  if (batched) {
    blocks[nb] = tc_build_for(L, &ob, zero, tcb_const_index(&ob, B), tcb_const_index(&ob, 1), 0, NULL, NULL);
    bi = mlirBlockGetArgument(blocks[nb], 0);
    tcb_set_end(&ob, blocks[nb++]);
  }
  MlirType amem = tcb_element_type(mlirValueGetType(abuf));
  MlirType bmem =
      b_lazy ? mlirShapedTypeGetElementType(mlirValueGetType(bm)) : tcb_element_type(mlirValueGetType(bbuf));
  int64_t kp = (K + 1) / 2;
  MlirValue pbuf = {NULL};
  if (paired) {
    pbuf = tc_alloc_buffer(L, tcb_int_type(L->ctx, 32), B * kp * N);
    b_source src = {bbuf, bm, bi, batched};
    pack_b_pairs(L, &ob, &src, pbuf, bi, K, N);
  }
  MlirValue i0, j0;
  if (L->backend->shared_loop) { /* the mr x nr*w blocks of C dealt to the program's threads */
    int64_t nblocks = N / (nr * w);
    MlirValue t;
    blocks[nb] = L->backend->shared_loop(L, &ob, (M / mr) * nblocks, &t);
    tcb_set_end(&ob, blocks[nb++]);
    i0 = tcb_binary(&ob, "arith.muli", tcb_binary(&ob, "arith.divui", t, tcb_const_index(&ob, nblocks)),
                    tcb_const_index(&ob, mr));
    j0 = tcb_binary(&ob, "arith.muli", tcb_binary(&ob, "arith.remui", t, tcb_const_index(&ob, nblocks)),
                    tcb_const_index(&ob, nr * w));
  } else {
    blocks[nb] =
        tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, M), tcb_const_index(&ob, mr), 0, NULL, NULL);
    i0 = mlirBlockGetArgument(blocks[nb], 0);
    tcb_set_end(&ob, blocks[nb++]);
    blocks[nb] = tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, N), tcb_const_index(&ob, nr * w), 0,
                              NULL, NULL);
    j0 = mlirBlockGetArgument(blocks[nb], 0);
    tcb_set_end(&ob, blocks[nb++]);
  }
  if (spread) spread_prefetches(L, &ob, a, bm, M, N, K, mr, nr * w, i0, j0, w);
  MlirType vt = tc_vec_type(L->ctx, w, at);
  int nacc = (int)(mr * nr);
  MlirValue coff[16], accs[16];
  MlirValue rowbase = tcb_binary(&ob, "arith.muli", bi, tcb_const_index(&ob, M));
  for (int r = 0; r < mr; r++) {
    MlirValue row = tcb_binary(&ob, "arith.addi", rowbase, tcb_binary(&ob, "arith.addi", i0, tcb_const_index(&ob, r)));
    MlirValue base = tcb_binary(&ob, "arith.addi", tcb_binary(&ob, "arith.muli", row, tcb_const_index(&ob, N)), j0);
    for (int q = 0; q < nr; q++) {
      int x = r * (int)nr + q;
      coff[x] = tcb_binary(&ob, "arith.addi", base, tcb_const_index(&ob, q * w));
      if (acc_lazy) {
        accs[x] = acc_at(L, &ob, mlirOperationGetOperand(op, 2), batched, bi,
                         tcb_binary(&ob, "arith.addi", i0, tcb_const_index(&ob, r)),
                         tcb_binary(&ob, "arith.addi", j0, tcb_const_index(&ob, q * w)), w);
      } else {
        MlirValue lops[2] = {cbuf, coff[x]};
        accs[x] = tcb_op1(&ob, "vector.load", tc_vec_type(L->ctx, w, ce), 2, lops, 0, NULL);
      }
      accs[x] = widen(&ob, accs[x], at);
    }
  }
  MlirOperation kf;
  MlirBlock kb = tc_build_for(L, &ob, tcb_const_index(&ob, 0), tcb_const_index(&ob, paired ? kp : K),
                              tcb_const_index(&ob, 1), nacc, accs, &kf);
  tc_builder kbld;
  tcb_init(&kbld, L->ctx);
  kbld.loc = b->loc;
  tcb_set_end(&kbld, kb);
  MlirValue k = mlirBlockGetArgument(kb, 0);
  MlirValue next[16];
  if (paired) {
    /* pbuf[(bi*KP + t)*N + j0 + q*16], A pairs of rows i0..i0+mr-1 */
    MlirValue prow =
        tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", bi, tcb_const_index(&kbld, kp)), k);
    MlirValue pbase =
        tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", prow, tcb_const_index(&kbld, N)), j0);
    MlirValue pv[4], ap[4];
    for (int q = 0; q < nr; q++) {
      MlirValue pops[2] = {pbuf, tcb_binary(&kbld, "arith.addi", pbase, tcb_const_index(&kbld, q * w))};
      pv[q] = tcb_op1(&kbld, "vector.load", tc_vec_type(L->ctx, w, tcb_int_type(L->ctx, 32)), 2, pops, 0, NULL);
    }
    for (int r = 0; r < mr; r++) {
      MlirValue row =
          tcb_binary(&kbld, "arith.addi", rowbase, tcb_binary(&kbld, "arith.addi", i0, tcb_const_index(&kbld, r)));
      ap[r] = kind == TC_PAIR_BF16 ? a_pair_bf16(L, &kbld, abuf, row, k, K) : a_pair(L, &kbld, abuf, row, k, K);
    }
    for (int r = 0; r < mr; r++)
      for (int q = 0; q < nr; q++) {
        int x = r * (int)nr + q;
        next[x] = L->backend->pair_dot(&kbld, (tc_pair_kind)kind, mlirBlockGetArgument(kb, 1 + x), ap[r], pv[q]);
      }
    goto yield;
  }
  /* b[bi, k, j0 + q*w : +w] */
  MlirValue brow = tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", bi, tcb_const_index(&kbld, K)), k);
  MlirValue bbase =
      tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", brow, tcb_const_index(&kbld, N)), j0);
  MlirValue bv[4], av[4];
  for (int q = 0; q < nr; q++) {
    MlirValue bops[2] = {bbuf, tcb_binary(&kbld, "arith.addi", bbase, tcb_const_index(&kbld, q * w))};
    bv[q] = widen(&kbld, tcb_op1(&kbld, "vector.load", tc_vec_type(L->ctx, w, bmem), 2, bops, 0, NULL), at);
  }
  for (int r = 0; r < mr; r++) {
    MlirValue row =
        tcb_binary(&kbld, "arith.addi", rowbase, tcb_binary(&kbld, "arith.addi", i0, tcb_const_index(&kbld, r)));
    MlirValue aops[2] = {
        abuf, tcb_binary(&kbld, "arith.addi", tcb_binary(&kbld, "arith.muli", row, tcb_const_index(&kbld, K)), k)};
    av[r] = tc_splat_vec(&kbld, widen(&kbld, tcb_op1(&kbld, "memref.load", amem, 2, aops, 0, NULL), at), w);
  }
  for (int r = 0; r < mr; r++)
    for (int q = 0; q < nr; q++) {
      int x = r * (int)nr + q;
      MlirValue cv = mlirBlockGetArgument(kb, 1 + x);
      if (isf) {
        MlirValue f[3] = {av[r], bv[q], cv};
        next[x] = tcb_op1(&kbld, "math.fma", vt, 3, f, 0, NULL);
      } else {
        next[x] = tcb_binary(&kbld, "arith.addi", cv, tcb_binary(&kbld, "arith.muli", av[r], bv[q]));
      }
    }
yield:
  tcb_op(&kbld, "scf.yield", 0, NULL, nacc, next, 0, NULL);
  for (int x = 0; x < nacc; x++) {
    MlirValue sops[3] = {widen(&ob, mlirOperationGetResult(kf, x), ce), cbuf, coff[x]};
    tcb_op(&ob, "vector.store", 0, NULL, 3, sops, 0, NULL);
  }
  for (int x = nb - 1; x >= 0; x--) {
    tc_builder yb;
    tcb_init(&yb, L->ctx);
    yb.loc = b->loc;
    tcb_set_end(&yb, blocks[x]);
    tcb_op(&yb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  tc_special *s = tc_special_put(L, res);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = cbuf;
}

int tc_emit_dot(tc_lower *L, MlirOperation *roots, int n) {
  (void)n;
  emit_dot(L, roots[0]);
  return 1;
}
