/* python/src/compiler.c — the types Compiler (a tilec_compiler: options, JIT compile into
 * a loaded kernel through the memory and disk caches, IR text of a stage) and Kernel (a
 * tilec_jit_kernel: descriptor, origin, launch with all arguments positionally).
 * In: kernel specs from the Python layer (source, signature, defines, module context).
 * Out: Kernel objects, IR text, exceptions. Compiles run with the GIL released. */
#include "tilec_py.h"

#include "pythread.h"
#include <stdlib.h>
#include <string.h>

/* ==== Kernel ============================================================================ */

static void kernel_dealloc(tpy_kernel *self) {
  PyObject_GC_UnTrack(self);
  if (self->weaklist) PyObject_ClearWeakRefs((PyObject *)self);
  Py_CLEAR(self->dict);
  tilec_jit_kernel_release(self->k);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int kernel_traverse(tpy_kernel *self, visitproc visit, void *arg) {
  Py_VISIT(self->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static int kernel_clear(tpy_kernel *self) {
  Py_CLEAR(self->dict);
  return 0;
}

static int kernel_ready(tpy_kernel *self) {
  if (self->k) return 0;
  PyErr_SetString(PyExc_RuntimeError, "tilec kernel object without a compiled kernel");
  return -1;
}

static PyObject *str_or_none(const char *s) {
  if (!s) Py_RETURN_NONE;
  return PyUnicode_FromString(s);
}

static PyObject *kernel_get_name(tpy_kernel *self, void *c) {
  (void)c;
  return kernel_ready(self) ? NULL : str_or_none(self->desc->name);
}
static PyObject *kernel_get_signature(tpy_kernel *self, void *c) {
  (void)c;
  return kernel_ready(self) ? NULL : str_or_none(self->desc->signature);
}
static PyObject *kernel_get_target(tpy_kernel *self, void *c) {
  (void)c;
  return kernel_ready(self) ? NULL : str_or_none(self->desc->target);
}
static PyObject *kernel_get_num_args(tpy_kernel *self, void *c) {
  (void)c;
  return kernel_ready(self) ? NULL : PyLong_FromUnsignedLong(self->desc->num_args);
}
static PyObject *kernel_get_origin(tpy_kernel *self, void *c) {
  (void)c;
  if (kernel_ready(self)) return NULL;
  switch (tilec_jit_kernel_origin(self->k)) {
    case TILEC_JIT_COMPILED: return PyUnicode_FromString("compiled");
    case TILEC_JIT_DISK_CACHE: return PyUnicode_FromString("disk");
    default: return PyUnicode_FromString("memory");
  }
}
static PyObject *kernel_get_cache_path(tpy_kernel *self, void *c) {
  (void)c;
  return kernel_ready(self) ? NULL : str_or_none(tilec_jit_kernel_cache_path(self->k));
}
static PyObject *kernel_get_checked(tpy_kernel *self, void *c) {
  (void)c;
  return PyBool_FromLong(self->checked);
}

/* [(name, kind, dtype, pointer_depth, divisibility, value), ...] */
static PyObject *kernel_get_params(tpy_kernel *self, void *c) {
  (void)c;
  if (kernel_ready(self)) return NULL;
  PyObject *l = PyList_New(self->desc->num_params);
  if (!l) return NULL;
  static const char *kinds[] = {"?", "pointer", "scalar", "constexpr"};
  for (uint32_t i = 0; i < self->desc->num_params; i++) {
    const tilec_param_desc *p = &self->desc->params[i];
    PyObject *t =
        Py_BuildValue("(ssskkz)", p->name, kinds[p->kind <= 3 ? p->kind : 0], tilec_dtype_name((tilec_dtype)p->dtype),
                      (unsigned long)p->pointer_depth, (unsigned long)p->divisibility, p->value);
    if (!t) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, t);
  }
  return l;
}

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
  tilec_tensor_descriptor desc;
} tpy_slot;

/* One runtime argument packed for parameter p from a classified value. */
static int pack_for_param(const tilec_param_desc *p, const tpy_val *v, const char *kernel, tpy_slot *slot) {
  if (p->kind == TILEC_PARAM_POINTER) {
    if (v->kind != TPY_POINTER) {
      PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a tensor or array (the kernel takes *%s)", kernel,
                   p->name, tilec_dtype_name((tilec_dtype)p->dtype));
      return -1;
    }
    slot->p = v->ptr;
    return 0;
  }
  if (p->kind == TILEC_PARAM_TENSORDESC) {
    if (v->kind != TPY_TENSORDESC) {
      PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be a TensorDescriptor (the kernel takes %s)", kernel,
                   p->name, p->value ? p->value : "a tensor descriptor");
      return -1;
    }
    if (v->dtype != (tilec_dtype)p->dtype) {
      PyErr_Format(PyExc_TypeError, "%s(): argument '%s' is a descriptor of %s, the kernel takes %s", kernel, p->name,
                   tilec_dtype_name(v->dtype), p->value ? p->value : tilec_dtype_name((tilec_dtype)p->dtype));
      return -1;
    }
    slot->desc = v->desc;
    return 0;
  }
  if (v->kind == TPY_FLOAT) {
    if (p->dtype == TILEC_DTYPE_F32) slot->f32 = (float)v->f;
    else if (p->dtype == TILEC_DTYPE_F64) slot->f64 = v->f;
    else goto bad;
    return 0;
  }
  if (v->kind != TPY_INT && v->kind != TPY_BOOL) goto bad;
  long long i = v->is_u64 ? (long long)v->u : v->i;
  switch (p->dtype) {
    case TILEC_DTYPE_I1: slot->b = i != 0; return 0;
    case TILEC_DTYPE_I8: slot->i8 = (int8_t)i; return 0;
    case TILEC_DTYPE_I16: slot->i16 = (int16_t)i; return 0;
    case TILEC_DTYPE_I32: slot->i32 = (int32_t)i; return 0;
    case TILEC_DTYPE_I64: slot->i64 = (int64_t)i; return 0;
    case TILEC_DTYPE_U8: slot->u8 = (uint8_t)i; return 0;
    case TILEC_DTYPE_U16: slot->u16 = (uint16_t)i; return 0;
    case TILEC_DTYPE_U32: slot->u32 = (uint32_t)i; return 0;
    case TILEC_DTYPE_U64: slot->u64 = (uint64_t)i; return 0;
    case TILEC_DTYPE_F32: slot->f32 = (float)i; return 0;
    case TILEC_DTYPE_F64: slot->f64 = (double)i; return 0;
    default: break;
  }
