/* conversion/memory.c — tile.load / tile.store at positions: pointer tiles contiguous
 * along the last dim become vector.load/store (masked only where the mask is not
 * provably true), uniform pointers scalar accesses, irregular ones gather/scatter; plus
 * scalar memory ops and the flat stack buffers tiles live in when they must.
 * In: chunk contexts and axis info. Out: vector/memref/llvm memory ops. */
#include "backend/backend.h"
#include "conversion/checks.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/LLVM.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_STACK_BUFFER_LIMIT (128 * 1024)

static MlirType ptr_type(MlirContext ctx) { return tcb_type(ctx, "!llvm.ptr"); }

static MlirValue insertvalue(tc_builder *b, MlirValue agg, MlirValue v, int n, const int64_t *pos) {
  MlirValue ops[2] = {agg, v};
  MlirNamedAttribute a = tcb_named(b->ctx, "position", mlirDenseI64ArrayGet(b->ctx, n, pos));
  return tcb_op1(b, "llvm.insertvalue", mlirValueGetType(agg), 2, ops, 1, &a);
}

/* memref<?xT> over [ptr, ptr + huge): upstream has no op that views a bare pointer as a
 * memref, so the descriptor is built by hand; the casts fold away in LLVM. */
MlirValue tc_memref_from_ptr(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem) {
  MlirContext ctx = L->ctx;
  MlirType desc = tcb_type(ctx, "!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>");
  MlirValue d = tcb_op1(b, "llvm.mlir.poison", desc, 0, NULL, 0, NULL);
  MlirType i64 = tcb_int_type(ctx, 64);
  int64_t p0 = 0, p1 = 1, p2 = 2, p3[2] = {3, 0}, p4[2] = {4, 0};
  d = insertvalue(b, d, ptr, 1, &p0);
  d = insertvalue(b, d, ptr, 1, &p1);
  d = insertvalue(b, d, tcb_const_int(b, i64, 0), 1, &p2);
  d = insertvalue(b, d, tcb_const_int(b, i64, (int64_t)1 << 40), 2, p3);
  d = insertvalue(b, d, tcb_const_int(b, i64, 1), 2, p4);
  int64_t dyn = mlirShapedTypeGetDynamicSize();
  MlirType mt = mlirMemRefTypeContiguousGet(elem, 1, &dyn, mlirAttributeGetNull());
  return tcb_op1(b, "builtin.unrealized_conversion_cast", mt, 1, &d, 0, NULL);
}

/* The memref view of a base pointer, built once right after the pointer is defined so
 * every loop nest shares it (and the vector-stage IR stays readable). */
static MlirValue view_of(tc_lower *L, MlirValue base, MlirType mem) {
  tc_view *v = tc_valmap_get(&L->views, base.ptr);
  if (v && mlirTypeEqual(v->elem, mem)) return v->memref;
  tc_builder vb;
  tcb_init(&vb, L->ctx);
  vb.loc = L->b.loc;
  if (mlirValueIsABlockArgument(base)) {
    MlirBlock blk = mlirBlockArgumentGetOwner(base);
    MlirOperation first = mlirBlockGetFirstOperation(blk);
    if (mlirOperationIsNull(first)) tcb_set_end(&vb, blk);
    else tcb_set_before(&vb, first);
  } else {
    MlirOperation def = mlirOpResultGetOwner(base);
    MlirOperation next = mlirOperationGetNextInBlock(def);
    if (mlirOperationIsNull(next)) tcb_set_end(&vb, mlirOperationGetBlock(def));
    else tcb_set_before(&vb, next);
  }
  MlirValue m = tc_memref_from_ptr(L, &vb, base, mem);
  if (!v) v = tc_valmap_put(&L->views, base.ptr);
  if (v) {
    v->memref = m;
    v->elem = mem;
  }
  return m;
}

/* The type the llvm dialect's own ops (getelementptr, load, store) name for memory of type
 * mem: LLVM has no fp8 types (translated, an f8 type became an arbitrary LLVM type: wrong
 * addresses, or a crash), so fp8 is its i8 code there. vector/memref ops take f8 as is (the
 * LLVM type converter maps it to i8). */
static MlirType llvm_memory_type(MlirContext ctx, MlirType mem) {
  return !mlirTypeIsAInteger(mem) && !mlirTypeIsALLVMPointerType(mem) && tcb_bitwidth(mem) == 8 ? tcb_int_type(ctx, 8)
                                                                                                : mem;
}

MlirValue tc_scalar_addptr(tc_lower *L, tc_builder *b, MlirValue base, MlirValue offset, MlirType pointee) {
  MlirValue ops[2] = {base, offset};
  int32_t dynamic = INT32_MIN;
  MlirType elem = llvm_memory_type(L->ctx, tc_memory_type(L->ctx, pointee));
  MlirNamedAttribute a[2] = {tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, &dynamic)),
                             tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(elem))};
  return tcb_op1(b, "llvm.getelementptr", ptr_type(L->ctx), 2, ops, 2, a);
}

MlirValue tc_alloc_buffer(tc_lower *L, MlirType elem, int64_t numel) {
  MlirType mem = tile_type_is_ptr(elem) ? tcb_int_type(L->ctx, 64) : tc_memory_type(L->ctx, elem);
  MlirType mt = mlirMemRefTypeContiguousGet(mem, 1, &numel, mlirAttributeGetNull());
  int64_t bytes = numel * (int64_t)((tcb_bitwidth(mem) + 7) / 8);
  MlirValue shared = L->backend->alloc_shared ? L->backend->alloc_shared(L, mt, bytes) : (MlirValue){NULL};
  if (!mlirValueIsNull(shared)) {
    tc_valmap_put(&L->aligned_buffers, shared.ptr); /* the backend aligns its buffers to 64 bytes */
    return shared;
  }
  /* Allocation at function entry keeps loops free of stack growth. */
  tc_builder eb = tc_entry_builder(L);
  eb.loc = L->b.loc;
  int32_t seg[2] = {0, 0};
  MlirNamedAttribute attrs[2] = {tcb_named(L->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
                                 tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 64))};
  if (bytes <= TC_STACK_BUFFER_LIMIT) return tcb_op1(&eb, "memref.alloca", mt, 0, NULL, 2, attrs);
  if (!L->backend->heap_buffers)
    tc_fail_here(L, TILEC_ERROR_UNSUPPORTED, "a tile of %lld bytes is too large for a thread's own memory on %s",
                 (long long)bytes, L->backend->name);
  MlirValue v = tcb_op1(&eb, "memref.alloc", mt, 0, NULL, 2, attrs);
  if (L->ndeallocs == L->capdeallocs) {
    int cap = L->capdeallocs ? 2 * L->capdeallocs : 8;
    MlirOperation *d = realloc(L->deallocs, sizeof *L->deallocs * (size_t)cap);
    if (!d) {
      tc_fail(L, mlirOpResultGetOwner(v), TILEC_ERROR_INTERNAL, "out of memory");
      return v;
    }
    L->deallocs = d;
    L->capdeallocs = cap;
  }
  L->deallocs[L->ndeallocs++] = mlirOpResultGetOwner(v);
  return v;
}

