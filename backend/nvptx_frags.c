/* backend/nvptx_frags.c — what stays in the warps' MMA fragments between ops (the tensor-core
 * side of tl.dot is nvptx_dot.c; nvptx_mma.h their shared types): a loop's carried tl.dot
 * accumulator (tc_nvptx_mma_carries), tiles computed from a dot result that stay in its
 * fragments (attention's scores: row reductions by quad shuffles, the next dot's A converted
 * from them), and 1-D row vectors in the quads' registers (attention's m_i, l_i). In: the
 * lowering's loop carries, reductions and costly shared values of such tiles. Out: registers
 * (vector<4 x T> per 16x8 tile, scalars per row), written to shared memory only where code
 * that cannot read them so needs them. */
#include "backend/nvptx_mma.h"

#include "conversion/op_rows.h"
#include "dialects/ir_util.h"
#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- loop-carried accumulators ------------------------------------------------------------ */

/* tc_nvptx_kernel_of(L)->carries: one malloc'ed block (end_kernel frees it with the kernel's state). */
typedef struct carry_set {
  int n, cap;
  mma_carry c[];
} carry_set;

static mma_carry *find_carry(tc_lower *L, MlirOperation loop, int i) {
  carry_set *s = tc_nvptx_kernel_of(L)->carries;
  for (int k = 0; s && k < s->n; k++)
    if (s->c[k].used && mlirOperationEqual(s->c[k].loop, loop) && s->c[k].i == i) return &s->c[k];
  return NULL;
}

mma_carry *tc_mma_carry_of_dot(tc_lower *L, MlirOperation dot) {
  carry_set *s = tc_nvptx_kernel_of(L)->carries;
  for (int k = 0; s && k < s->n; k++)
    if (s->c[k].used && s->c[k].bound && mlirOperationEqual(s->c[k].dot, dot)) return &s->c[k];
  return NULL;
}

/* A free record (valid until the next call). */
static mma_carry *new_carry(tc_lower *L) {
  carry_set *s = tc_nvptx_kernel_of(L)->carries;
  for (int k = 0; s && k < s->n; k++)
    if (!s->c[k].used) return &s->c[k];
  if (!s || s->n == s->cap) {
    int cap = s ? 2 * s->cap : 4;
    carry_set *g = realloc(s, sizeof *g + sizeof(mma_carry) * (size_t)cap);
    if (!g) return NULL;
    if (!s) g->n = 0;
    g->cap = cap;
    tc_nvptx_kernel_of(L)->carries = s = g;
  }
  return &s->c[s->n++];
}

static MlirValue only_use(MlirValue v, MlirOperation *owner, intptr_t *operand) {
  MlirOpOperand u = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(u) || !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u))) return (MlirValue){NULL};
  *owner = mlirOpOperandGetOwner(u);
  *operand = (intptr_t)mlirOpOperandGetOperandNumber(u);
  return v;
}

/* The dot of carried tile i of loop when it has the shape `acc = tl.dot(a, b, f(acc))`:
 * the dot stands in the loop's body, its result is only yielded into slot i, and the body
 * argument's one use reaches the dot's acc operand through single-use elementwise ops. */
static MlirOperation carry_shape(tc_lower *L, MlirOperation loop, int i) {
  MlirOperation none = {NULL};
  if (tc_nvptx_alone(L) || tc_mma_capability(L) < 80) return none;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirOperation yield = mlirBlockGetTerminator(body);
  MlirValue arg = mlirBlockGetArgument(body, 1 + i), y = mlirOperationGetOperand(yield, i);
  MlirType t = mlirValueGetType(arg);
  int64_t s[TC_RANK];
  MlirType e = mlirShapedTypeGetElementType(t);
  bool i32 = mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 32;
  if (tc_shape_of(t, s) != 2 || !(mlirTypeIsAF32(e) || i32) || !mlirValueIsAOpResult(y)) return none;
  MlirOperation dot = mlirOpResultGetOwner(y), owner;
  intptr_t operand;
  if (tile_op_of(dot) != TILE_DOT || !mlirBlockEqual(mlirOperationGetBlock(dot), body)) return none;
  if (mlirValueIsNull(only_use(y, &owner, &operand)) || !mlirOperationEqual(owner, yield) || operand != i) return none;
  MlirValue v = arg;
  for (int depth = 0;; depth++) {
    if (depth == 16 || mlirValueIsNull(only_use(v, &owner, &operand))) return none;
    if (mlirOperationEqual(owner, dot)) return operand == 2 ? dot : none;
    if (tile_op_of(owner) || !tc_is_lazy_op(owner) || mlirOperationGetNumResults(owner) != 1 ||
        !mlirBlockEqual(mlirOperationGetBlock(owner), body))
      return none;
    v = mlirOperationGetResult(owner, 0);
    if (!mlirTypeEqual(mlirValueGetType(v), t)) return none;
  }
}

/* Carried tile i of loop is `acc = tl.dot(a, b, f(acc))` (carry_shape) on tensor cores in
 * one round, C in f32 (s8 operands: i32). Fills c (but its list link) when it is. */
static bool classify(tc_lower *L, MlirOperation loop, int i, mma_carry *c) {
  MlirOperation dot = carry_shape(L, loop, i);
  mma_plan p;
  if (mlirOperationIsNull(dot) || !tc_mma_plan_of(L, dot, MAXT, &p) || p.rounds != 1 ||
      !mlirTypeEqual(p.ce, tc_mma_frag_elem(L, p.ops)))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  *c = (mma_carry){.loop = loop, .dot = dot, .i = i, .arg = mlirBlockGetArgument(body, 1 + i), .plan = p};
  return true;
}

