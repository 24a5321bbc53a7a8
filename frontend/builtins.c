/* frontend/builtins.c — the tl.* / libdevice / Python-builtin functions a kernel may
 * call, resolved by name. In: evaluated call arguments. Out: tile IR through ops.c, or
 * a precise error (unknown function, not supported yet, bad argument). */
#include "frontend/cg.h"

#include "frontend/module_context.h"
#include "frontend/parser.h"

#include <math.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Triton names tilec knows but does not lower yet: calling one says so. */
static const char *const not_yet[] = {
    "sum", "max", "min", "argmax", "argmin", "xor_sum", "reduce_or", "reduce", "associative_scan", "cumsum",
    "cumprod", "sort", "topk", "histogram", "gather", "dot", "dot_scaled", "atomic_cas", "atomic_xchg",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "broadcast",
    "broadcast_to", "expand_dims", "reshape", "view", "trans", "permute", "cat", "join", "split", "ravel",
    "squeeze", "unsqueeze", "flip", "interleave", "make_block_ptr", "advance", "make_tensor_descriptor",
    "rand", "randn", "randint", "randint4x", "rand4x", "randn4x", "philox", "device_print", "device_assert",
    "softmax", "range", "static_range", "static_assert",
};

/* Elementwise float math: tl.<name> -> math.<op>. */
static const struct { const char *name, *op; } math1[] = {
    {"exp", "math.exp"},     {"exp2", "math.exp2"},   {"log", "math.log"},     {"log2", "math.log2"},
    {"sin", "math.sin"},     {"cos", "math.cos"},     {"sqrt", "math.sqrt"},   {"sqrt_rn", "math.sqrt"},
    {"rsqrt", "math.rsqrt"}, {"erf", "math.erf"},     {"floor", "math.floor"}, {"ceil", "math.ceil"},
    {"tan", "math.tan"},     {"tanh", "math.tanh"},   {"asin", "math.asin"},   {"acos", "math.acos"},
    {"atan", "math.atan"},   {"sinh", "math.sinh"},   {"cosh", "math.cosh"},   {"asinh", "math.asinh"},
    {"acosh", "math.acosh"}, {"atanh", "math.atanh"}, {"log10", "math.log10"}, {"log1p", "math.log1p"},
    {"expm1", "math.expm1"}, {"rint", "math.roundeven"}, {"nearbyint", "math.roundeven"}, {"round", "math.round"},
    {"trunc", "math.trunc"}, {"erfc", "math.erfc"},   {"cbrt", "math.cbrt"},
};

static const char *const implemented[] = {
    "program_id", "num_programs", "arange", "load", "store", "where", "abs", "minimum", "maximum", "cdiv",
    "cast", "to", "zeros", "zeros_like", "full", "multiple_of", "max_contiguous", "max_constancy", "assume",
    "static_print", "debug_barrier", "fma", "sigmoid", "fdiv", "div_rn", "clamp", "pointer_type", "umulhi",
    "isnan", "isinf", "pow", "atan2", "fmod", "exp", "static_assert_", "condition",
};

static bool in_list(const char *const *list, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(list[i], s)) return true;
  return false;
}

static const char *math_op(const char *name) {
  for (size_t i = 0; i < sizeof math1 / sizeof math1[0]; i++)
    if (!strcmp(math1[i].name, name)) return math1[i].op;
  return NULL;
}

static bool known_tl(const char *name) {
  return in_list(implemented, sizeof implemented / sizeof implemented[0], name) ||
         in_list(not_yet, sizeof not_yet / sizeof not_yet[0], name) || math_op(name) || !strcmp(name, "static_assert") ||
         cg_api_known(name);
}

static tc_val builtin(tc_cg *cg, const char *prefix, const char *name) {
  size_t n = strlen(prefix) + strlen(name) + 2;
  char *s = cg_alloc(cg, n);
  snprintf(s, n, "%s.%s", prefix, name);
  return (tc_val){.kind = TV_BUILTIN, .name = s};
}

static tc_val module(const char *name) { return (tc_val){.kind = TV_MODULE, .name = name}; }

tc_val cg_module_attr(tc_cg *cg, const tc_val *m, const char *attr, tc_loc loc) {
  const char *mn = m->name;
  if (cg_is_context_module(m)) return cg_context_module_attr(cg, m, attr, loc);
  tc_val api;
  if (cg_api_module_attr(cg, mn, attr, loc, &api)) return api;
  if (!strcmp(mn, "triton")) {
    if (!strcmp(attr, "language")) return module("tl");
    if (!strcmp(attr, "cdiv")) return builtin(cg, "tl", "cdiv");
    if (!strcmp(attr, "jit")) return builtin(cg, "triton", "jit");
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'triton.%s' cannot be used inside a kernel", attr);
  }
  if (!strcmp(mn, "tl.extra") || !strcmp(mn, "tl.extra.backend")) {
    /* tl.extra.libdevice and the backends' copies: tl.extra.{cuda,cpu,hip}.libdevice */
    if (!strcmp(attr, "libdevice")) return module("libdevice");
    if (!strcmp(mn, "tl.extra") && (!strcmp(attr, "cuda") || !strcmp(attr, "cpu") || !strcmp(attr, "hip")))
      return module("tl.extra.backend");
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "'%s.%s' is not supported (tilec has the extra.libdevice functions)",
                    !strcmp(mn, "tl.extra") ? "tl.extra" : "tl.extra.<backend>", attr);
  }
  if (!strcmp(mn, "libdevice")) {
    if (cg->prelude) {
      const tc_func *pf = tc_module_find(cg->prelude, attr);
      if (pf) return (tc_val){.kind = TV_JITFN, .fn = pf};
    }
    if (math_op(attr) || known_tl(attr)) return builtin(cg, "tl", attr);
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "libdevice function '%s' is not supported", attr);
  }
  /* tl, tl.math, tl.core, tl.standard */
  tc_ty ty;
  if (tc_ty_parse(attr, strlen(attr), &ty) && strcmp(attr, "float") && strcmp(attr, "bool") && strcmp(attr, "half") &&
      strcmp(attr, "double"))
    return tv_dtype(ty);
  if (!strcmp(attr, "constexpr")) return (tc_val){.kind = TV_CONSTEXPR_TYPE};
  if (!strcmp(attr, "math") || !strcmp(attr, "core") || !strcmp(attr, "standard") || !strcmp(attr, "random"))
    return module("tl");
  if (!strcmp(attr, "extra")) return module("tl.extra");
  if (cg->prelude) {
    const tc_func *pf = tc_module_find(cg->prelude, attr);
    if (pf) return (tc_val){.kind = TV_JITFN, .fn = pf};
  }
  if (known_tl(attr)) return builtin(cg, "tl", attr);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unknown function 'tl.%s'", attr);
}

