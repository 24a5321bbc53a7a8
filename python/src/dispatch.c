/* python/src/dispatch.c — the launch hot path of a @tilec.jit function: binds the call's
 * arguments to the kernel's parameters (positional, keywords, defaults; launch options set
 * aside), classifies each one with Triton's specialization rules into a cache key, looks
 * the key up in the function's dict of compiled kernels (a miss calls back into Python to
 * compile), resolves the grid and launches with the GIL released.
 * In: a Dispatcher (parameter table from tilec/jit.py) and a call. Out: the kernel object. */
#include "tilec_py.h"

#include <stdlib.h>
#include <string.h>

/* Key items for runtime parameters: the signature entry the compiler gets ("*fp32:16",
 * "i32", "1", ...), interned once. */
static PyObject *key_ptr[TILEC_DTYPE_COUNT][2];
static PyObject *key_scalar[TILEC_DTYPE_COUNT][2];
static PyObject *key_one;

/* Key bits: OPT_DEBUG, then the TILEC_CHECKS_* classes shifted by OPT_CHECKS_SHIFT, then the
 * launch's num_warps and num_stages (0: not given) at OPT_WARPS_SHIFT and OPT_STAGES_SHIFT,
 * and OPT_NO_FP_FUSION for enable_fp_fusion=False:
 * Triton compiles a kernel per value, and its metadata says which (the CPU's code is the
 * same; the compiler's memory cache serves the second). */
enum { OPT_DEBUG = 1, OPT_CHECKS_SHIFT = 1, OPT_WARPS_SHIFT = 8, OPT_STAGES_SHIFT = 16, OPT_NO_FP_FUSION = 1 << 24 };

typedef struct {
  PyObject_HEAD PyObject *name; /* kernel name (str) */
  const char *cname;
  Py_ssize_t n;
  PyObject *names;      /* tuple of parameter names */
  PyObject *defaults;   /* tuple: default per parameter, `empty` when none */
  PyObject *empty;      /* the "no default" sentinel (inspect.Parameter.empty) */
  PyObject *options;    /* set of launch option names accepted and ignored */
  PyObject *compile_cb; /* compile_cb(key, bound_args, options) -> Kernel, or None: skip the launch */
  PyObject *cache;      /* dict: key -> Kernel */
  PyObject *watched;    /* tuple of (name, dict, value): globals the compiled kernels read (watch_globals) */
  int debug;            /* the function's debug flag */
  uint8_t *is_constexpr, *dns, *dnsoa;
  tilec_dtype *annotation; /* a scalar type annotation (x: tl.int64), else INVALID */
} tpy_dispatcher;

typedef struct {
  PyObject_HEAD tpy_dispatcher *d;
  PyObject *grid;
  vectorcallfunc vectorcall;
} tpy_launcher;

typedef union {
  bool b;
  int8_t i8;
  int16_t i16;
  int32_t i32;
  int64_t i64;
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;
  float f32;
  double f64;
  void *p;
  tilec_tensor_descriptor desc; /* args[i] points at the struct (TILEC_PARAM_TENSORDESC) */
} slot_t;

static bool env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

/* Compile options that change the kernel and can change between launches; -1 with an
 * exception set when TILEC_CHECK does not parse. TRITON_DEBUG=1 (when neither the decorator
 * nor the launch says debug=) turns on device_assert and every debug check. */
static int option_bits(const tpy_dispatcher *d, int debug_kw) {
  int bits = 0;
  uint32_t checks = 0;
  tilec_status *st = tilec_checks_from_env(&checks);
  if (st) {
    PyErr_SetString(PyExc_ValueError, tilec_status_message(st));
    tilec_status_destroy(st);
    return -1;
  }
  if (debug_kw > 0 || (debug_kw < 0 && d->debug > 0)) {
    bits |= OPT_DEBUG;
  } else if (d->debug < 0 && debug_kw < 0 && env_on("TRITON_DEBUG")) {
    bits |= OPT_DEBUG;
    checks |= TILEC_CHECKS_ALL;
  }
  return bits | (int)(checks << OPT_CHECKS_SHIFT);
}

static bool is_int_dtype(tilec_dtype t) { return t >= TILEC_DTYPE_I1 && t <= TILEC_DTYPE_U64; }

