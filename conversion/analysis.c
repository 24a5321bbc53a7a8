/* conversion/analysis.c — `tilec compile --emit analysis`: the facts the lowering decides
 * from, printed for the tile IR the front end produced. Per integer or pointer value: its
 * contiguity, divisibility and constancy along each dim (conversion/axis_info.c); per mask of
 * a load or store: the bound it gives the last dim (conversion/mask.c's plan), or that it has
 * none and is applied lane by lane. In: a tile module. Out: text (lit tests check it). */
#include "conversion/analyses.h"
#include "conversion/steps.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinTypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
  char *data;
  size_t len, cap;
  bool oom;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->oom) return;
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 4096;
    while (cap < t->len + n + 1) cap *= 2;
    char *d = realloc(t->data, cap);
    if (!d) {
      t->oom = true;
      return;
    }
    t->data = d;
    t->cap = cap;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
  t->data[t->len] = 0;
}

static void putf(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(text *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) put(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void put_ref(MlirStringRef s, void *user) { put(user, s.data, s.length); }

typedef struct printer {
  text out;
  MlirAsmState names; /* SSA names as the tile IR printout gives them */
  tc_axis_analysis axis;
} printer;

static void put_value(printer *p, MlirValue v) { mlirValuePrintAsOperand(v, p->names, put_ref, &p->out); }

static void put_dims(text *t, const char *what, int rank, const int64_t *d) {
  putf(t, " %s [", what);
  for (int i = 0; i < rank; i++) {
    if (d[i] >= TC_AXIS_MAX_DIV) putf(t, "%s%s", i ? ", " : "", "max");
    else putf(t, "%s%lld", i ? ", " : "", (long long)d[i]);
  }
  put(t, "]", 1);
}

static bool is_int_or_ptr(MlirType t) {
  MlirType e = mlirTypeIsARankedTensor(t) ? mlirShapedTypeGetElementType(t) : t;
  return mlirTypeIsAInteger(e) || mlirTypeIsAIndex(e) || tile_type_is_ptr(e);
}

/* "tile.load at kernel.py:15:9" (the location without MLIR's loc("...") wrapping). */
static void put_where(printer *p, MlirOperation op) {
  char loc[256], clean[256];
  tcb_attr_str(mlirLocationGetAttribute(mlirOperationGetLocation(op)), loc, sizeof loc);
  size_t k = 0;
  const char *s = strncmp(loc, "loc(", 4) ? loc : loc + 4;
  for (; *s && k + 1 < sizeof clean; s++)
    if (*s != '"') clean[k++] = *s;
  if (k && clean[k - 1] == ')' && s != loc) k--;
  clean[k] = 0;
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  putf(&p->out, "%.*s at %s", (int)n.length, n.data, clean);
}

static void put_bound(printer *p, MlirValue mask, int64_t n) {
  tc_bound b;
  if (!tc_bound_plan(&p->axis, mask, n, &b)) {
    put(&p->out, "none (masked lane by lane)", 26);
    return;
  }
  switch (b.kind) {
    case TC_BOUND_ROW:
      put(&p->out, "row (", 5);
      put_value(p, b.a);
      put(&p->out, " is constant along the last dim)", 32);
      break;
    case TC_BOUND_AND:
      put(&p->out, "min(", 4);
      put_bound(p, b.a, n);
      put(&p->out, ", ", 2);
      put_bound(p, b.c, n);
      put(&p->out, ")", 1);
      break;
    case TC_BOUND_BCAST:
      put(&p->out, "broadcast(", 10);
      put_bound(p, b.a, n);
      put(&p->out, ")", 1);
      break;
    default:
      put_value(p, b.a);
      putf(&p->out, " %s%s ", b.inclusive ? "<=" : "<", b.is_unsigned ? "u" : "");
      put_value(p, b.c);
      break;
  }
}

static MlirWalkResult visit(MlirOperation op, void *user) {
  printer *p = user;
  if (p->out.oom) return MlirWalkResultInterrupt;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); r++) {
    MlirValue v = mlirOperationGetResult(op, r);
    if (!is_int_or_ptr(mlirValueGetType(v))) continue;
    tc_axis a = tc_axis_of(&p->axis, v);
    put_value(p, v);
    put(&p->out, " = ", 3);
    put_where(p, op);
    put(&p->out, ":", 1);
    if (a.rank == 0) {
      put_dims(&p->out, "divisibility", 1, a.divisibility);
    } else {
      put_dims(&p->out, "contiguity", a.rank, a.contiguity);
      put_dims(&p->out, "divisibility", a.rank, a.divisibility);
      put_dims(&p->out, "constancy", a.rank, a.constancy);
    }
    put(&p->out, "\n", 1);
  }
  tile_op_id k = tile_op_of(op);
  MlirValue mask = k == TILE_LOAD ? tile_load_mask(op) : k == TILE_STORE ? tile_store_mask(op) : (MlirValue){NULL};
  if (!mlirValueIsNull(mask) && mlirTypeIsARankedTensor(mlirValueGetType(mask))) {
    MlirType mt = mlirValueGetType(mask);
    int64_t n = mlirShapedTypeGetDimSize(mt, mlirShapedTypeGetRank(mt) - 1);
    put(&p->out, "mask ", 5);
    put_value(p, mask);
    put(&p->out, " of ", 4);
    put_where(p, op);
    putf(&p->out, ": bound over %lld lanes: ", (long long)n);
    put_bound(p, mask, n);
    put(&p->out, "\n", 1);
  }
  return MlirWalkResultAdvance;
}

tilec_status *tc_analysis_print(MlirModule module, char **out) {
  printer p = {0};
  MlirOperation top = mlirModuleGetOperation(module);
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  p.names = mlirAsmStateCreateForOperation(top, flags);
  tc_axis_init(&p.axis);
  put(&p.out, "// axis info per value (dims outermost first; max = any power of two) and mask bounds\n", 86);
  mlirOperationWalk(top, visit, &p, MlirWalkPreOrder);
  tc_axis_free(&p.axis);
  mlirAsmStateDestroy(p.names);
  mlirOpPrintingFlagsDestroy(flags);
  if (p.out.oom) {
    free(p.out.data);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory printing the analysis");
  }
  *out = p.out.data;
  return NULL;
}