bool cg_global_name(tc_cg *cg, const char *name, tc_val *out) {
  static const char *const py[] = {"range", "min", "max", "len", "int", "float", "bool", "print", "isinstance",
                                   "abs", "getattr", "hasattr"};
  if (!strcmp(name, "tl")) {
    *out = module("tl");
    return true;
  }
  if (!strcmp(name, "triton")) {
    *out = module("triton");
    return true;
  }
  if (!strcmp(name, "libdevice")) {
    *out = module("libdevice");
    return true;
  }
  for (size_t i = 0; i < sizeof py / sizeof py[0]; i++)
    if (!strcmp(py[i], name)) {
      *out = builtin(cg, "py", name);
      return true;
    }
  return false;
}

/* ---- memory ------------------------------------------------------------------------ */

tc_val cg_mask(tc_cg *cg, const tc_val *mask, const char *fn, tc_loc loc) {
  tc_val m = cg_to_tensor(cg, mask, loc);
  if (cg->err) return m;
  if (!tc_ty_is_bool(m.ty)) {
    char n[16];
    tc_ty_name(m.ty, n, sizeof n);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "Mask must have boolean scalar type: the mask of %s is %s (compare it, e.g. `m != 0`)", fn, n);
  }
  return m;
}

static tc_val do_load(tc_cg *cg, tc_callargs *a, tc_loc loc) {
  static const char *const p[] = {"pointer", "mask", "other", "boundary_check", "padding_option", "cache_modifier",
                                  "eviction_policy", "volatile", NULL};
  cg_sig s = {"tl.load", p};
  if (!cg_check_args(cg, a, &s, 1, loc)) return (tc_val){0};
  tc_val ptr = *cg_arg(a, &s, "pointer");
  tc_val *mask = cg_arg(a, &s, "mask"), *other = cg_arg(a, &s, "other");
  tc_val *bc = cg_arg(a, &s, "boundary_check");
  if (ptr.kind == TV_BLOCKPTR) {
    if (!cg_is_none(mask) || !cg_is_none(other))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.load of a block pointer takes boundary_check, not mask/other");
    return cg_block_load(cg, &ptr, bc, cg_arg(a, &s, "padding_option"), loc);
  }
  if (bc && bc->kind == TV_TUPLE && bc->nitems)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "boundary_check needs a block pointer");
  if (ptr.kind != TV_TENSOR || !tc_ty_is_ptr(ptr.ty)) {
    char d[64];
    tv_describe(&ptr, d, sizeof d);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.load expects a pointer or a tile of pointers, got %s", d);
  }
  tc_ty elem = ptr.ty;
  elem.ptr_depth--;
  elem.is_const = false;
  int rank = ptr.rank;
  int64_t shape[TC_MAX_RANK];
  memcpy(shape, ptr.shape, sizeof shape);
  tc_val m = {0}, o = {0};
  if (!cg_is_none(mask)) {
    m = cg_mask(cg, mask, "tl.load", loc);
    if (cg->err) return m;
    if (rank == 0 && m.rank > 0)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Mask argument cannot be block type if pointer argument is not a block");
    tc_val cur = tv_tensor((MlirValue){NULL}, elem, rank, shape);
    if (!cg_broadcast_shapes(cg, &cur, &m, &rank, shape, loc)) return (tc_val){0};
  }
  if (!cg_is_none(other)) {
    if (cg_is_none(mask)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.load: 'other' needs a 'mask'");
    o = cg_cast(cg, *other, elem, false, loc);
    if (cg->err) return o;
    if (ptr.rank == 0 && o.rank > 0)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Other argument cannot be block type if pointer argument is not a block");
    tc_val cur = tv_tensor((MlirValue){NULL}, elem, rank, shape);
    if (!cg_broadcast_shapes(cg, &cur, &o, &rank, shape, loc)) return (tc_val){0};
  }
  ptr = cg_broadcast_to(cg, ptr, rank, shape, loc);
  MlirValue mv = {NULL}, ov = {NULL};
  if (!cg_is_none(mask)) mv = cg_broadcast_to(cg, m, rank, shape, loc).v;
  if (!cg_is_none(other)) ov = cg_broadcast_to(cg, o, rank, shape, loc).v;
  if (cg->err) return (tc_val){0};
  MlirValue r = tile_build_load(&cg->b, ptr.v, mv, ov, cg_tensor_type(cg, elem, rank, shape));
  return tv_tensor(r, elem, rank, shape);
}

