/* frontend/builtins_api.c — the rest of Triton's tl.* surface (triton/language/__init__.py's
 * __all__) beyond the core builtins: module constants and classes (TRITON_MAX_TENSOR_NUMEL,
 * PropagateNan, pi32_t, tl.tensor/dtype/tuple/tensor_descriptor for isinstance), isinstance
 * itself, tl.add/sub/mul, to_tensor, expect_zero, atomic_load/atomic_store,
 * map_elementwise, load/store_tensor_descriptor, and the located refusals (inline asm).
 * In: names and evaluated call arguments. Out: values, tile IR, or an error. */
#include "frontend/builtins.h"

#include <math.h>
#include <string.h>

static tc_val cls(const char *name) { return (tc_val){.kind = TV_BUILTIN, .name = name}; }

/* Classes a kernel may name (isinstance, annotations); calling one is an error. */
static const char *const classes[] = {"tl.tensor",
                                      "tl.dtype",
                                      "tl.tuple",
                                      "tl.tensor_descriptor",
                                      "tl.tensor_descriptor_base",
                                      "tl.block_type",
                                      "tl.pointer_type_class",
                                      "tl.const",
                                      "tl.constexpr_type",
                                      "tl.slice"};

bool cg_api_is_class(const char *name) {
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (!strcmp(classes[i], name)) return true;
  return false;
}

bool cg_api_module_attr(tc_cg *cg, const char *module, const char *attr, tc_loc loc, tc_val *out) {
  (void)cg;
  if (!strcmp(module, "tl.PropagateNan")) {
    /* Triton's enum values: NONE = 0, ALL = 0xFFFF */
    if (!strcmp(attr, "NONE")) *out = tv_int(0);
    else if (!strcmp(attr, "ALL")) *out = tv_int(0xFFFF);
    else *out = cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.PropagateNan has no member '%s'", attr);
    return true;
  }
  if (strcmp(module, "tl")) return false;
  if (!strcmp(attr, "TRITON_MAX_TENSOR_NUMEL")) {
    *out = tv_int(TC_MAX_NUMEL);
    return true;
  }
  if (!strcmp(attr, "PropagateNan")) {
    *out = (tc_val){.kind = TV_MODULE, .name = "tl.PropagateNan"};
    return true;
  }
  if (!strcmp(attr, "pi32_t")) {
    tc_ty t = tc_ty_make(TILEC_DTYPE_I32);
    t.ptr_depth = 1;
    *out = tv_dtype(t);
    return true;
  }
  if (!strcmp(attr, "void")) {
    *out = cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "tl.void is not a value type in tilec (only inline assembly returns it)");
    return true;
  }
  if (!strcmp(attr, "target_info")) {
    *out = (tc_val){.kind = TV_MODULE, .name = "tl.target_info"};
    return true;
  }
  static const struct {
    const char *attr, *cls;
  } named[] = {
      {"tensor", "tl.tensor"},
      {"dtype", "tl.dtype"},
      {"tuple", "tl.tuple"},
      {"tensor_descriptor", "tl.tensor_descriptor"},
      {"tensor_descriptor_base", "tl.tensor_descriptor_base"},
      {"block_type", "tl.block_type"},
      {"const", "tl.const"},
      {"constexpr_type", "tl.constexpr_type"},
      {"slice", "tl.slice"},
  };
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
    if (!strcmp(attr, named[i].attr)) {
      *out = cls(named[i].cls);
      return true;
    }
  return false;
}

/* ---- isinstance ------------------------------------------------------------------------- */