static MlirValue zero_of(tc_builder *b, MlirType t);

/* v is an arith.constant integer: its value in *x. */
static bool const_int_of(MlirValue v, int64_t *x) {
  if (!mlirValueIsAOpResult(v) || !tc_op_is(mlirOpResultGetOwner(v), "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("value"));
  if (!mlirAttributeIsAInteger(a)) return false;
  *x = mlirIntegerAttrGetValueInt(a);
  return true;
}

/* The largest power of 2 (up to 2^20) known to divide the index v, from how the lowering
 * built it: constants, products, sums, shifts, casts and scf.for induction variables. */
static int64_t index_pow2_divisor(MlirValue v, int depth) {
  const int64_t cap = (int64_t)1 << 20;
  if (depth > 16) return 1;
  if (mlirValueIsABlockArgument(v)) {
    MlirOperation loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    if (mlirBlockArgumentGetArgNumber(v) != 0 || mlirOperationIsNull(loop) || !tc_op_is(loop, "scf.for")) return 1;
    int64_t lb = index_pow2_divisor(mlirOperationGetOperand(loop, 0), depth + 1);
    int64_t step = index_pow2_divisor(mlirOperationGetOperand(loop, 2), depth + 1);
    return lb < step ? lb : step;
  }
  MlirOperation d = mlirOpResultGetOwner(v);
  int64_t c;
  if (const_int_of(v, &c)) {
    if (!c) return cap;
    int64_t p = 1;
    while (p < cap && !(c & p)) p *= 2;
    return p;
  }
  if (tc_op_is(d, "arith.index_cast") || tc_op_is(d, "arith.index_castui"))
    return index_pow2_divisor(mlirOperationGetOperand(d, 0), depth + 1);
  bool add = tc_op_is(d, "arith.addi") || tc_op_is(d, "arith.subi"), mul = tc_op_is(d, "arith.muli");
  if (!add && !mul && !tc_op_is(d, "arith.shli")) return 1;
  int64_t x = index_pow2_divisor(mlirOperationGetOperand(d, 0), depth + 1);
  if (tc_op_is(d, "arith.shli")) {
    int64_t n;
    if (!const_int_of(mlirOperationGetOperand(d, 1), &n)) return x;
    for (; n > 0 && x < cap; n--) x *= 2;
    return x;
  }
  int64_t y = index_pow2_divisor(mlirOperationGetOperand(d, 1), depth + 1);
  if (add) return x < y ? x : y;
  return x >= cap / y ? cap : x * y;
}

/* The alignment (bytes) of a chunk of buf at element index lin, for backends that turn
 * aligned vector accesses into wide instructions (ld.shared.v4): buffers tc_alloc_buffer
 * made (64-byte aligned) or allocas with an alignment, at an index known to be a multiple
 * of a power of 2. 0: nothing to state. */
static int64_t buffer_chunk_alignment(tc_chunk *c, MlirValue buf, MlirValue lin) {
  tc_lower *L = c->L;
  if (!L->backend->aligned_vectors) return 0;
  int64_t base = 0;
  if (tc_valmap_get(&L->aligned_buffers, buf.ptr)) {
    base = 64;
  } else if (mlirValueIsAOpResult(buf)) {
    MlirOperation d = mlirOpResultGetOwner(buf);
    MlirAttribute a = mlirOperationGetAttributeByName(d, mlirStringRefCreateFromCString("alignment"));
    if ((tc_op_is(d, "memref.alloca") || tc_op_is(d, "memref.alloc")) && mlirAttributeIsAInteger(a))
      base = mlirIntegerAttrGetValueInt(a);
  }
  int64_t elem = (tcb_bitwidth(tcb_element_type(mlirValueGetType(buf))) + 7) / 8, chunk = c->width * elem;
  int64_t at = index_pow2_divisor(lin, 0);
  int64_t a = at >= base / elem ? base : at * elem;
  while (a > chunk || (a & (a - 1))) a /= 2;
  return a > elem ? a : 0;
}

static MlirNamedAttribute alignment_attr(MlirContext ctx, int64_t bytes);

/* The element index of pos in buf: its row-major index, or where a backend keeps the
 * thread's own chunks (a tile in registers, backend.h). */
static MlirValue buffer_index(tc_chunk *c, MlirValue buf, const tc_pos *pos, const int64_t *shape) {
  if (c->L->backend->thread_tile_index) {
    MlirValue i = c->L->backend->thread_tile_index(c, buf, pos);
    if (!mlirValueIsNull(i)) return i;
  }
  return tc_linear_index(&c->b, pos, shape);
}

MlirValue tc_buffer_read_masked(tc_chunk *c, MlirValue buf, MlirType elem, const tc_pos *pos, const int64_t *shape,
                                MlirValue mask) {
  tc_builder *b = &c->b;
  MlirType mem = tcb_element_type(mlirValueGetType(buf));
  MlirValue lin = buffer_index(c, buf, pos, shape);
  MlirValue ops[4] = {buf, lin, mask, {NULL}};
  MlirValue v;
  if (pos->chunked) {
    MlirType vt = tc_vec_type(c->L->ctx, c->width, mem);
    int64_t align = buffer_chunk_alignment(c, buf, lin);
    MlirNamedAttribute at = alignment_attr(c->L->ctx, align);
    if (mlirValueIsNull(mask)) {
      v = tcb_op1(b, "vector.load", vt, 2, ops, align ? 1 : 0, &at);
    } else {
      ops[3] = zero_of(b, vt);
      v = tcb_op1(b, "vector.maskedload", vt, 4, ops, align ? 1 : 0, &at);
    }
  } else if (mlirValueIsNull(mask)) {
    v = tcb_op1(b, "memref.load", mem, 2, ops, 0, NULL);
  } else {
    tc_builder ib, eb;
    MlirOperation iff = tcb_if(b, mask, 1, &mem, &ib, &eb);
    MlirValue x = tcb_op1(&ib, "memref.load", mem, 2, ops, 0, NULL), z = zero_of(&eb, mem);
    tcb_op(&ib, "scf.yield", 0, NULL, 1, &x, 0, NULL);
    tcb_op(&eb, "scf.yield", 0, NULL, 1, &z, 0, NULL);
    v = mlirOperationGetResult(iff, 0);
  }
  if (!mlirTypeEqual(mem, elem) && mlirTypeIsAInteger(elem) && mlirIntegerTypeGetWidth(elem) == 1)
    v = tcb_cmpi(b, "ne", v, tcb_const_int(b, mlirValueGetType(v), 0));
  return v;
}

MlirValue tc_buffer_read(tc_chunk *c, MlirValue buf, MlirType elem, const tc_pos *pos, const int64_t *shape) {
  return tc_buffer_read_masked(c, buf, elem, pos, shape, (MlirValue){NULL});
}

void tc_buffer_write_masked(tc_chunk *c, MlirValue buf, MlirValue v, const tc_pos *pos, const int64_t *shape,
                            MlirValue mask) {
  tc_builder *b = &c->b;
  MlirType mem = tcb_element_type(mlirValueGetType(buf));
  MlirType vt = mlirValueGetType(v);
  if (!mlirTypeEqual(tcb_element_type(vt), mem))
    v = tcb_cast(b, "arith.extui", v, pos->chunked ? tc_vec_type(c->L->ctx, c->width, mem) : mem);
  MlirValue lin = buffer_index(c, buf, pos, shape);
  int64_t align = pos->chunked ? buffer_chunk_alignment(c, buf, lin) : 0;
  MlirNamedAttribute at = alignment_attr(c->L->ctx, align);
  if (mlirValueIsNull(mask)) {
    MlirValue ops[3] = {v, buf, lin};
    tcb_op(b, pos->chunked ? "vector.store" : "memref.store", 0, NULL, 3, ops, align ? 1 : 0, &at);
  } else if (pos->chunked) {
    MlirValue ops[4] = {buf, lin, mask, v};
    tcb_op(b, "vector.maskedstore", 0, NULL, 4, ops, align ? 1 : 0, &at);
  } else {
    tc_builder ib;
    tcb_if(b, mask, 0, NULL, &ib, NULL);
    MlirValue ops[3] = {v, buf, lin};
    tcb_op(&ib, "memref.store", 0, NULL, 3, ops, 0, NULL);
    tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
}

void tc_buffer_write(tc_chunk *c, MlirValue buf, MlirValue v, const tc_pos *pos, const int64_t *shape) {
  tc_buffer_write_masked(c, buf, v, pos, shape, (MlirValue){NULL});
}

/* Element offset of a pointer tile at the chunk's first lane (index), from the
 * unchunked evaluation at the same position. */
static MlirValue first_lane_offset(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos) {
  tc_pos lane = tc_pos_with(pos, false);
  /* A pointer tile contiguous along its whole last dim (the axis analysis, like Triton's,
   * treats offsets as not wrapping): the chunk starts at the row's first offset plus the
   * chunk's index, added in 64 bits. LLVM then strength-reduces the address instead of
   * recomputing a 32-bit offset and sign-extending it for every chunk. */
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(old_ptr), shape);
  tc_axis ax = tc_axis_of(&c->L->axis_proven, old_ptr); /* a promise may break between chunks */
  if (rank > 0 && rank == pos->rank && ax.rank == rank && ax.contiguity[rank - 1] >= shape[rank - 1]) {
    tc_pos row = lane;
    row.idx[rank - 1] = tcb_const_index(&c->b, 0);
    tc_cval p0 = tc_eval(c, old_ptr, &row);
    if (c->L->status) return tcb_const_index(&c->b, 0);
    if (mlirValueIsNull(p0.vec)) return pos->idx[rank - 1];
    MlirValue base = tcb_cast(&c->b, "arith.index_cast", p0.vec, tcb_index(c->L->ctx));
    return tcb_binary(&c->b, "arith.addi", base, pos->idx[rank - 1]);
  }
  tc_cval p = tc_eval(c, old_ptr, &lane);
  if (mlirValueIsNull(p.vec)) return tcb_const_index(&c->b, 0);
  return tcb_cast(&c->b, "arith.index_cast", p.vec, tcb_index(c->L->ctx));
}

MlirValue tc_chunk_first_offset(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos) {
  return first_lane_offset(c, old_ptr, pos);
}

static MlirValue all_true(tc_builder *b, int64_t width) {
  return tcb_const_int(b, tc_vec_type(b->ctx, width, tcb_int_type(b->ctx, 1)), 1);
}

static MlirValue zero_of(tc_builder *b, MlirType t) {
  return tcb_is_float(tcb_element_type(t)) ? tcb_const_float(b, t, 0.0) : tcb_const_int(b, t, 0);
}

/* ACCESS_CHECKED: contiguous only by a tl.max_contiguous / max_constancy promise the
 * analysis cannot prove (Triton's own matmul writes max_contiguous(multiple_of(rm % M, BM),
 * BM), which wraps inside a block): each chunk tests its lanes and is one vector access when
 * they are consecutive, a gather or scatter when not, so a broken promise never reaches past
 * the addresses the lanes name. */
typedef enum access_kind { ACCESS_CONTIGUOUS, ACCESS_UNIFORM, ACCESS_GATHER, ACCESS_CHECKED } access_kind;

static access_kind classify(tc_chunk *c, MlirValue old_ptr, tc_cval p) {
  if (mlirValueIsNull(p.vec)) return ACCESS_UNIFORM;
  tc_axis ax = tc_axis_of(&c->L->axis, old_ptr);
  int last = ax.rank > 0 ? ax.rank - 1 : 0;
  if (ax.contiguity[last] < c->width || ax.contiguity[last] % c->width) return ACCESS_GATHER;
  tc_axis proven = tc_axis_of(&c->L->axis_proven, old_ptr);
  return proven.contiguity[last] >= c->width && proven.contiguity[last] % c->width == 0 ? ACCESS_CONTIGUOUS
                                                                                        : ACCESS_CHECKED;
}

/* i1: the chunk's element offsets are consecutive (offs == offs[0] + lane). */
static MlirValue lanes_consecutive(tc_chunk *c, MlirValue offs) {
  tc_builder *b = &c->b;
  MlirType vt = mlirValueGetType(offs);
  MlirValue iota = tc_iota(b, c->width);
  if (tcb_bitwidth(tcb_element_type(vt)) != 32) iota = tcb_cast(b, "arith.extsi", iota, vt);
  MlirValue first = tc_vec_lane(b, offs, 0);
  MlirValue want = tcb_binary(b, "arith.addi", tc_splat_vec(b, first, c->width), iota);
  MlirValue same = tcb_cmpi(b, "eq", offs, want);
  MlirNamedAttribute kind = tcb_named(c->L->ctx, "kind", tcb_attr(c->L->ctx, "#vector.kind<and>"));
  return tcb_op1(b, "vector.reduction", tcb_int_type(c->L->ctx, 1), 1, &same, 1, &kind);
}

bool tc_chunk_contiguous(tc_chunk *c, MlirValue old_ptr, tc_cval p) {
  return classify(c, old_ptr, p) == ACCESS_CONTIGUOUS;
}

/* The alignment (bytes) the axis analysis proves for a contiguous chunk's first lane, for
 * backends that turn aligned vector accesses into wider instructions (ld.global.v4 on
 * NVPTX): pointer divisibility is counted in bytes (a `:16` parameter), so the chunk start,
 * a multiple of the chunk width into a run, is aligned to gcd(divisibility, chunk bytes).
 * 0: nothing to state (the element's own alignment). */
static int64_t chunk_alignment(tc_chunk *c, MlirValue old_ptr, MlirType mem) {
  if (!c->L->backend->aligned_vectors) return 0;
  tc_axis ax = tc_axis_of(&c->L->axis, old_ptr);
  int last = ax.rank > 0 ? ax.rank - 1 : 0;
  int64_t elem = (tcb_bitwidth(mem) + 7) / 8, chunk = c->width * elem;
  if (ax.contiguity[last] % c->width) return 0;
  int64_t a = tc_axis_pow2_divisor(ax.divisibility[last]);
  if (a > chunk) a = chunk;
  return a > elem ? a : 0;
}

/* The constant first value of a tile of offsets that is a tl.arange (maybe extended), or
 * false. */
static bool range_start(MlirValue v, int64_t *start) {
  for (int depth = 0; depth < 4 && mlirValueIsAOpResult(v); depth++) {
    MlirOperation d = mlirOpResultGetOwner(v);
    if (tile_op_of(d) == TILE_RANGE) {
      *start = tile_int_attr(d, "start", 0);
      return true;
    }
    if (!tc_op_is(d, "arith.extsi") && !tc_op_is(d, "arith.extui")) return false;
    v = mlirOperationGetOperand(d, 0);
  }
  return false;
}

/* Marks a contiguous vector access of a dealt chunk (tc_chunk.dealt) at the chunk's own
 * position with TC_OWNER_ATTR, when the rank-1 pointer tile is a scalar base plus offsets
 * (addptr of a splat) contiguous over the whole tile: element p is then at base + off0 + p,
 * and the mark says how far off0 (bytes) is known to be aligned, and, when the offsets are
 * tl.aranges (off0 a constant), the bytes from base the tile spans. Nothing otherwise. */
static void note_owner(tc_chunk *c, MlirOperation access, MlirValue old_ptr, const tc_pos *pos, MlirType mem) {
  int64_t shape[TC_RANK];
  if (!c->dealt || !pos->chunked || pos->rank != 1 || c->root.rank != 1 ||
      !mlirValueEqual(pos->idx[0], c->root.idx[0]) || tc_shape_of(mlirValueGetType(old_ptr), shape) != 1)
    return;
  tc_axis ax = tc_axis_of(&c->L->axis_proven, old_ptr); /* the span it states must hold */
  if (ax.rank != 1 || ax.contiguity[0] < shape[0]) return;
  int64_t elem = (tcb_bitwidth(mem) + 7) / 8, div = TC_AXIS_MAX_DIV, first = 0;
  bool spans = true;
  MlirValue v = old_ptr;
  for (int depth = 0;; depth++) {
    if (depth > 32 || !mlirValueIsAOpResult(v)) return;
    MlirOperation d = mlirOpResultGetOwner(v);
    tile_op_id k = tile_op_of(d);
    if (k == TILE_SPLAT) break; /* the scalar base */
    if (k != TILE_ADDPTR) return;
    int64_t o = tc_axis_pow2_divisor(tc_axis_of(&c->L->axis, mlirOperationGetOperand(d, 1)).divisibility[0]), start;
    if (o < div) div = o;
    if (spans && range_start(mlirOperationGetOperand(d, 1), &start) && start >= 0 && start < ((int64_t)1 << 40))
      first += start;
    else spans = false;
    v = mlirOperationGetOperand(d, 0);
  }
  int64_t marks[4] = {c->width * elem, div >= TC_AXIS_MAX_DIV ? TC_AXIS_MAX_DIV : div * elem, first * elem,
                      (first + shape[0]) * elem};
  mlirOperationSetAttributeByName(access, mlirStringRefCreateFromCString(TC_OWNER_ATTR),
                                  mlirDenseI64ArrayGet(c->L->ctx, spans ? 4 : 2, marks));
}

static MlirNamedAttribute alignment_attr(MlirContext ctx, int64_t bytes) {
  return tcb_named(ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(ctx, 64), bytes));
}

/* A scalar pointer for lane evaluation: base + offset elements. */
static MlirValue lane_address(tc_chunk *c, tc_cval p, MlirType pointee) {
  if (mlirValueIsNull(p.vec)) return p.base;
  return tc_scalar_addptr(c->L, &c->b, p.base, p.vec, pointee);
}

MlirValue tc_lane_address(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos) {
  tc_cval p = tc_eval(c, old_ptr, pos);
  return lane_address(c, p, tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(old_ptr))));
}