bad:
  PyErr_Format(PyExc_TypeError, "%s(): argument '%s' cannot be passed as %s", kernel, p->name,
               tilec_dtype_name((tilec_dtype)p->dtype));
  return -1;
}

int tpy_parse_grid(PyObject *grid, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  PyObject *seq = PySequence_Fast(grid, "grid must be a tuple of 1 to 3 integers or a callable returning one");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n < 1 || n > 3) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_ValueError, "grid must have 1 to 3 dimensions, got %zd", n);
    return -1;
  }
  for (Py_ssize_t d = 0; d < n; d++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, d);
    long long v;
    if (PyLong_CheckExact(o)) {
      v = PyLong_AsLongLong(o);
    } else {
      PyObject *i = PyNumber_Index(o);
      if (!i) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_TypeError, "grid dimension %zd must be an integer, got %.100s", d, Py_TYPE(o)->tp_name);
        return -1;
      }
      v = PyLong_AsLongLong(i);
      Py_DECREF(i);
    }
    if (v == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return -1;
    }
    if (v < 0 || v > (long long)UINT32_MAX) {
      Py_DECREF(seq);
      PyErr_Format(PyExc_ValueError, "grid dimension %zd is %lld; it must be in [0, 2**32)", d, v);
      return -1;
    }
    out[d] = (uint32_t)v;
  }
  Py_DECREF(seq);
  return 0;
}

int tpy_kernel_launch(tpy_kernel *k, const uint32_t grid[3], void *const *args, size_t nargs, const int64_t *extents,
                      uint32_t num_threads) {
  if (nargs != k->desc->num_args) {
    PyErr_Format(PyExc_RuntimeError, "kernel '%s' takes %u runtime arguments, %zu were packed (tilec bug)",
                 k->desc->name, (unsigned)k->desc->num_args, nargs);
    return -1;
  }
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = num_threads;
  o.buffer_extents = k->checked ? extents : NULL;
  tilec_status *st;
  Py_BEGIN_ALLOW_THREADS st = tilec_kernel_launch(k->desc, grid[0], grid[1], grid[2], args, &o);
  Py_END_ALLOW_THREADS if (st) {
    tpy_raise_status(st, k->desc->name);
    return -1;
  }
  return 0;
}