static bool instance_of(const tc_val *x, const tc_val *c, bool *known) {
  *known = true;
  if (c->kind == TV_CONSTEXPR_TYPE) return tv_is_constexpr(x);
  if (c->kind == TV_BUILTIN) {
    const char *n = c->name;
    if (!strcmp(n, "tl.tensor")) return x->kind == TV_TENSOR;
    if (!strcmp(n, "tl.dtype")) return x->kind == TV_DTYPE;
    if (!strcmp(n, "tl.block_type")) return x->kind == TV_DTYPE && x->rank && !x->ptr_block;
    if (!strcmp(n, "tl.pointer_type"))
      return x->kind == TV_DTYPE && (x->ptr_block || (!x->rank && tc_ty_is_ptr(x->ty)));
    if (!strcmp(n, "tl.tuple")) return x->kind == TV_TUPLE;
    if (!strcmp(n, "tl.constexpr_type")) return x->kind == TV_CONSTEXPR_OF;
    if (!strcmp(n, "tl.tensor_descriptor") || !strcmp(n, "tl.tensor_descriptor_base")) return x->kind == TV_TDESC;
    if (!strcmp(n, "py.int")) return x->kind == TV_INT || x->kind == TV_BOOL; /* bool subclasses int */
    if (!strcmp(n, "py.bool")) return x->kind == TV_BOOL;
    if (!strcmp(n, "py.float")) return x->kind == TV_FLOAT;
    if (!strcmp(n, "py.str")) return x->kind == TV_STR;
    if (!strcmp(n, "py.tuple")) return x->kind == TV_TUPLE;
    if (cg_api_is_class(n)) return false;
  }
  *known = false;
  return false;
}

tc_val cg_api_isinstance(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs != 2 || a->nkw)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "isinstance() takes 2 positional arguments");
  const tc_val *x = &a->args[0], *c = &a->args[1];
  const tc_val *cs = c->kind == TV_TUPLE ? c->items : c;
  int n = c->kind == TV_TUPLE ? c->nitems : 1;
  bool r = false;
  for (int i = 0; i < n; i++) {
    bool known;
    r |= instance_of(x, &cs[i], &known);
    if (!known) {
      char d[64];
      tv_describe(&cs[i], d, sizeof d);
      return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED, "isinstance() against %s is not supported in kernels", d);
    }
  }
  return tv_bool(r);
}

/* ---- functions --------------------------------------------------------------------------- */

/* tl.to_tensor: Triton's typing of a Python scalar (bool -> int1; int -> int32, uint32,
 * int64 or uint64, the first that holds it; float -> fp32, fp64 outside fp32's range). */
static tc_val to_tensor(tc_cg *cg, const tc_val *x, tc_loc loc) {
  if (x->kind == TV_TENSOR) return *x;
  if (x->kind == TV_FLOAT && isfinite(x->f) && fabs(x->f) > 3.4028234663852886e38)
    return cg_constant(cg, tc_ty_make(TILEC_DTYPE_F64), x->f, 0, 0, NULL);
  if (!tv_is_number(x))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.to_tensor expects a number, got %s", tv_kind_name(x));
  return cg_to_tensor(cg, x, loc);
}

static tc_val atomic_call(tc_cg *cg, const char *op, tc_val ptr, tc_val val, const tc_val *mask, const tc_val *sem,
                          tc_loc loc) {
  tc_val args[2] = {ptr, val};
  const char *kwn[2];
  tc_val kwv[2];
  int nk = 0;
  if (mask && !cg_is_none(mask)) kwn[nk] = "mask", kwv[nk++] = *mask;
  if (sem && !cg_is_none(sem)) kwn[nk] = "sem", kwv[nk++] = *sem;
  tc_callargs ca = {.args = args, .nargs = 2, .kwnames = kwn, .kwargs = kwv, .nkw = nk};
  const cg_builtin *b = cg_builtin_find(op);
  if (!b) return cg_error(cg, loc, TILEC_ERROR_INTERNAL, "no builtin %s", op);
  return cg_builtin_call(cg, b, &ca, loc);
}

/* The pointer as a pointer to the unsigned integer of the pointee's width (floats are
 * loaded atomically through their bits). */
static tc_val int_pointer(tc_cg *cg, tc_val ptr, tc_ty *elem, tc_ty *ity, tc_loc loc) {
  *elem = ptr.ty;
  elem->ptr_depth--;
  elem->is_const = false;
  *ity = *elem;
  if (!tc_ty_is_float(*elem)) return ptr;
  unsigned bits = tc_ty_bits(*elem);
  *ity = tc_ty_make(bits == 16 ? TILEC_DTYPE_U16 : bits == 32 ? TILEC_DTYPE_U32 : TILEC_DTYPE_U64);
  tc_ty ip = *ity;
  ip.ptr_depth = ptr.ty.ptr_depth;
  return cg_cast(cg, ptr, ip, true, loc);
}