/* A scalar access of memory type mem: aligned to its size, as a Triton pointer to it is (the
 * module has no data layout when it is translated to LLVM IR: LLVM's default would give an
 * i64 4 bytes, two 32-bit loads on NVPTX). */
static MlirNamedAttribute natural_alignment(MlirContext ctx, MlirType mem) {
  int64_t bytes = mlirTypeIsALLVMPointerType(mem) ? 8 : (tcb_bitwidth(mem) + 7) / 8;
  return alignment_attr(ctx, bytes > 0 && !(bytes & (bytes - 1)) ? bytes : 1);
}

static MlirValue scalar_load(tc_builder *b, MlirValue addr, MlirType mem) {
  MlirNamedAttribute a = natural_alignment(b->ctx, mem);
  MlirType raw = llvm_memory_type(b->ctx, mem);
  MlirValue v = tcb_op1(b, "llvm.load", raw, 1, &addr, 1, &a);
  return mlirTypeEqual(raw, mem) ? v : tcb_cast(b, "arith.bitcast", v, mem);
}

static MlirValue scalar_masked_load(tc_builder *b, MlirValue addr, MlirType mem, MlirValue mask, MlirValue other) {
  if (mlirValueIsNull(mask)) return scalar_load(b, addr, mem);
  tc_builder ib, eb;
  MlirOperation iff = tcb_if(b, mask, 1, &mem, &ib, &eb);
  MlirValue v = scalar_load(&ib, addr, mem);
  tcb_op(&ib, "scf.yield", 0, NULL, 1, &v, 0, NULL);
  MlirValue o = mlirValueIsNull(other) ? zero_of(&eb, mem) : other;
  tcb_op(&eb, "scf.yield", 0, NULL, 1, &o, 0, NULL);
  return mlirOperationGetResult(iff, 0);
}