static int pack_int(tilec_dtype t, long long i, slot_t *s) {
  switch (t) {
    case TILEC_DTYPE_I1: s->b = i != 0; break;
    case TILEC_DTYPE_I8: s->i8 = (int8_t)i; break;
    case TILEC_DTYPE_I16: s->i16 = (int16_t)i; break;
    case TILEC_DTYPE_I32: s->i32 = (int32_t)i; break;
    case TILEC_DTYPE_I64: s->i64 = (int64_t)i; break;
    case TILEC_DTYPE_U8: s->u8 = (uint8_t)i; break;
    case TILEC_DTYPE_U16: s->u16 = (uint16_t)i; break;
    case TILEC_DTYPE_U32: s->u32 = (uint32_t)i; break;
    case TILEC_DTYPE_U64: s->u64 = (uint64_t)i; break;
    case TILEC_DTYPE_F32: s->f32 = (float)i; break;
    case TILEC_DTYPE_F64: s->f64 = (double)i; break;
    default: return -1;
  }
  return 0;
}

/* One runtime value: key item (borrowed) and, when passed at launch, its slot; `spec`/`align`
 * and the annotation `ann` are the parameter's (do_not_specialize[_on_alignment]). Returns 1
 * when packed, 0 when the value is a compile-time one, -1 on error. */
static int specialize_as(const tpy_dispatcher *d, const char *pname, bool spec, bool align, tilec_dtype ann,
                         PyObject *obj, tpy_val *v, slot_t *slot, PyObject **item) {
  switch (v->kind) {
    case TPY_NONE: *item = Py_None; return 0;
    case TPY_CONSTEXPR: *item = obj; return 0;
    case TPY_TENSORDESC:
      *item = v->desc_sig;
      slot->desc = v->desc;
      return 1;
    case TPY_POINTER:
      *item = key_ptr[v->dtype][spec && align && ((uintptr_t)v->ptr % 16) == 0];
      slot->p = v->ptr;
      return 1;
    case TPY_BOOL:
      if (ann != TILEC_DTYPE_INVALID && ann != TILEC_DTYPE_I1) break;
      *item = key_scalar[TILEC_DTYPE_I1][0];
      slot->b = v->i != 0;
      return 1;
    case TPY_FLOAT:
      if (ann == TILEC_DTYPE_F64) {
        *item = key_scalar[TILEC_DTYPE_F64][0];
        slot->f64 = v->f;
        return 1;
      }
      if (ann != TILEC_DTYPE_INVALID && ann != TILEC_DTYPE_F32) break;
      *item = key_scalar[TILEC_DTYPE_F32][0];
      slot->f32 = (float)v->f;
      return 1;
    case TPY_INT: {
      long long x = v->is_u64 ? (long long)v->u : v->i;
      /* Triton: % 16 of the Python value; u64 values are >= 2**63, so % 16 of the bits. */
      bool d16 = spec && align && (v->is_u64 ? (v->u % 16 == 0) : (v->i % 16 == 0));
      if (ann != TILEC_DTYPE_INVALID) {
        if (!is_int_dtype(ann) && ann != TILEC_DTYPE_F32 && ann != TILEC_DTYPE_F64) break;
        /* Annotated floats and bools are not specialized (Triton). */
        bool hint = d16 && is_int_dtype(ann) && ann != TILEC_DTYPE_I1;
        *item = key_scalar[ann][hint];
        if (ann == TILEC_DTYPE_F32) slot->f32 = (float)(v->is_u64 ? (double)v->u : (double)v->i);
        else if (ann == TILEC_DTYPE_F64) slot->f64 = v->is_u64 ? (double)v->u : (double)v->i;
        else pack_int(ann, x, slot);
        return 1;
      }
      if (spec && !v->is_u64 && v->i == 1) {
        *item = key_one;
        return 0;
      }
      tilec_dtype t = v->is_u64                                  ? TILEC_DTYPE_U64
                      : (v->i >= INT32_MIN && v->i <= INT32_MAX) ? TILEC_DTYPE_I32
                                                                 : TILEC_DTYPE_I64;
      *item = key_scalar[t][d16];
      pack_int(t, x, slot);
      return 1;
    }
  }
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' cannot be passed as %s (its annotation)", d->cname, pname,
               tilec_dtype_name(ann));
  return -1;
}