static tc_val atomic_load(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig s = b->sig;
  tc_val ptr = *cg_arg(a, &s, "pointer");
  if (ptr.kind != TV_TENSOR || !tc_ty_is_ptr(ptr.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.atomic_load expects a pointer or a tile of pointers");
  tc_ty elem, ity;
  tc_val ip = int_pointer(cg, ptr, &elem, &ity, loc);
  if (cg->err) return ip;
  /* or-ing zero reads the value atomically and leaves memory as it was */
  tc_val old = atomic_call(cg, "atomic_or", ip, cg_cast(cg, tv_int(0), ity, false, loc), cg_arg(a, &s, "mask"),
                           cg_arg(a, &s, "sem"), loc);
  if (cg->err) return old;
  return tc_ty_eq(elem, ity) ? old : cg_cast(cg, old, elem, true, loc);
}

static tc_val atomic_store(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  const cg_sig s = b->sig;
  tc_val ptr = *cg_arg(a, &s, "pointer");
  if (ptr.kind != TV_TENSOR || !tc_ty_is_ptr(ptr.ty))
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.atomic_store expects a pointer or a tile of pointers");
  atomic_call(cg, "atomic_xchg", ptr, *cg_arg(a, &s, "val"), cg_arg(a, &s, "mask"), cg_arg(a, &s, "sem"), loc);
  return cg->err ? (tc_val){0} : tv_none();
}

/* tl.add / tl.sub / tl.mul (sanitize_overflow only matters under Triton's debug mode). */
static tc_val arith(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  tc_binop op = !strcmp(b->name, "add") ? TC_OP_ADD : !strcmp(b->name, "sub") ? TC_OP_SUB : TC_OP_MUL;
  tc_val x = *cg_arg(a, &b->sig, "x"), y = *cg_arg(a, &b->sig, "y");
  if (tv_is_constexpr(&x) && tv_is_constexpr(&y)) return cg_constexpr_binary(cg, op, &x, &y, loc);
  return cg_binary(cg, op, x, y, loc);
}

/* A builtin tl.NAME applied to n positional values. */
static tc_val call_tl(tc_cg *cg, const char *name, tc_val *args, int n, tc_loc loc) {
  tc_callargs c = {.args = args, .nargs = n};
  return cg_call_builtin(cg, name, &c, loc);
}

/* Element j of each group of p consecutive elements of tile t (numel m p, p = 2^k), into
 * out[base + j * step ...]: t reshaped to (m, 2, ..., 2), split along its last axis (bit
 * `bit` of j) until one axis is left. */
static void unpack_groups(tc_cg *cg, tc_val t, int64_t bit, int64_t p, int64_t base, tc_val *out, tc_loc loc) {
  if (bit == p) {
    out[base] = t;
    return;
  }
  tc_val halves = call_tl(cg, "tl.split", &t, 1, loc);
  if (cg->err) return;
  unpack_groups(cg, halves.items[0], bit * 2, p, base, out, loc);
  unpack_groups(cg, halves.items[1], bit * 2, p, base + bit, out, loc);
}

/* The inverse: parts[base + j bit-spaced] joined back into (m, 2, ..., 2). */
static tc_val pack_groups(tc_cg *cg, const tc_val *parts, int64_t bit, int64_t p, int64_t base, tc_loc loc) {
  if (bit == p) return parts[base];
  tc_val two[2] = {pack_groups(cg, parts, bit * 2, p, base, loc), pack_groups(cg, parts, bit * 2, p, base + bit, loc)};
  if (cg->err) return two[0];
  return call_tl(cg, "tl.join", two, 2, loc);
}

static tc_val shape_tuple(tc_cg *cg, const int64_t *dims, int n) {
  tc_val t = {.kind = TV_TUPLE, .nitems = n};
  t.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) t.items[i] = tv_int(dims[i]);
  return t;
}

/* map_elementwise with pack = p > 1: the function takes p consecutive elements of each
 * operand (operand i's element j is its argument i p + j) and returns p of each result
 * (result r's element j at r p + j); each operand's groups are reshaped and split into p
 * tiles of numel / p elements, the results joined back. Elements are independent, so which
 * elements share a call is not observable (Triton groups a thread's contiguous ones). */
static tc_val map_packed(tc_cg *cg, const tc_val *fn, tc_val *xs, int n, int64_t p, tc_loc loc) {
  int rank = xs[0].rank;
  int64_t numel = 1, dims[TC_MAX_RANK + 1];
  for (int i = 0; i < rank; i++) numel *= xs[0].shape[i];
  int k = 0;
  while (((int64_t)1 << k) < p) k++;
  if (((int64_t)1 << k) != p || numel % p)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "tl.map_elementwise: pack=%lld must divide the operands' %lld elements (a power of 2)",
                    (long long)p, (long long)numel);
  if (k + 1 > TC_MAX_RANK)
    return cg_error(cg, loc, TILEC_ERROR_UNSUPPORTED,
                    "tl.map_elementwise: pack=%lld needs tiles of rank %d (at most %d)", (long long)p, k + 1,
                    TC_MAX_RANK);
  dims[0] = numel / p;
  for (int i = 1; i <= k; i++) dims[i] = 2;
  tc_val *args = cg_alloc(cg, sizeof(tc_val) * (size_t)(n * p));
  for (int i = 0; i < n && !cg->err; i++) {
    tc_val r[2] = {xs[i], shape_tuple(cg, dims, k + 1)};
    tc_val grouped = call_tl(cg, "tl.reshape", r, 2, loc);
    if (!cg->err) unpack_groups(cg, grouped, 1, p, (int64_t)i * p, args, loc);
  }
  if (cg->err) return (tc_val){0};
  tc_val got = cg_call_jit(cg, fn->fn, args, (int)(n * p), NULL, NULL, 0, loc);
  if (cg->err) return got;
  if (got.kind != TV_TUPLE || got.nitems % p)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "tl.map_elementwise: with pack=%lld the function must return a tuple of a multiple of %lld values",
                    (long long)p, (long long)p);
  int nres = (int)(got.nitems / p);
  tc_val out = {.kind = TV_TUPLE, .nitems = nres};
  out.items = cg_alloc(cg, sizeof(tc_val) * (size_t)(nres + 1));
  for (int r = 0; r < nres && !cg->err; r++) {
    tc_val *parts = &got.items[r * p];
    for (int64_t j = 0; j < p && !cg->err; j++) /* a scalar result (a constant) takes the group's shape */
      if (parts[j].kind != TV_TENSOR || parts[j].rank != 1)
        parts[j] =
            cg_broadcast_to(cg, parts[j].kind == TV_TENSOR ? parts[j] : cg_to_tensor(cg, &parts[j], loc), 1, dims, loc);
    if (cg->err) break;
    tc_val joined = pack_groups(cg, parts, 1, p, 0, loc);
    if (cg->err) break;
    tc_val r2[2] = {joined, shape_tuple(cg, xs[0].shape, rank)};
    out.items[r] = call_tl(cg, "tl.reshape", r2, 2, loc);
  }
  if (cg->err) return (tc_val){0};
  return nres == 1 ? out.items[0] : out;
}

