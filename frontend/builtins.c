/* frontend/builtins.c — the builtin registry and the core tl.* functions: name lookup for
 * tl.NAME / libdevice.NAME / x.NAME, call dispatch (argument binding from a row's parameter
 * names, then its handler or its refusal), and the core family (program ids, arange,
 * load/store, where, cdiv, casts, constants, hints). In: names and evaluated call
 * arguments. Out: tile IR through ops.c, or a precise error (unknown, not supported). */
#include "frontend/builtins.h"

#include "frontend/module_context.h"
#include "frontend/parser.h"

#include <mlir-c/BuiltinAttributes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the registry --------------------------------------------------------------------- */

static const cg_builtin *const families[] = {cg_builtins_core,   cg_builtins_math,  cg_builtins_tile,
                                             cg_builtins_atomic, cg_builtins_block, cg_builtins_descriptor,
                                             cg_builtins_debug,  cg_builtins_api};

#define MAX_BUILTINS 512 /* rows of all families (a unit test checks they all fit) */
static const cg_builtin *by_name[MAX_BUILTINS];
static size_t nby_name;
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int row_cmp(const void *x, const void *y) {
  return strcmp((*(const cg_builtin *const *)x)->name, (*(const cg_builtin *const *)y)->name);
}

static void build_by_name(void) {
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const cg_builtin *b = families[f]; b->name && nby_name < MAX_BUILTINS; b++) by_name[nby_name++] = b;
  qsort(by_name, nby_name, sizeof by_name[0], row_cmp);
}

const cg_builtin *const *cg_builtin_all(size_t *n) {
  pthread_once(&by_name_once, build_by_name);
  *n = nby_name;
  return by_name;
}

const cg_builtin *cg_builtin_find(const char *name) {
  size_t n;
  const cg_builtin *const *all = cg_builtin_all(&n);
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(name, all[mid]->name);
    if (!c) return all[mid];
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return NULL;
}

tc_val cg_builtin_not_yet(tc_cg *cg, const cg_builtin *b, tc_loc loc) {
  return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "tl.%s is not supported yet", b->name);
}

tc_val cg_builtin_call(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  if (!b->fn)
    return b->data ? cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "%s", b->data) : cg_builtin_not_yet(cg, b, loc);
  if (b->sig.params && !cg_check_args(cg, a, &b->sig, b->min_args, loc)) return (tc_val){0};
  return b->fn(cg, b, a, loc);
}

static tc_val call_named(tc_cg *cg, const char *full, tc_callargs *a, tc_loc loc);

/* A call of a tl.* function, tensor method or Python builtin by name; the errors it raises
 * are the function's (TILEC_ORIGIN_BUILTIN: Triton chains them as the error's cause). */
tc_val cg_call_builtin(tc_cg *cg, const char *full, tc_callargs *a, tc_loc loc) {
  cg->builtin_depth++;
  tc_val r = call_named(cg, full, a, loc);
  cg->builtin_depth--;
  return r;
}

/* tl.target_info's questions, answered at compile time for the target compiled for (Triton's
 * constexpr functions): an NVIDIA chip is CUDA of its capability; the CPU is no GPU. */
static tc_val target_info_call(tc_cg *cg, const char *name, tc_callargs *a, tc_loc loc) {
  int cc = cg->info ? cg->info->cuda_capability : 0;
  if (!strcmp(name, "is_cuda") || !strncmp(name, "is_hip", 6)) {
    if (a->nargs || a->nkw)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.target_info.%s() takes no arguments", name);
    return tv_bool(!strcmp(name, "is_cuda") && cc > 0);
  }
  if (!strcmp(name, "cuda_capability_geq")) {
    int64_t v[2] = {0, 0};
    for (int i = 0; i < a->nargs + a->nkw; i++) {
      bool kw = i >= a->nargs;
      const char *k = kw ? a->kwnames[i - a->nargs] : NULL;
      int at = kw ? (!strcmp(k, "major") ? 0 : !strcmp(k, "minor") ? 1 : -1) : i;
      const tc_val *x = kw ? &a->kwargs[i - a->nargs] : &a->args[i];
      if (at < 0 || at > 1 || x->kind != TV_INT)
        return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                        "tl.target_info.cuda_capability_geq(major, minor=0) takes compile-time integers");
      v[at] = x->i;
    }
    if (!a->nargs && !(a->nkw && !strcmp(a->kwnames[0], "major")))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.target_info.cuda_capability_geq() needs the major version");
    return tv_bool(cc > 0 && cc >= v[0] * 10 + v[1]);
  }
  if (!strcmp(name, "current_target"))
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "tl.target_info.current_target() is a host object; kernels ask is_cuda() or "
                    "cuda_capability_geq(major, minor)");
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.target_info has no function '%s'", name);
}