/* Kernel.launch(grid, args, num_threads=0): args holds every parameter of the kernel in
 * order (constexpr entries are skipped), like Triton's CompiledKernel[grid](*args). */
static PyObject *kernel_launch(tpy_kernel *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"grid", "args", "num_threads", NULL};
  PyObject *grid, *argv;
  unsigned int threads = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OO!|I", kwlist, &grid, &PyTuple_Type, &argv, &threads)) return NULL;
  if (kernel_ready(self)) return NULL;
  const tilec_kernel_desc *d = self->desc;
  Py_ssize_t n = PyTuple_GET_SIZE(argv);
  if (n != (Py_ssize_t)d->num_params)
    return PyErr_Format(PyExc_TypeError, "%s takes %u arguments (constexprs included), %zd given", d->name,
                        (unsigned)d->num_params, n);
  if (d->num_params > TPY_MAX_PARAMS) return PyErr_Format(PyExc_ValueError, "too many parameters");
  uint32_t g[3];
  if (tpy_parse_grid(grid, g) < 0) return NULL;
  tpy_val vals[TPY_MAX_PARAMS];
  tpy_slot slots[TPY_MAX_PARAMS];
  void *ptrs[TPY_MAX_PARAMS];
  int64_t ext[TPY_MAX_PARAMS];
  size_t na = 0;
  Py_ssize_t done = 0;
  int rc = 0;
  for (; done < n; done++) {
    const tilec_param_desc *p = &d->params[done];
    memset(&vals[done], 0, sizeof vals[done]);
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    if (tpy_classify(PyTuple_GET_ITEM(argv, done), p->name, d->name, self->checked, &vals[done]) < 0 ||
        pack_for_param(p, &vals[done], d->name, &slots[na]) < 0) {
      rc = -1;
      done++;
      break;
    }
    ext[na] = vals[done].kind == TPY_POINTER ? vals[done].extent : -1;
    ptrs[na] = &slots[na];
    na++;
  }
  if (!rc) rc = tpy_kernel_launch(self, g, ptrs, na, ext, threads);
  for (Py_ssize_t i = 0; i < done; i++) tpy_val_release(&vals[i]);
  if (rc) return NULL;
  Py_RETURN_NONE;
}

static PyGetSetDef kernel_getset[] = {
    {"name", (getter)kernel_get_name, NULL, "kernel name", NULL},
    {"signature", (getter)kernel_get_signature, NULL, "the specialization, in Triton's signature syntax", NULL},
    {"target", (getter)kernel_get_target, NULL, "target triple, CPU and features", NULL},
    {"num_args", (getter)kernel_get_num_args, NULL, "number of runtime arguments", NULL},
    {"origin", (getter)kernel_get_origin, NULL, "'compiled', 'disk' (disk cache) or 'memory'", NULL},
    {"cache_path", (getter)kernel_get_cache_path, NULL, "disk cache entry, or None", NULL},
    {"checked", (getter)kernel_get_checked, NULL, "compiled with debug checks (launches pass the buffers' sizes)",
     NULL},
    {"params", (getter)kernel_get_params, NULL, "(name, kind, dtype, pointer_depth, divisibility, value) per parameter",
     NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef kernel_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))kernel_launch, METH_VARARGS | METH_KEYWORDS,
     "launch(grid, args, num_threads=0): runs the kernel; args holds all parameters in order."},
    {NULL, NULL, 0, NULL}};

PyTypeObject tpy_kernel_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._C.Kernel",
    .tp_basicsize = sizeof(tpy_kernel),
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A compiled tilec kernel specialization, loaded in this process.",
    .tp_traverse = (traverseproc)kernel_traverse,
    .tp_clear = (inquiry)kernel_clear,
    .tp_methods = kernel_methods,
    .tp_getset = kernel_getset,
    .tp_dictoffset = offsetof(tpy_kernel, dict),
    .tp_weaklistoffset = offsetof(tpy_kernel, weaklist),
    .tp_new = NULL,
};