static tc_val map_elementwise(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs < 2 || a->args[0].kind != TV_JITFN)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC,
                    "tl.map_elementwise(scalar_fn, *args) needs a @triton.jit function and tensors");
  int64_t pack = 1;
  for (int k = 0; k < a->nkw; k++) {
    if (strcmp(a->kwnames[k], "pack"))
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.map_elementwise() got an unexpected keyword argument '%s'",
                      a->kwnames[k]);
    if (a->kwargs[k].kind != TV_INT || a->kwargs[k].i < 1)
      return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.map_elementwise: pack must be a constexpr integer >= 1");
    pack = a->kwargs[k].i;
  }
  /* broadcast the operands to one shape, then run the function on whole tiles: tiles are
   * elementwise already, so this is the same map; an 'if' on the elements runs both branches
   * and selects each element's (control.c select_if), as a GPU's threads would diverge. */
  int n = a->nargs - 1;
  tc_val *xs = cg_alloc(cg, sizeof(tc_val) * (size_t)n);
  int rank = 0;
  int64_t shape[TC_MAX_RANK] = {0};
  tc_val acc = {0};
  for (int i = 0; i < n; i++) {
    xs[i] = a->args[i + 1].kind == TV_TENSOR ? a->args[i + 1] : cg_to_tensor(cg, &a->args[i + 1], loc);
    if (cg->err) return xs[i];
    if (i == 0) {
      acc = xs[0];
      rank = acc.rank;
      memcpy(shape, acc.shape, sizeof shape);
    } else if (!cg_broadcast_shapes(cg, &acc, &xs[i], &rank, shape, loc)) {
      return (tc_val){0};
    } else {
      acc = tv_tensor((MlirValue){NULL}, acc.ty, rank, shape);
    }
  }
  for (int i = 0; i < n; i++) xs[i] = cg_broadcast_to(cg, xs[i], rank, shape, loc);
  if (cg->err) return (tc_val){0};
  cg->map_depth++; /* the function's conditions on its elements are tiles: control.c select_if */
  tc_val r = pack > 1 ? map_packed(cg, &a->args[0], xs, n, pack, loc)
                      : cg_call_jit(cg, a->args[0].fn, xs, n, NULL, NULL, 0, loc);
  cg->map_depth--;
  return r;
}