static tc_val call_named(tc_cg *cg, const char *full, tc_callargs *a, tc_loc loc) {
  if (!strncmp(full, "target_info.", 12)) return target_info_call(cg, full + 12, a, loc);
  const char *dot = strchr(full, '.');
  const char *name = dot ? dot + 1 : full;
  if (!strncmp(full, "tdesc.", 6)) return cg_tdesc_method(cg, name, a, loc);
  if (!strncmp(full, "pymath.", 7)) return cg_context_call(cg, name, a, loc);
  if (!strncmp(full, "dtype.", 6)) return cg_dtype_method(cg, name, a, loc);
  if (!strncmp(full, "py.", 3)) {
    const cg_builtin *b = cg_py_builtin_find(name);
    if (!b)
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "the Python builtin '%s' is not supported in kernels", name);
    return cg_builtin_call(cg, b, a, loc);
  }
  if (!strcmp(full, "tl.tuple")) { /* tl.tuple(iterable): Triton's tuple of those values */
    if (a->nkw || a->nargs > 1) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.tuple() takes one tuple or list");
    if (!a->nargs) return (tc_val){.kind = TV_TUPLE};
    if (a->args[0].kind != TV_TUPLE)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.tuple() takes a tuple or list, got %s",
                      tv_kind_name(&a->args[0]));
    tc_val t = a->args[0];
    t.s = NULL; /* a plain tuple: a NamedTuple's field names are not kept */
    t.slen = 0;
    return t;
  }
  if (!strcmp(full, "tl.constexpr_type")) { /* constexpr_type(v): the .type of compile-time value v */
    if (a->nkw || a->nargs != 1 || !cg_is_compile_time(&a->args[0]))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.constexpr_type() takes one compile-time value");
    return cg_constexpr_type_of(cg, &a->args[0]);
  }
  if (!strcmp(full, "tl.dtype")) { /* tl.dtype("uint32"): the dtype of Triton's name, at compile time */
    if (a->nkw || a->nargs != 1 || a->args[0].kind != TV_STR)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.dtype(name) takes one compile-time string");
    for (int dt = TILEC_DTYPE_I1; dt < TILEC_DTYPE_COUNT; dt++) {
      char n[32];
      tc_ty_triton_name(tc_ty_make((tilec_dtype)dt), n, sizeof n);
      if (strlen(n) == a->args[0].slen && !memcmp(n, a->args[0].s, a->args[0].slen))
        return tv_dtype(tc_ty_make((tilec_dtype)dt));
    }
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "tl.dtype: unknown type name '%.*s' (Triton's names: int8, uint32, "
                    "fp16, bf16, fp32, fp8e4nv, ...)",
                    (int)a->args[0].slen, a->args[0].s);
  }
  if (cg_api_is_class(full))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s is a type; it cannot be called inside a kernel", full);
  if (!strcmp(full, "triton.jit"))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "triton.jit cannot be called inside a kernel");
  const cg_builtin *b = cg_builtin_find(name);
  if (b) return cg_builtin_call(cg, b, a, loc);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unknown function '%s'", full);
}

/* ---- names --------------------------------------------------------------------------- */

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
    /* Triton's @constexpr_function next_power_of_2, folded like Python's math functions */
    if (!strcmp(attr, "next_power_of_2")) return (tc_val){.kind = TV_BUILTIN, .name = "pymath.next_power_of_2"};
    if (!strcmp(attr, "jit")) return builtin(cg, "triton", "jit");
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "'triton.%s' cannot be used inside a kernel", attr);
  }
  if (!strcmp(mn, "tl.extra") || !strcmp(mn, "tl.extra.backend")) {
    /* tl.extra.libdevice and the backends' copies: tl.extra.{cuda,cpu,hip}.libdevice */
    if (!strcmp(attr, "libdevice")) return module("libdevice");
    if (!strcmp(mn, "tl.extra") && (!strcmp(attr, "cuda") || !strcmp(attr, "cpu") || !strcmp(attr, "hip")))
      return module("tl.extra.backend");
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "'%s.%s' is not supported (tilec has the extra.libdevice functions)",
                    !strcmp(mn, "tl.extra") ? "tl.extra" : "tl.extra.<backend>", attr);
  }
  if (!strcmp(mn, "tl.target_info")) return builtin(cg, "target_info", attr);
  if (!strcmp(mn, "libdevice")) {
    if (cg->prelude) {
      const tc_func *pf = tc_module_find(cg->prelude, attr);
      if (pf) return (tc_val){.kind = TV_JITFN, .fn = pf};
    }
    /* libdevice.exp/exp2 are libdevice's __nv_expf/__nv_exp2f on NVIDIA, tl.exp/exp2
     * Triton's ex2.approx forms */
    if (!strcmp(attr, "exp")) return builtin(cg, "tl", "libdevice.exp");
    if (!strcmp(attr, "exp2")) return builtin(cg, "tl", "libdevice.exp2");
    if (cg_builtin_find(attr)) return builtin(cg, "tl", attr);
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
  if (cg_builtin_find(attr)) return builtin(cg, "tl", attr);
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "unknown function 'tl.%s'", attr);
}

