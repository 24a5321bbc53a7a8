/* conversion/pointers.c — the pointer family: addptr, ptr_to_int, int_to_ptr, bitcast
 * and tl.where on pointer tiles, at positions (tiles) and in program order (scalars).
 * A pointer tile at a position is a scalar base pointer plus element offsets (tc_cval);
 * pointers made from integers keep their exact byte addresses through the casts.
 * In: the old op and a position. Out: the new value (tc_cval). */
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

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
  int64_t sz = (tcb_bitwidth(tc_memory_type(L->ctx, tile_ptr_pointee(elem))) + 7) / 8;
  MlirValue first = addr;
  if (chunked) first = tc_vec_lane(b, addr, 0);
  tc_cval r = {0};
  r.is_ptr = true;
  r.base = tcb_cast(b, "llvm.inttoptr", first, tcb_type(L->ctx, "!llvm.ptr"));
  MlirValue rel = tcb_binary(b, "arith.subi", addr, chunked ? tc_splat_vec(b, first, c->width) : first);
  r.vec = tcb_binary(b, "arith.divsi", rel, tcb_const_int(b, mlirValueGetType(rel), sz));
  return r;
}

tc_cval tc_eval_addptr(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_cval p = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
  tc_cval o = tc_eval(c, mlirOperationGetOperand(op, 1), pos);
  tc_cval r = p;
  if (c->L->status) return (tc_cval){0};
  if (mlirValueIsNull(p.vec)) {
    r.vec = o.vec;
  } else {
    MlirValue x = p.vec, y = o.vec;
    widen_pair(&c->b, &x, &y);
    r.vec = tcb_binary(&c->b, "arith.addi", x, y);
  }
  return r;
}

tc_cval tc_eval_pointer_cast(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_lower *L = c->L;
  tc_builder *b = &c->b;
  tc_cval r = {0};
  tile_op_id k = tile_op_of(op);
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(op, 0)));
  bool from_ptr = k == TILE_PTR_TO_INT || (k == TILE_BITCAST && tile_type_is_ptr(elem));
  MlirValue exact = from_ptr ? exact_address(c, mlirOperationGetOperand(op, 0), pos, 0) : (MlirValue){NULL};
  tc_cval s = {0};
  if (mlirValueIsNull(exact)) s = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
  if (L->status) return r;
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
  return r;
}

tc_cval tc_eval_pointer_select(tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_builder *b = &c->b;
  tc_cval r = {0};
  MlirType elem = mlirShapedTypeGetElementType(mlirValueGetType(mlirOperationGetResult(op, 0)));
  tc_cval cv = tc_eval(c, mlirOperationGetOperand(op, 0), pos);
  tc_cval tv = tc_eval(c, mlirOperationGetOperand(op, 1), pos);
  tc_cval fv = tc_eval(c, mlirOperationGetOperand(op, 2), pos);
  if (c->L->status) return r;
  MlirValue ta = exact_address(c, mlirOperationGetOperand(op, 1), pos, 0);
  MlirValue fa = exact_address(c, mlirOperationGetOperand(op, 2), pos, 0);
  MlirValue addr = tcb_select(b, cv.vec, mlirValueIsNull(ta) ? pointer_address(c, tv, elem, pos->chunked) : ta,
                              mlirValueIsNull(fa) ? pointer_address(c, fv, elem, pos->chunked) : fa);
  return address_to_pointer(c, addr, elem, pos->chunked);
}

/* ---- scalars, in program order --------------------------------------------------------- */

void tc_lower_scalar_addptr_op(tc_lower *L, MlirOperation op) {
  MlirValue base = tc_scalar(L, mlirOperationGetOperand(op, 0));
  MlirValue off = tc_scalar(L, mlirOperationGetOperand(op, 1));
  if (L->status) return;
  MlirType r0 = mlirValueGetType(mlirOperationGetResult(op, 0));
  tc_map_scalar(L, mlirOperationGetResult(op, 0), tc_scalar_addptr(L, &L->b, base, off, tile_ptr_pointee(r0)));
}

void tc_lower_scalar_pointer_cast(tc_lower *L, MlirOperation op) {
  MlirValue v = tc_scalar(L, mlirOperationGetOperand(op, 0));
  if (L->status) return;
  tile_op_id k = tile_op_of(op);
  MlirType to = tc_lower_scalar_type(L, mlirValueGetType(mlirOperationGetResult(op, 0)));
  const char *name = k == TILE_PTR_TO_INT ? "llvm.ptrtoint" : k == TILE_INT_TO_PTR ? "llvm.inttoptr" : NULL;
  MlirValue r = v;
  if (name) r = tcb_cast(&L->b, name, v, to);
  else if (!mlirTypeEqual(mlirValueGetType(v), to)) r = tcb_cast(&L->b, "arith.bitcast", v, to);
  tc_map_scalar(L, mlirOperationGetResult(op, 0), r);
}