static int specialize(const tpy_dispatcher *d, Py_ssize_t i, PyObject *obj, tpy_val *v, slot_t *slot, PyObject **item) {
  const char *pname = PyUnicode_AsUTF8(PyTuple_GET_ITEM(d->names, i));
  return specialize_as(d, pname, !d->dns[i], !d->dnsoa[i], d->annotation[i], obj, v, slot, item);
}

/* Where the elements of tuple arguments go: their classified values (released after the
 * launch) and the launch's argument slots. */
typedef struct {
  tpy_val *tv;
  int ntv;
  slot_t *slots;
  void **argp;
  int64_t *ext;
  size_t *nargs;
  bool want_extent;
} tuple_pack;

/* A tuple argument that is not a constexpr (Triton 3.x flattens it): every element
 * specialized as Triton's specialize_impl does for tuple elements (value and alignment
 * always; nested tuples the same way), runtime ones appended to the launch's arguments in
 * order. *item: a new reference, the tuple of the elements' key items, of the argument's own
 * type for a NamedTuple (so the compile sees its fields). */
static int specialize_tuple(const tpy_dispatcher *d, const char *pname, PyObject *obj, tuple_pack *tp,
                            PyObject **item) {
  Py_ssize_t n = PyTuple_GET_SIZE(obj);
  PyObject *items = PyTuple_New(n);
  if (!items) return -1;
  for (Py_ssize_t j = 0; j < n; j++) {
    PyObject *e = PyTuple_GET_ITEM(obj, j), *it = NULL;
    if (PyTuple_Check(e)) {
      if (specialize_tuple(d, pname, e, tp, &it) < 0) goto fail;
      PyTuple_SET_ITEM(items, j, it);
      continue;
    }
    if (tp->ntv >= TPY_MAX_PARAMS || *tp->nargs >= TPY_MAX_PARAMS) {
      PyErr_Format(PyExc_TypeError, "%s(): more than %d arguments once tuple '%s' is flattened", d->cname,
                   TPY_MAX_PARAMS, pname);
      goto fail;
    }
    tpy_val *v = &tp->tv[tp->ntv];
    int rc = tpy_classify(e, pname, d->cname, tp->want_extent, v);
    tp->ntv++; /* released after the launch, also when classifying failed half way */
    if (rc < 0) goto fail;
    int r = specialize_as(d, pname, true, true, TILEC_DTYPE_INVALID, e, v, &tp->slots[*tp->nargs], &it);
    if (r < 0) goto fail;
    if (r) {
      tp->ext[*tp->nargs] = v->kind == TPY_POINTER ? v->extent : -1;
      tp->argp[*tp->nargs] = &tp->slots[*tp->nargs];
      (*tp->nargs)++;
    }
    Py_INCREF(it);
    PyTuple_SET_ITEM(items, j, it);
  }
  if (PyTuple_CheckExact(obj)) {
    *item = items;
    return 0;
  }
  /* a NamedTuple (it has _fields): the same type holding the key items */
  PyObject *fields = PyObject_GetAttrString(obj, "_fields");
  if (!fields) {
    PyErr_Clear();
    *item = items;
    return 0;
  }
  Py_DECREF(fields);
  *item = PyObject_Call((PyObject *)Py_TYPE(obj), items, NULL);
  Py_DECREF(items);
  return *item ? 0 : -1;
fail:
  Py_DECREF(items);
  return -1;
}

static Py_ssize_t param_index(const tpy_dispatcher *d, PyObject *name) {
  for (Py_ssize_t i = 0; i < d->n; i++)
    if (PyTuple_GET_ITEM(d->names, i) == name) return i;
  for (Py_ssize_t i = 0; i < d->n; i++) {
    int eq = PyUnicode_Compare(PyTuple_GET_ITEM(d->names, i), name);
    if (eq == 0) return i;
    if (eq == -1 && PyErr_Occurred()) PyErr_Clear();
  }
  return -1;
}

/* Triton's used_global_vals check: a global a compiled kernel read (a constexpr, a dtype)
 * rebound or changed since makes the launch a RuntimeError, as in Triton, not a stale kernel.
 * The same object is unchanged unless it compares unequal to the snapshot. */