/* The backend's prefetch of view[index], if it has one. */
static void emit_prefetch(tc_lower *L, tc_builder *b, MlirValue view, MlirValue index, bool write) {
  if (L->backend->prefetch) L->backend->prefetch(b, view, index, write);
}

/* A contiguous chunk loaded through a pointer tile that the enclosing loop advances by a
 * fixed step (`a_ptrs += BLOCK_K * stride_ak`): prefetch the chunk the next iteration
 * loads. The tutorial matmul's A and B tiles are rows far apart in memory, which the
 * hardware prefetchers do not follow; one prefetch per chunk (a cache line of fp32 on
 * AVX-512) brings them in while this iteration's dot runs. A prefetch never faults, so
 * masked-off or past-the-end addresses are harmless. */
/* The lowered per-trip step of a pointer tile the enclosing loop advances by a fixed
 * step (an integer lowered before this point), or null. */
static MlirValue *trip_step(tc_lower *L, MlirValue old_ptr) {
  tc_special *sp = tc_special_of(L, old_ptr);
  if (!sp || sp->kind != TC_SPECIAL_AFFINE || mlirValueIsNull(sp->step)) return NULL;
  MlirValue *step = tc_valmap_get(&L->scalars, sp->step.ptr);
  return step && tcb_is_int(mlirValueGetType(*step)) ? step : NULL;
}

