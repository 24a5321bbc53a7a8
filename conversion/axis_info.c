/* conversion/axis_info.c — the axis-info lattice: forward rules per op, memoized.
 * In: values of a tile-dialect function. Out: tc_axis facts; unknown ops give the
 * conservative answer (contiguity 1, divisibility 1, constancy 1). */
#include "conversion/axis_info.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <string.h>

void tc_axis_init(tc_axis_analysis *a) {
  tc_valmap_init(&a->memo, sizeof(tc_axis));
  a->proven_only = false;
}
void tc_axis_free(tc_axis_analysis *a) { tc_valmap_free(&a->memo); }

int64_t tc_axis_pow2_divisor(int64_t v) {
  if (v == 0) return TC_AXIS_MAX_DIV;
  uint64_t u = (uint64_t)(v < 0 ? -v : v);
  int64_t d = (int64_t)(u & (~u + 1));
  return d > TC_AXIS_MAX_DIV ? TC_AXIS_MAX_DIV : d;
}

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static tc_axis conservative(MlirType t) {
  tc_axis x;
  memset(&x, 0, sizeof x);
  x.rank = mlirTypeIsAShaped(t) ? (int)mlirShapedTypeGetRank(t) : 0;
  if (x.rank > TC_AXIS_MAX_RANK) x.rank = TC_AXIS_MAX_RANK;
  for (int d = 0; d < TC_AXIS_MAX_RANK; d++) x.contiguity[d] = x.divisibility[d] = x.constancy[d] = 1;
  return x;
}

static tc_axis uniform(MlirType t, int64_t div) {
  tc_axis x = conservative(t);
  for (int d = 0; d < x.rank; d++) {
    x.constancy[d] = mlirShapedTypeGetDimSize(t, d);
    x.divisibility[d] = div;
  }
  if (x.rank == 0) x.divisibility[0] = div;
  return x;
}

static bool op_is(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return s.length == strlen(name) && !memcmp(s.data, name, s.length);
}

static bool int_constant_value(MlirOperation op, int64_t *out) {
  if ((tile_op_of(op) == TILE_SPLAT) || (tile_op_of(op) == TILE_BROADCAST)) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    return mlirValueIsAOpResult(src) && int_constant_value(mlirOpResultGetOwner(src), out);
  }
  if (!op_is(op, "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("value"));
  if (mlirAttributeIsAInteger(a)) {
    *out = mlirIntegerAttrGetValueInt(a);
    return true;
  }
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a)) {
    MlirAttribute s = mlirDenseElementsAttrGetSplatValue(a);
    if (mlirAttributeIsAInteger(s)) {
      *out = mlirIntegerAttrGetValueInt(s);
      return true;
    }
  }
  return false;
}

/* Divisibility hints the front end put on function arguments (`:16` in a signature). */
static int64_t arg_divisibility(MlirValue v) {
  MlirBlock blk = mlirBlockArgumentGetOwner(v);
  MlirOperation parent = mlirBlockGetParentOperation(blk);
  if (mlirOperationIsNull(parent) || !op_is(parent, "func.func")) return 1;
  MlirAttribute arr = mlirOperationGetAttributeByName(parent, mlirStringRefCreateFromCString("arg_attrs"));
  intptr_t i = mlirBlockArgumentGetArgNumber(v);
  if (mlirAttributeIsNull(arr) || !mlirAttributeIsAArray(arr) || i >= mlirArrayAttrGetNumElements(arr)) return 1;
  MlirAttribute dict = mlirArrayAttrGetElement(arr, i);
  if (!mlirAttributeIsADictionary(dict)) return 1;
  MlirAttribute d = mlirDictionaryAttrGetElementByName(dict, mlirStringRefCreateFromCString("tile.divisibility"));
  if (mlirAttributeIsNull(d) || !mlirAttributeIsAInteger(d)) return 1;
  return mlirIntegerAttrGetValueInt(d);
}

/* The scalar s of a uniform tile splat(s), or null. */
static MlirValue uniform_operand(MlirValue v) {
  while (mlirValueIsAOpResult(v)) {
    MlirOperation d = mlirOpResultGetOwner(v);
    if ((tile_op_of(d) == TILE_SPLAT)) return mlirOperationGetOperand(d, 0);
    if (!(tile_op_of(d) == TILE_BROADCAST)) break;
    v = mlirOperationGetOperand(d, 0);
  }
  return (MlirValue){NULL};
}