static tc_val do_store(tc_cg *cg, tc_callargs *a, tc_loc loc) {
  static const char *const p[] = {"pointer", "value", "mask", "boundary_check", "cache_modifier", "eviction_policy", NULL};
  cg_sig s = {"tl.store", p};
  if (!cg_check_args(cg, a, &s, 2, loc)) return (tc_val){0};
  tc_val ptr = *cg_arg(a, &s, "pointer");
  tc_val val = *cg_arg(a, &s, "value");
  tc_val *mask = cg_arg(a, &s, "mask");
  tc_val *bc = cg_arg(a, &s, "boundary_check");
  if (ptr.kind == TV_BLOCKPTR) {
    if (!cg_is_none(mask)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.store of a block pointer takes boundary_check, not mask");
    cg_block_store(cg, &ptr, val, bc, loc);
    return tv_none();
  }
  if (bc && bc->kind == TV_TUPLE && bc->nitems)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "boundary_check needs a block pointer");
  if (ptr.kind != TV_TENSOR || !tc_ty_is_ptr(ptr.ty)) {
    char d[64];
    tv_describe(&ptr, d, sizeof d);
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.store expects a pointer or a tile of pointers, got %s", d);
  }
  if (ptr.ty.is_const) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Cannot store to a constant pointer");
  tc_ty elem = ptr.ty;
  elem.ptr_depth--;
  elem.is_const = false;
  val = cg_cast(cg, val, elem, false, loc);
  if (cg->err) return val;
  /* As Triton's store: the value and the mask take the pointer's shape (a scalar pointer
   * takes no tiles); a larger value never widens the pointer tile. */
  int rank = ptr.rank;
  int64_t shape[TC_MAX_RANK];
  memcpy(shape, ptr.shape, sizeof shape);
  if (rank == 0 && val.rank > 0)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Value argument cannot be block type if pointer argument is not a block");
  if (!cg_broadcast_check(cg, &val, rank, shape, loc)) return (tc_val){0};
  tc_val m = {0};
  if (!cg_is_none(mask)) {
    m = cg_mask(cg, mask, "tl.store", loc);
    if (cg->err) return m;
    if (rank == 0 && m.rank > 0)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "Mask argument cannot be block type if pointer argument is not a block");
    if (!cg_broadcast_check(cg, &m, rank, shape, loc)) return (tc_val){0};
  }
  ptr = cg_broadcast_to(cg, ptr, rank, shape, loc);
  val = cg_broadcast_to(cg, val, rank, shape, loc);
  MlirValue mv = {NULL};
  if (!cg_is_none(mask)) mv = cg_broadcast_to(cg, m, rank, shape, loc).v;
  if (cg->err) return (tc_val){0};
  tile_build_store(&cg->b, ptr.v, val.v, mv);
  return tv_none();
}

/* ---- the dispatcher ---------------------------------------------------------------- */

static tc_val arg0(tc_cg *cg, tc_callargs *a, const char *fn, int n, tc_loc loc) {
  if (a->nargs != n || a->nkw) {
    cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() takes %d positional argument%s", fn, n, n == 1 ? "" : "s");
    return (tc_val){0};
  }
  return a->args[0];
}

static tc_val py_minmax(tc_cg *cg, tc_callargs *a, bool is_max, tc_loc loc) {
  const char *fn = is_max ? "max" : "min";
  tc_val *xs = a->args;
  int n = a->nargs;
  if (n == 1 && xs[0].kind == TV_TUPLE) {
    n = xs[0].nitems;
    xs = xs[0].items;
  }
  if (n < 1) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() expects at least one argument", fn);
  tc_val r = xs[0];
  for (int i = 1; i < n && !cg->err; i++) {
    if (tv_is_number(&r) && tv_is_number(&xs[i])) {
      tc_val c = cg_constexpr_compare(cg, TC_CMP_LT, &r, &xs[i], loc);
      if ((c.i != 0) == is_max) r = xs[i];
    } else {
      r = cg_minmax(cg, is_max, r, xs[i], false, loc);
    }
  }
  return r;
}

static tc_val py_float(tc_cg *cg, tc_callargs *a, tc_loc loc) {
  tc_val x = arg0(cg, a, "float", 1, loc);
  if (cg->err) return x;
  if (tv_is_number(&x)) return tv_float(x.kind == TV_FLOAT ? x.f : (double)x.i);
  if (x.kind == TV_STR) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)x.slen, x.s);
    if (!strcmp(buf, "inf") || !strcmp(buf, "+inf") || !strcmp(buf, "infinity")) return tv_float(INFINITY);
    if (!strcmp(buf, "-inf") || !strcmp(buf, "-infinity")) return tv_float(-INFINITY);
    if (!strcmp(buf, "nan")) return tv_float(NAN);
    char *end;
    double d = strtod(buf, &end);
    if (*end == 0 && end != buf) return tv_float(d);
  }
  if (x.kind == TV_TENSOR) return cg_cast(cg, x, tc_ty_make(TILEC_DTYPE_F32), false, loc);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "float() cannot convert %s", tv_kind_name(&x));
}

static tc_val fma3(tc_cg *cg, tc_callargs *a, tc_loc loc) {
  if (a->nargs != 3) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.fma() takes 3 arguments");
  tc_val x = a->args[0], y = a->args[1], z = a->args[2];
  tc_val xy = cg_binary(cg, TC_OP_MUL, x, y, loc);
  if (cg->err) return xy;
  if (!tc_ty_is_float(xy.ty)) return cg_binary(cg, TC_OP_ADD, xy, z, loc);
  /* Build the fused op from the promoted operands. */
  tc_val zz = cg_cast(cg, z, xy.ty, false, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &xy, &zz, &rank, shape, loc)) return (tc_val){0};
  tc_val xa = cg_broadcast_to(cg, cg_cast(cg, x, xy.ty, false, loc), rank, shape, loc);
  tc_val ya = cg_broadcast_to(cg, cg_cast(cg, y, xy.ty, false, loc), rank, shape, loc);
  zz = cg_broadcast_to(cg, zz, rank, shape, loc);
  if (cg->err) return zz;
  MlirValue ops[3] = {xa.v, ya.v, zz.v};
  MlirValue r = tcb_op1(&cg->b, "math.fma", mlirValueGetType(zz.v), 3, ops, 0, NULL);
  return tv_tensor(r, xy.ty, rank, shape);
}