/* Carried row vectors (m_i, l_i of attention's online softmax): "row vectors" below. */
static void fresh_after(tc_lower *L, MlirOperation loop);
static bool row_carry_classify(tc_lower *L, MlirOperation loop, int i, mma_carry *c);
static void row_carry_init(tc_lower *L, mma_carry *c, MlirValue *vals);
static void row_carry_bind(tc_lower *L, mma_carry *c, const MlirValue *vals);
static void row_carry_yield(tc_lower *L, mma_carry *c, MlirValue *vals);
static void row_carry_done(tc_lower *L, mma_carry *c, const MlirValue *vals);

static bool is_row_slot(MlirOperation loop, int i) {
  return tc_shape_of(mlirValueGetType(mlirOperationGetOperand(loop, 3 + i)), (int64_t[TC_RANK]){0}) == 1;
}

static int carry_count(tc_lower *L, MlirOperation loop, int i) {
  mma_carry c;
  if (is_row_slot(loop, i)) return row_carry_classify(L, loop, i, &c) ? (int)(2 * c.plan.bm) : 0;
  return classify(L, loop, i, &c) ? (int)(c.plan.bm * c.plan.bn) : 0;
}

/* The record is taken here and given back by carry_done. */
static void carry_init(tc_lower *L, MlirOperation loop, int i, MlirValue *vals) {
  mma_carry *c = new_carry(L);
  if (c && is_row_slot(loop, i)) {
    if (!row_carry_classify(L, loop, i, c)) {
      tc_fail_here(L, TILEC_ERROR_INTERNAL, "a loop's row vector changed its lowering");
      return;
    }
    c->used = true;
    row_carry_init(L, c, vals);
    return;
  }
  if (!c || !classify(L, loop, i, c)) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, c ? "a loop's tl.dot accumulator changed its lowering" : "out of memory");
    return;
  }
  c->used = true;
  lane_ctx lc = tc_mma_lane_of(L, &L->b);
  block_ctx k = tc_mma_block_of(&L->b, &c->plan, &lc, (MlirValue){NULL});
  tc_mma_eval_fragments(L, &L->b, &c->plan, &k, mlirOperationGetOperand(loop, 3 + i), (MlirValue){NULL}, NULL, vals);
}

static void carry_bind(tc_lower *L, MlirOperation loop, int i, const MlirValue *vals) {
  mma_carry *c = find_carry(L, loop, i);
  if (c->row) {
    row_carry_bind(L, c, vals);
    return;
  }
  memcpy(c->in, vals, sizeof(MlirValue) * (size_t)(c->plan.bm * c->plan.bn));
  c->bound = true;
  c->emitted = false;
}

static void carry_yield(tc_lower *L, MlirOperation loop, int i, MlirValue *vals) {
  mma_carry *c = find_carry(L, loop, i);
  if (c->row) {
    row_carry_yield(L, c, vals);
    return;
  }
  if (!c->emitted) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "the loop's tl.dot accumulator was not computed before its yield");
    return;
  }
  memcpy(vals, c->out, sizeof(MlirValue) * (size_t)(c->plan.bm * c->plan.bn));
  c->bound = false;
}

/* After the loop: the fragments go to a shared buffer, the loop's result. */
static void carry_done(tc_lower *L, MlirOperation loop, int i, const MlirValue *vals) {
  mma_carry *c = find_carry(L, loop, i);
  fresh_after(L, loop);
  if (c->row) {
    c->used = false;
    row_carry_done(L, c, vals);
    return;
  }
  mma_plan p = c->plan;
  c->used = false;
  MlirValue buf = tc_alloc_buffer(L, tc_mma_frag_elem(L, p.ops), p.M * p.N);
  if (L->status) return;
  lane_ctx lc = tc_mma_lane_of(L, &L->b);
  block_ctx k = tc_mma_block_of(&L->b, &p, &lc, (MlirValue){NULL});
  tc_nvptx_barrier(L, &L->b); /* readers of the buffer's space before are done */
  tc_mma_store_fragments(L, &L->b, &p, &k, buf, vals);
  tc_nvptx_barrier(L, &L->b); /* C is complete for every thread */
  tc_special *s = tc_special_put(L, mlirOperationGetResult(loop, i));
  memset(s, 0, sizeof *s);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = buf;
}

const tc_loop_carries tc_nvptx_mma_carries = {
    .count = carry_count, .init = carry_init, .bind = carry_bind, .yield = carry_yield, .done = carry_done};

/* ---- dot results kept in fragments ----------------------------------------------------------
 * Attention's scores s = q @ k^T feed only row reductions (tl.max(s, 1), tl.sum(p, 1)) and,
 * through elementwise ops (p = exp2(s * c - m[:, None]), p.to(fp16)), the A operand of the
 * next tl.dot. Such a result (frag_eligible) stays in the warps' MMA fragments, never in
 * shared memory, with the warps along M (each holds whole rows): a row reduction folds each
 * lane's values of a row and combines the row's 4 lanes (2 shuffles: frag_reduce); the next
 * dot's A fragments are C fragments converted (C[g][2q..] of n-tiles 2kk and 2kk + 1 are
 * A[g][2q..] and A[g][2q + 8..] of its k step kk: frag_a); a costly value two consumers
 * need (p) is computed once, into fragments too (tc_nvptx_materialize_fragments). Their
 * consumers evaluate at a lane's fragment positions with every fragment tile bound there. */