bool cg_global_name(tc_cg *cg, const char *name, tc_val *out) {
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
  if (!cg_py_builtin_find(name)) return false;
  *out = builtin(cg, "py", name);
  return true;
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

static tc_val load(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig s = b->sig;
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
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                      "Mask argument cannot be block type if pointer argument is not a block");
    tc_val cur = tv_tensor((MlirValue){NULL}, elem, rank, shape);
    if (!cg_broadcast_shapes(cg, &cur, &m, &rank, shape, loc)) return (tc_val){0};
  }
  if (!cg_is_none(other)) {
    if (cg_is_none(mask)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.load: 'other' needs a 'mask'");
    o = cg_cast(cg, *other, elem, false, loc);
    if (cg->err) return o;
    if (ptr.rank == 0 && o.rank > 0)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                      "Other argument cannot be block type if pointer argument is not a block");
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

static tc_val store(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig s = b->sig;
  tc_val ptr = *cg_arg(a, &s, "pointer");
  tc_val val = *cg_arg(a, &s, "value");
  tc_val *mask = cg_arg(a, &s, "mask");
  tc_val *bc = cg_arg(a, &s, "boundary_check");
  if (ptr.kind == TV_BLOCKPTR) {
    if (!cg_is_none(mask))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.store of a block pointer takes boundary_check, not mask");
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
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "Value argument cannot be block type if pointer argument is not a block");
  if (!cg_broadcast_check(cg, &val, rank, shape, loc)) return (tc_val){0};
  tc_val m = {0};
  if (!cg_is_none(mask)) {
    m = cg_mask(cg, mask, "tl.store", loc);
    if (cg->err) return m;
    if (rank == 0 && m.rank > 0)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                      "Mask argument cannot be block type if pointer argument is not a block");
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

/* ---- the core family ------------------------------------------------------------------ */

static tc_val program_id(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  int64_t axis;
  if (!cg_const_int(cg, cg_arg(a, &b->sig, "axis"), "axis", loc, &axis)) return (tc_val){0};
  if (axis < 0 || axis > 2)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "program_id axis must be 0, 1, or 2 but got %lld", (long long)axis);
  MlirValue v = !strcmp(b->name, "program_id") ? tile_build_program_id(&cg->b, (int)axis)
                                               : tile_build_num_programs(&cg->b, (int)axis);
  return tv_tensor(v, tc_ty_make(TILEC_DTYPE_I32), 0, NULL);
}

static tc_val arange(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  int64_t st, en;
  if (!cg_const_int(cg, cg_arg(a, &b->sig, "start"), "tl.arange start", loc, &st) ||
      !cg_const_int(cg, cg_arg(a, &b->sig, "end"), "tl.arange end", loc, &en))
    return (tc_val){0};
  int64_t n = en - st;
  if (n <= 0) /* Triton's messages, word for word (its tests compare them) */
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "arange's end argument must be greater than the start argument");
  if (n & (n - 1)) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "arange's range must be a power of 2");
  if (n > TC_MAX_NUMEL)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "a tile has at most %d elements, tl.arange asks for %lld",
                    TC_MAX_NUMEL, (long long)n);
  if (st < INT32_MIN || en > INT32_MAX)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.arange bounds must fit in int32");
  return tv_tensor(tile_build_range(&cg->b, (int32_t)st, (int32_t)en), tc_ty_make(TILEC_DTYPE_I32), 1, &n);
}

static tc_val where(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_val c = *cg_arg(a, &b->sig, "condition");
  tc_ty ct = c.kind == TV_TENSOR ? c.ty : tc_ty_make(c.kind == TV_FLOAT ? TILEC_DTYPE_F32 : TILEC_DTYPE_I32);
  if (c.kind != TV_BOOL && (c.kind == TV_TENSOR || tv_is_number(&c)) && (ct.dt != TILEC_DTYPE_I1 || ct.ptr_depth)) {
    char n[32];
    tc_ty_triton_name(ct, n, sizeof n);
    cg_warn(cg, loc,
            "tl.where with a non-boolean condition is deprecated and will error out in a future triton release. Got %s",
            n);
  }
  return cg_where(cg, c, *cg_arg(a, &b->sig, "x"), *cg_arg(a, &b->sig, "y"), loc);
}