/* Is v computed outside `loop` (the same in every trip)? */
bool tc_outside_loop(MlirValue v, MlirOperation loop) {
  MlirBlock at =
      mlirValueIsABlockArgument(v) ? mlirBlockArgumentGetOwner(v) : mlirOperationGetBlock(mlirOpResultGetOwner(v));
  return !tc_block_encloses(mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)), at);
}

/* An integer scalar as i64 at b: lowered already, or (the loop's increment, computed after
 * the loads that use it) an integer constant, + - * or cast of such; null otherwise. */
static MlirValue lowered_i64(tc_lower *L, tc_builder *b, MlirValue old, int depth) {
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue none = {NULL};
  MlirValue *v = tc_valmap_get(&L->scalars, old.ptr);
  if (v) return tcb_is_int(mlirValueGetType(*v)) || mlirTypeIsAIndex(mlirValueGetType(*v)) ? tcb_sext_i64(b, *v) : none;
  if (depth > 8 || !mlirValueIsAOpResult(old) || !tcb_is_int(mlirValueGetType(old))) return none;
  MlirOperation op = mlirOpResultGetOwner(old);
  if (tc_op_is(op, "arith.constant")) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
    return mlirAttributeIsAInteger(a) ? tcb_const_int(b, i64, mlirIntegerAttrGetValueInt(a)) : none;
  }
  if (tc_op_is(op, "arith.extsi") || tc_op_is(op, "arith.extui"))
    return lowered_i64(L, b, mlirOperationGetOperand(op, 0), depth + 1);
  const char *name = tc_op_is(op, "arith.muli")   ? "arith.muli"
                     : tc_op_is(op, "arith.addi") ? "arith.addi"
                     : tc_op_is(op, "arith.subi") ? "arith.subi"
                                                  : NULL;
  if (!name) return none;
  MlirValue x = lowered_i64(L, b, mlirOperationGetOperand(op, 0), depth + 1);
  MlirValue y = mlirValueIsNull(x) ? none : lowered_i64(L, b, mlirOperationGetOperand(op, 1), depth + 1);
  return mlirValueIsNull(y) ? none : tcb_binary(b, name, x, y);
}

/* How much v (an integer or pointer, scalar or tile) grows from one trip of `loop` to the
 * next, in its own units (elements for pointers), as a lowered i64: *d, null for "does not
 * change". False when v is not an affine function of the induction variable with
 * coefficients lowered before this point. `row = input + i * stride` in `for i in
 * range(start, n, step)` grows by step * stride. */
static bool trip_delta(tc_lower *L, tc_builder *b, MlirOperation loop, MlirValue v, int depth, MlirValue *d) {
  *d = (MlirValue){NULL};
  if (tc_outside_loop(v, loop)) return true;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  if (mlirValueEqual(v, mlirBlockGetArgument(body, 0))) {
    *d = lowered_i64(L, b, mlirOperationGetOperand(loop, 2), 0);
    return !mlirValueIsNull(*d);
  }
  if (depth > 12) return false;
  if (mlirValueIsABlockArgument(v)) {
    /* a carried value the loop advances by the same amount each trip: `p += step` */
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), body)) return false;
    intptr_t i = mlirBlockArgumentGetArgNumber(v);
    MlirValue next = mlirOperationGetOperand(mlirBlockGetTerminator(body), i - 1);
    if (!mlirValueIsAOpResult(next)) return false;
    MlirOperation inc = mlirOpResultGetOwner(next);
    if (!(tile_op_of(inc) == TILE_ADDPTR || tc_op_is(inc, "arith.addi")) ||
        !mlirValueEqual(mlirOperationGetOperand(inc, 0), v))
      return false;
    MlirValue by = mlirOperationGetOperand(inc, 1);
    if (!trip_delta(L, b, loop, by, depth + 1, d) || !mlirValueIsNull(*d)) return false;
    if (mlirValueIsAOpResult(by) && tile_op_of(mlirOpResultGetOwner(by)) == TILE_SPLAT)
      by = mlirOperationGetOperand(mlirOpResultGetOwner(by), 0);
    *d = lowered_i64(L, b, by, 0);
    return !mlirValueIsNull(*d);
  }
  MlirOperation op = mlirOpResultGetOwner(v);
  tile_op_id k = tile_op_of(op);
  /* constants, and pure tile ops without operands (range, program ids), are the same every trip */
  if (tc_op_is(op, "arith.constant") || (tile_op_has(op, TILE_TRAIT_PURE) && mlirOperationGetNumOperands(op) == 0))
    return true;
  /* operand 0's values (splat, broadcast, expand_dims, hint; not a reshape or trans, which may
   * be materialized) and integer casts step as operand 0 does */
  if ((tile_op_has(op, TILE_TRAIT_KEEPS_VALUES) && !tile_op_has(op, TILE_TRAIT_ROOT)) || tc_op_is(op, "arith.extsi") ||
      tc_op_is(op, "arith.extui") || tc_op_is(op, "arith.index_cast") || tc_op_is(op, "arith.trunci"))
    return trip_delta(L, b, loop, mlirOperationGetOperand(op, 0), depth + 1, d);
  MlirValue x = mlirOperationGetNumOperands(op) == 2 ? mlirOperationGetOperand(op, 0) : (MlirValue){NULL}, dx, dy;
  if (mlirValueIsNull(x)) return false;
  MlirValue y = mlirOperationGetOperand(op, 1);
  bool add = k == TILE_ADDPTR || tc_op_is(op, "arith.addi"), sub = tc_op_is(op, "arith.subi");
  if (add || sub) {
    if (!trip_delta(L, b, loop, x, depth + 1, &dx) || !trip_delta(L, b, loop, y, depth + 1, &dy)) return false;
    if (mlirValueIsNull(dy)) *d = dx;
    else if (mlirValueIsNull(dx))
      *d = sub ? tcb_binary(b, "arith.subi", tcb_const_int(b, mlirValueGetType(dy), 0), dy) : dy;
    else *d = tcb_binary(b, sub ? "arith.subi" : "arith.addi", dx, dy);
    return true;
  }
  if (!tc_op_is(op, "arith.muli")) return false;
  /* one factor the same in every trip, lowered (a scalar, or a splat of one) */
  for (int i = 0; i < 2; i++) {
    MlirValue f = i ? x : y, g = i ? y : x;
    if (mlirValueIsAOpResult(f) && tile_op_of(mlirOpResultGetOwner(f)) == TILE_SPLAT)
      f = mlirOperationGetOperand(mlirOpResultGetOwner(f), 0);
    if (!trip_delta(L, b, loop, f, depth + 1, &dy) || !mlirValueIsNull(dy)) continue;
    MlirValue lf = lowered_i64(L, b, f, 0);
    if (mlirValueIsNull(lf) || !trip_delta(L, b, loop, g, depth + 1, &dx)) return false;
    if (!mlirValueIsNull(dx)) *d = tcb_binary(b, "arith.muli", dx, lf);
    return true;
  }
  return false;
}