frag_set *tc_mma_frags_of(tc_lower *L) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  if (!k->frags) k->frags = calloc(1, sizeof(frag_set));
  return k->frags;
}

/* After a loop carrying fragments, the code that follows computes its addresses anew
 * (tc_nvptx_fresh_thread_id), once a loop. */
static void fresh_after(tc_lower *L, MlirOperation loop) {
  frag_set *fs = tc_mma_frags_of(L);
  if (fs && !mlirOperationEqual(fs->refreshed_after, loop)) {
    fs->refreshed_after = loop;
    tc_nvptx_fresh_thread_id(L, &L->b);
  }
}

/* Are f's registers in scope where L emits (a block lowered twice, as versioned loops are,
 * has its own)? */
static bool frag_live(tc_lower *L, const frag_tile *f) { return tc_block_encloses(f->at, L->b.block); }

static frag_tile *frag_of(tc_lower *L, MlirValue old) {
  frag_set *s = tc_nvptx_kernel_of(L)->frags;
  for (int i = 0; s && i < s->n; i++)
    if (mlirValueEqual(s->f[i].old, old) && frag_live(L, &s->f[i])) return &s->f[i];
  return NULL;
}

/* Records f (its values in scope in block `at` and inside), replacing an earlier record of
 * its tile. */
void tc_mma_frag_put(tc_lower *L, frag_set *s, frag_tile f, MlirBlock at) {
  f.at = at;
  for (int i = 0; i < s->n; i++)
    if (mlirValueEqual(s->f[i].old, f.old)) {
      s->f[i] = f;
      return;
    }
  if (s->n < MAXF) {
    s->f[s->n++] = f;
    return;
  }
  for (int i = 0; i < s->n; i++) /* a record out of scope here and in `at` (an earlier loop's) */
    if (!frag_live(L, &s->f[i]) && !tc_block_encloses(s->f[i].at, at)) {
      s->f[i] = f;
      return;
    }
  tc_fail_here(L, TILEC_ERROR_INTERNAL, "more than %d tiles computed from tl.dot results in registers", MAXF);
}

static bool is_16bit_float(MlirType t) { return mlirTypeIsAF16(t) || mlirTypeIsABF16(t); }

/* An arith or math op (not a tile op): what the fragments' consumers compute through. */
static bool arith_or_math(MlirOperation o) {
  return !tile_op_of(o) && (tc_op_in_dialect(o, "arith") || tc_op_in_dialect(o, "math"));
}

/* An arith/math op with one result of the 2-D shape. */
static bool frag_elementwise(MlirOperation o, const int64_t *shape) {
  int64_t s[TC_RANK];
  return arith_or_math(o) && mlirOperationGetNumResults(o) == 1 &&
         tc_shape_of(mlirValueGetType(mlirOperationGetResult(o, 0)), s) == 2 && s[0] == shape[0] && s[1] == shape[1];
}

/* Is dot a loop's carried accumulator in the MMA fragments (tc_nvptx_mma_carries: its C
 * planned for MAXT tiles a warp)? */
static bool dot_carried(tc_lower *L, MlirOperation dot) {
  MlirOperation owner, loop = mlirOperationGetParentOperation(dot);
  intptr_t operand;
  if (mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for") ||
      mlirValueIsNull(only_use(mlirOperationGetResult(dot, 0), &owner, &operand)) || !tc_op_is(owner, "scf.yield") ||
      !mlirOperationEqual(mlirOperationGetParentOperation(owner), loop))
    return false;
  return mlirOperationEqual(carry_shape(L, loop, (int)operand), dot); /* and C f32: the caller's */
}

/* Does every use of v (an M x N tile of blk), through elementwise ops, read it where a
 * warp of a rows plan holds it: a row reduction (axis 1), or the 16-bit A operand of a
 * tensor-core tl.dot over K = N whose rows plan runs in one round? */
static bool frag_uses_ok(tc_lower *L, MlirValue v, MlirBlock blk, const int64_t *shape, int depth) {
  if (depth > 32) return false;
  bool any = false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    any = true;
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk)) return false;
    tile_op_id k = tile_op_of(o);
    if (k == TILE_REDUCE) {
      if (tile_int_attr(o, "axis", -1) != 1) return false;
      continue;
    }
    if (k == TILE_DOT) {
      mma_plan t, q;
      int64_t cs[TC_RANK], as[TC_RANK];
      if (mlirOpOperandGetOperandNumber(u) != 0 || !tc_mma_types(L, o, &t, cs, as) || t.ops == OPS_TF32 || t.split16 ||
          !is_16bit_float(mlirShapedTypeGetElementType(mlirValueGetType(v))) || as[0] != shape[0] ||
          as[1] != shape[1] ||
          !tc_mma_make_plan(L, cs[0], cs[1], as[1], dot_carried(L, o) && mlirTypeIsAF32(t.ce) ? MAXT : MAXT_ROUND, true,
                            &q) ||
          q.rounds != 1)
        return false;
      continue;
    }
    if (!frag_elementwise(o, shape) || !frag_uses_ok(L, mlirOperationGetResult(o, 0), blk, shape, depth + 1))
      return false;
  }
  return any;
}