/* ==== Compiler ========================================================================== */

typedef struct {
  PyObject_HEAD tilec_compiler *c;
  PyThread_type_lock lock; /* a tilec_compiler is not thread-safe */
  bool checked;
  char *cache_dir;
  char *target;
} tpy_compiler;

static void compiler_dealloc(tpy_compiler *self) {
  tilec_compiler_destroy(self->c);
  if (self->lock) PyThread_free_lock(self->lock);
  free(self->cache_dir);
  free(self->target);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Compiler(debug_info=False, check_bounds=False, check_races=False, check_nan=False,
 *          opt_level=3, fast_math=False, cache_dir=None, target="host", strip_asserts=False,
 *          checks=0, enable_fp_fusion=True, num_stages=0) */
static int compiler_init(tpy_compiler *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"debug_info",       "check_bounds", "check_races", "check_nan",     "opt_level",
                           "fast_math",        "cache_dir",    "target",      "strip_asserts", "checks",
                           "enable_fp_fusion", "num_stages",   NULL};
  int debug_info = 0, check_bounds = 0, check_races = 0, check_nan = 0, opt_level = 3, fast_math = 0;
  int strip_asserts = 0, fp_fusion = 1, num_stages = 0;
  unsigned int checks = 0;
  const char *cache_dir = NULL, *target = "host";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|ppppipzspIpi", kwlist, &debug_info, &check_bounds, &check_races,
                                   &check_nan, &opt_level, &fast_math, &cache_dir, &target, &strip_asserts, &checks,
                                   &fp_fusion, &num_stages))
    return -1;
  if (self->c) {
    PyErr_SetString(PyExc_RuntimeError, "Compiler already initialized");
    return -1;
  }
  tilec_compile_options o;
  tilec_compile_options_init(&o);
  /* Only what the caller says: the environment's TILEC_CHECK* are the Python layer's to read. */
  o.checks = checks;
  o.check_bounds = check_bounds;
  o.check_races = check_races;
  o.check_nan = check_nan;
  o.debug_info = debug_info;
  o.opt_level = opt_level;
  o.fast_math = fast_math;
  o.strip_asserts = strip_asserts;
  o.no_fp_fusion = !fp_fusion; /* Triton's enable_fp_fusion: nvptx, nvptx-emu */
  /* Triton's num_stages: nvptx, nvptx-emu; checked by the compiler (a negative count wraps
   * to one it refuses, naming the count as given) */
  o.num_stages = (uint32_t)num_stages;
  self->cache_dir = cache_dir ? strdup(cache_dir) : NULL;
  self->target = strdup(target);
  if (!self->target || (cache_dir && !self->cache_dir)) {
    PyErr_NoMemory();
    return -1;
  }
  o.cache_dir = self->cache_dir;
  o.target = self->target;
  self->lock = PyThread_allocate_lock();
  if (!self->lock) {
    PyErr_NoMemory();
    return -1;
  }
  tilec_status *st = tilec_compiler_create(&o, &self->c);
  if (st) {
    tpy_raise_status(st, NULL);
    return -1;
  }
  self->checked = tilec_compiler_checks(self->c) != 0; /* launches pass the buffers' extents */
  return 0;
}

/* The C strings of one spec, borrowed from the Python objects the call holds. */
typedef struct spec_buf {
  tilec_kernel_spec spec;
  tilec_define *defines;
  tilec_global *globals; /* all modules' globals, the kernel's first */
  tilec_source_module *modules;
} spec_buf;

static void spec_buf_free(spec_buf *b) {
  free(b->defines);
  free(b->globals);
  free(b->modules);
}

static const char *utf8_or_null(PyObject *o, const char *what) {
  if (o == Py_None) return NULL;
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str or None", what);
    return NULL;
  }
  return PyUnicode_AsUTF8(o);
}