/* tl.load_tensor_descriptor(desc, offsets) / tl.store_tensor_descriptor(desc, offsets, value) */
static tc_val descriptor_fn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  bool store = !strcmp(b->name, "store_tensor_descriptor");
  const cg_sig s = b->sig;
  tc_val d = *cg_arg(a, &s, "desc");
  if (d.kind != TV_TDESC)
    return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "%s expects a tensor descriptor, got %s", s.fn, tv_kind_name(&d));
  tc_val args[3] = {d, *cg_arg(a, &s, "offsets"), store ? *cg_arg(a, &s, "value") : tv_none()};
  tc_callargs ca = {.args = args, .nargs = store ? 3 : 2};
  return cg_tdesc_method(cg, store ? "store" : "load", &ca, loc);
}

static tc_val to_tensor_fn(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)b;
  if (a->nargs != 1 || a->nkw) return cg_error(cg, loc, TILEC_ERROR_SEMANTIC, "tl.to_tensor() takes 1 argument");
  return to_tensor(cg, &a->args[0], loc);
}

static tc_val expect_zero(tc_cg *cg, const cg_builtin *b, tc_callargs *a, tc_loc loc) {
  (void)cg, (void)loc;
  return *cg_arg(a, &b->sig, "x");
}

static const char *const p_arith[] = {"x", "y", "sanitize_overflow", NULL};
static const char *const p_expect_zero[] = {"x", "mask", NULL};
static const char *const p_atomic_load[] = {"pointer", "mask", "sem", "scope", NULL};
static const char *const p_atomic_store[] = {"pointer", "val", "mask", "sem", "scope", NULL};
static const char *const p_load_desc[] = {"desc", "offsets", "cache_modifier", "eviction_policy", NULL};
static const char *const p_store_desc[] = {"desc", "offsets", "value", NULL};

#define REFUSED(NAME, WHY) {NAME, NULL, {"tl." NAME, NULL}, 0, WHY}

const cg_builtin cg_builtins_api[] = {
    {"add", arith, {"tl.add", p_arith}, 2, NULL},
    {"sub", arith, {"tl.sub", p_arith}, 2, NULL},
    {"mul", arith, {"tl.mul", p_arith}, 2, NULL},
    {"to_tensor", to_tensor_fn, {"tl.to_tensor", NULL}, 0, NULL},
    {"expect_zero", expect_zero, {"tl.expect_zero", p_expect_zero}, 2, NULL},
    {"atomic_load", atomic_load, {"tl.atomic_load", p_atomic_load}, 1, NULL},
    {"atomic_store", atomic_store, {"tl.atomic_store", p_atomic_store}, 2, NULL},
    {"map_elementwise", map_elementwise, {"tl.map_elementwise", NULL}, 0, NULL},
    {"load_tensor_descriptor", descriptor_fn, {"tl.load_tensor_descriptor", p_load_desc}, 2, NULL},
    {"store_tensor_descriptor", descriptor_fn, {"tl.store_tensor_descriptor", p_store_desc}, 3, NULL},
    REFUSED("atomic_poll", "tl.atomic_poll (spin-wait with a timeout) is not supported"),
    REFUSED("inline_asm_elementwise",
            "tl.inline_asm_elementwise runs GPU assembly (PTX/AMDGCN); it is not supported on CPU"),
    REFUSED("dot_scaled", "tl.dot_scaled (microscaling formats) is not supported"),
    {NULL, NULL, {NULL, NULL}, 0, NULL},
};