/* Is the result of dot (f32, one round of a rows plan) read only by fragment consumers? */
bool tc_mma_frag_eligible(tc_lower *L, MlirOperation dot) {
  mma_plan t, q;
  int64_t cs[TC_RANK], as[TC_RANK];
  if (tile_op_of(dot) != TILE_DOT || !tc_mma_types(L, dot, &t, cs, as) || !mlirTypeIsAF32(t.ce) ||
      !tc_mma_make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, &q) || q.rounds != 1)
    return false;
  return frag_uses_ok(L, mlirOperationGetResult(dot, 0), mlirOperationGetBlock(dot), cs, 0);
}

/* The eligible dot whose result v is computed from through elementwise ops of blk (null:
 * none). */
static MlirOperation frag_source(tc_lower *L, MlirValue v, MlirBlock blk, int depth) {
  MlirOperation none = {NULL};
  if (depth > 32 || !mlirValueIsAOpResult(v)) return none;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!mlirBlockEqual(mlirOperationGetBlock(d), blk)) return none;
  if (tile_op_of(d) == TILE_DOT) return tc_mma_frag_eligible(L, d) ? d : none;
  if (!arith_or_math(d)) return none;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++) {
    MlirOperation s = frag_source(L, mlirOperationGetOperand(d, i), blk, depth + 1);
    if (!mlirOperationIsNull(s)) return s;
  }
  return none;
}

MlirOperation tc_mma_frag_a_source(tc_lower *L, MlirOperation dot) {
  return frag_source(L, mlirOperationGetOperand(dot, 0), mlirOperationGetBlock(dot), 0);
}

/* The warps of this dot go along M: its result stays in fragments, or its A is read from them. */
bool tc_mma_frag_rows(tc_lower *L, MlirOperation dot) {
  return tc_mma_frag_eligible(L, dot) ||
         !mlirOperationIsNull(frag_source(L, mlirOperationGetOperand(dot, 0), mlirOperationGetBlock(dot), 0));
}

/* A fragment tile in v's cone (through elementwise ops), or null. */
/* The first record in v's cone (through elementwise ops) that is a row vector (row) or a
 * tile (!row); null where the cone meets the other kind first or none. */
static frag_tile *record_in_cone(tc_lower *L, MlirValue v, bool row, int depth) {
  frag_tile *f = frag_of(L, v);
  if (f) return f->row == row ? f : NULL; /* a row vector's cone holds no tile, and back */
  if (depth > 32 || !mlirValueIsAOpResult(v)) return NULL;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (!arith_or_math(d)) return NULL;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d) && !f; i++)
    f = record_in_cone(L, mlirOperationGetOperand(d, i), row, depth + 1);
  return f;
}

frag_tile *tc_mma_frag_in_cone(tc_lower *L, MlirValue v, int depth) { return record_in_cone(L, v, false, depth); }

static MlirBlock old_block(MlirValue v) {
  return mlirValueIsAOpResult(v) ? mlirOperationGetBlock(mlirOpResultGetOwner(v)) : mlirBlockArgumentGetOwner(v);
}

/* The chunk (width 2) at tile t's half h of this lane, every fragment tile of src's plan
 * and block (whose registers are in scope: computed earlier in the same block) bound there. */
static void frag_bind(tc_lower *L, tc_chunk *c, const frag_tile *src, const tc_pos *pos, int64_t t, int h) {
  frag_set *s = tc_nvptx_kernel_of(L)->frags;
  MlirBlock blk = old_block(src->old);
  for (int i = 0; s && i < s->n; i++) {
    const mma_plan *q = &s->f[i].plan;
    if (!s->f[i].row && q->M == src->plan.M && q->N == src->plan.N && q->bm == src->plan.bm && q->bn == src->plan.bn &&
        q->wg == src->plan.wg && mlirBlockEqual(old_block(s->f[i].old), blk) && frag_live(L, &s->f[i]))
      tc_chunk_bind(c, s->f[i].old, pos, (tc_cval){.vec = tc_mma_half_of(L, &c->b, s->f[i].vals[t], h)});
  }
  tc_mma_bind_rows(L, c, &src->plan, pos->idx[0], t / src->plan.bn, h);
}

static tc_pos frag_pos(const block_ctx *k, tc_builder *b, int64_t i, int64_t j, int h) {
  tc_pos pos = {.rank = 2, .chunked = true};
  pos.idx[0] = addc(b, k->row[i], 8 * h);
  pos.idx[1] = k->col[j];
  return pos;
}

static bool materialize_row(tc_lower *L, MlirValue old);

bool tc_nvptx_materialize_fragments(tc_lower *L, MlirValue old) {
  if (frag_of(L, old)) return true;
  if (tc_shape_of(mlirValueGetType(old), (int64_t[TC_RANK]){0}) == 1) return materialize_row(L, old);
  frag_tile *src = tc_mma_frag_in_cone(L, old, 0);
  if (!src || !mlirValueIsAOpResult(old)) return false;
  int64_t shape[TC_RANK] = {src->plan.M, src->plan.N};
  if (!frag_uses_ok(L, old, mlirOperationGetBlock(mlirOpResultGetOwner(old)), shape, 0)) return false;
  frag_set *fs = tc_mma_frags_of(L);
  if (!fs) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
    return true;
  }
  frag_tile f = {.old = old, .plan = src->plan};
  tc_builder *b = &L->b;
  tc_nvptx_barrier(L, b); /* what it reads from earlier nests is complete (dropped below if nothing) */
  MlirOperation fence = tc_nvptx_last_op(b);
  lane_ctx lc = tc_mma_lane_of(L, b);
  block_ctx k = tc_mma_block_of(b, &f.plan, &lc, (MlirValue){NULL});
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  for (int64_t i = 0; i < f.plan.bm && !L->status; i++)
    for (int64_t j = 0; j < f.plan.bn && !L->status; j++) {
      int64_t t = i * f.plan.bn + j, m[4] = {0, 1, 2, 3};
      MlirValue hv[2];
      for (int h = 0; h < 2 && !L->status; h++) {
        tc_pos pos = frag_pos(&k, &c.b, i, j, h);
        frag_bind(L, &c, src, &pos, t, h);
        hv[h] = tc_eval(&c, old, &pos).vec;
      }
      if (!L->status)
        f.vals[t] = tc_mma_shuffle(L, &c.b, hv[0], hv[1], 4, m,
                                   tc_vec_type(L->ctx, 4, tcb_element_type(mlirValueGetType(hv[0]))));
    }
  *b = c.b;
  tc_chunk_free(&c);
  if (L->status) return true;
  if (!tc_nvptx_touches_memory(fence, b)) mlirOperationDestroy(fence);
  tc_mma_frag_put(L, fs, f, L->b.block);
  return true;
}