static int check_watched(const tpy_dispatcher *d) {
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(d->watched); i++) {
    PyObject *t = PyTuple_GET_ITEM(d->watched, i);
    PyObject *name = PyTuple_GET_ITEM(t, 0), *dict = PyTuple_GET_ITEM(t, 1), *val = PyTuple_GET_ITEM(t, 2);
    PyObject *cur = PyDict_GetItemWithError(dict, name);
    if (!cur && PyErr_Occurred()) return -1;
    int same = cur ? PyObject_RichCompareBool(cur, val, Py_EQ) : 0;
    if (same < 0) return -1;
    if (!same) {
      PyErr_Format(PyExc_RuntimeError, "Global variable %U has changed since we compiled this kernel, from %S to %S",
                   name, val, cur ? cur : Py_None);
      return -1;
    }
  }
  return 0;
}

/* {name: value} of the bound parameters plus the launch options (grid callables and the
 * compile callback read it). */
static PyObject *bound_dict(const tpy_dispatcher *d, PyObject *const *vals, PyObject *const *onames,
                            PyObject *const *ovals, int nopts) {
  PyObject *dict = PyDict_New();
  if (!dict) return NULL;
  for (Py_ssize_t i = 0; i < d->n; i++)
    if (PyDict_SetItem(dict, PyTuple_GET_ITEM(d->names, i), vals[i]) < 0) goto fail;
  for (int j = 0; j < nopts; j++)
    if (PyDict_SetItem(dict, onames[j], ovals[j]) < 0) goto fail;
  return dict;
fail:
  Py_DECREF(dict);
  return NULL;
}

#define MAX_OPTS 32