/* x.logical_and(y) / x.logical_or(y): Triton's tensor methods, on the operands as booleans */
static tc_val logical(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  return cg_logical(cg, !strcmp(b->name, "logical_and"), *cg_arg(a, &b->sig, "input"), *cg_arg(a, &b->sig, "other"),
                    loc);
}

static tc_val cdiv(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_val x = *cg_arg(a, &b->sig, "x"), d = *cg_arg(a, &b->sig, "div");
  bool ce = tv_is_constexpr(&x) && tv_is_constexpr(&d);
  tc_val one = tv_int(1);
  tc_val t = ce ? cg_constexpr_binary(cg, TC_OP_ADD, &x, &d, loc) : cg_binary(cg, TC_OP_ADD, x, d, loc);
  t = ce ? cg_constexpr_binary(cg, TC_OP_SUB, &t, &one, loc) : cg_binary(cg, TC_OP_SUB, t, one, loc);
  return ce ? cg_constexpr_binary(cg, TC_OP_FLOORDIV, &t, &d, loc) : cg_binary(cg, TC_OP_FLOORDIV, t, d, loc);
}

/* tl.cast(x, dtype, ...) and x.to(dtype, ...) */
static tc_val cast(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig *s = &b->sig;
  tc_ty to;
  tc_val *dt = cg_arg(a, s, "dtype");
  if (dt && dt->kind == TV_DTYPE && dt->rank && !dt->ptr_block) {
    /* a block type (`x.to(y.type)`, `x.to(bp.type.element_ty)`): Triton casts to its scalar */
    to = dt->ty;
  } else if (!cg_get_dtype(cg, dt, "dtype", loc, &to)) {
    return (tc_val){0};
  }
  tc_val *bcast = cg_arg(a, s, "bitcast");
  bool bc = bcast && bcast->kind == TV_BOOL && bcast->i;
  tc_val *rnd = cg_arg(a, s, "fp_downcast_rounding");
  if (!cg_is_none(rnd)) return cg_cast_rounded(cg, *cg_arg(a, s, "input"), to, rnd, loc);
  return cg_cast(cg, *cg_arg(a, s, "input"), to, bc, loc);
}

/* tl.zeros(shape, dtype), tl.full(shape, value, dtype) */
static tc_val full(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig *s = &b->sig;
  int rank;
  int64_t shape[TC_MAX_RANK];
  tc_ty ty;
  if (!cg_get_shape(cg, cg_arg(a, s, "shape"), loc, &rank, shape) ||
      !cg_get_dtype(cg, cg_arg(a, s, "dtype"), "dtype", loc, &ty))
    return (tc_val){0};
  tc_val *value = cg_arg(a, s, "value"); /* NULL: tl.zeros, which has no such parameter */
  tc_val sc = cg_cast(cg, value ? *value : tv_int(0), ty, false, loc);
  if (cg->err) return sc;
  return cg_broadcast_to(cg, sc, rank, shape, loc);
}

static tc_val zeros_like(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_val x = cg_positional(cg, a, "tl.zeros_like", 1, loc);
  if (cg->err) return x;
  if (x.kind != TV_TENSOR) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.zeros_like expects a tensor");
  return cg_constant(cg, x.ty, 0, 0, x.rank, x.shape);
}