static tc_val binary_math(tc_cg *cg, const char *op, tc_val x, tc_val y, const char *fn, tc_loc loc) {
  if (x.kind != TV_TENSOR) x = cg_to_tensor(cg, &x, loc);
  if (y.kind != TV_TENSOR) y = cg_to_tensor(cg, &y, loc);
  if (cg->err) return x;
  tc_ty ct = x.ty.dt == TILEC_DTYPE_F64 || y.ty.dt == TILEC_DTYPE_F64 ? tc_ty_make(TILEC_DTYPE_F64) : tc_ty_make(TILEC_DTYPE_F32);
  if (!tc_ty_is_float(x.ty) || !tc_ty_is_float(y.ty) || (x.ty.dt != ct.dt && x.ty.dt != TILEC_DTYPE_F32) )
    if (!tc_ty_is_float(x.ty) || !tc_ty_is_float(y.ty))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects floating-point inputs", fn);
  x = cg_cast(cg, x, ct, false, loc);
  y = cg_cast(cg, y, ct, false, loc);
  int rank;
  int64_t shape[TC_MAX_RANK];
  if (!cg_broadcast_shapes(cg, &x, &y, &rank, shape, loc)) return (tc_val){0};
  x = cg_broadcast_to(cg, x, rank, shape, loc);
  y = cg_broadcast_to(cg, y, rank, shape, loc);
  if (cg->err) return x;
  return tv_tensor(tcb_binary(&cg->b, op, x.v, y.v), ct, rank, shape);
}