/* globals: a sequence of (name, kind, value or None, module index) */
static int fill_globals(PyObject *seq, tilec_global *out, size_t *count) {
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *t = PySequence_Fast_GET_ITEM(seq, i);
    PyObject *name, *value;
    int kind;
    Py_ssize_t module = 0;
    if (!PyTuple_Check(t) || !PyArg_ParseTuple(t, "UiOn", &name, &kind, &value, &module)) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "globals entries are (name, kind, value, module)");
      return -1;
    }
    out[i].name = PyUnicode_AsUTF8(name);
    out[i].kind = (tilec_global_kind)kind;
    out[i].value = utf8_or_null(value, "global value");
    out[i].module = (size_t)module;
    if (!out[i].name || PyErr_Occurred()) return -1;
  }
  *count = (size_t)n;
  return 0;
}

/* Parses (kernel, filename, source, signature, defines, source_kind, first_line, globals,
 * modules) into b. Sequences are held by `keep` (PySequence_Fast results). */
static int parse_spec(PyObject *args, PyObject *kw, spec_buf *b, PyObject **keep, int nkeep, const char **stage) {
  static char *kwlist[] = {"kernel",     "filename", "source",  "signature", "defines", "source_kind",
                           "first_line", "globals",  "modules", "stage",     NULL};
  const char *kernel, *filename;
  PyObject *source = Py_None, *signature = Py_None, *defines = Py_None, *globals = Py_None, *modules = Py_None;
  int source_kind = 0, first_line = 0;
  const char *stage_s = NULL;
  memset(b, 0, sizeof *b);
  if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|OOOiiOOz", kwlist, &kernel, &filename, &source, &signature, &defines,
                                   &source_kind, &first_line, &globals, &modules, &stage_s))
    return -1;
  if (stage) *stage = stage_s;
  b->spec.kernel = kernel;
  b->spec.filename = filename;
  Py_ssize_t slen = 0;
  if (source != Py_None) {
    if (!PyUnicode_Check(source)) return PyErr_SetString(PyExc_TypeError, "source must be a str"), -1;
    b->spec.source = PyUnicode_AsUTF8AndSize(source, &slen);
    if (!b->spec.source) return -1;
    b->spec.source_len = (size_t)slen;
  }
  b->spec.signature = utf8_or_null(signature, "signature");
  if (PyErr_Occurred()) return -1;
  b->spec.source_kind = (tilec_source_kind)source_kind;
  b->spec.first_line = first_line;
  (void)nkeep;
  /* defines: [(name, value), ...] */
  if (defines != Py_None) {
    keep[0] = PySequence_Fast(defines, "defines must be a sequence of (name, value)");
    if (!keep[0]) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(keep[0]);
    b->defines = calloc((size_t)n + 1, sizeof *b->defines);
    if (!b->defines) return PyErr_NoMemory(), -1;
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *t = PySequence_Fast_GET_ITEM(keep[0], i);
      PyObject *name, *value;
      if (!PyTuple_Check(t) || !PyArg_ParseTuple(t, "UU", &name, &value)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "defines entries are (name, value) strings");
        return -1;
      }
      b->defines[i].name = PyUnicode_AsUTF8(name);
      b->defines[i].value = PyUnicode_AsUTF8(value);
      if (!b->defines[i].name || !b->defines[i].value) return -1;
    }
    b->spec.defines = b->defines;
    b->spec.num_defines = (size_t)n;
  }
  /* globals of the kernel's module, then modules: [(filename, source, source_kind,
   * first_line, globals), ...] */
  size_t total = 0;
  if (globals != Py_None) {
    keep[1] = PySequence_Fast(globals, "globals must be a sequence");
    if (!keep[1]) return -1;
    total += (size_t)PySequence_Fast_GET_SIZE(keep[1]);
  }
  Py_ssize_t nmod = 0;
  if (modules != Py_None) {
    keep[2] = PySequence_Fast(modules, "modules must be a sequence");
    if (!keep[2]) return -1;
    nmod = PySequence_Fast_GET_SIZE(keep[2]);
    if (nmod > nkeep - 3) return PyErr_SetString(PyExc_ValueError, "too many source modules"), -1;
    for (Py_ssize_t i = 0; i < nmod; i++) {
      PyObject *t = PySequence_Fast_GET_ITEM(keep[2], i);
      if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 5)
        return PyErr_SetString(PyExc_TypeError, "modules entries are (filename, source, kind, first_line, globals)"),
               -1;
      keep[3 + i] = PySequence_Fast(PyTuple_GET_ITEM(t, 4), "module globals must be a sequence");
      if (!keep[3 + i]) return -1;
      total += (size_t)PySequence_Fast_GET_SIZE(keep[3 + i]);
    }
  }
  b->globals = calloc(total + 1, sizeof *b->globals);
  b->modules = calloc((size_t)nmod + 1, sizeof *b->modules);
  if (!b->globals || !b->modules) return PyErr_NoMemory(), -1;
  size_t at = 0;
  if (keep[1]) {
    if (fill_globals(keep[1], b->globals, &b->spec.num_globals) < 0) return -1;
    b->spec.globals = b->globals;
    at = b->spec.num_globals;
  }
  for (Py_ssize_t i = 0; i < nmod; i++) {
    PyObject *t = PySequence_Fast_GET_ITEM(keep[2], i);
    tilec_source_module *m = &b->modules[i];
    m->filename = utf8_or_null(PyTuple_GET_ITEM(t, 0), "module filename");
    PyObject *src = PyTuple_GET_ITEM(t, 1);
    if (src != Py_None) {
      Py_ssize_t n = 0;
      if (!PyUnicode_Check(src)) return PyErr_SetString(PyExc_TypeError, "module source must be a str"), -1;
      m->source = PyUnicode_AsUTF8AndSize(src, &n);
      m->source_len = (size_t)n;
    }
    m->source_kind = (tilec_source_kind)PyLong_AsLong(PyTuple_GET_ITEM(t, 2));
    m->first_line = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, 3));
    if (PyErr_Occurred()) return -1;
    size_t cnt = 0;
    if (fill_globals(keep[3 + i], b->globals + at, &cnt) < 0) return -1;
    m->globals = b->globals + at;
    m->num_globals = cnt;
    at += cnt;
  }
  b->spec.modules = b->modules;
  b->spec.num_modules = (size_t)nmod;
  return 0;
}