/* A's fragments of a dot whose A operand (old) is computed from fragment tiles of plan
 * src, for every k step: a_x of m-tile i at k step kk is the pair at row g + 8 (x % 2),
 * columns 16 kk + 8 (x / 2) + 2q: half x % 2 of C tile (i, 2 kk + x / 2). */
void tc_mma_frag_a(tc_lower *L, tc_builder *b, const frag_tile *src, MlirValue old, int64_t ksteps, a_frags *out) {
  lane_ctx lc = tc_mma_lane_of(L, b);
  block_ctx k = tc_mma_block_of(b, &src->plan, &lc, (MlirValue){NULL});
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  MlirType i32 = tcb_int_type(L->ctx, 32);
  for (int64_t kk = 0; kk < ksteps && !L->status; kk++)
    for (int64_t i = 0; i < src->plan.bm && !L->status; i++)
      for (int x = 0; x < 4 && !L->status; x++) {
        int64_t j = 2 * kk + x / 2, t = i * src->plan.bn + j;
        tc_pos pos = frag_pos(&k, &c.b, i, j, x % 2);
        frag_bind(L, &c, src, &pos, t, x % 2);
        MlirValue v = tc_eval(&c, old, &pos).vec;
        if (!L->status) out[kk][i][x] = tcb_cast(&c.b, "llvm.bitcast", v, i32);
      }
  *b = c.b;
  tc_chunk_free(&c);
}

/* ---- row vectors in the quads' registers ----------------------------------------------------
 * Attention's online softmax keeps per-row state across its K loop: m_i (the running max) and
 * l_i (the running sum), updated from row reductions of the scores (m_new = max(m_i,
 * tl.max(s, 1)), alpha = exp2(m_i - m_new), l_i * alpha + tl.sum(p, 1)) and read back by the
 * fragments as row broadcasts (s - m_new[:, None], acc * alpha[:, None]). In a rows plan a
 * lane's fragments cover rows row[i] and row[i] + 8 of each of its m-tiles i, and the four
 * lanes of a quad hold the same rows (Triton's slice of the MMA layout): such a 1-D tile of
 * M elements is 2 bm scalars a lane, vals[2 i + h] for row[i] + 8 h, the same in the quad's
 * four lanes. A row reduction of fragment tiles (tc_nvptx_frag_reduce) produces one with
 * butterfly shuffles (every lane of the quad ends with the row's value; the combine is
 * commutative, so the four lanes agree bit for bit); elementwise ops of row vectors are
 * evaluated at a lane's rows (row_eval; materialize_fragments computes a costly one two
 * consumers need once); a loop carries one as its 2 bm scalars (tc_nvptx_mma_carries); the
 * fragments read one at their rows (bind_rows, in every fragment context). No shared
 * memory, no barrier. A row vector stays in registers only where every use reads it so
 * (row_uses_ok): elementwise ops of rows, a broadcast [:, None] read only in fragment
 * contexts of the same rows, a yield into a carried row vector of the loop; anything else
 * (a store, a reduction, a load's pointer, another layout) keeps the shared buffer. */

/* Do the two plans give a lane the same rows? */
static bool same_rows(const mma_plan *a, const mma_plan *b) {
  return a->M == b->M && a->bm == b->bm && a->active == b->active && a->nblk_n == b->nblk_n && a->wg == b->wg &&
         a->rounds == 1 && b->rounds == 1;
}

static tc_pos row_pos(MlirValue row) {
  tc_pos pos = {.rank = 1, .chunked = false};
  pos.idx[0] = row;
  return pos;
}

/* Binds every row vector of p's rows in scope to row (the lane's row[i] + 8 h) in c. */
void tc_mma_bind_rows(tc_lower *L, tc_chunk *c, const mma_plan *p, MlirValue row, int64_t i, int h) {
  frag_set *s = tc_nvptx_kernel_of(L)->frags;
  tc_pos pos = row_pos(row);
  for (int n = 0; s && n < s->n; n++)
    if (s->f[n].row && same_rows(&s->f[n].plan, p) && frag_live(L, &s->f[n]))
      tc_chunk_bind(c, s->f[n].old, &pos, (tc_cval){.vec = s->f[n].vals[2 * i + h]});
}

/* Old 1-D tile v at this lane's rows of plan p (out[2 i + h]), every row vector in scope
 * bound there. */