tc_val cg_call_builtin(tc_cg *cg, const char *full, tc_callargs *a, tc_loc loc) {
  const char *dot = strchr(full, '.');
  const char *name = dot ? dot + 1 : full;
  if (!strncmp(full, "tdesc.", 6)) return cg_tdesc_method(cg, name, a, loc);
  if (!strncmp(full, "pymath.", 7)) return cg_context_call(cg, name, a, loc);
  if (!strncmp(full, "dtype.", 6)) return cg_dtype_method(cg, name, a, loc);
  tc_val api;
  if (cg_api_builtin(cg, full, name, a, loc, &api)) return api;
  bool py = !strncmp(full, "py.", 3);
  if (py) {
    if (!strcmp(name, "min") || !strcmp(name, "max")) return py_minmax(cg, a, !strcmp(name, "max"), loc);
    if (!strcmp(name, "float")) return py_float(cg, a, loc);
    if (!strcmp(name, "int")) {
      tc_val x = arg0(cg, a, "int", 1, loc);
      if (cg->err) return x;
      if (x.kind == TV_FLOAT && (isnan(x.f) || isinf(x.f)))
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "cannot convert float %s to integer", isnan(x.f) ? "NaN" : "infinity");
      if (x.kind == TV_FLOAT && (x.f >= 0x1p63 || x.f < -0x1p63))
        return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "int(%g) does not fit in 64 bits", x.f);
      if (tv_is_number(&x)) return tv_int(x.kind == TV_FLOAT ? (int64_t)x.f : x.i);
      if (x.kind == TV_TENSOR) return cg_cast(cg, x, tc_ty_make(TILEC_DTYPE_I32), false, loc);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "int() cannot convert %s", tv_kind_name(&x));
    }
    if (!strcmp(name, "bool")) {
      tc_val x = arg0(cg, a, "bool", 1, loc);
      bool t;
      if (!cg->err && cg_truthy_constexpr(cg, &x, loc, &t)) return tv_bool(t);
      if (x.kind == TV_TENSOR) return cg_to_bool(cg, x, loc);
      return cg->err ? x : cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "bool() cannot convert %s", tv_kind_name(&x));
    }
    if (!strcmp(name, "len")) {
      tc_val x = arg0(cg, a, "len", 1, loc);
      if (cg->err) return x;
      if (x.kind == TV_TUPLE) return tv_int(x.nitems);
      if (x.kind == TV_STR) return tv_int((int64_t)x.slen);
      if (x.kind == TV_TENSOR && x.rank) return tv_int(x.shape[0]);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "len() of %s", tv_kind_name(&x));
    }
    if (!strcmp(name, "abs")) {
      tc_val x = arg0(cg, a, "abs", 1, loc);
      if (cg->err) return x;
      if (x.kind == TV_INT) return tv_int(x.i < 0 ? -x.i : x.i);
      if (x.kind == TV_FLOAT) return tv_float(fabs(x.f));
      name = "abs";
    } else if (!strcmp(name, "getattr") || !strcmp(name, "hasattr")) {
      /* getattr(obj, "name"[, default]) with a compile-time name, as Triton evaluates it
       * (getattr(tl, FUNC) for a constexpr string FUNC) */
      bool has = !strcmp(name, "hasattr");
      if (a->nkw || a->nargs < 2 || a->nargs > (has ? 2 : 3))
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s() takes %s", name, has ? "2 arguments" : "2 or 3 arguments");
      if (a->args[1].kind != TV_STR)
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s(): attribute name must be a compile-time string, got %s", name,
                        tv_kind_name(&a->args[1]));
      char attr[128];
      if (a->args[1].slen >= sizeof attr) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s(): attribute name too long", name);
      memcpy(attr, a->args[1].s, a->args[1].slen);
      attr[a->args[1].slen] = 0;
      tc_val r = cg_value_attr(cg, a->args[0], attr, loc);
      if (cg->err && (has || a->nargs == 3)) {
        tilec_status_destroy(cg->err);
        cg->err = NULL;
        return has ? tv_bool(false) : a->args[2];
      }
      return has && !cg->err ? tv_bool(true) : r;
    } else if (!strcmp(name, "range")) {
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "range() can only be used as the iterable of a 'for' loop");
    } else if (!strcmp(name, "print")) {
      const char *prefix = "";
      size_t plen = 0;
      int first = 0;
      if (a->nargs && a->args[0].kind == TV_STR) {
        prefix = a->args[0].s;
        plen = a->args[0].slen;
        first = 1;
      }
      return cg_device_print(cg, prefix, plen, a->args + first, a->nargs - first, false, loc);
    } else {
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "the Python builtin '%s' is not supported in kernels", name);
    }
  }
  if (!strcmp(full, "triton.jit"))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "triton.jit cannot be called inside a kernel");

  if (!strcmp(name, "program_id") || !strcmp(name, "num_programs")) {
    static const char *const p[] = {"axis", NULL};
    cg_sig s = {name, p};
    if (!cg_check_args(cg, a, &s, 1, loc)) return (tc_val){0};
    int64_t axis;
    if (!cg_const_int(cg, cg_arg(a, &s, "axis"), "axis", loc, &axis)) return (tc_val){0};
    if (axis < 0 || axis > 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "program_id axis must be 0, 1, or 2 but got %lld", (long long)axis);
    MlirValue v = !strcmp(name, "program_id") ? tile_build_program_id(&cg->b, (int)axis)
                                               : tile_build_num_programs(&cg->b, (int)axis);
    return tv_tensor(v, tc_ty_make(TILEC_DTYPE_I32), 0, NULL);
  }
  if (!strcmp(name, "arange")) {
    static const char *const p[] = {"start", "end", NULL};
    cg_sig s = {"tl.arange", p};
    if (!cg_check_args(cg, a, &s, 2, loc)) return (tc_val){0};
    int64_t st, en;
    if (!cg_const_int(cg, cg_arg(a, &s, "start"), "tl.arange start", loc, &st) ||
        !cg_const_int(cg, cg_arg(a, &s, "end"), "tl.arange end", loc, &en))
      return (tc_val){0};
    int64_t n = en - st;
    if (n <= 0 || (n & (n - 1)))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.arange's range must be a power of two, got %lld", (long long)n);
    if (n > TC_MAX_NUMEL)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a tile has at most %d elements, tl.arange asks for %lld", TC_MAX_NUMEL,
                      (long long)n);
    if (st < INT32_MIN || en > INT32_MAX) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.arange bounds must fit in int32");
    return tv_tensor(tile_build_range(&cg->b, (int32_t)st, (int32_t)en), tc_ty_make(TILEC_DTYPE_I32), 1, &n);
  }
  if (!strcmp(name, "load")) return do_load(cg, a, loc);
  if (!strcmp(name, "store")) return do_store(cg, a, loc);
  if (!strcmp(name, "where")) {
    static const char *const p[] = {"condition", "x", "y", NULL};
    cg_sig s = {"tl.where", p};
    if (!cg_check_args(cg, a, &s, 3, loc)) return (tc_val){0};
    return cg_where(cg, *cg_arg(a, &s, "condition"), *cg_arg(a, &s, "x"), *cg_arg(a, &s, "y"), loc);
  }
  if (!strcmp(name, "minimum") || !strcmp(name, "maximum")) {
    static const char *const p[] = {"x", "y", "propagate_nan", NULL};
    cg_sig s = {name, p};
    if (!cg_check_args(cg, a, &s, 2, loc)) return (tc_val){0};
    tc_val *pn = cg_arg(a, &s, "propagate_nan");
    bool all = pn && ((pn->kind == TV_INT && pn->i) || (pn->kind == TV_STR && pn->slen == 3));
    return cg_minmax(cg, !strcmp(name, "maximum"), *cg_arg(a, &s, "x"), *cg_arg(a, &s, "y"), all, loc);
  }
  if (!strcmp(name, "abs")) {
    tc_val x = arg0(cg, a, "tl.abs", 1, loc);
    if (cg->err) return x;
    if (x.kind != TV_TENSOR) x = cg_to_tensor(cg, &x, loc);
    if (cg->err) return x;
    if (tc_ty_is_fp8(x.ty)) {
      /* as Triton: the code with its sign bit cleared (no round trip through fp32) */
      tc_ty u8 = tc_ty_make(TILEC_DTYPE_U8);
      tc_val bits = cg_cast(cg, x, u8, true, loc);
      if (cg->err) return bits;
      bits = cg_binary(cg, TC_OP_BITAND, bits, tv_int(0x7F), loc);
      return cg->err ? bits : cg_cast(cg, bits, x.ty, true, loc);
    }
    if (tc_ty_is_float(x.ty)) return tv_tensor(tcb_cast(&cg->b, "math.absf", x.v, mlirValueGetType(x.v)), x.ty, x.rank, x.shape);
    if (tc_ty_is_signed(x.ty)) return tv_tensor(tcb_cast(&cg->b, "math.absi", x.v, mlirValueGetType(x.v)), x.ty, x.rank, x.shape);
    if (tc_ty_is_int(x.ty)) return x;
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.abs is not defined on pointers");
  }
  if (!strcmp(name, "cdiv")) {
    static const char *const p[] = {"x", "div", NULL};
    cg_sig s = {"tl.cdiv", p};
    if (!cg_check_args(cg, a, &s, 2, loc)) return (tc_val){0};
    tc_val x = *cg_arg(a, &s, "x"), d = *cg_arg(a, &s, "div");
    bool ce = tv_is_constexpr(&x) && tv_is_constexpr(&d);
    tc_val one = tv_int(1);
    tc_val t = ce ? cg_constexpr_binary(cg, TC_OP_ADD, &x, &d, loc) : cg_binary(cg, TC_OP_ADD, x, d, loc);
    t = ce ? cg_constexpr_binary(cg, TC_OP_SUB, &t, &one, loc) : cg_binary(cg, TC_OP_SUB, t, one, loc);
    return ce ? cg_constexpr_binary(cg, TC_OP_FLOORDIV, &t, &d, loc) : cg_binary(cg, TC_OP_FLOORDIV, t, d, loc);
  }
  if (!strcmp(name, "cast") || !strcmp(name, "to")) {
    static const char *const p[] = {"input", "dtype", "fp_downcast_rounding", "bitcast", NULL};
    cg_sig s = {"tl.cast", p};
    if (!cg_check_args(cg, a, &s, 2, loc)) return (tc_val){0};
    tc_ty to;
    if (!cg_get_dtype(cg, cg_arg(a, &s, "dtype"), "dtype", loc, &to)) return (tc_val){0};
    tc_val *bcast = cg_arg(a, &s, "bitcast");
    bool bc = bcast && bcast->kind == TV_BOOL && bcast->i;
    tc_val *rnd = cg_arg(a, &s, "fp_downcast_rounding");
    if (!cg_is_none(rnd)) return cg_cast_rounded(cg, *cg_arg(a, &s, "input"), to, rnd, loc);
    return cg_cast(cg, *cg_arg(a, &s, "input"), to, bc, loc);
  }
  if (!strcmp(name, "zeros") || !strcmp(name, "full")) {
    bool z = !strcmp(name, "zeros");
    static const char *const pz[] = {"shape", "dtype", NULL};
    static const char *const pf[] = {"shape", "value", "dtype", NULL};
    cg_sig s = {z ? "tl.zeros" : "tl.full", z ? pz : pf};
    if (!cg_check_args(cg, a, &s, z ? 2 : 3, loc)) return (tc_val){0};
    int rank;
    int64_t shape[TC_MAX_RANK];
    tc_ty ty;
    if (!cg_get_shape(cg, cg_arg(a, &s, "shape"), loc, &rank, shape) || !cg_get_dtype(cg, cg_arg(a, &s, "dtype"), "dtype", loc, &ty))
      return (tc_val){0};
    tc_val v = z ? tv_int(0) : *cg_arg(a, &s, "value");
    tc_val sc = cg_cast(cg, v, ty, false, loc);
    if (cg->err) return sc;
    return cg_broadcast_to(cg, sc, rank, shape, loc);
  }
  if (!strcmp(name, "zeros_like")) {
    tc_val x = arg0(cg, a, "tl.zeros_like", 1, loc);
    if (cg->err) return x;
    if (x.kind != TV_TENSOR) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.zeros_like expects a tensor");
    return cg_constant(cg, x.ty, 0, 0, x.rank, x.shape);
  }
  if (!strcmp(name, "multiple_of") || !strcmp(name, "max_contiguous") || !strcmp(name, "max_constancy")) {
    static const char *const p[] = {"input", "values", NULL};
    cg_sig s = {name, p};
    if (!cg_check_args(cg, a, &s, 2, loc)) return (tc_val){0};
    tc_val x = *cg_arg(a, &s, "input");
    tc_val *v = cg_arg(a, &s, "values");
    if (x.kind != TV_TENSOR) return x; /* a hint on a constant says nothing new */
    int64_t vals[TC_MAX_RANK];
    int n = v->kind == TV_TUPLE ? v->nitems : 1;
    if (n < 1 || n > TC_MAX_RANK || (x.rank && n != 1 && n != x.rank))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.%s: values must be an int or one int per dimension", name);
    for (int i = 0; i < n; i++) {
      const tc_val *e = v->kind == TV_TUPLE ? &v->items[i] : v;
      if (e->kind != TV_INT || e->i < 1)
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.%s: values must be positive constexpr integers", name);
      vals[i] = e->i;
    }
    int r = x.rank ? x.rank : 1;
    for (int i = n; i < r; i++) vals[i] = vals[0];
    MlirValue h = tile_build_hint(&cg->b, x.v, name, vals, r);
    x.v = h;
    return x;
  }
  if (!strcmp(name, "static_print")) {
    /* Compile-time output: kept as notes that the tool prints (the library never does). */
    char line[512] = "";
    size_t k = 0;
    for (int i = 0; i < a->nargs && k + 2 < sizeof line; i++) {
      char item[256];
      const tc_val *v = &a->args[i];
      if (v->kind == TV_STR) snprintf(item, sizeof item, "%.*s", (int)v->slen, v->s);
      else if (v->kind == TV_INT) snprintf(item, sizeof item, "%lld", (long long)v->i);
      else if (v->kind == TV_BOOL) snprintf(item, sizeof item, "%s", v->i ? "True" : "False");
      else if (v->kind == TV_FLOAT) snprintf(item, sizeof item, "%g", v->f);
      else if (v->kind == TV_NONE) snprintf(item, sizeof item, "None");
      else if (v->kind == TV_DTYPE) tc_ty_name(v->ty, item, sizeof item);
      else tv_describe(v, item, sizeof item);
      k += (size_t)snprintf(line + k, sizeof line - k, "%s%s", i ? " " : "", item);
    }
    if (cg->info) {
      size_t n = strlen(cg->info->notes);
      snprintf(cg->info->notes + n, sizeof cg->info->notes - n, "%s\n", line);
    }
    return tv_none();
  }
  if (!strcmp(name, "assume")) {
    /* A runtime scalar condition becomes llvm.intr.assume, as in Triton (LLVM may then drop
     * code the condition rules out); constant and tile conditions give LLVM nothing. */
    if (a->nargs != 1 || a->nkw) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.assume(cond) takes one argument");
    tc_val c = a->args[0];
    if (c.kind == TV_TENSOR && c.rank == 0) {
      c = cg_to_bool(cg, c, loc);
      if (cg->err) return c;
      cg_set_loc(cg, loc);
      MlirNamedAttribute bundles = tcb_named(cg->ctx, "op_bundle_sizes", mlirDenseI32ArrayGet(cg->ctx, 0, NULL));
      tcb_op(&cg->b, "llvm.intr.assume", 0, NULL, 1, &c.v, 1, &bundles);
    }
    return tv_none();
  }
  if (!strcmp(name, "debug_barrier")) return tv_none();
  if (!strcmp(name, "device_print")) {
    if (a->nargs < 1 || a->args[0].kind != TV_STR)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.device_print(prefix, *args): prefix must be a string");
    bool hex = false;
    for (int k = 0; k < a->nkw; k++) {
      if (!strcmp(a->kwnames[k], "hex")) hex = a->kwargs[k].kind == TV_BOOL && a->kwargs[k].i;
      else return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.device_print() got an unexpected keyword argument '%s'", a->kwnames[k]);
    }
    return cg_device_print(cg, a->args[0].s, a->args[0].slen, a->args + 1, a->nargs - 1, hex, loc);
  }
  if (!strcmp(name, "device_assert")) {
    static const char *const p[] = {"cond", "msg", "mask", NULL};
    cg_sig s = {"tl.device_assert", p};
    if (!cg_check_args(cg, a, &s, 1, loc)) return (tc_val){0};
    tc_val *m = cg_arg(a, &s, "msg");
    const char *msg = m && m->kind == TV_STR ? m->s : "";
    size_t mlen = m && m->kind == TV_STR ? m->slen : 0;
    return cg_device_assert(cg, *cg_arg(a, &s, "cond"), msg, mlen, cg_arg(a, &s, "mask"), loc);
  }
  if (!strcmp(name, "condition")) {
    if (a->nargs < 1) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.condition(cond) needs a condition");
    return a->args[0];
  }
  if (!strcmp(name, "static_assert")) {
    if (a->nargs < 1 || a->nargs > 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.static_assert(cond, msg='')");
    bool t;
    if (!cg_truthy_constexpr(cg, &a->args[0], loc, &t))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.static_assert needs a constexpr condition");
    if (!t) {
      if (a->nargs == 2 && a->args[1].kind == TV_STR)
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "static assertion failed: %.*s", (int)a->args[1].slen, a->args[1].s);
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "static assertion failed");
    }
    return tv_none();
  }
  if (!strcmp(name, "pointer_type")) {
    tc_ty t;
    tc_val x = arg0(cg, a, "tl.pointer_type", 1, loc);
    if (cg->err || !cg_get_dtype(cg, &x, "tl.pointer_type's argument", loc, &t)) return (tc_val){0};
    t.ptr_depth++;
    return tv_dtype(t);
  }
  if (!strcmp(name, "fma")) return fma3(cg, a, loc);
  if (!strcmp(name, "sigmoid")) {
    tc_val x = arg0(cg, a, "tl.sigmoid", 1, loc);
    if (cg->err) return x;
    tc_val neg = cg_unary(cg, TC_UOP_NEG, x, loc);
    tc_val e = cg_math_unary(cg, "math.exp", neg, loc, "tl.sigmoid");
    if (cg->err) return e;
    tc_val one = tv_float(1.0);
    return cg_binary(cg, TC_OP_TRUEDIV, one, cg_binary(cg, TC_OP_ADD, one, e, loc), loc);
  }
  if (!strcmp(name, "fdiv") || !strcmp(name, "div_rn")) {
    if (a->nargs < 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.%s() takes 2 arguments", name);
    return binary_math(cg, "arith.divf", a->args[0], a->args[1], name, loc);
  }
  if (!strcmp(name, "pow")) {
    if (a->nargs != 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "pow() takes 2 arguments");
    return binary_math(cg, "math.powf", a->args[0], a->args[1], "pow", loc);
  }
  if (!strcmp(name, "atan2")) {
    if (a->nargs != 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "atan2() takes 2 arguments");
    return binary_math(cg, "math.atan2", a->args[0], a->args[1], "atan2", loc);
  }
  if (!strcmp(name, "fmod")) {
    if (a->nargs != 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "fmod() takes 2 arguments");
    return binary_math(cg, "arith.remf", a->args[0], a->args[1], "fmod", loc);
  }
  if (!strcmp(name, "clamp")) {
    static const char *const p[] = {"x", "min", "max", "propagate_nan", NULL};
    cg_sig s = {"tl.clamp", p};
    if (!cg_check_args(cg, a, &s, 3, loc)) return (tc_val){0};
    /* propagate_nan=tl.PropagateNan.ALL: a NaN in x stays NaN (NaN bounds are undefined in
     * Triton, as here); NONE clamps a NaN x to min */
    tc_val *pn = cg_arg(a, &s, "propagate_nan");
    bool all = pn && ((pn->kind == TV_INT && pn->i) || (pn->kind == TV_STR && pn->slen == 3));
    tc_val lo = cg_minmax(cg, true, *cg_arg(a, &s, "x"), *cg_arg(a, &s, "min"), all, loc);
    return cg_minmax(cg, false, lo, *cg_arg(a, &s, "max"), all, loc);
  }
  if (!strcmp(name, "isnan") || !strcmp(name, "isinf")) {
    tc_val x = arg0(cg, a, name, 1, loc);
    if (cg->err) return x;
    if (x.kind != TV_TENSOR || !tc_ty_is_float(x.ty)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects a float tensor", name);
    if (!strcmp(name, "isnan")) {
      MlirValue r = tcb_cmpf(&cg->b, "uno", x.v, x.v);
      return tv_tensor(r, tc_ty_make(TILEC_DTYPE_I1), x.rank, x.shape);
    }
    MlirValue ab = tcb_cast(&cg->b, "math.absf", x.v, mlirValueGetType(x.v));
    MlirValue inf = cg_constant(cg, x.ty, INFINITY, 0, x.rank, x.shape).v;
    return tv_tensor(tcb_cmpf(&cg->b, "oeq", ab, inf), tc_ty_make(TILEC_DTYPE_I1), x.rank, x.shape);
  }
  if (!strcmp(name, "umulhi")) {
    if (a->nargs != 2) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.umulhi() takes 2 arguments");
    tc_val x = a->args[0], y = a->args[1];
    tc_val p = cg_binary(cg, TC_OP_MUL, x, y, loc); /* for the promoted type and shapes */
    if (cg->err) return p;
    if (!tc_ty_is_int(p.ty)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.umulhi expects integer operands");
    if (tc_ty_bits(p.ty) > 32) {
      /* 64-bit: the high half of the 128-bit product from 32-bit halves (prelude) */
      const tc_func *f = cg->prelude ? tc_module_find(cg->prelude, "_umulhi64") : NULL;
      if (!f) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "the prelude lacks _umulhi64");
      tc_ty u64 = tc_ty_make(TILEC_DTYPE_U64);
      tc_val args[2] = {cg_cast(cg, cg_broadcast_to(cg, x, p.rank, p.shape, loc), u64, false, loc),
                        cg_cast(cg, cg_broadcast_to(cg, y, p.rank, p.shape, loc), u64, false, loc)};
      if (cg->err) return p;
      tc_val hi = cg_call_jit(cg, f, args, 2, NULL, NULL, 0, loc);
      if (cg->err) return hi;
      return cg_cast(cg, hi, p.ty, false, loc);
    }
    tc_ty u64 = tc_ty_make(TILEC_DTYPE_U64), u32 = tc_ty_make(TILEC_DTYPE_U32);
    tc_val xa = cg_cast(cg, cg_cast(cg, cg_broadcast_to(cg, x, p.rank, p.shape, loc), u32, false, loc), u64, false, loc);
    tc_val ya = cg_cast(cg, cg_cast(cg, cg_broadcast_to(cg, y, p.rank, p.shape, loc), u32, false, loc), u64, false, loc);
    tc_val m = cg_binary(cg, TC_OP_MUL, xa, ya, loc);
    tc_val hi = cg_binary(cg, TC_OP_RSHIFT, m, tv_int(32), loc);
    return cg_cast(cg, hi, p.ty, false, loc);
  }
  if (!strcmp(name, "make_block_ptr")) return cg_make_block_ptr(cg, a, loc);
  if (!strcmp(name, "advance")) return cg_advance(cg, a, loc);
  if (!strcmp(name, "make_tensor_descriptor")) return cg_make_tensor_descriptor(cg, a, loc);
  tc_val tile_out;
  if (cg_tile_builtin(cg, name, a, loc, &tile_out)) return tile_out;
  if (cg_atomic_builtin(cg, name, a, loc, &tile_out)) return tile_out;
  const char *mop = math_op(name);
  if (mop) {
    tc_val x = arg0(cg, a, name, 1, loc);
    if (cg->err) return x;
    char user[64];
    snprintf(user, sizeof user, "tl.%s", name);
    return cg_math_unary(cg, mop, x, loc, user);
  }
  if (in_list(not_yet, sizeof not_yet / sizeof not_yet[0], name) || !strcmp(name, "static_range") || !strcmp(name, "range"))
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "tl.%s is not supported yet", name);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unknown function '%s'", full);
}