#define TPY_MAX_MODULES 256

static PyObject *compiler_compile_or_emit(tpy_compiler *self, PyObject *args, PyObject *kw, bool emit) {
  if (!self->c) return PyErr_Format(PyExc_RuntimeError, "Compiler not initialized");
  /* cls=: the Kernel subclass to return (the Python layer's CompiledKernel). */
  PyTypeObject *cls = &tpy_kernel_type;
  if (kw && PyDict_Check(kw)) {
    PyObject *c = PyDict_GetItemString(kw, "cls");
    if (c) {
      if (!PyType_Check(c) || !PyType_IsSubtype((PyTypeObject *)c, &tpy_kernel_type))
        return PyErr_Format(PyExc_TypeError, "cls must be a subclass of tilec._C.Kernel");
      cls = (PyTypeObject *)c;
      if (PyDict_DelItemString(kw, "cls") < 0) return NULL;
    }
  }
  PyObject *keep[3 + TPY_MAX_MODULES] = {0};
  spec_buf b;
  const char *stage_name = NULL;
  PyObject *result = NULL;
  if (parse_spec(args, kw, &b, keep, 3 + TPY_MAX_MODULES, &stage_name) < 0) goto done;
  tilec_status *st = NULL, *warning = NULL;
  tilec_jit_kernel *k = NULL;
  char *text = NULL;
  tilec_stage stage = TILEC_STAGE_ASM;
  if (emit && (!stage_name || !tilec_stage_from_name(stage_name, &stage))) {
    PyErr_Format(PyExc_ValueError,
                 "unknown stage %s (tile, dot-combine, single-trip-loops, analysis, vector, llvm-dialect, llvm, asm)",
                 stage_name ? stage_name : "None");
    goto done;
  }
  Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(self->lock, WAIT_LOCK);
  if (emit) st = tilec_compiler_emit(self->c, &b.spec, stage, &text);
  else st = tilec_jit_compile(self->c, &b.spec, &k, &warning);
  PyThread_release_lock(self->lock);
  Py_END_ALLOW_THREADS if (st) {
    tpy_raise_status(st, NULL);
    goto done;
  }
  if (emit) {
    result = PyUnicode_FromString(text ? text : "");
    free(text);
    goto done;
  }
  PyObject *warn = Py_None;
  if (warning) {
    warn = PyUnicode_FromString(tilec_status_format(warning));
    tilec_status_destroy(warning);
    if (!warn) {
      tilec_jit_kernel_release(k);
      goto done;
    }
  } else {
    Py_INCREF(warn);
  }
  tpy_kernel *ko = (tpy_kernel *)cls->tp_alloc(cls, 0);
  if (!ko) {
    tilec_jit_kernel_release(k);
    Py_DECREF(warn);
    goto done;
  }
  ko->k = k;
  ko->desc = tilec_jit_kernel_desc(k);
  ko->checked = self->checked;
  result = Py_BuildValue("(NN)", (PyObject *)ko, warn);
done:
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) Py_XDECREF(keep[i]);
  spec_buf_free(&b);
  return result;
}