static void row_eval(tc_lower *L, tc_builder *b, const mma_plan *p, MlirValue v, MlirValue *out) {
  tc_nvptx_barrier(L, b); /* what v reads from earlier nests is complete (dropped below if nothing) */
  MlirOperation fence = tc_nvptx_last_op(b);
  lane_ctx lc = tc_mma_lane_of(L, b);
  block_ctx k = tc_mma_block_of(b, p, &lc, (MlirValue){NULL});
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 1);
  c.b = *b;
  for (int64_t i = 0; i < p->bm && !L->status; i++)
    for (int h = 0; h < 2 && !L->status; h++) {
      MlirValue row = addc(&c.b, k.row[i], 8 * h);
      tc_pos pos = row_pos(row);
      tc_mma_bind_rows(L, &c, p, row, i, h);
      out[2 * i + h] = tc_eval(&c, v, &pos).vec;
    }
  *b = c.b;
  tc_chunk_free(&c);
  if (!L->status && !tc_nvptx_touches_memory(fence, b)) mlirOperationDestroy(fence);
}

/* The rows plan of the first tl.dot of loop's body whose result stays in fragments. */
static bool loop_row_plan(tc_lower *L, MlirOperation loop, mma_plan *p) {
  if (mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for")) return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    mma_plan t;
    int64_t cs[TC_RANK], as[TC_RANK];
    if (tile_op_of(o) == TILE_DOT && tc_mma_frag_eligible(L, o) && tc_mma_types(L, o, &t, cs, as) &&
        tc_mma_make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, p))
      return true;
  }
  return false;
}

/* Does r reach, through single-use elementwise ops, the acc operand of a tl.dot whose C a
 * loop carries in the fragments of p's rows (attention's acc * alpha[:, None])? */
static bool on_carried_acc(tc_lower *L, MlirValue r, const mma_plan *p) {
  MlirOperation owner;
  intptr_t operand;
  for (int depth = 0; depth < 16; depth++) {
    if (mlirValueIsNull(only_use(r, &owner, &operand))) return false;
    if (tile_op_of(owner) == TILE_DOT) {
      mma_plan q;
      return operand == 2 && dot_carried(L, owner) && tc_mma_plan_of(L, owner, MAXT, &q) && same_rows(&q, p);
    }
    if (tile_op_of(owner) || !tc_is_lazy_op(owner) || mlirOperationGetNumResults(owner) != 1) return false;
    r = mlirOperationGetResult(owner, 0);
  }
  return false;
}

/* Is every use of the 2-D tile w of blk evaluated in a fragment context of p's rows: an
 * elementwise op whose result is computed from a tl.dot kept in fragments of those rows
 * and read only where the fragments are (frag_uses_ok), or is on a carried accumulator's
 * acc operand, or leads to such through more elementwise ops? */
static bool frag_context(tc_lower *L, MlirValue w, MlirBlock blk, const mma_plan *p, int depth) {
  int64_t shape[TC_RANK];
  if (depth > 16 || tc_shape_of(mlirValueGetType(w), shape) != 2) return false;
  bool any = false;
  for (MlirOpOperand u = mlirValueGetFirstUse(w); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk) || !frag_elementwise(o, shape)) return false;
    MlirValue r = mlirOperationGetResult(o, 0);
    MlirOperation src = frag_source(L, r, blk, 0);
    mma_plan q;
    int64_t cs[TC_RANK], as[TC_RANK];
    bool in_frags = !mlirOperationIsNull(src) && tc_mma_types(L, src, &q, cs, as) &&
                    tc_mma_make_plan(L, cs[0], cs[1], as[1], MAXT_ROUND, true, &q) && same_rows(&q, p) &&
                    frag_uses_ok(L, r, blk, shape, 0);
    if (!in_frags && !on_carried_acc(L, r, p) && !frag_context(L, r, blk, p, depth + 1)) return false;
    any = true;
  }
  return any;
}

/* Is every use of the 1-D tile v (of blk, p.M long) one that reads it in p's rows: an
 * elementwise op of such tiles, a broadcast v[:, None] read in fragment contexts of p's
 * rows, or a yield into one of loop's carried row vectors (`slots`)? */
static bool row_uses_ok(tc_lower *L, MlirValue v, MlirBlock blk, MlirOperation loop, uint64_t slots, const mma_plan *p,
                        int depth) {
  if (depth > 32) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk)) return false;
    if (tc_op_is(o, "scf.yield")) {
      unsigned j = mlirOpOperandGetOperandNumber(u);
      if (mlirOperationIsNull(loop) || !mlirOperationEqual(mlirOperationGetParentOperation(o), loop) || j >= 64 ||
          !(slots >> j & 1))
        return false;
      continue;
    }
    int64_t s[TC_RANK];
    int r = mlirOperationGetNumResults(o) == 1 ? tc_shape_of(mlirValueGetType(mlirOperationGetResult(o, 0)), s) : 0;
    if (arith_or_math(o) && r == 1 && s[0] == p->M) {
      if (!row_uses_ok(L, mlirOperationGetResult(o, 0), blk, loop, slots, p, depth + 1)) return false;
      continue;
    }
    tile_op_id k = tile_op_of(o);
    if (!((k == TILE_RESHAPE || k == TILE_EXPAND_DIMS) && r == 2 && s[0] == p->M && s[1] == 1)) return false;
    for (MlirOpOperand e = mlirValueGetFirstUse(mlirOperationGetResult(o, 0)); !mlirOpOperandIsNull(e);
         e = mlirOpOperandGetNextUse(e)) {
      MlirOperation bc = mlirOpOperandGetOwner(e);
      if (tile_op_of(bc) != TILE_BROADCAST || !mlirBlockEqual(mlirOperationGetBlock(bc), blk) ||
          !frag_context(L, mlirOperationGetResult(bc, 0), blk, p, 0))
        return false;
    }
  }
  return true;
}