static PyObject *dispatch(tpy_dispatcher *d, PyObject *const *pos, Py_ssize_t npos, PyObject *const *kwv,
                          PyObject *const *kwn, Py_ssize_t nkw, PyObject *grid, int warmup) {
  Py_ssize_t n = d->n;
  PyObject *vals[TPY_MAX_PARAMS];
  PyObject *onames[MAX_OPTS], *ovals[MAX_OPTS];
  int nopts = 0, debug_kw = -1, launch_bits = 0;
  uint32_t threads = 0;
  if (npos > n)
    return PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given", d->cname, n, npos);
  memset(vals, 0, sizeof(PyObject *) * (size_t)n);
  for (Py_ssize_t i = 0; i < npos; i++) vals[i] = pos[i];
  for (Py_ssize_t j = 0; j < nkw; j++) {
    Py_ssize_t i = param_index(d, kwn[j]);
    if (i >= 0) {
      if (vals[i]) return PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", d->cname, kwn[j]);
      vals[i] = kwv[j];
      continue;
    }
    int is_opt = PySet_Contains(d->options, kwn[j]);
    if (is_opt < 0) return NULL;
    if (!is_opt) return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", d->cname, kwn[j]);
    if (nopts < MAX_OPTS) {
      onames[nopts] = kwn[j];
      ovals[nopts++] = kwv[j];
    }
    const char *on = PyUnicode_AsUTF8(kwn[j]);
    if (on && !strcmp(on, "debug") && kwv[j] != Py_None) {
      debug_kw = PyObject_IsTrue(kwv[j]);
      if (debug_kw < 0) return NULL;
    } else if (on && (!strcmp(on, "num_warps") || !strcmp(on, "num_stages")) && PyLong_CheckExact(kwv[j])) {
      long v = PyLong_AsLong(kwv[j]);
      if (v == -1 && PyErr_Occurred()) return NULL;
      launch_bits |= (int)((unsigned long)v & 0xffu) << (on[4] == 'w' ? OPT_WARPS_SHIFT : OPT_STAGES_SHIFT);
    } else if (on && !strcmp(on, "enable_fp_fusion") && kwv[j] != Py_None) {
      int f = PyObject_IsTrue(kwv[j]);
      if (f < 0) return NULL;
      if (!f) launch_bits |= OPT_NO_FP_FUSION;
    } else if (on && !strcmp(on, "num_cpu_threads") && kwv[j] != Py_None) {
      long t = PyLong_AsLong(kwv[j]);
      if (t == -1 && PyErr_Occurred()) return NULL;
      threads = t > 0 ? (uint32_t)t : 0;
    }
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (vals[i]) continue;
    PyObject *def = PyTuple_GET_ITEM(d->defaults, i);
    if (def == d->empty)
      return PyErr_Format(PyExc_TypeError, "%s() missing a required argument: '%U'", d->cname,
                          PyTuple_GET_ITEM(d->names, i));
    vals[i] = def;
  }

  int bits = option_bits(d, debug_kw);
  if (bits < 0) return NULL;
  bool want_extent = (bits >> OPT_CHECKS_SHIFT) != 0;
  bits |= launch_bits;
  tpy_val tv[TPY_MAX_PARAMS];
  slot_t slots[TPY_MAX_PARAMS];
  void *argp[TPY_MAX_PARAMS];
  int64_t ext[TPY_MAX_PARAMS];
  size_t nargs = 0;
  Py_ssize_t classified = 0;
  tpy_val etv[TPY_MAX_PARAMS]; /* elements of tuple arguments */
  tuple_pack tp = {etv, 0, slots, argp, ext, &nargs, want_extent};
  PyObject *result = NULL, *key = PyTuple_New(n + 1);
  if (!key) return NULL;
  PyTuple_SET_ITEM(key, 0, PyLong_FromLong(bits)); /* small ints are cached */
  for (Py_ssize_t i = 0; i < n; i++, classified++) {
    PyObject *item;
    if (d->is_constexpr[i]) {
      tv[i].kind = TPY_NONE;
      tv[i].has_view = false;
      tv[i].hold = NULL;
      tv[i].desc_sig = NULL;
      item = vals[i];
    } else if (PyTuple_Check(vals[i])) {
      tv[i].kind = TPY_NONE;
      tv[i].has_view = false;
      tv[i].hold = NULL;
      tv[i].desc_sig = NULL;
      const char *pname = PyUnicode_AsUTF8(PyTuple_GET_ITEM(d->names, i));
      if (!pname || specialize_tuple(d, pname, vals[i], &tp, &item) < 0) {
        classified++;
        goto out;
      }
      PyTuple_SET_ITEM(key, i + 1, item); /* the new reference */
      continue;
    } else {
      const char *pname = PyUnicode_AsUTF8(PyTuple_GET_ITEM(d->names, i));
      if (!pname || tpy_classify(vals[i], pname, d->cname, want_extent, &tv[i]) < 0) {
        classified++;
        goto out;
      }
      if (nargs >= TPY_MAX_PARAMS) {
        PyErr_Format(PyExc_TypeError, "%s(): more than %d arguments once tuples are flattened", d->cname,
                     TPY_MAX_PARAMS);
        classified++;
        goto out;
      }
      int r = specialize(d, i, vals[i], &tv[i], &slots[nargs], &item);
      if (r < 0) {
        classified++;
        goto out;
      }
      if (r) {
        ext[nargs] = tv[i].kind == TPY_POINTER ? tv[i].extent : -1;
        argp[nargs] = &slots[nargs];
        nargs++;
      }
    }
    Py_INCREF(item);
    PyTuple_SET_ITEM(key, i + 1, item);
  }

  PyObject *kernel = PyDict_GetItemWithError(d->cache, key);
  if (kernel) {
    Py_INCREF(kernel);
  } else {
    if (PyErr_Occurred()) {
      if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): constexpr arguments must be hashable", d->cname);
      }
      goto out;
    }
    PyObject *bound = bound_dict(d, vals, onames, ovals, nopts);
    if (!bound) goto out;
    kernel = PyObject_CallFunctionObjArgs(d->compile_cb, key, bound, NULL);
    Py_DECREF(bound);
    if (!kernel) goto out;
    if (kernel == Py_None) { /* knobs.runtime.jit_cache_hook took the compile: nothing runs, as in Triton */
      result = kernel;
      goto out;
    }
    if (!PyObject_TypeCheck(kernel, &tpy_kernel_type)) {
      PyErr_Format(PyExc_TypeError, "compile callback returned %.100s, not a tilec kernel", Py_TYPE(kernel)->tp_name);
      Py_DECREF(kernel);
      goto out;
    }
    if (PyDict_SetItem(d->cache, key, kernel) < 0) {
      Py_DECREF(kernel);
      goto out;
    }
  }
  if (d->watched && check_watched(d) < 0) {
    Py_DECREF(kernel);
    goto out;
  }
  if (!warmup) {
    uint32_t g[3];
    PyObject *gr = grid;
    if (!PyTuple_Check(grid) && !PyList_Check(grid) && PyCallable_Check(grid)) {
      PyObject *bound = bound_dict(d, vals, onames, ovals, nopts);
      gr = bound ? PyObject_CallOneArg(grid, bound) : NULL;
      Py_XDECREF(bound);
      if (!gr) {
        Py_DECREF(kernel);
        goto out;
      }
    } else {
      Py_INCREF(gr);
    }
    int rc = tpy_parse_grid(gr, g);
    Py_DECREF(gr);
    if (rc == 0) rc = tpy_kernel_launch((tpy_kernel *)kernel, g, argp, nargs, ext, threads);
    if (rc < 0) {
      Py_DECREF(kernel);
      goto out;
    }
  }
  result = kernel;