/* ---- attributes of tensors and dtypes ----------------------------------------------- */

tc_val cg_tensor_attr(tc_cg *cg, const tc_val *t, const char *attr, tc_loc loc) {
  if (!strcmp(attr, "dtype")) return tv_dtype(t->ty);
  if (!strcmp(attr, "shape")) {
    tc_val r = {.kind = TV_TUPLE, .nitems = t->rank};
    r.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(t->rank + 1));
    for (int i = 0; i < t->rank; i++) r.items[i] = tv_int(t->shape[i]);
    return r;
  }
  if (!strcmp(attr, "numel")) {
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= t->shape[i];
    return tv_int(n);
  }
  if (!strcmp(attr, "T")) {
    tc_callargs ca = {0};
    tc_val self = *t;
    ca.args = &self;
    ca.nargs = 1;
    tc_val r;
    cg_tile_builtin(cg, "trans", &ca, loc, &r);
    return r;
  }
  if (!strcmp(attr, "type")) return tv_dtype(t->ty);
  if (known_tl(attr) || !strcmp(attr, "to")) {
    tc_val m = builtin(cg, "tl", attr);
    m.kind = TV_METHOD;
    m.self = cg_alloc(cg, sizeof(tc_val));
    *m.self = *t;
    return m;
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tensor has no attribute '%s'", attr);
}