/* The carried tiles of loop (with p its rows plan) that stay row vectors: 1-D tiles of p.M
 * ints or floats of at most 32 bits whose body argument is read only in p's rows (the
 * largest such set: a slot drops out until none fails). */
static uint64_t row_slots(tc_lower *L, MlirOperation loop, const mma_plan *p) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  int n = (int)mlirOperationGetNumOperands(loop) - 3;
  uint64_t slots = 0;
  for (int i = 0; i < n && i < 64; i++) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(loop, 3 + i));
    int64_t s[TC_RANK];
    if (tc_shape_of(t, s) != 1 || s[0] != p->M) continue;
    MlirType e = mlirShapedTypeGetElementType(t);
    if ((tcb_is_float(e) || mlirTypeIsAInteger(e)) && tcb_bitwidth(e) <= 32) slots |= (uint64_t)1 << i;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < n && i < 64; i++)
      if (slots >> i & 1 && !row_uses_ok(L, mlirBlockGetArgument(body, 1 + i), body, loop, slots, p, 0)) {
        slots &= ~((uint64_t)1 << i);
        changed = true;
      }
  }
  return slots;
}

/* May the 1-D tile v of blk (computed in p's rows) stay a row vector? */
static bool row_value_ok(tc_lower *L, MlirValue v, const mma_plan *p) {
  MlirBlock blk = old_block(v);
  MlirOperation loop = mlirBlockGetParentOperation(blk);
  mma_plan lp;
  uint64_t slots = 0;
  if (loop_row_plan(L, loop, &lp) && same_rows(&lp, p)) slots = row_slots(L, loop, &lp);
  else if (!tc_op_is(loop, "scf.for")) loop = (MlirOperation){NULL};
  return row_uses_ok(L, v, blk, loop, slots, p, 0);
}

/* tc_nvptx_materialize_fragments of a 1-D tile: computed once into a row vector where it
 * is computed from one and every use reads it in the same rows. */
static bool materialize_row(tc_lower *L, MlirValue old) {
  frag_tile *src = record_in_cone(L, old, true, 0);
  if (!src || !mlirValueIsAOpResult(old) || !row_value_ok(L, old, &src->plan)) return false;
  frag_set *fs = tc_mma_frags_of(L);
  if (!fs) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
    return true;
  }
  frag_tile f = {.old = old, .plan = src->plan, .row = true};
  row_eval(L, &L->b, &f.plan, old, f.vals);
  if (!L->status) tc_mma_frag_put(L, fs, f, L->b.block);
  return true;
}

static bool row_carry_classify(tc_lower *L, MlirOperation loop, int i, mma_carry *c) {
  mma_plan p;
  if (tc_nvptx_alone(L) || tc_mma_capability(L) < 80 || !loop_row_plan(L, loop, &p) ||
      !(row_slots(L, loop, &p) >> i & 1))
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  *c = (mma_carry){.loop = loop, .i = i, .arg = mlirBlockGetArgument(body, 1 + i), .plan = p, .row = true};
  return true;
}

static void row_carry_init(tc_lower *L, mma_carry *c, MlirValue *vals) {
  row_eval(L, &L->b, &c->plan, mlirOperationGetOperand(c->loop, 3 + c->i), vals);
}

static void row_carry_bind(tc_lower *L, mma_carry *c, const MlirValue *vals) {
  frag_set *fs = tc_mma_frags_of(L);
  if (!fs) {
    tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
    return;
  }
  frag_tile f = {.old = c->arg, .plan = c->plan, .row = true};
  memcpy(f.vals, vals, sizeof(MlirValue) * (size_t)(2 * c->plan.bm));
  tc_mma_frag_put(L, fs, f, mlirBlockArgumentGetOwner(vals[0]));
}

static void row_carry_yield(tc_lower *L, mma_carry *c, MlirValue *vals) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(c->loop, 0));
  row_eval(L, &L->b, &c->plan, mlirOperationGetOperand(mlirBlockGetTerminator(body), c->i), vals);
}

/* After the loop: lane 0 of each quad of the warps that keep their rows writes them to a
 * shared buffer, the loop's result. */