out:
  for (Py_ssize_t i = 0; i < classified && i < n; i++) tpy_val_release(&tv[i]);
  for (int j = 0; j < tp.ntv; j++) tpy_val_release(&etv[j]);
  Py_DECREF(key);
  return result;
}

/* ---- Dispatcher ------------------------------------------------------------------------- */

static void dispatcher_dealloc(tpy_dispatcher *self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->name);
  Py_CLEAR(self->names);
  Py_CLEAR(self->defaults);
  Py_CLEAR(self->empty);
  Py_CLEAR(self->options);
  Py_CLEAR(self->watched);
  Py_CLEAR(self->compile_cb);
  Py_CLEAR(self->cache);
  free(self->is_constexpr);
  free(self->annotation);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int dispatcher_traverse(tpy_dispatcher *self, visitproc visit, void *arg) {
  Py_VISIT(self->defaults);
  Py_VISIT(self->compile_cb);
  Py_VISIT(self->cache);
  Py_VISIT(self->options);
  Py_VISIT(self->watched);
  return 0;
}

static int dispatcher_clear(tpy_dispatcher *self) {
  Py_CLEAR(self->defaults);
  Py_CLEAR(self->compile_cb);
  Py_CLEAR(self->cache);
  return 0;
}

static bool flag_at(PyObject *seq, Py_ssize_t i) { return PyObject_IsTrue(PyTuple_GET_ITEM(seq, i)) > 0; }

/* Dispatcher(name, names, constexpr, defaults, empty, dns, dnsoa, annotations, options,
 *            compile_cb, debug): per-parameter tuples of equal length; annotations holds a
 * signature type name ("i64", "fp32", ...) or None per parameter; debug is None/bool. */
static int dispatcher_init(tpy_dispatcher *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"name",  "names",       "constexpr", "defaults",   "empty", "dns",
                           "dnsoa", "annotations", "options",   "compile_cb", "debug", NULL};
  PyObject *name, *names, *cx, *defaults, *empty, *dns, *dnsoa, *ann, *options, *cb, *debug;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "UO!O!O!OO!O!O!OOO", kwlist, &name, &PyTuple_Type, &names, &PyTuple_Type,
                                   &cx, &PyTuple_Type, &defaults, &empty, &PyTuple_Type, &dns, &PyTuple_Type, &dnsoa,
                                   &PyTuple_Type, &ann, &options, &cb, &debug))
    return -1;
  Py_ssize_t n = PyTuple_GET_SIZE(names);
  if (n > TPY_MAX_PARAMS) {
    PyErr_Format(PyExc_ValueError, "kernels launched from Python take at most %d parameters", TPY_MAX_PARAMS);
    return -1;
  }
  if (PyTuple_GET_SIZE(cx) != n || PyTuple_GET_SIZE(defaults) != n || PyTuple_GET_SIZE(dns) != n ||
      PyTuple_GET_SIZE(dnsoa) != n || PyTuple_GET_SIZE(ann) != n) {
    PyErr_SetString(PyExc_ValueError, "Dispatcher: per-parameter tuples differ in length");
    return -1;
  }
  if (!PyCallable_Check(cb)) {
    PyErr_SetString(PyExc_TypeError, "compile_cb must be callable");
    return -1;
  }
  self->n = n;
  self->name = Py_NewRef(name);
  self->cname = PyUnicode_AsUTF8(name);
  PyObject *interned = PyTuple_New(n);
  if (!interned) return -1;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *s = PyTuple_GET_ITEM(names, i);
    if (!PyUnicode_Check(s)) {
      Py_DECREF(interned);
      PyErr_SetString(PyExc_TypeError, "parameter names must be str");
      return -1;
    }
    Py_INCREF(s);
    PyUnicode_InternInPlace(&s);
    PyTuple_SET_ITEM(interned, i, s);
  }
  self->names = interned;
  self->defaults = Py_NewRef(defaults);
  self->empty = Py_NewRef(empty);
  self->options = PySet_New(options);
  self->compile_cb = Py_NewRef(cb);
  self->cache = PyDict_New();
  self->debug = debug == Py_None ? -1 : PyObject_IsTrue(debug);
  self->is_constexpr = calloc((size_t)(3 * n + 1), 1);
  self->annotation = calloc((size_t)n + 1, sizeof *self->annotation);
  if (!self->options || !self->cache || !self->is_constexpr || !self->annotation) {
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return -1;
  }
  self->dns = self->is_constexpr + n;
  self->dnsoa = self->dns + n;
  for (Py_ssize_t i = 0; i < n; i++) {
    self->is_constexpr[i] = flag_at(cx, i);
    self->dns[i] = flag_at(dns, i);
    self->dnsoa[i] = flag_at(dnsoa, i);
    PyObject *a = PyTuple_GET_ITEM(ann, i);
    self->annotation[i] = TILEC_DTYPE_INVALID;
    if (a != Py_None) {
      const char *s = PyUnicode_Check(a) ? PyUnicode_AsUTF8(a) : NULL;
      tilec_dtype t = s ? tilec_dtype_from_name(!strcmp(s, "u1") ? "i1" : s) : TILEC_DTYPE_INVALID;
      if (t == TILEC_DTYPE_INVALID || t == TILEC_DTYPE_F16 || t == TILEC_DTYPE_BF16 || t >= TILEC_DTYPE_FP8E5) {
        PyErr_Format(PyExc_ValueError, "%s: parameter '%U' has annotation %R, which tilec cannot pass as a scalar",
                     self->cname, PyTuple_GET_ITEM(names, i), a);
        return -1;
      }
      self->annotation[i] = t;
    }
  }
  return 0;
}

