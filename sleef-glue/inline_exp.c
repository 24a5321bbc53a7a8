/* sleef-glue/inline_exp.c — math.exp and math.exp2 on fp32 vectors expanded in line, before
 * the rest of the vector math goes to SLEEF. exp is the inner loop of softmax, attention,
 * cross entropy and SiLU; an out-of-line call per chunk keeps the chunks' exps from
 * overlapping and spills everything live across it, and SLEEF's u10 exp is longer than it
 * needs to be for fp32. In line, LLVM schedules the chunks' exps together (one rounding,
 * a polynomial of FMAs, a scaling).
 *
 * exp(x) = 2^n · e^r with n = roundeven(x·log2 e) and r = x − n·ln2 (Cody–Waite with FMA:
 * x − n·ln2_hi is exact for every n this range gives, then the low part of ln2), e^r =
 * 1 + (r + r²·q(r)) with q a degree-5 polynomial (fitted to (e^r − 1 − r)/r² on
 * |r| ≤ 1.02·ln2/2; approximation error 0.034 ulp). exp2(x) = 2^n · 2^r with n =
 * roundeven(x), r = x − n (exact), 2^r = 1 + r·q(r), q of degree 5. 2^n is applied as two
 * exact power-of-two factors, so overflow gives inf and the subnormal range rounds once;
 * with AVX-512, 16 lanes at a time, by VSCALEFPS, which rounds the same way (one
 * instruction for the eight of the two factors).
 * x is clamped first (NaN becomes the lower bound, and is put back at the end: exp(NaN) =
 * NaN; exp(±inf) = inf / 0 through the clamp).
 *
 * Accuracy, over all 2^32 fp32 inputs against the fp64 function (a C model of exactly these
 * operations, tests/lang "math" family samples it): exp at most 0.999 ulp, exp2 at most
 * 0.954 ulp — SLEEF's u10 bound (1.0 ulp). In: a vector-stage module. Out: the same module
 * with those ops replaced by arith/math ops LLVM lowers to the target's SIMD. */
#include "sleef-glue/sleef_glue.h"

#include "dialects/builder.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdlib.h>
#include <string.h>

static bool named(MlirOperation op, const char *name) {
  return mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), mlirStringRefCreateFromCString(name));
}

static bool is_f32_vector_exp(MlirOperation op, void *user) {
  (void)user;
  if (!named(op, "math.exp") && !named(op, "math.exp2")) return false;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  return mlirTypeIsAVector(t) && mlirShapedTypeGetRank(t) == 1 && mlirTypeIsAF32(mlirShapedTypeGetElementType(t));
}

/* Horner's rule, highest coefficient first: c[0]·r^(n−1) + … + c[n−1]. */
static MlirValue horner(tc_builder *b, MlirType vt, MlirValue r, const float *c, int n) {
  MlirValue q = tcb_const_float(b, vt, c[0]);
  for (int i = 1; i < n; i++) {
    MlirValue f[3] = {q, r, tcb_const_float(b, vt, c[i])};
    q = tcb_op1(b, "math.fma", vt, 3, f, 0, NULL);
  }
  return q;
}

static MlirValue fma3(tc_builder *b, MlirType vt, MlirValue x, MlirValue y, MlirValue z) {
  MlirValue f[3] = {x, y, z};
  return tcb_op1(b, "math.fma", vt, 3, f, 0, NULL);
}

/* max(lo, min(x, hi)) as compare-and-select (vmaxps/vminps on x86); NaN comes out as lo. */
static MlirValue clamp(tc_builder *b, MlirValue x, MlirType vt, float lo, float hi) {
  MlirValue l = tcb_const_float(b, vt, lo), h = tcb_const_float(b, vt, hi);
  MlirValue y = tcb_select(b, tcb_cmpf(b, "olt", x, h), x, h);
  return tcb_select(b, tcb_cmpf(b, "ogt", y, l), y, l);
}

/* p · 2^n for integral n in [−152, 130]: two normal power-of-two factors 2^(n>>1) and
 * 2^(n − (n>>1)), each built from its exponent bits. */