static void row_carry_done(tc_lower *L, mma_carry *c, const MlirValue *vals) {
  MlirValue res = mlirOperationGetResult(c->loop, c->i);
  MlirType e = mlirShapedTypeGetElementType(mlirValueGetType(res));
  int64_t shape[1] = {c->plan.M};
  MlirValue buf = tc_alloc_buffer(L, e, c->plan.M);
  if (L->status) return;
  tc_builder *b = &L->b;
  tc_nvptx_barrier(L, b); /* readers of the buffer's space before are done */
  lane_ctx lc = tc_mma_lane_of(L, b);
  block_ctx k = tc_mma_block_of(b, &c->plan, &lc, (MlirValue){NULL});
  MlirValue first = tcb_binary(b, "arith.andi", k.valid, tcb_cmpi(b, "eq", lc.q, cidx(b, 0)));
  tc_builder wb;
  tcb_if(b, first, 0, NULL, &wb, NULL);
  tc_chunk w;
  tc_chunk_init(&w, L, wb.block, 1);
  w.b = wb;
  for (int64_t i = 0; i < c->plan.bm; i++)
    for (int h = 0; h < 2; h++) {
      tc_pos rp = row_pos(addc(&w.b, k.row[i], 8 * h));
      tc_buffer_write(&w, buf, vals[2 * i + h], &rp, shape);
    }
  tcb_op(&w.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_chunk_free(&w);
  tc_nvptx_barrier(L, b); /* the rows are complete for every thread */
  tc_special *s = tc_special_put(L, res);
  memset(s, 0, sizeof *s);
  s->kind = TC_SPECIAL_BUFFER;
  s->buffer = buf;
}

int tc_nvptx_frag_reduce(tc_lower *L, MlirOperation op) {
  int nvals, rank, axis;
  MlirValue olds[TC_REDUCE_MAX_VALUES];
  int64_t shape[TC_RANK];
  if (mlirOperationGetNumOperands(op) > TC_REDUCE_MAX_VALUES || tile_int_attr(op, "axis", -1) != 1) return 0;
  frag_tile *src = NULL;
  for (intptr_t n = 0; n < mlirOperationGetNumOperands(op) && !src; n++)
    src = tc_mma_frag_in_cone(L, mlirOperationGetOperand(op, n), 0);
  if (!src) return 0;
  if (!tc_reduce_operands(L, op, "reduce", "reductions", &nvals, olds, &rank, shape, &axis)) return 1;
  if (rank != 2 || shape[0] != src->plan.M || shape[1] != src->plan.N) return 0;
  tc_builder *b = &L->b;
  b->loc = mlirOperationGetLocation(op);
  /* a row vector in the quads' registers, or a shared buffer */
  bool rows = nvals == 1 && tc_reduce_commutative(L, op) && row_value_ok(L, mlirOperationGetResult(op, 0), &src->plan);
  frag_tile rf = {.old = mlirOperationGetResult(op, 0), .plan = src->plan, .row = true};
  MlirValue bufs[TC_REDUCE_MAX_VALUES];
  for (int n = 0; n < nvals && !rows; n++)
    bufs[n] = tc_alloc_buffer(L, tcb_element_type(mlirValueGetType(mlirOperationGetResult(op, n))), shape[0]);
  if (L->status) return 1;
  tc_nvptx_barrier(L, b); /* what the operand reads from earlier nests is complete; the buffers are free */
  MlirOperation fence = tc_nvptx_last_op(b);
  lane_ctx lc = tc_mma_lane_of(L, b);
  block_ctx k = tc_mma_block_of(b, &src->plan, &lc, (MlirValue){NULL});
  MlirValue first = tcb_cmpi(b, "eq", lc.q, cidx(b, 0));
  tc_chunk c;
  tc_chunk_init(&c, L, b->block, 2);
  c.b = *b;
  for (int64_t i = 0; i < src->plan.bm && !L->status; i++)
    for (int h = 0; h < 2 && !L->status; h++) {
      MlirValue acc[TC_REDUCE_MAX_VALUES], args[2 * TC_REDUCE_MAX_VALUES], v[TC_REDUCE_MAX_VALUES];
      MlirValue row = addc(&c.b, k.row[i], 8 * h);
      for (int64_t j = 0; j < src->plan.bn && !L->status; j++) {
        tc_pos pos = frag_pos(&k, &c.b, i, j, h);
        frag_bind(L, &c, src, &pos, i * src->plan.bn + j, h);
        for (int n = 0; n < nvals && !L->status; n++) {
          args[n] = acc[n];
          args[nvals + n] = tc_eval(&c, olds[n], &pos).vec;
        }
        if (L->status) break;
        if (j == 0) memcpy(acc, args + nvals, sizeof(MlirValue) * (size_t)nvals);
        else if (!tc_apply_combine(L, &c.b, op, args, 2 * nvals, acc)) break;
      }
      if (L->status || !tc_reduce_horizontal(L, &c.b, op, nvals, acc, 2, v)) break;
      for (int d = 2; d >= 1 && !L->status; d /= 2) { /* the row's quad: lanes 4g .. 4g + 3 */
        for (int n = 0; n < nvals; n++) {
          args[n] = v[n];
          args[nvals + n] = tc_nvptx_shfl(L, &c.b, v[n], d, rows ? TC_SHFL_XOR : TC_SHFL_DOWN);
        }
        if (!tc_apply_combine(L, &c.b, op, args, 2 * nvals, v)) break;
      }
      if (L->status) break;
      if (rows) {
        rf.vals[2 * i + h] = v[0];
        continue;
      }
      tc_builder wb;
      tcb_if(&c.b, first, 0, NULL, &wb, NULL);
      tc_chunk w;
      tc_chunk_init(&w, L, wb.block, 1);
      w.b = wb;
      tc_pos rp = {.rank = 1, .chunked = false};
      rp.idx[0] = row;
      for (int n = 0; n < nvals; n++) tc_buffer_write(&w, bufs[n], v[n], &rp, shape);
      tcb_op(&w.b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
      tc_chunk_free(&w);
    }
  *b = c.b;
  tc_chunk_free(&c);
  if (L->status) return 1;
  /* a row vector computed from registers only: no buffer, nothing to order */
  if (rows && !tc_nvptx_touches_memory(fence, b)) mlirOperationDestroy(fence);
  frag_set *fs = rows ? tc_mma_frags_of(L) : NULL;
  if (fs) tc_mma_frag_put(L, fs, rf, b->block);
  else if (rows) tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
  else tc_nvptx_publish_results(L, op, nvals, bufs);
  return 1;
}