/* run(args, kwargs, grid, warmup) -> Kernel */
static PyObject *dispatcher_run(tpy_dispatcher *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"args", "kwargs", "grid", "warmup", NULL};
  PyObject *a, *k = Py_None, *grid = Py_None;
  int warmup = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|OOp", kwlist, &PyTuple_Type, &a, &k, &grid, &warmup)) return NULL;
  PyObject *kwn[TPY_MAX_PARAMS + MAX_OPTS], *kwv[TPY_MAX_PARAMS + MAX_OPTS];
  Py_ssize_t nkw = 0;
  if (k != Py_None) {
    if (!PyDict_Check(k)) return PyErr_Format(PyExc_TypeError, "kwargs must be a dict");
    Py_ssize_t p = 0;
    PyObject *key, *val;
    while (PyDict_Next(k, &p, &key, &val)) {
      if (nkw >= TPY_MAX_PARAMS + MAX_OPTS) return PyErr_Format(PyExc_TypeError, "too many keyword arguments");
      if (!PyUnicode_Check(key)) return PyErr_Format(PyExc_TypeError, "keywords must be strings");
      kwn[nkw] = key;
      kwv[nkw++] = val;
    }
  }
  if (!warmup && grid == Py_None) return PyErr_Format(PyExc_TypeError, "%s: a launch needs a grid", self->cname);
  return dispatch(self, &PyTuple_GET_ITEM(a, 0), PyTuple_GET_SIZE(a), kwv, kwn, nkw, grid, warmup);
}

static PyObject *launcher_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames);

/* bind(grid) -> a callable launcher: launcher(*args, **kwargs) runs the kernel on grid. */
static PyObject *dispatcher_bind(tpy_dispatcher *self, PyObject *grid) {
  tpy_launcher *l = PyObject_GC_New(tpy_launcher, &tpy_launcher_type);
  if (!l) return NULL;
  l->d = (tpy_dispatcher *)Py_NewRef(self);
  l->grid = Py_NewRef(grid);
  l->vectorcall = launcher_vectorcall;
  PyObject_GC_Track(l);
  return (PyObject *)l;
}

static PyObject *dispatcher_get_cache(tpy_dispatcher *self, void *c) {
  (void)c;
  return Py_NewRef(self->cache);
}

