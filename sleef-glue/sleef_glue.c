/* sleef-glue/sleef_glue.c — replaces math.<fn> on float vectors with calls to SLEEF's
 * vector entry points (Sleef_<fn>f16_u10 on AVX-512, f8 on AVX2, f4 on SSE/NEON; d for
 * doubles; _u35 where SLEEF has it under fast-math). Vectors wider than the target's
 * registers are split; ops SLEEF lacks are left to LLVM's own vector expansion. */
#include "sleef-glue/sleef_glue.h"

#include "dialects/builder.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sleef_fn {
  const char *mlir;  /* math op name without "math." */
  const char *sleef; /* SLEEF function stem */
  int nargs;
  bool has_u35;
  bool exact; /* no ulp suffix in SLEEF's name */
} sleef_fn;

static const sleef_fn table[] = {
    {"exp", "exp", 1, false, false},     {"exp2", "exp2", 1, true, false},    {"expm1", "expm1", 1, false, false},
    {"log", "log", 1, true, false},      {"log2", "log2", 1, true, false},    {"log10", "log10", 1, false, false},
    {"log1p", "log1p", 1, false, false}, {"sin", "sin", 1, true, false},      {"cos", "cos", 1, true, false},
    {"tan", "tan", 1, true, false},      {"asin", "asin", 1, true, false},    {"acos", "acos", 1, true, false},
    {"atan", "atan", 1, true, false},    {"atan2", "atan2", 2, true, false},  {"sinh", "sinh", 1, true, false},
    {"cosh", "cosh", 1, true, false},    {"tanh", "tanh", 1, true, false},    {"asinh", "asinh", 1, false, false},
    {"acosh", "acosh", 1, false, false}, {"atanh", "atanh", 1, false, false}, {"erf", "erf", 1, false, false},
    {"erfc", "erfc", 1, false, false},   {"powf", "pow", 2, false, false},    {"cbrt", "cbrt", 1, true, false},
};

/* Math ops LLVM has no intrinsic for: where SLEEF does not apply (scalars, vectors narrower
 * than 128 bits) they call the C library's scalar function, lane by lane. */
static bool needs_libm(const char *op) {
  static const char *const names[] = {"erf", "erfc", "asinh", "acosh", "atanh", "cbrt"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(names[i], op)) return true;
  return false;
}

static const sleef_fn *lookup(const char *op) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (!strcmp(table[i].mlir, op)) return &table[i];
  return NULL;
}

/* Widest SLEEF vector for the target and element size. */
static int native_lanes(const tc_target *t, unsigned bits) {
  int regbits = t->vector_bits >= 512 ? 512 : t->vector_bits >= 256 ? 256 : 128;
  return regbits / (int)bits;
}

const char *tc_sleef_name(const tc_target *target, const char *op, int lanes, unsigned bits, bool fast_math, char *buf,
                          size_t n) {
  const sleef_fn *f = lookup(op);
  if (!f || (bits != 32 && bits != 64)) return NULL;
  if (lanes * (int)bits > target->vector_bits || lanes * (int)bits < 128) return NULL;
  /* SLEEF's erfc exists only with a 1.5-ulp bound (Sleef_erfcf16_u15) */
  const char *ulp = !strcmp(f->sleef, "erfc") ? "u15" : fast_math && f->has_u35 ? "u35" : "u10";
  snprintf(buf, n, "Sleef_%s%c%d_%s", f->sleef, bits == 32 ? 'f' : 'd', lanes, ulp);
  return buf;
}

typedef struct glue_state {
  const tc_target *target;
  bool fast_math;
} glue_state;

/* math.* with one float or vector result: the ops rewrite() may map. */
static bool is_math(MlirOperation op, void *user) {
  (void)user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length <= 5 || memcmp(name.data, "math.", 5) || mlirOperationGetNumResults(op) != 1) return false;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  return mlirTypeIsAVector(t) || mlirTypeIsAFloat(t);
}

static void declare(MlirModule m, const char *name, MlirType fty) {
  MlirContext ctx = mlirModuleGetContext(m);
  MlirBlock body = mlirModuleGetBody(m);
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute s = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(s) && mlirStringRefEqual(mlirStringAttrGetValue(s), mlirStringRefCreateFromCString(name)))
      return;
  }
  tc_builder b;
  tcb_init(&b, ctx);
  MlirOperation first = mlirBlockGetFirstOperation(body);
  if (mlirOperationIsNull(first)) tcb_set_end(&b, body);
  else tcb_set_before(&b, first);
  MlirNamedAttribute attrs[3] = {
      tcb_named(ctx, "sym_name", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(name))),
      tcb_named(ctx, "function_type", mlirTypeAttrGet(fty)),
      tcb_named(ctx, "sym_visibility", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("private")))};
  MlirRegion r = mlirRegionCreate();
  tcb_op_regions(&b, "func.func", 0, NULL, 0, NULL, 3, attrs, 1, &r);
}

static MlirValue call(tc_builder *b, MlirModule m, const char *name, MlirType vt, int nargs, MlirValue *args) {
  MlirType ins[2] = {vt, vt};
  MlirType fty = mlirFunctionTypeGet(b->ctx, nargs, ins, 1, &vt);
  declare(m, name, fty);
  MlirNamedAttribute callee =
      tcb_named(b->ctx, "callee", mlirFlatSymbolRefAttrGet(b->ctx, mlirStringRefCreateFromCString(name)));
  return tcb_op1(b, "func.call", vt, nargs, args, 1, &callee);
}