bool tc_trip_delta(tc_lower *L, tc_builder *b, MlirOperation loop, MlirValue v, MlirValue *d) {
  return trip_delta(L, b, loop, v, 0, d);
}

int64_t tc_chunk_alignment(tc_chunk *c, MlirValue old_ptr, MlirType mem) { return chunk_alignment(c, old_ptr, mem); }

/* The per-trip step of a load's pointer tile in the innermost scf.for around the load
 * when the tile is recomputed from the induction variable each trip (the tutorial softmax's
 * persistent loop `for row in tl.range(pid, n_rows, num_programs)`: row pointers step by
 * num_programs rows, which the hardware prefetchers do not follow), as an index; or null
 * (also when the pointer is the same in every trip of that loop). */
static MlirValue recomputed_step(tc_chunk *c, MlirOperation load) {
  MlirOperation loop = mlirOperationGetParentOperation(load);
  while (!mlirOperationIsNull(loop) && !tc_op_is(loop, "scf.for")) loop = mlirOperationGetParentOperation(loop);
  MlirValue old_ptr = mlirOperationGetOperand(load, 0);
  MlirValue d = {NULL};
  if (mlirOperationIsNull(loop) || !trip_delta(c->L, &c->b, loop, old_ptr, 0, &d) || mlirValueIsNull(d))
    return (MlirValue){NULL};
  return tcb_cast(&c->b, "arith.index_cast", d, tcb_index(c->L->ctx));
}

static void prefetch_next_iteration(tc_chunk *c, MlirOperation load, MlirValue view, MlirValue start) {
  tc_lower *L = c->L;
  if (c->width * 4 < 32) return;
  tc_builder *b = &c->b;
  MlirValue *step = trip_step(L, mlirOperationGetOperand(load, 0)), s;
  if (step) s = tcb_cast(b, "arith.index_cast", *step, tcb_index(L->ctx));
  else s = recomputed_step(c, load);
  if (!mlirValueIsNull(s)) emit_prefetch(L, b, view, tcb_binary(b, "arith.addi", start, s), false);
}

bool tc_load_prefetchable(tc_lower *L, MlirValue v, int64_t width) {
  if (!L->backend->prefetch || !mlirValueIsAOpResult(v) || tile_op_of(mlirOpResultGetOwner(v)) != TILE_LOAD)
    return false;
  MlirValue ptr = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  if (!trip_step(L, ptr)) return false;
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(mlirValueGetType(ptr), shape);
  tc_axis ax = tc_axis_of(&L->axis, ptr);
  return rank > 0 && ax.rank == rank && ax.contiguity[rank - 1] >= width && ax.contiguity[rank - 1] % width == 0;
}

/* The view and element index of a contiguous chunk's first lane of a pointer tile at pos;
 * false when the chunk is not contiguous. */
static bool chunk_line(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos, MlirValue *view, MlirValue *index) {
  tc_cval p = tc_eval(c, old_ptr, pos);
  if (c->L->status || !p.is_ptr || classify(c, old_ptr, p) != ACCESS_CONTIGUOUS) return false;
  MlirType pointee = tile_ptr_pointee(mlirShapedTypeGetElementType(mlirValueGetType(old_ptr)));
  *view = view_of(c->L, p.base, tc_memory_type(c->L->ctx, pointee));
  *index = first_lane_offset(c, old_ptr, pos);
  return true;
}

void tc_prefetch_next_trip(tc_chunk *c, MlirValue v, const tc_pos *pos) {
  MlirValue old_ptr = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0), view, index;
  if (chunk_line(c, old_ptr, pos, &view, &index)) prefetch_next_iteration(c, mlirOpResultGetOwner(v), view, index);
}

bool tc_store_prefetchable(tc_lower *L, MlirOperation store) {
  return L->backend->prefetch && tc_lower_pure_cone(L, mlirOperationGetOperand(store, 0));
}

void tc_prefetch_store(tc_chunk *c, MlirOperation store, const tc_pos *pos) {
  MlirValue view, index;
  if (pos->chunked && chunk_line(c, mlirOperationGetOperand(store, 0), pos, &view, &index))
    emit_prefetch(c->L, &c->b, view, index, true);
}

/* One vector access of the chunk's consecutive elements from view m, the first at element
 * start (first_lane_offset, computed before any branch: evaluations are memoized). */
static MlirValue contiguous_load(tc_chunk *c, MlirOperation load, const tc_pos *pos, MlirValue m, MlirType mem,
                                 MlirValue mask, MlirValue pass, MlirValue start) {
  tc_lower *L = c->L;
  MlirValue old_ptr = mlirOperationGetOperand(load, 0);
  MlirType vt = tc_vec_type(L->ctx, c->width, mem);
  if (!tc_valmap_get(&L->dot_prefetched, load.ptr)) prefetch_next_iteration(c, load, m, start);
  int64_t align = chunk_alignment(c, old_ptr, mem);
  MlirNamedAttribute at = alignment_attr(L->ctx, align);
  MlirValue r;
  if (mlirValueIsNull(mask)) {
    MlirValue ops[2] = {m, start};
    r = tcb_op1(&c->b, "vector.load", vt, 2, ops, align ? 1 : 0, &at);
  } else {
    /* aligned too: a mask that is one value for the whole chunk becomes one predicated
     * vector access (LLVM's scalarization of a splat-masked load), not lane by lane */
    MlirValue ops[4] = {m, start, mask, pass};
    r = tcb_op1(&c->b, "vector.maskedload", vt, 4, ops, align ? 1 : 0, &at);
  }
  note_owner(c, mlirOpResultGetOwner(r), old_ptr, pos, mem);
  return r;
}