static PyObject *compiler_compile(tpy_compiler *self, PyObject *args, PyObject *kw) {
  return compiler_compile_or_emit(self, args, kw, false);
}

static PyObject *compiler_emit(tpy_compiler *self, PyObject *args, PyObject *kw) {
  return compiler_compile_or_emit(self, args, kw, true);
}

static PyObject *compiler_get_cache_dir(tpy_compiler *self, void *c) {
  (void)c;
  return self->c ? str_or_none(tilec_compiler_cache_dir(self->c)) : NULL;
}

static PyObject *compiler_get_notes(tpy_compiler *self, void *c) {
  (void)c;
  return self->c ? str_or_none(tilec_compiler_notes(self->c)) : NULL;
}

static PyObject *compiler_get_warnings(tpy_compiler *self, void *c) {
  (void)c;
  return self->c ? str_or_none(tilec_compiler_warnings(self->c)) : NULL;
}

static PyMethodDef compiler_methods[] = {
    {"compile", (PyCFunction)(void (*)(void))compiler_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(kernel, filename, source=None, signature=None, defines=None, source_kind=0, first_line=0, "
     "globals=None, modules=None) -> (Kernel, warning or None)"},
    {"emit", (PyCFunction)(void (*)(void))compiler_emit, METH_VARARGS | METH_KEYWORDS,
     "emit(kernel, filename, ..., stage='asm') -> the IR text of a pipeline stage"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef compiler_getset[] = {
    {"cache_dir", (getter)compiler_get_cache_dir, NULL, "the disk cache directory, or None", NULL},
    {"notes", (getter)compiler_get_notes, NULL, "tl.static_print output of the last compile", NULL},
    {"warnings", (getter)compiler_get_warnings, NULL,
     "the front end's warnings of the last compile: 'file:line:col: warning: text' lines", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject tpy_compiler_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tilec._C.Compiler",
    .tp_basicsize = sizeof(tpy_compiler),
    .tp_dealloc = (destructor)compiler_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Compiler(debug_info=False, check_bounds=False, check_races=False, check_nan=False, opt_level=3, "
              "fast_math=False, cache_dir=None, target='host', strip_asserts=False, checks=0, enable_fp_fusion=True, "
              "num_stages=0): "
              "a tilec compiler with a JIT cache; checks: the debug checks' classes (TILEC_CHECKS_* bits: 1 bounds, "
              "2 nan, 4 races, 8 init), added to the check_* flags; enable_fp_fusion=False: no fma from a * b + c on "
              "nvptx and nvptx-emu (the CPU targets never fuse); num_stages: Triton's num_stages on nvptx and "
              "nvptx-emu, the pipeline depth of a K loop's tl.dot operand loads, 1 (none) to 8, 0 = 3 (the default); "
              "a nonzero num_stages on a CPU target raises tilec.CompilationError, as does a count out of range.",
    .tp_methods = compiler_methods,
    .tp_getset = compiler_getset,
    .tp_init = (initproc)compiler_init,
    .tp_new = PyType_GenericNew,
};

int tpy_compiler_init(PyObject *module) {
  if (PyType_Ready(&tpy_kernel_type) < 0 || PyType_Ready(&tpy_compiler_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "Kernel", (PyObject *)&tpy_kernel_type) < 0) return -1;
  if (PyModule_AddObjectRef(module, "Compiler", (PyObject *)&tpy_compiler_type) < 0) return -1;
  return 0;
}