/* One-argument op as calls of the C library's scalar function (erff / erf), per lane. */
static void rewrite_libm(MlirModule m, MlirOperation op, const char *fn) {
  MlirValue res = mlirOperationGetResult(op, 0), x = mlirOperationGetOperand(op, 0);
  MlirType t = mlirValueGetType(res);
  bool vec = mlirTypeIsAVector(t);
  MlirType elem = vec ? mlirShapedTypeGetElementType(t) : t;
  char sym[40];
  snprintf(sym, sizeof sym, "%s%s", fn, tcb_bitwidth(elem) == 32 ? "f" : "");
  tc_builder b;
  tcb_init(&b, mlirModuleGetContext(m));
  tcb_set_before(&b, op);
  b.loc = mlirOperationGetLocation(op);
  MlirValue out;
  if (!vec) {
    out = call(&b, m, sym, elem, 1, &x);
  } else {
    out = x;
    for (int64_t k = 0; k < mlirShapedTypeGetDimSize(t, 0); k++) {
      MlirNamedAttribute pos = tcb_named(b.ctx, "static_position", mlirDenseI64ArrayGet(b.ctx, 1, &k));
      MlirValue lane = tcb_op1(&b, "vector.extract", elem, 1, &x, 1, &pos);
      MlirValue r = call(&b, m, sym, elem, 1, &lane);
      MlirValue ops[2] = {r, out};
      out = tcb_op1(&b, "vector.insert", t, 2, ops, 1, &pos);
    }
  }
  mlirValueReplaceAllUsesOfWith(res, out);
  mlirOperationDestroy(op);
}

static void rewrite(glue_state *g, MlirModule m, MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  char fn[32];
  snprintf(fn, sizeof fn, "%.*s", (int)(name.length - 5), name.data + 5);
  const sleef_fn *f = lookup(fn);
  if (!f || mlirOperationGetNumOperands(op) != f->nargs) return;
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType vt = mlirValueGetType(res);
  bool vec = mlirTypeIsAVector(vt);
  if (vec && mlirShapedTypeGetRank(vt) != 1) return;
  MlirType elem = vec ? mlirShapedTypeGetElementType(vt) : vt;
  unsigned bits = tcb_bitwidth(elem);
  if (!mlirTypeIsAFloat(elem) || (bits != 32 && bits != 64)) return;
  bool libm = needs_libm(fn) && f->nargs == 1;
  if (!vec) {
    if (libm) rewrite_libm(m, op, fn);
    return;
  }
  int lanes = (int)mlirShapedTypeGetDimSize(vt, 0);
  int piece = native_lanes(g->target, bits);
  if (lanes < piece) piece = lanes;
  char sym[64];
  if (lanes % piece || !tc_sleef_name(g->target, fn, piece, bits, g->fast_math, sym, sizeof sym)) {
    if (libm) rewrite_libm(m, op, fn);
    return;
  }
  tc_builder b;
  tcb_init(&b, mlirModuleGetContext(m));
  tcb_set_before(&b, op);
  b.loc = mlirOperationGetLocation(op);
  MlirValue args[2] = {mlirOperationGetOperand(op, 0),
                       f->nargs > 1 ? mlirOperationGetOperand(op, 1) : (MlirValue){NULL}};
  MlirValue out;
  if (piece == lanes) {
    out = call(&b, m, sym, vt, f->nargs, args);
  } else {
    int64_t pl = piece;
    MlirType pt = mlirVectorTypeGet(1, &pl, elem);
    out = tcb_const_float(&b, vt, 0.0);
    for (int off = 0; off < lanes; off += piece) {
      MlirValue parts[2];
      for (int a = 0; a < f->nargs; a++) {
        int64_t o = off, s = piece, st = 1;
        MlirNamedAttribute at[3] = {
            tcb_named(b.ctx, "offsets",
                      mlirArrayAttrGet(b.ctx, 1, (MlirAttribute[]){mlirIntegerAttrGet(tcb_int_type(b.ctx, 64), o)})),
            tcb_named(b.ctx, "sizes",
                      mlirArrayAttrGet(b.ctx, 1, (MlirAttribute[]){mlirIntegerAttrGet(tcb_int_type(b.ctx, 64), s)})),
            tcb_named(b.ctx, "strides",
                      mlirArrayAttrGet(b.ctx, 1, (MlirAttribute[]){mlirIntegerAttrGet(tcb_int_type(b.ctx, 64), st)}))};
        parts[a] = tcb_op1(&b, "vector.extract_strided_slice", pt, 1, &args[a], 3, at);
      }
      MlirValue r = call(&b, m, sym, pt, f->nargs, parts);
      MlirValue ops[2] = {r, out};
      MlirNamedAttribute at[2] = {
          tcb_named(b.ctx, "offsets",
                    mlirArrayAttrGet(b.ctx, 1, (MlirAttribute[]){mlirIntegerAttrGet(tcb_int_type(b.ctx, 64), off)})),
          tcb_named(b.ctx, "strides",
                    mlirArrayAttrGet(b.ctx, 1, (MlirAttribute[]){mlirIntegerAttrGet(tcb_int_type(b.ctx, 64), 1)}))};
      out = tcb_op1(&b, "vector.insert_strided_slice", vt, 2, ops, 2, at);
    }
  }
  mlirValueReplaceAllUsesOfWith(res, out);
  mlirOperationDestroy(op);
}

tilec_status *tc_sleef_glue(MlirModule module, const tc_target *target, bool fast_math) {
  if (!tc_inline_exp(module, target)) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory expanding exp");
  glue_state g = {target, fast_math};
  MlirOperation *ops;
  int n;
  if (!tcb_collect(mlirModuleGetOperation(module), is_math, NULL, &ops, &n))
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory mapping math ops to SLEEF");
  for (int i = 0; i < n; i++) rewrite(&g, module, ops[i]);
  free(ops);
  return NULL;
}