/* tl.multiple_of / max_contiguous / max_constancy: tile.hint for the axis analysis */
static tc_val hint(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const char *name = b->name;
  tc_val x = *cg_arg(a, &b->sig, "input");
  tc_val *v = cg_arg(a, &b->sig, "values");
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

static tc_val assume(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
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

/* while tl.condition(c): the condition itself */
static tc_val condition(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs < 1) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.condition(cond) needs a condition");
  return a->args[0];
}

static tc_val pointer_type(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  tc_ty t;
  tc_val x = cg_positional(cg, a, "tl.pointer_type", 1, loc);
  if (cg->err || !cg_get_dtype(cg, &x, "tl.pointer_type's argument", loc, &t)) return (tc_val){0};
  t.ptr_depth++;
  return tv_dtype(t);
}

static const char *const p_load[] = {"pointer",         "mask",           "other",
                                     "boundary_check",  "padding_option", "cache_modifier",
                                     "eviction_policy", "volatile",       NULL};
static const char *const p_store[] = {"pointer",        "value",           "mask", "boundary_check",
                                      "cache_modifier", "eviction_policy", NULL};
static const char *const p_axis[] = {"axis", NULL};
static const char *const p_arange[] = {"start", "end", NULL};
static const char *const p_where[] = {"condition", "x", "y", NULL};
static const char *const p_cdiv[] = {"x", "div", NULL};
static const char *const p_logical[] = {"input", "other", NULL};
static const char *const p_cast[] = {"input", "dtype", "fp_downcast_rounding", "bitcast", NULL};
static const char *const p_zeros[] = {"shape", "dtype", NULL};
static const char *const p_full[] = {"shape", "value", "dtype", NULL};
static const char *const p_hint[] = {"input", "values", NULL};

/* Refused rows without a message say "tl.NAME is not supported yet". range and static_range
 * are only a for loop's iterable (codegen.c takes them there); rand ... softmax are written in
 * frontend/prelude.py, which tl.NAME finds first: their rows leave x.NAME(...) refused. */
#define NOT_YET(NAME) {NAME, NULL, {"tl." NAME, NULL}, 0, NULL}

const cg_builtin cg_builtins_core[] = {
    {"program_id", program_id, {"program_id", p_axis}, 1, NULL},
    {"num_programs", program_id, {"num_programs", p_axis}, 1, NULL},
    {"arange", arange, {"tl.arange", p_arange}, 2, NULL},
    {"load", load, {"tl.load", p_load}, 1, NULL},
    {"store", store, {"tl.store", p_store}, 2, NULL},
    {"where", where, {"tl.where", p_where}, 3, NULL},
    {"cdiv", cdiv, {"tl.cdiv", p_cdiv}, 2, NULL},
    {"logical_and", logical, {"logical_and", p_logical}, 2, NULL},
    {"logical_or", logical, {"logical_or", p_logical}, 2, NULL},
    {"cast", cast, {"tl.cast", p_cast}, 2, NULL},
    {"to", cast, {"tl.cast", p_cast}, 2, NULL},
    {"zeros", full, {"tl.zeros", p_zeros}, 2, NULL},
    {"full", full, {"tl.full", p_full}, 3, NULL},
    {"zeros_like", zeros_like, {"tl.zeros_like", NULL}, 0, NULL},
    {"multiple_of", hint, {"multiple_of", p_hint}, 2, NULL},
    {"max_contiguous", hint, {"max_contiguous", p_hint}, 2, NULL},
    {"max_constancy", hint, {"max_constancy", p_hint}, 2, NULL},
    {"assume", assume, {"tl.assume", NULL}, 0, NULL},
    {"condition", condition, {"tl.condition", NULL}, 0, NULL},
    {"pointer_type", pointer_type, {"tl.pointer_type", NULL}, 0, NULL},
    NOT_YET("range"),
    NOT_YET("static_range"),
    NOT_YET("rand"),
    NOT_YET("randn"),
    NOT_YET("randint"),
    NOT_YET("randint4x"),
    NOT_YET("rand4x"),
    NOT_YET("randn4x"),
    NOT_YET("philox"),
    NOT_YET("softmax"),
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};

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
    return cg_builtin_call(cg, cg_builtin_find("trans"), &ca, loc);
  }
  /* Triton: a tile's type is block_type(dtype, shape), a scalar's its dtype */
  if (!strcmp(attr, "type")) return t->rank ? tv_block_type(t->ty, t->rank, t->shape) : tv_dtype(t->ty);
  /* Triton's tensor methods that the prelude writes in the kernel language */
  static const struct {
    const char *method, *fn;
  } prelude_methods[] = {{"softmax", "softmax"}, {"item", "_tensor_item"}};
  for (size_t i = 0; cg->prelude && i < sizeof prelude_methods / sizeof prelude_methods[0]; i++)
    if (!strcmp(attr, prelude_methods[i].method)) {
      const tc_func *f = tc_module_find(cg->prelude, prelude_methods[i].fn);
      if (!f) break;
      tc_val m = {.kind = TV_METHOD, .fn = f, .name = attr};
      m.self = cg_alloc(cg, sizeof(tc_val));
      *m.self = *t;
      return m;
    }
  if (cg_builtin_find(attr)) { /* every tl.* function is also a method: x.NAME(...) */
    tc_val m = builtin(cg, "tl", attr);
    m.kind = TV_METHOD;
    m.self = cg_alloc(cg, sizeof(tc_val));
    *m.self = *t;
    return m;
  }
  return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tensor has no attribute '%s'", attr);
}