/* The chunk's lanes each from its own offset (p.vec) of view m. */
static MlirValue gather_load(tc_chunk *c, tc_cval p, MlirValue m, MlirType vt, MlirValue mask, MlirValue pass) {
  tc_builder *b = &c->b;
  MlirValue offs = p.vec;
  if (mlirValueIsNull(offs)) offs = tcb_const_int(b, tc_vec_type(c->L->ctx, c->width, tcb_int_type(c->L->ctx, 32)), 0);
  MlirValue ops[5] = {m, tcb_const_index(b, 0), offs, mlirValueIsNull(mask) ? all_true(b, c->width) : mask,
                      mlirValueIsNull(pass) ? zero_of(b, vt) : pass};
  return tcb_op1(b, "vector.gather", vt, 5, ops, 0, NULL);
}

tc_cval tc_eval_load(tc_chunk *c, MlirOperation load, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirValue old_ptr = mlirOperationGetOperand(load, 0);
  tc_cval p = tc_eval(c, old_ptr, pos);
  if (L->status) return r;
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(load, 0)));
  MlirType mem = tc_memory_type(L->ctx, elem);
  bool is_bool = !mlirTypeEqual(mem, elem);
  MlirValue mask = tc_chunk_mask(c, tile_load_mask(load), pos);
  MlirValue other = tile_load_other(load);
  MlirValue pass = {NULL};
  if (!mlirValueIsNull(other)) {
    pass = tc_eval(c, other, pos).vec;
    if (is_bool) pass = tcb_cast(b, "arith.extui", pass, pos->chunked ? tc_vec_type(L->ctx, c->width, mem) : mem);
  }
  tc_check_access(c, load, old_ptr, p, mask, pos);
  tc_race_access(c, load, old_ptr, p, mask, pos, false);
  if (!pos->chunked) {
    r.vec = scalar_masked_load(b, lane_address(c, p, elem), mem, mask, pass);
    if (is_bool) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, mem, 0));
    tc_nan_note_load(c, r.vec);
    return r;
  }
  MlirType vt = tc_vec_type(L->ctx, c->width, mem);
  if (!mlirValueIsNull(mask) && mlirValueIsNull(pass)) pass = zero_of(b, vt);
  MlirValue m = view_of(L, p.base, mem);
  access_kind kind = classify(c, old_ptr, p);
  if (kind == ACCESS_UNIFORM && mlirValueIsNull(mask)) {
    MlirValue s = scalar_load(b, p.base, mem);
    r.vec = tc_splat_vec(b, s, c->width);
  } else if (kind == ACCESS_CONTIGUOUS) {
    r.vec = contiguous_load(c, load, pos, m, mem, mask, pass, first_lane_offset(c, old_ptr, pos));
  } else if (kind == ACCESS_CHECKED) {
    MlirValue start = first_lane_offset(c, old_ptr, pos);
    tc_builder outer = c->b, tb, eb;
    MlirOperation iff = tcb_if(&c->b, lanes_consecutive(c, p.vec), 1, &vt, &tb, &eb);
    c->b = tb;
    MlirValue v = contiguous_load(c, load, pos, m, mem, mask, pass, start);
    tcb_op(&c->b, "scf.yield", 0, NULL, 1, &v, 0, NULL);
    c->b = eb;
    v = gather_load(c, p, m, vt, mask, pass);
    tcb_op(&c->b, "scf.yield", 0, NULL, 1, &v, 0, NULL);
    c->b = outer;
    r.vec = mlirOperationGetResult(iff, 0);
  } else {
    r.vec = gather_load(c, p, m, vt, mask, pass);
  }
  if (is_bool) r.vec = tcb_cmpi(b, "ne", r.vec, tcb_const_int(b, vt, 0));
  tc_nan_note_load(c, r.vec);
  return r;
}

static void contiguous_store(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos, MlirValue m, MlirType mem,
                             MlirValue mask, MlirValue val, MlirValue start);
static void scatter_store(tc_chunk *c, tc_cval p, MlirValue m, MlirValue mask, MlirValue val);

void tc_emit_store(tc_chunk *c, MlirOperation store, const tc_pos *pos, tc_cval p, tc_cval v, MlirValue mask) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  b->loc = mlirOperationGetLocation(store);
#ifdef TILEC_TEST_HOOKS
  /* Test hook for the reference check, compiled only into test builds (-DTILEC_TEST_HOOKS=ON):
   * a deliberate miscompile of vectorized float stores (the reference build, one element per
   * chunk, is never affected). */
  if (getenv("TILEC_TEST_INJECT_MISCOMPILE") && c->width > 1 && tcb_is_float(tcb_element_type(mlirValueGetType(v.vec))))
    v.vec = tcb_binary(b, "arith.addf", v.vec, tcb_const_float(b, mlirValueGetType(v.vec), 1.0));