static PyObject *dispatcher_watch_globals(tpy_dispatcher *self, PyObject *arg) {
  if (!PyTuple_Check(arg)) return PyErr_Format(PyExc_TypeError, "watch_globals takes a tuple of (name, dict, value)");
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(arg); i++) {
    PyObject *t = PyTuple_GET_ITEM(arg, i);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(t, 0)) ||
        !PyDict_Check(PyTuple_GET_ITEM(t, 1)))
      return PyErr_Format(PyExc_TypeError, "watch_globals takes a tuple of (name, dict, value)");
  }
  Py_XSETREF(self->watched, PyTuple_GET_SIZE(arg) ? Py_NewRef(arg) : NULL);
  Py_RETURN_NONE;
}

static PyMethodDef dispatcher_methods[] = {
    {"watch_globals", (PyCFunction)dispatcher_watch_globals, METH_O,
     "watch_globals(((name, dict, value), ...)): each launch raises RuntimeError when dict[name] != value "
     "(Triton's used_global_vals)"},
    {"run", (PyCFunction)(void (*)(void))dispatcher_run, METH_VARARGS | METH_KEYWORDS,
     "run(args, kwargs=None, grid=None, warmup=False) -> the kernel that ran (or would run)"},
    {"bind", (PyCFunction)dispatcher_bind, METH_O, "bind(grid) -> launcher(*args, **kwargs)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef dispatcher_getset[] = {
    {"cache", (getter)dispatcher_get_cache, NULL, "dict: specialization key -> compiled kernel", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tpy_dispatcher_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._C.Dispatcher",
    .tp_basicsize = sizeof(tpy_dispatcher),
    .tp_dealloc = (destructor)dispatcher_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The launch path of one @jit function: binding, specialization key, kernel cache, launch.",
    .tp_traverse = (traverseproc)dispatcher_traverse,
    .tp_clear = (inquiry)dispatcher_clear,
    .tp_methods = dispatcher_methods,
    .tp_getset = dispatcher_getset,
    .tp_init = (initproc)dispatcher_init,
    .tp_new = PyType_GenericNew,
};

/* ---- Launcher: kernel[grid] -------------------------------------------------------------- */

static PyObject *launcher_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  tpy_launcher *l = (tpy_launcher *)callable;
  Py_ssize_t npos = PyVectorcall_NARGS(nargsf);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  return dispatch(l->d, args, npos, args + npos, kwnames ? &PyTuple_GET_ITEM(kwnames, 0) : NULL, nkw, l->grid, 0);
}

static void launcher_dealloc(tpy_launcher *self) {
  PyObject_GC_UnTrack(self);
  Py_CLEAR(self->d);
  Py_CLEAR(self->grid);
  PyObject_GC_Del(self);
}

static int launcher_traverse(tpy_launcher *self, visitproc visit, void *arg) {
  Py_VISIT(self->d);
  Py_VISIT(self->grid);
  return 0;
}

PyTypeObject tpy_launcher_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._C.Launcher",
    .tp_basicsize = sizeof(tpy_launcher),
    .tp_dealloc = (destructor)launcher_dealloc,
    .tp_vectorcall_offset = offsetof(tpy_launcher, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "kernel[grid]: call it with the kernel's arguments to launch.",
    .tp_traverse = (traverseproc)launcher_traverse,
};

int tpy_dispatch_init(PyObject *module) {
  for (int t = 1; t < TILEC_DTYPE_COUNT; t++) {
    const char *nm = tilec_dtype_name((tilec_dtype)t);
    key_ptr[t][0] = PyUnicode_FromFormat("*%s", nm);
    key_ptr[t][1] = PyUnicode_FromFormat("*%s:16", nm);
    key_scalar[t][0] = PyUnicode_FromString(nm);
    key_scalar[t][1] = PyUnicode_FromFormat("%s:16", nm);
    if (!key_ptr[t][0] || !key_ptr[t][1] || !key_scalar[t][0] || !key_scalar[t][1]) return -1;
    PyUnicode_InternInPlace(&key_ptr[t][0]);
    PyUnicode_InternInPlace(&key_ptr[t][1]);
    PyUnicode_InternInPlace(&key_scalar[t][0]);
    PyUnicode_InternInPlace(&key_scalar[t][1]);
  }
  key_one = PyUnicode_InternFromString("1");
  if (!key_one) return -1;
  if (PyType_Ready(&tpy_dispatcher_type) < 0 || PyType_Ready(&tpy_launcher_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "Dispatcher", (PyObject *)&tpy_dispatcher_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "Launcher", (PyObject *)&tpy_launcher_type) < 0) return -1;
  return 0;
}