static MlirValue scale_pow2(tc_builder *b, MlirType vt, MlirValue p, MlirValue n) {
  int64_t lanes = mlirShapedTypeGetDimSize(vt, 0);
  MlirType it = mlirVectorTypeGet(1, &lanes, tcb_int_type(b->ctx, 32));
  MlirValue ni = tcb_cast(b, "arith.fptosi", n, it);
  MlirValue n1 = tcb_binary(b, "arith.shrsi", ni, tcb_const_int(b, it, 1));
  MlirValue n2 = tcb_binary(b, "arith.subi", ni, n1);
  MlirValue bias = tcb_const_int(b, it, 127), shift = tcb_const_int(b, it, 23);
  MlirValue f1 =
      tcb_cast(b, "arith.bitcast", tcb_binary(b, "arith.shli", tcb_binary(b, "arith.addi", n1, bias), shift), vt);
  MlirValue f2 =
      tcb_cast(b, "arith.bitcast", tcb_binary(b, "arith.shli", tcb_binary(b, "arith.addi", n2, bias), shift), vt);
  return tcb_binary(b, "arith.mulf", tcb_binary(b, "arith.mulf", p, f1), f2);
}

/* p · 2^n in one instruction on AVX-512 (VSCALEFPS: p · 2^floor(n), rounded once like the
 * second factor above, inf on overflow, 0 or a subnormal below): 16 lanes of fp32. */
static MlirValue scale_pow2_avx512(tc_builder *b, MlirType vt, MlirValue p, MlirValue n) {
  MlirValue ops[5] = {p, n, p, tcb_const_int(b, tcb_int_type(b->ctx, 16), -1), /* every lane */
                      tcb_const_int(b, tcb_int_type(b->ctx, 32), 4)};          /* MXCSR rounding */
  return tcb_intrinsic(b, "llvm.x86.avx512.mask.scalef.ps.512", vt, 5, ops);
}

static void expand(MlirOperation op, bool scalef) {
  bool two = named(op, "math.exp2");
  MlirValue x = mlirOperationGetOperand(op, 0);
  MlirType vt = mlirValueGetType(x);
  tc_builder bb, *b = &bb;
  tcb_init(b, mlirOperationGetContext(op));
  tcb_set_before(b, op);
  b->loc = mlirOperationGetLocation(op);
  MlirValue n, p;
  if (!two) {
    static const float q[] = {0x1.a02e66p-13f, 0x1.6dcd1ep-10f, 0x1.1111c0p-7f,
                              0x1.555438p-5f,  0x1.555554p-3f,  0x1.0p-1f};
    MlirValue xc = clamp(b, x, vt, -105.0f, 89.0f);
    n = tcb_cast(b, "math.roundeven", tcb_binary(b, "arith.mulf", xc, tcb_const_float(b, vt, 0x1.715476p0f)), vt);
    MlirValue r = fma3(b, vt, n, tcb_const_float(b, vt, -0x1.62e430p-1f), xc); /* exact */
    r = fma3(b, vt, n, tcb_const_float(b, vt, 0x1.05c610p-29f), r);            /* ln2's low part */
    MlirValue s = fma3(b, vt, tcb_binary(b, "arith.mulf", r, r), horner(b, vt, r, q, 6), r);
    p = tcb_binary(b, "arith.addf", tcb_const_float(b, vt, 1.0), s);
  } else {
    static const float q[] = {0x1.425510p-13f, 0x1.5f4dbep-10f, 0x1.3b2cd8p-7f,
                              0x1.c6aec4p-5f,  0x1.ebfbdcp-3f,  0x1.62e430p-1f};
    MlirValue xc = clamp(b, x, vt, -151.0f, 129.0f);
    n = tcb_cast(b, "math.roundeven", xc, vt);
    MlirValue r = tcb_binary(b, "arith.subf", xc, n); /* exact */
    p = fma3(b, vt, r, horner(b, vt, r, q, 6), tcb_const_float(b, vt, 1.0));
  }
  MlirValue y =
      scalef && mlirShapedTypeGetDimSize(vt, 0) == 16 ? scale_pow2_avx512(b, vt, p, n) : scale_pow2(b, vt, p, n);
  y = tcb_select(b, tcb_cmpf(b, "uno", x, x), x, y);
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), y);
  mlirOperationDestroy(op);
}

bool tc_inline_exp(MlirModule module, const tc_target *target) {
  MlirOperation *ops;
  int n;
  if (!tcb_collect(mlirModuleGetOperation(module), is_f32_vector_exp, NULL, &ops, &n)) return false;
  for (int i = 0; i < n; i++) expand(ops[i], target->has_avx512f);
  free(ops);
  return true;
}