/* An scf.for iter arg advanced by a uniform step keeps its initial tile's structure. */
static bool loop_carried(tc_axis_analysis *a, MlirValue v, tc_axis *out) {
  MlirBlock blk = mlirBlockArgumentGetOwner(v);
  MlirOperation loop = mlirBlockGetParentOperation(blk);
  intptr_t i = mlirBlockArgumentGetArgNumber(v);
  if (mlirOperationIsNull(loop) || !op_is(loop, "scf.for") || i == 0) return false;
  MlirOperation yield = {NULL};
  for (MlirOperation o = mlirBlockGetFirstOperation(blk); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    yield = o;
  if (mlirOperationIsNull(yield) || mlirOperationGetNumOperands(yield) < i) return false;
  MlirValue y = mlirOperationGetOperand(yield, i - 1);
  if (!mlirValueIsAOpResult(y)) return false;
  MlirOperation d = mlirOpResultGetOwner(y);
  MlirValue step = {NULL};
  if (((tile_op_of(d) == TILE_ADDPTR) || op_is(d, "arith.addi")) && mlirValueEqual(mlirOperationGetOperand(d, 0), v))
    step = uniform_operand(mlirOperationGetOperand(d, 1));
  else if (op_is(d, "arith.addi") && mlirValueEqual(mlirOperationGetOperand(d, 1), v))
    step = uniform_operand(mlirOperationGetOperand(d, 0));
  if (mlirValueIsNull(step)) return false;
  tc_axis init = tc_axis_of(a, mlirOperationGetOperand(loop, 3 + (i - 1)));
  int64_t sd = tc_axis_of(a, step).divisibility[0];
  for (int d2 = 0; d2 < (init.rank ? init.rank : 1); d2++) init.divisibility[d2] = gcd64(init.divisibility[d2], sd);
  *out = init;
  return true;
}

static tc_axis compute(tc_axis_analysis *a, MlirValue v) {
  MlirType t = mlirValueGetType(v);
  if (mlirValueIsABlockArgument(v)) {
    tc_axis x = conservative(t);
    if (x.rank == 0) {
      x.divisibility[0] = arg_divisibility(v);
      /* an scf.for induction variable is lb + i * step: divisible by what both are (as
       * Triton's analysis: `start` of range(0, N, BLOCK) is a multiple of BLOCK) */
      MlirOperation loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
      if (!mlirOperationIsNull(loop) && op_is(loop, "scf.for") && mlirBlockArgumentGetArgNumber(v) == 0)
        x.divisibility[0] = gcd64(tc_axis_of(a, mlirOperationGetOperand(loop, 0)).divisibility[0],
                                  tc_axis_of(a, mlirOperationGetOperand(loop, 2)).divisibility[0]);
    } else {
      /* Provisional answer while the loop's yield is analysed (cycles through the arg). */
      tc_axis *slot = tc_valmap_put(&a->memo, v.ptr);
      if (slot) *slot = x;
      tc_axis y;
      if (loop_carried(a, v, &y)) x = y;
    }
    return x;
  }
  MlirOperation op = mlirOpResultGetOwner(v);
  tile_op_id k = tile_op_of(op);
  int64_t c;
  if (int_constant_value(op, &c)) return uniform(t, tc_axis_pow2_divisor(c));
  if (k && k == TILE_RANGE) {
    tc_axis x = conservative(t);
    x.contiguity[0] = mlirShapedTypeGetDimSize(t, 0);
    x.divisibility[0] = tc_axis_pow2_divisor(tile_int_attr(op, "start", 0));
    return x;
  }
  if (k && (k == TILE_PROGRAM_ID || k == TILE_NUM_PROGRAMS)) return conservative(t);
  if (k && k == TILE_SPLAT) {
    tc_axis s = tc_axis_of(a, mlirOperationGetOperand(op, 0));
    return uniform(t, s.divisibility[0]);
  }
  bool is_add = op_is(op, "arith.addi") || (k && k == TILE_ADDPTR);
  bool is_sub = op_is(op, "arith.subi");
  bool is_mul = op_is(op, "arith.muli");
  if (is_add || is_sub || is_mul) {
    tc_axis l = tc_axis_of(a, mlirOperationGetOperand(op, 0));
    tc_axis r = tc_axis_of(a, mlirOperationGetOperand(op, 1));
    tc_axis x = conservative(t);
    int n = x.rank ? x.rank : 1;
    for (int d = 0; d < n; d++) {
      if (x.rank) x.constancy[d] = gcd64(l.constancy[d], r.constancy[d]);
      if (is_mul) {
        int64_t m = l.divisibility[d] * r.divisibility[d];
        x.divisibility[d] = m > TC_AXIS_MAX_DIV || m <= 0 ? TC_AXIS_MAX_DIV : m;
        int64_t cv;
        MlirValue rhs = mlirOperationGetOperand(op, 1), lhs = mlirOperationGetOperand(op, 0);
        if (mlirValueIsAOpResult(rhs) && int_constant_value(mlirOpResultGetOwner(rhs), &cv) && cv == 1)
          x.contiguity[d] = l.contiguity[d];
        else if (mlirValueIsAOpResult(lhs) && int_constant_value(mlirOpResultGetOwner(lhs), &cv) && cv == 1)
          x.contiguity[d] = r.contiguity[d];
      } else {
        x.divisibility[d] = gcd64(l.divisibility[d], r.divisibility[d]);
        if (x.rank) {
          int64_t c1 = gcd64(l.contiguity[d], r.constancy[d]);
          int64_t c2 = is_sub ? 1 : gcd64(r.contiguity[d], l.constancy[d]);
          x.contiguity[d] = max64(c1, c2);
        }
      }
    }
    return x;
  }
  if (k && k == TILE_HINT) {
    /* The kernel author's promise (tl.multiple_of / max_contiguous / max_constancy). */
    tc_axis x = tc_axis_of(a, mlirOperationGetOperand(op, 0));
    MlirAttribute kind = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kind"));
    MlirAttribute vals = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("values"));
    MlirStringRef ks = mlirStringAttrGetValue(kind);
    int n = x.rank ? x.rank : 1;
    for (int d = 0; d < n && d < mlirDenseArrayGetNumElements(vals); d++) {
      int64_t v = mlirDenseI64ArrayGetElement(vals, d);
      if (ks.length == 11 && !memcmp(ks.data, "multiple_of", 11)) x.divisibility[d] = max64(x.divisibility[d], v);
      else if (a->proven_only) continue;
      else if (ks.length == 14 && !memcmp(ks.data, "max_contiguous", 14)) x.contiguity[d] = max64(x.contiguity[d], v);
      else x.constancy[d] = max64(x.constancy[d], v);
    }
    return x;
  }
  if (op_is(op, "arith.remsi") || op_is(op, "arith.remui")) {
    /* (x % n) keeps runs of x that do not cross a multiple of n: with n divisible by D,
     * aligned runs of length gcd(contiguity, D) survive. */
    tc_axis l = tc_axis_of(a, mlirOperationGetOperand(op, 0));
    tc_axis r = tc_axis_of(a, mlirOperationGetOperand(op, 1));
    tc_axis x = conservative(t);
    for (int d = 0; d < x.rank; d++) {
      int64_t n = mlirShapedTypeGetDimSize(t, d);
      x.constancy[d] = gcd64(l.constancy[d], r.constancy[d]);
      if (r.constancy[d] >= n) {
        x.contiguity[d] = gcd64(gcd64(l.contiguity[d], r.divisibility[d]), l.divisibility[d] ? l.divisibility[d] : 1);
        if (x.contiguity[d] < 1) x.contiguity[d] = 1;
        x.divisibility[d] = gcd64(l.divisibility[d], r.divisibility[d]);
      }
    }
    return x;
  }
  if (op_is(op, "arith.extsi") || op_is(op, "arith.extui") || op_is(op, "arith.trunci") ||
      op_is(op, "arith.index_cast"))
    return tc_axis_of(a, mlirOperationGetOperand(op, 0));
  if (k && (k == TILE_BROADCAST || k == TILE_EXPAND_DIMS || k == TILE_RESHAPE)) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    tc_axis s = tc_axis_of(a, src);
    MlirType st = mlirValueGetType(src);
    tc_axis x = conservative(t);
    int sr = (int)mlirShapedTypeGetRank(st);
    if (k == TILE_BROADCAST) {
      for (int d = 0; d < x.rank && d < sr; d++) {
        x.contiguity[d] = s.contiguity[d];
        x.divisibility[d] = s.divisibility[d];
        x.constancy[d] = mlirShapedTypeGetDimSize(st, d) == 1 ? mlirShapedTypeGetDimSize(t, d) : s.constancy[d];
      }
      return x;
    }
    /* expand_dims / unit reshape: match non-unit dims in order; a new unit dim is a run of
     * one element, so its divisibility is what every element has: a dim's divisibility holds
     * only for the first element of each contiguous run (x, x + 1, ...: 1 past it). */
    int64_t g = 0;
    for (int d = 0; d < (sr ? sr : 1); d++) g = gcd64(g, s.contiguity[d] > 1 ? 1 : s.divisibility[d]);
    int sd = 0;
    for (int d = 0; d < x.rank; d++) {
      int64_t n = mlirShapedTypeGetDimSize(t, d);
      while (sd < sr && mlirShapedTypeGetDimSize(st, sd) == 1 && n != 1) sd++;
      if (n == 1) {
        x.divisibility[d] = g ? g : 1;
        if (sd < sr && mlirShapedTypeGetDimSize(st, sd) == 1) sd++;
        continue;
      }
      if (sd < sr && mlirShapedTypeGetDimSize(st, sd) == n) {
        x.contiguity[d] = s.contiguity[sd];
        x.divisibility[d] = s.divisibility[sd];
        x.constancy[d] = s.constancy[sd];
        sd++;
      }
    }
    return x;
  }
  if (op_is(op, "arith.cmpi") && mlirTypeIsAShaped(t)) {
    /* x < y with x contiguous and y constant along d (Triton's rule for `offs < n`): in an
     * aligned block of g = gcd(x's contiguity, x's and y's divisibility, y's constancy) lanes
     * x is g*a .. g*a + g - 1 and y is g*b, so x < y is a < b in the whole block (signed or
     * not: the block never crosses a multiple of g). Also x >= y, and y > x, y <= x. x <= y
     * is not: it holds for the first lane only when a == b. */
    MlirAttribute pa = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("predicate"));
    int64_t pred = mlirAttributeIsAInteger(pa) ? mlirIntegerAttrGetValueInt(pa) : -1;
    int cont = pred == 2 || pred == 5 || pred == 6 || pred == 9   ? 0 /* slt sge ult uge: x op y */
               : pred == 3 || pred == 4 || pred == 7 || pred == 8 ? 1 /* sle sgt ule ugt: y op x */
                                                                  : -1;
    tc_axis l = tc_axis_of(a, mlirOperationGetOperand(op, 0)), r = tc_axis_of(a, mlirOperationGetOperand(op, 1));
    tc_axis x = conservative(t);
    for (int d = 0; d < x.rank; d++) {
      x.constancy[d] = gcd64(l.constancy[d], r.constancy[d]);
      if (cont < 0) continue;
      const tc_axis *xs = cont ? &r : &l, *ys = cont ? &l : &r;
      int64_t g = gcd64(gcd64(xs->contiguity[d], xs->divisibility[d]), gcd64(ys->divisibility[d], ys->constancy[d]));
      x.constancy[d] = max64(x.constancy[d], g);
    }
    return x;
  }
  /* Any other op: elementwise ops keep runs of equal inputs equal. */
  tc_axis x = conservative(t);
  if (x.rank && mlirOperationGetNumOperands(op) > 0 && !k) {
    for (int d = 0; d < x.rank; d++) {
      int64_t g = 0;
      for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
        MlirValue o = mlirOperationGetOperand(op, i);
        if (!mlirTypeIsAShaped(mlirValueGetType(o))) continue;
        g = gcd64(g, tc_axis_of(a, o).constancy[d]);
      }
      x.constancy[d] = g ? g : 1;
    }
  }
  return x;
}

tc_axis tc_axis_of(tc_axis_analysis *a, MlirValue v) {
  tc_axis *m = tc_valmap_get(&a->memo, v.ptr);
  if (m) return *m;
  tc_axis x = compute(a, v);
  m = tc_valmap_put(&a->memo, v.ptr);
  if (m) *m = x;
  return x;
}