#endif
  MlirValue old_ptr = mlirOperationGetOperand(store, 0);
  MlirType elem = tcb_element_type(mlirValueGetType(v.vec));
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirValue val = v.vec;
  if (!mlirTypeEqual(mem, elem)) val = tcb_cast(b, "arith.extui", val, tc_vec_type(L->ctx, c->width, mem));
  tc_check_access(c, store, old_ptr, p, mask, pos);
  tc_nan_check_store(c, store, old_ptr, v.vec, mask, pos);
  tc_race_access(c, store, old_ptr, p, mask, pos, true);
  MlirValue m = view_of(L, p.base, mem);
  access_kind kind = classify(c, old_ptr, p);
  if (kind == ACCESS_CONTIGUOUS) {
    contiguous_store(c, old_ptr, pos, m, mem, mask, val, first_lane_offset(c, old_ptr, pos));
  } else if (kind == ACCESS_CHECKED) {
    MlirValue start = first_lane_offset(c, old_ptr, pos);
    tc_builder outer = c->b, tb, eb;
    tcb_if(&c->b, lanes_consecutive(c, p.vec), 0, NULL, &tb, &eb);
    c->b = tb;
    contiguous_store(c, old_ptr, pos, m, mem, mask, val, start);
    tcb_op(&c->b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    c->b = eb;
    scatter_store(c, p, m, mask, val);
    tcb_op(&c->b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    c->b = outer;
  } else {
    scatter_store(c, p, m, mask, val);
  }
}

/* One vector store of the chunk's consecutive elements into view m. */
static void contiguous_store(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos, MlirValue m, MlirType mem,
                             MlirValue mask, MlirValue val, MlirValue start) {
  int64_t align = chunk_alignment(c, old_ptr, tcb_element_type(mlirValueGetType(val)));
  MlirNamedAttribute at = alignment_attr(c->L->ctx, align);
  if (mlirValueIsNull(mask)) {
    MlirValue ops[3] = {val, m, start};
    note_owner(c, tcb_op(&c->b, "vector.store", 0, NULL, 3, ops, align ? 1 : 0, &at), old_ptr, pos, mem);
  } else {
    MlirValue ops[4] = {m, start, mask, val};
    note_owner(c, tcb_op(&c->b, "vector.maskedstore", 0, NULL, 4, ops, align ? 1 : 0, &at), old_ptr, pos, mem);
  }
}

/* Uniform or irregular: scatter writes lanes in order, so the last active lane wins, which
 * is one of the outcomes Triton allows for duplicate addresses. */
static void scatter_store(tc_chunk *c, tc_cval p, MlirValue m, MlirValue mask, MlirValue val) {
  tc_builder *b = &c->b;
  MlirValue offs = p.vec;
  if (mlirValueIsNull(offs)) offs = tcb_const_int(b, tc_vec_type(c->L->ctx, c->width, tcb_int_type(c->L->ctx, 32)), 0);
  MlirValue ops[5] = {m, tcb_const_index(b, 0), offs, mlirValueIsNull(mask) ? all_true(b, c->width) : mask, val};
  tcb_op(b, "vector.scatter", 0, NULL, 5, ops, 0, NULL);
}

void tc_lower_scalar_load(tc_lower *L, MlirOperation load) {
  MlirValue old = mlirOperationGetResult(load, 0);
  MlirType elem = mlirValueGetType(old);
  MlirType mem = tc_memory_type(L->ctx, elem);
  MlirValue ptr = tc_scalar(L, mlirOperationGetOperand(load, 0));
  MlirValue old_mask = tile_load_mask(load), old_other = tile_load_other(load);
  MlirValue mask = mlirValueIsNull(old_mask) ? old_mask : tc_scalar(L, old_mask);
  MlirValue other = mlirValueIsNull(old_other) ? old_other : tc_scalar(L, old_other);
  if (L->status) return;
  if (!mlirValueIsNull(other) && !mlirTypeEqual(mem, elem)) other = tcb_cast(&L->b, "arith.extui", other, mem);
  tc_check_scalar_access(L, &L->b, load, mlirOperationGetOperand(load, 0), ptr, mask);
  tc_race_scalar_access(L, &L->b, load, mlirOperationGetOperand(load, 0), ptr, mask, false);
  MlirValue r = scalar_masked_load(&L->b, ptr, mem, mask, other);
  if (!mlirTypeEqual(mem, elem)) r = tcb_cmpi(&L->b, "ne", r, tcb_const_int(&L->b, mem, 0));
  tc_nan_note_scalar_load(L, &L->b, r);
  tc_map_scalar(L, old, r);
}

void tc_lower_scalar_store(tc_lower *L, MlirOperation store) {
  MlirValue ptr = tc_scalar(L, mlirOperationGetOperand(store, 0));
  MlirValue val = tc_scalar(L, mlirOperationGetOperand(store, 1));
  MlirValue old_mask = tile_store_mask(store);
  if (L->status) return;
  MlirType elem = mlirValueGetType(val);
  MlirType mem = tc_memory_type(L->ctx, elem);
  tc_check_scalar_access(L, &L->b, store, mlirOperationGetOperand(store, 0), ptr,
                         mlirValueIsNull(old_mask) ? old_mask : tc_scalar(L, old_mask));
  tc_race_scalar_access(L, &L->b, store, mlirOperationGetOperand(store, 0), ptr,
                        mlirValueIsNull(old_mask) ? old_mask : tc_scalar(L, old_mask), true);
  tc_builder ib = L->b;
  if (!mlirValueIsNull(old_mask)) tcb_if(&L->b, tc_scalar(L, old_mask), 0, NULL, &ib, NULL);
  if (!mlirTypeEqual(mem, elem)) val = tcb_cast(&ib, "arith.extui", val, mem);
  MlirType raw = llvm_memory_type(L->ctx, mem);
  if (!mlirTypeEqual(raw, mem)) val = tcb_cast(&ib, "arith.bitcast", val, raw);
  MlirValue ops[2] = {val, ptr};
  MlirNamedAttribute align = natural_alignment(L->ctx, mem);
  tcb_op(&ib, "llvm.store", 0, NULL, 2, ops, 1, &align);
  if (!mlirValueIsNull(old_mask)) tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

/* ---- rows of the op table (op_table.c) ---------------------------------------------- */

/* A tile load joins the group (it is read where its consumers' nests evaluate it); a
 * scalar load reads memory now, after the group's stores. */
void tc_lower_load(tc_lower *L, MlirOperation op) {
  if (mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetResult(op, 0)))) {
    tc_lower_grouped(L, op);
    return;
  }
  tc_flush(L);
  tc_lower_scalar_load(L, op);
}

void tc_lower_store(tc_lower *L, MlirOperation op) {
  if (mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, 0)))) {
    tc_lower_grouped(L, op);
    return;
  }
  tc_flush(L);
  tc_lower_scalar_store(L, op);
}

typedef struct store_nest {
  MlirOperation *stores;
  int n;
} store_nest;

static void store_body(tc_chunk *c, const tc_pos *pos, void *user) {
  store_nest *s = user;
  tc_cval ptrs[64], vals[64];
  MlirValue masks[64];
  /* All operands first: a group's loads precede its stores in program order. */
  for (int i = 0; i < s->n && !c->L->status; i++) {
    MlirOperation st = s->stores[i];
    c->b.loc = mlirOperationGetLocation(st);
    ptrs[i] = tc_eval(c, mlirOperationGetOperand(st, 0), pos);
    vals[i] = tc_eval(c, mlirOperationGetOperand(st, 1), pos);
    masks[i] = tc_chunk_mask(c, tile_store_mask(st), pos);
  }
  for (int i = 0; i < s->n && !c->L->status; i++) tc_emit_store(c, s->stores[i], pos, ptrs[i], vals[i], masks[i]);
}

/* The run of same-shaped stores starting at roots[0] (other roots end it; non-roots in
 * between are skipped) shares one nest, bounded when they all have the same mask. */
int tc_emit_stores(tc_lower *L, MlirOperation *roots, int n) {
  MlirOperation buf[TC_STORE_RUN_MAX];
  store_nest s = {buf, 0};
  MlirType t = mlirValueGetType(mlirOperationGetOperand(roots[0], 0));
  int j = 0;
  for (; j < n && s.n < TC_STORE_RUN_MAX; j++) {
    MlirOperation o = roots[j];
    if (!tile_op_has(o, TILE_TRAIT_ROOT)) continue;
    if (tile_op_of(o) != TILE_STORE || (s.n && !tc_store_joins_run(L, buf, s.n, o))) break;
    buf[s.n++] = o;
  }
  MlirValue common = tile_store_mask(buf[0]);
  for (int q = 1; q < s.n; q++)
    if (mlirValueIsNull(common) || !mlirValueEqual(common, tile_store_mask(buf[q]))) common = (MlirValue){NULL};
  int64_t shape[TC_RANK];
  int rank = tc_shape_of(t, shape);
  tc_emit_nest(L, rank, shape, common, store_body, &s);
  return j;
}
