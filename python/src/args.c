/* python/src/args.c — turns one Python launch argument into a kernel argument value:
 * None, bool, int, float, numpy scalars, and arrays — torch-style tensors (data_ptr() and
 * dtype, as Triton reads them), buffer-protocol objects (numpy), __array_interface__ and
 * __dlpack__ objects. In: the object. Out: a tpy_val (pointer + element dtype + extent,
 * or a scalar), or a TypeError/ValueError naming the parameter. */
#include "tilec_py.h"

#include <string.h>

PyObject *tpy_str_data_ptr, *tpy_str_dtype, *tpy_str_is_cpu, *tpy_str_device, *tpy_str_array_interface, *tpy_str_dlpack,
    *tpy_str_tensordesc;
PyObject *tpy_constexpr_types;
static PyObject *dtype_cache; /* dtype object -> int (tilec_dtype) */

/* getattr that reports a missing attribute as 0 without raising (no exception object is
 * made on the hot path for arrays that lack data_ptr). */
static int lookup_attr(PyObject *obj, PyObject *name, PyObject **out) {
#if PY_VERSION_HEX >= 0x030D0000
  return PyObject_GetOptionalAttr(obj, name, out);
#else
  return _PyObject_LookupAttr(obj, name, out);
#endif
}

/* ---- dtype names -------------------------------------------------------------------- */

static const struct {
  const char *name;
  tilec_dtype dt;
} dtype_names[] = {
    /* torch / numpy spellings */
    {"bool", TILEC_DTYPE_I1},
    {"int8", TILEC_DTYPE_I8},
    {"int16", TILEC_DTYPE_I16},
    {"int32", TILEC_DTYPE_I32},
    {"int64", TILEC_DTYPE_I64},
    {"uint8", TILEC_DTYPE_U8},
    {"uint16", TILEC_DTYPE_U16},
    {"uint32", TILEC_DTYPE_U32},
    {"uint64", TILEC_DTYPE_U64},
    {"float16", TILEC_DTYPE_F16},
    {"half", TILEC_DTYPE_F16},
    {"bfloat16", TILEC_DTYPE_BF16},
    {"float32", TILEC_DTYPE_F32},
    {"float", TILEC_DTYPE_F32},
    {"float64", TILEC_DTYPE_F64},
    {"double", TILEC_DTYPE_F64},
    {"short", TILEC_DTYPE_I16},
    {"int", TILEC_DTYPE_I32},
    {"long", TILEC_DTYPE_I64},
    {"float8_e5m2", TILEC_DTYPE_FP8E5},
    {"float8_e4m3fn", TILEC_DTYPE_FP8E4NV},
    /* Triton spellings (tl.dtype.name) */
    {"int1", TILEC_DTYPE_I1},
    {"u1", TILEC_DTYPE_I1},
    {"fp16", TILEC_DTYPE_F16},
    {"bf16", TILEC_DTYPE_BF16},
    {"fp32", TILEC_DTYPE_F32},
    {"fp64", TILEC_DTYPE_F64},
    {"fp8e5", TILEC_DTYPE_FP8E5},
    {"fp8e4nv", TILEC_DTYPE_FP8E4NV},
};

static tilec_dtype dtype_from_text(const char *s) {
  if (!strncmp(s, "torch.", 6)) s += 6;
  else if (!strncmp(s, "triton.language.", 16)) s += 16;
  else if (!strncmp(s, "tl.", 3)) s += 3;
  for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
    if (!strcmp(s, dtype_names[i].name)) return dtype_names[i].dt;
  tilec_dtype t = tilec_dtype_from_name(s); /* i8 ... u64, fp8e5, ... */
  return t;
}

tilec_dtype tpy_dtype_of(PyObject *obj, PyObject **name_out) {
  if (name_out) *name_out = NULL;
  PyObject *hit = PyDict_GetItemWithError(dtype_cache, obj);
  if (hit) return (tilec_dtype)PyLong_AsLong(hit);
  if (PyErr_Occurred()) PyErr_Clear(); /* unhashable: no caching */
  /* tilec.language / triton.language dtypes carry Triton's name in .name; numpy dtypes'
   * .name is numpy's; torch dtypes print as "torch.float32". */
  PyObject *name = PyObject_GetAttrString(obj, "name");
  if (!name || !PyUnicode_Check(name)) {
    PyErr_Clear();
    Py_XDECREF(name);
    name = PyObject_Str(obj);
    if (!name) {
      PyErr_Clear();
      return TILEC_DTYPE_INVALID;
    }
  }
  const char *s = PyUnicode_AsUTF8(name);
  tilec_dtype t = s ? dtype_from_text(s) : TILEC_DTYPE_INVALID;
  if (!s) PyErr_Clear();
  if (t != TILEC_DTYPE_INVALID) {
    PyObject *v = PyLong_FromLong((long)t);
    if (v && PyDict_SetItem(dtype_cache, obj, v) < 0) PyErr_Clear();
    Py_XDECREF(v);
    Py_DECREF(name);
  } else if (name_out) {
    *name_out = name;
  } else {
    Py_DECREF(name);
  }
  return t;
}

static int bad_dtype(const char *param, const char *kernel, PyObject *name) {
  PyErr_Format(PyExc_TypeError,
               "%s(): argument '%s' has dtype %S, which tilec kernels cannot take (bool, int8-64, "
               "uint8-64, float16, bfloat16, float32, float64, float8_e5m2, float8_e4m3fn)",
               kernel, param, name ? name : Py_None);
  Py_XDECREF(name);
  return -1;
}

/* Elements from the first element to one past the last one a view with these strides
 * (in elements) reaches; -1 when a stride is negative (the buffer extends below ptr). */
static int64_t span_elems(int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides_bytes, Py_ssize_t itemsize) {
  int64_t hi = 0;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] == 0) return 0;
    Py_ssize_t st = strides_bytes ? strides_bytes[d] : 0;
    if (st < 0) return -1;
    hi += (int64_t)(shape[d] - 1) * (st / (itemsize ? itemsize : 1));
  }
  if (!strides_bytes) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    return n;
  }
  return hi + 1;
}

/* ---- torch-style tensors: data_ptr() + dtype (+ device) ----------------------------- */

static int check_device(PyObject *obj, const char *param, const char *kernel) {
  PyObject *is_cpu = PyObject_GetAttr(obj, tpy_str_is_cpu);
  if (is_cpu) {
    int cpu = PyObject_IsTrue(is_cpu);
    Py_DECREF(is_cpu);
    if (cpu > 0) return 0;
    if (cpu < 0) return -1;
  } else {
    PyErr_Clear();
    PyObject *dev = PyObject_GetAttr(obj, tpy_str_device);
    if (!dev) { /* no device: host memory (Triton's TensorWrapper-like objects) */
      PyErr_Clear();
      return 0;
    }
    PyObject *s = PyObject_Str(dev);
    Py_DECREF(dev);
    if (!s) return -1;
    const char *t = PyUnicode_AsUTF8(s);
    int ok = t && !strncmp(t, "cpu", 3);
    Py_DECREF(s);
    if (ok) return 0;
  }
  PyObject *dev = PyObject_GetAttr(obj, tpy_str_device);
  if (!dev) PyErr_Clear();
  PyErr_Format(PyExc_ValueError,
               "%s(): argument '%s' is a tensor on device '%S'; tilec runs kernels on the CPU (move it with .cpu())",
               kernel, param, dev ? dev : Py_None);
  Py_XDECREF(dev);
  return -1;
}

/* Elements from data_ptr to the end of the tensor's storage (torch), else its numel. */
static int64_t tensor_extent(PyObject *obj, size_t itemsize) {
  int64_t ext = -1;
  PyObject *st = PyObject_CallMethod(obj, "untyped_storage", NULL);
  if (st) {
    PyObject *nb = PyObject_CallMethod(st, "nbytes", NULL);
    PyObject *off = PyObject_CallMethod(obj, "storage_offset", NULL);
    if (nb && off) ext = (PyLong_AsLongLong(nb) - PyLong_AsLongLong(off) * (long long)itemsize) / (long long)itemsize;
    Py_XDECREF(nb);
    Py_XDECREF(off);
    Py_DECREF(st);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  if (ext < 0) {
    PyObject *n = PyObject_CallMethod(obj, "numel", NULL);
    if (n) ext = PyLong_AsLongLong(n);
    Py_XDECREF(n);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      ext = -1;
    }
  }
  return ext;
}

static int classify_tensor(PyObject *obj, PyObject *data_ptr, const char *param, const char *kernel, bool want_extent,
                           tpy_val *out) {
  if (check_device(obj, param, kernel) < 0) return -1;
  PyObject *p = PyObject_CallNoArgs(data_ptr);
  if (!p) return -1;
  unsigned long long addr = PyLong_AsUnsignedLongLong(p);
  Py_DECREF(p);
  if (PyErr_Occurred()) return -1;
  PyObject *dt = PyObject_GetAttr(obj, tpy_str_dtype);
  if (!dt) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' has data_ptr() but no dtype", kernel, param);
    return -1;
  }
  PyObject *name = NULL;
  tilec_dtype t = tpy_dtype_of(dt, &name);
  Py_DECREF(dt);
  if (t == TILEC_DTYPE_INVALID) return bad_dtype(param, kernel, name);
  out->kind = TPY_POINTER;
  out->ptr = (void *)(uintptr_t)addr;
  out->dtype = t;
  out->extent = want_extent ? tensor_extent(obj, tilec_dtype_size(t)) : -1;
  return 0;
}

/* ---- buffer protocol (numpy arrays, memoryviews, numpy scalars) ---------------------- */

static tilec_dtype dtype_from_format(const char *f, Py_ssize_t itemsize) {
  if (!f) return TILEC_DTYPE_U8;
  if (*f == '@' || *f == '=' || *f == '<' || *f == '|') f++;
  else if (*f == '>' || *f == '!') return itemsize == 1 ? dtype_from_format(f + 1, 1) : TILEC_DTYPE_INVALID;
  if (!f[0] || f[1]) return TILEC_DTYPE_INVALID;
  bool is_signed;
  switch (f[0]) {
    case '?': return TILEC_DTYPE_I1;
    case 'e': return TILEC_DTYPE_F16;
    case 'f': return TILEC_DTYPE_F32;
    case 'd': return TILEC_DTYPE_F64;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n': is_signed = true; break;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N': is_signed = false; break;
    default: return TILEC_DTYPE_INVALID;
  }
  switch (itemsize) {
    case 1: return is_signed ? TILEC_DTYPE_I8 : TILEC_DTYPE_U8;
    case 2: return is_signed ? TILEC_DTYPE_I16 : TILEC_DTYPE_U16;
    case 4: return is_signed ? TILEC_DTYPE_I32 : TILEC_DTYPE_U32;
    case 8: return is_signed ? TILEC_DTYPE_I64 : TILEC_DTYPE_U64;
    default: return TILEC_DTYPE_INVALID;
  }
}

/* 1: classified; 0: not a usable buffer (nothing set); -1: error. */
static int classify_buffer(PyObject *obj, const char *param, const char *kernel, tpy_val *out) {
  if (PyObject_GetBuffer(obj, &out->view, PyBUF_RECORDS_RO) < 0) {
    PyErr_Clear();
    return 0;
  }
  out->has_view = true;
  Py_buffer *v = &out->view;
  tilec_dtype t = dtype_from_format(v->format, v->itemsize);
  if (v->ndim == 0) {
    /* A numpy scalar: a Python number as far as the kernel is concerned. */
    PyBuffer_Release(v);
    out->has_view = false;
    if (t == TILEC_DTYPE_I1) {
      int b = PyObject_IsTrue(obj);
      if (b < 0) return -1;
      out->kind = TPY_BOOL;
      out->i = b;
      return 1;
    }
    if (t == TILEC_DTYPE_F16 || t == TILEC_DTYPE_F32 || t == TILEC_DTYPE_F64) {
      out->kind = TPY_FLOAT;
      out->f = PyFloat_AsDouble(obj);
      return PyErr_Occurred() ? -1 : 1;
    }
    if (t == TILEC_DTYPE_INVALID) return 0;
    PyObject *n = PyNumber_Index(obj);
    if (!n) return -1;
    int ovf = 0;
    out->kind = TPY_INT;
    out->i = PyLong_AsLongLongAndOverflow(n, &ovf);
    if (ovf > 0) {
      out->is_u64 = true;
      out->u = PyLong_AsUnsignedLongLong(n);
    }
    Py_DECREF(n);
    return PyErr_Occurred() ? -1 : 1;
  }
  if (t == TILEC_DTYPE_INVALID) {
    PyBuffer_Release(v);
    out->has_view = false;
    return 0; /* maybe __array_interface__ knows the dtype (bfloat16 arrays) */
  }
  (void)param;
  (void)kernel;
  out->kind = TPY_POINTER;
  out->ptr = v->buf;
  out->dtype = t;
  out->extent = span_elems(v->ndim, v->shape, v->strides, v->itemsize);
  return 1;
}

/* ---- __array_interface__ --------------------------------------------------------------- */

static int classify_array_interface(PyObject *obj, PyObject *ai, const char *param, const char *kernel, tpy_val *out) {
  if (!PyDict_Check(ai)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s': __array_interface__ is not a dict", kernel, param);
    return -1;
  }
  PyObject *data = PyDict_GetItemString(ai, "data");
  PyObject *typestr = PyDict_GetItemString(ai, "typestr");
  PyObject *shape = PyDict_GetItemString(ai, "shape");
  PyObject *strides = PyDict_GetItemString(ai, "strides");
  if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1 || !typestr || !PyUnicode_Check(typestr) || !shape ||
      !PyTuple_Check(shape)) {
    PyErr_Format(PyExc_TypeError,
                 "%s(): argument '%s': __array_interface__ without data/typestr/shape (or with a "
                 "buffer object as data)",
                 kernel, param);
    return -1;
  }
  unsigned long long addr = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
  if (PyErr_Occurred()) return -1;
  const char *ts = PyUnicode_AsUTF8(typestr);
  if (!ts) return -1;
  tilec_dtype t = TILEC_DTYPE_INVALID;
  long size = strlen(ts) >= 3 ? strtol(ts + 2, NULL, 10) : 0;
  if (ts[0] == '>' && size > 1) {
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' is big-endian (%s); tilec kernels take native byte order",
                 kernel, param, ts);
    return -1;
  }
  switch (strlen(ts) >= 2 ? ts[1] : 0) {
    case 'b': t = size == 1 ? TILEC_DTYPE_I1 : TILEC_DTYPE_INVALID; break;
    case 'i':
      t = dtype_from_format("q", size) == TILEC_DTYPE_INVALID ? TILEC_DTYPE_INVALID : dtype_from_format("q", size);
      break;
    case 'u': t = dtype_from_format("Q", size); break;
    case 'f':
      t = size == 2 ? TILEC_DTYPE_F16 : size == 4 ? TILEC_DTYPE_F32 : size == 8 ? TILEC_DTYPE_F64 : TILEC_DTYPE_INVALID;
      break;
    default: break;
  }
  if (t == TILEC_DTYPE_INVALID) {
    /* Extension dtypes (ml_dtypes' bfloat16, float8_*) type as raw bytes ("V2"): ask the
     * object's dtype for its name. */
    PyObject *dt = PyObject_GetAttr(obj, tpy_str_dtype);
    PyObject *name = NULL;
    if (dt) {
      t = tpy_dtype_of(dt, &name);
      Py_DECREF(dt);
    } else {
      PyErr_Clear();
      name = Py_NewRef(typestr);
    }
    if (t == TILEC_DTYPE_INVALID) return bad_dtype(param, kernel, name);
  }
  Py_ssize_t nd = PyTuple_GET_SIZE(shape);
  Py_ssize_t shp[32], str[32];
  bool have_strides = strides && strides != Py_None && PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == nd;
  int64_t ext = -1;
  if (nd <= 32) {
    for (Py_ssize_t d = 0; d < nd; d++) {
      shp[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d));
      str[d] = have_strides ? PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, d)) : 0;
    }
    if (PyErr_Occurred()) return -1;
    ext = span_elems((int)nd, shp, have_strides ? str : NULL, (Py_ssize_t)tilec_dtype_size(t));
  }
  out->kind = TPY_POINTER;
  out->ptr = (void *)(uintptr_t)addr;
  out->dtype = t;
  out->extent = ext;
  return 0;
}

/* ---- __dlpack__ (the DLPack C ABI, declared here: it is stable by design) ------------- */

typedef struct {
  int32_t device_type;
  int32_t device_id;
} tpy_dl_device;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} tpy_dl_dtype;
typedef struct {
  void *data;
  tpy_dl_device device;
  int32_t ndim;
  tpy_dl_dtype dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} tpy_dl_tensor;
typedef struct {
  uint32_t major, minor;
} tpy_dl_version;
typedef struct {
  tpy_dl_version version;
  void *manager_ctx;
  void (*deleter)(void *);
  uint64_t flags;
  tpy_dl_tensor dl_tensor;
} tpy_dl_managed_versioned;

enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_BOOL = 6, DL_F8_E4M3FN = 10, DL_F8_E5M2 = 12 };
enum { DL_CPU = 1, DL_CUDA_HOST = 3 };

static tilec_dtype dl_dtype(tpy_dl_dtype t) {
  if (t.lanes != 1) return TILEC_DTYPE_INVALID;
  switch (t.code) {
    case DL_BOOL: return t.bits == 8 ? TILEC_DTYPE_I1 : TILEC_DTYPE_INVALID;
    case DL_INT: return dtype_from_format("q", t.bits / 8);
    case DL_UINT: return t.bits == 1 ? TILEC_DTYPE_I1 : dtype_from_format("Q", t.bits / 8);
    case DL_FLOAT:
      return t.bits == 16   ? TILEC_DTYPE_F16
             : t.bits == 32 ? TILEC_DTYPE_F32
             : t.bits == 64 ? TILEC_DTYPE_F64
                            : TILEC_DTYPE_INVALID;
    case DL_BFLOAT: return t.bits == 16 ? TILEC_DTYPE_BF16 : TILEC_DTYPE_INVALID;
    case DL_F8_E4M3FN: return TILEC_DTYPE_FP8E4NV;
    case DL_F8_E5M2: return TILEC_DTYPE_FP8E5;
    default: return TILEC_DTYPE_INVALID;
  }
}

static int classify_dlpack(PyObject *method, const char *param, const char *kernel, tpy_val *out) {
  PyObject *cap = PyObject_CallNoArgs(method);
  if (!cap) return -1;
  const tpy_dl_tensor *t = NULL;
  if (PyCapsule_IsValid(cap, "dltensor")) {
    t = (const tpy_dl_tensor *)PyCapsule_GetPointer(cap, "dltensor"); /* DLManagedTensor starts with it */
  } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    const tpy_dl_managed_versioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
    t = m ? &m->dl_tensor : NULL;
  }
  if (!t) {
    Py_DECREF(cap);
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s': __dlpack__() did not return a DLPack capsule", kernel, param);
    return -1;
  }
  if (t->device.device_type != DL_CPU && t->device.device_type != DL_CUDA_HOST) {
    Py_DECREF(cap);
    PyErr_Format(PyExc_ValueError,
                 "%s(): argument '%s' lives on DLPack device type %d, not in CPU memory; tilec runs kernels on the CPU",
                 kernel, param, (int)t->device.device_type);
    return -1;
  }
  tilec_dtype dt = dl_dtype(t->dtype);
  if (dt == TILEC_DTYPE_INVALID) {
    Py_DECREF(cap);
    PyObject *name =
        PyUnicode_FromFormat("DLPack code %d, %d bits, %d lanes", t->dtype.code, t->dtype.bits, t->dtype.lanes);
    return bad_dtype(param, kernel, name);
  }
  int64_t ext = -1;
  if (t->ndim <= 32 && t->shape) {
    Py_ssize_t shp[32], str[32];
    Py_ssize_t isz = (Py_ssize_t)tilec_dtype_size(dt);
    for (int d = 0; d < t->ndim; d++) {
      shp[d] = (Py_ssize_t)t->shape[d];
      str[d] = t->strides ? (Py_ssize_t)(t->strides[d] * isz) : 0;
    }
    ext = span_elems(t->ndim, shp, t->strides ? str : NULL, isz);
  }
  out->kind = TPY_POINTER;
  out->ptr = (char *)t->data + t->byte_offset;
  out->dtype = dt;
  out->extent = ext;
  out->hold = cap; /* the producer's memory stays alive until the launch is over */
  return 0;
}

/* ---- the classifier ------------------------------------------------------------------- */

static int classify_tensordesc(PyObject *method, const char *param, const char *kernel, bool want_extent, tpy_val *out);

int tpy_classify(PyObject *obj, const char *param, const char *kernel, bool want_extent, tpy_val *out) {
  memset(out, 0, sizeof *out);
  out->extent = -1;
  if (obj == Py_None) {
    out->kind = TPY_NONE;
    return 0;
  }
  if (PyBool_Check(obj)) {
    out->kind = TPY_BOOL;
    out->i = obj == Py_True;
    return 0;
  }
  if (PyLong_Check(obj)) {
    int ovf = 0;
    out->kind = TPY_INT;
    out->i = PyLong_AsLongLongAndOverflow(obj, &ovf);
    if (ovf > 0) {
      out->is_u64 = true;
      out->u = PyLong_AsUnsignedLongLong(obj);
      if (PyErr_Occurred()) ovf = 2;
    }
    if (ovf < 0 || ovf == 2) {
      PyErr_Clear();
      PyErr_Format(PyExc_OverflowError, "%s(): argument '%s' = %S does not fit in 64 bits", kernel, param, obj);
      return -1;
    }
    return 0;
  }
  if (PyFloat_Check(obj)) {
    out->kind = TPY_FLOAT;
    out->f = PyFloat_AS_DOUBLE(obj);
    return 0;
  }
  if (tpy_constexpr_types && PyObject_IsInstance(obj, tpy_constexpr_types) == 1) {
    out->kind = TPY_CONSTEXPR;
    return 0;
  }
  PyObject *m = NULL;
  if (lookup_attr(obj, tpy_str_tensordesc, &m) < 0) return -1;
  if (m) {
    int r = classify_tensordesc(m, param, kernel, want_extent, out);
    Py_DECREF(m);
    return r;
  }
  if (lookup_attr(obj, tpy_str_data_ptr, &m) < 0) return -1;
  if (m) {
    int r = classify_tensor(obj, m, param, kernel, want_extent, out);
    Py_DECREF(m);
    return r;
  }
  if (PyObject_CheckBuffer(obj)) {
    int r = classify_buffer(obj, param, kernel, out);
    if (r) return r < 0 ? -1 : 0;
  }
  PyObject *ai = NULL;
  if (lookup_attr(obj, tpy_str_array_interface, &ai) < 0) return -1;
  if (ai) {
    int r = classify_array_interface(obj, ai, param, kernel, out);
    Py_DECREF(ai);
    return r;
  }
  if (lookup_attr(obj, tpy_str_dlpack, &m) < 0) return -1;
  if (m) {
    int r = classify_dlpack(m, param, kernel, out);
    Py_DECREF(m);
    return r;
  }
  if (PyTuple_Check(obj))
    PyErr_Format(PyExc_TypeError, "%s(): argument '%s' is a tuple; tilec passes tuples only to tl.constexpr parameters",
                 kernel, param);
  else
    PyErr_Format(
        PyExc_TypeError,
        "%s(): argument '%s' has unsupported type %.200s (expected a tensor or array, int, float, bool or None)",
        kernel, param, Py_TYPE(obj)->tp_name);
  return -1;
}

void tpy_val_release(tpy_val *v) {
  if (v->has_view) PyBuffer_Release(&v->view);
  v->has_view = false;
  Py_CLEAR(v->hold);
  Py_CLEAR(v->desc_sig);
}

/* Reads `rank` ints of a sequence into out[]; -1 with an error naming what. */
static int int64_items(PyObject *seq, Py_ssize_t rank, int64_t *out, const char *what, const char *param,
                       const char *kernel) {
  PyObject *fast = PySequence_Fast(seq, "");
  if (!fast) {
    PyErr_Format(PyExc_TypeError, "%s(): tensor descriptor '%s': %s must be a sequence of ints", kernel, param, what);
    return -1;
  }
  int rc = 0;
  if (PySequence_Fast_GET_SIZE(fast) != rank) {
    PyErr_Format(PyExc_ValueError, "%s(): tensor descriptor '%s': %s has %zd entries for rank %zd", kernel, param, what,
                 PySequence_Fast_GET_SIZE(fast), rank);
    rc = -1;
  }
  for (Py_ssize_t i = 0; rc == 0 && i < rank; i++) {
    out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (out[i] == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "%s(): tensor descriptor '%s': %s[%zd] is not an int", kernel, param, what, i);
      rc = -1;
    }
  }
  Py_DECREF(fast);
  return rc;
}

/* A host tensor descriptor: obj._tilec_tensordesc() returns (base, shape, strides,
 * block_shape, nan_padding); base is classified like any tensor argument. */
static int classify_tensordesc(PyObject *method, const char *param, const char *kernel, bool want_extent,
                               tpy_val *out) {
  PyObject *t = PyObject_CallNoArgs(method);
  if (!t) return -1;
  if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 5) {
    Py_DECREF(t);
    PyErr_Format(PyExc_TypeError,
                 "%s(): tensor descriptor '%s': _tilec_tensordesc() must return "
                 "(base, shape, strides, block_shape, nan_padding)",
                 kernel, param);
    return -1;
  }
  int rc = tpy_classify(PyTuple_GET_ITEM(t, 0), param, kernel, want_extent, out);
  if (rc == 0 && out->kind != TPY_POINTER) {
    tpy_val_release(out);
    PyErr_Format(PyExc_TypeError, "%s(): tensor descriptor '%s': its base is not a tensor", kernel, param);
    rc = -1;
  }
  Py_ssize_t rank = rc == 0 ? PySequence_Size(PyTuple_GET_ITEM(t, 3)) : -1;
  if (rc == 0 && (rank < 1 || rank > TILEC_TENSOR_DESC_MAX_RANK)) {
    if (rank < 0) PyErr_Clear();
    tpy_val_release(out);
    PyErr_Format(PyExc_ValueError, "%s(): tensor descriptor '%s': rank %zd (tilec takes rank 1 to %d)", kernel, param,
                 rank, TILEC_TENSOR_DESC_MAX_RANK);
    rc = -1;
  }
  int64_t block[TILEC_TENSOR_DESC_MAX_RANK] = {0};
  if (rc == 0) {
    memset(&out->desc, 0, sizeof out->desc);
    out->desc.base = out->ptr;
    if (int64_items(PyTuple_GET_ITEM(t, 1), rank, out->desc.shape, "shape", param, kernel) < 0 ||
        int64_items(PyTuple_GET_ITEM(t, 2), rank, out->desc.strides, "strides", param, kernel) < 0 ||
        int64_items(PyTuple_GET_ITEM(t, 3), rank, block, "block_shape", param, kernel) < 0) {
      tpy_val_release(out);
      rc = -1;
    }
  }
  if (rc == 0) {
    int nan = PyObject_IsTrue(PyTuple_GET_ITEM(t, 4));
    out->desc.padding = nan > 0;
    char sig[160];
    int len = snprintf(sig, sizeof sig, "tensordesc<%s[", tilec_dtype_name(out->dtype));
    for (Py_ssize_t i = 0; i < rank; i++)
      len += snprintf(sig + len, sizeof sig - (size_t)len, "%s%lld", i ? ", " : "", (long long)block[i]);
    snprintf(sig + len, sizeof sig - (size_t)len, "]>");
    out->desc_sig = PyUnicode_FromString(sig);
    out->kind = TPY_TENSORDESC;
    if (nan < 0 || !out->desc_sig) {
      tpy_val_release(out);
      rc = -1;
    }
  }
  Py_DECREF(t);
  return rc;
}

static PyObject *set_constexpr_types(PyObject *self, PyObject *types) {
  (void)self;
  if (!PyTuple_Check(types)) return PyErr_Format(PyExc_TypeError, "expected a tuple of types");
  Py_XSETREF(tpy_constexpr_types, Py_NewRef(types));
  Py_RETURN_NONE;
}

static PyObject *py_dtype_name(PyObject *self, PyObject *obj) {
  (void)self;
  tilec_dtype t = tpy_dtype_of(obj, NULL);
  if (t == TILEC_DTYPE_INVALID) Py_RETURN_NONE;
  return PyUnicode_FromString(tilec_dtype_name(t));
}

/* _C.classify(obj) -> (kind, signature type or None): the Python layer's view of what a
 * value would be passed as (warmup with dtypes, diagnostics, tests). */
static PyObject *py_classify(PyObject *self, PyObject *obj) {
  (void)self;
  tpy_val v;
  if (tpy_classify(obj, "arg", "classify", true, &v) < 0) return NULL;
  static const char *kinds[] = {"none", "bool", "int", "float", "pointer", "constexpr", "tensordesc"};
  PyObject *r;
  if (v.kind == TPY_POINTER)
    r = Py_BuildValue("(ssKL)", kinds[v.kind], tilec_dtype_name(v.dtype), (unsigned long long)(uintptr_t)v.ptr,
                      (long long)v.extent);
  else r = Py_BuildValue("(sO)", kinds[v.kind], Py_None);
  tpy_val_release(&v);
  return r;
}

static PyMethodDef args_methods[] = {
    {"set_constexpr_types", set_constexpr_types, METH_O,
     "Registers the classes whose instances are compile-time values when passed as arguments."},
    {"dtype_name", py_dtype_name, METH_O, "The tilec signature name of a dtype object (torch, numpy, tl), or None."},
    {"classify", py_classify, METH_O, "(kind, dtype, address, extent) of a launch argument."},
    {NULL, NULL, 0, NULL}};

int tpy_args_init(PyObject *module) {
  dtype_cache = PyDict_New();
  tpy_str_data_ptr = PyUnicode_InternFromString("data_ptr");
  tpy_str_dtype = PyUnicode_InternFromString("dtype");
  tpy_str_is_cpu = PyUnicode_InternFromString("is_cpu");
  tpy_str_device = PyUnicode_InternFromString("device");
  tpy_str_array_interface = PyUnicode_InternFromString("__array_interface__");
  tpy_str_dlpack = PyUnicode_InternFromString("__dlpack__");
  tpy_str_tensordesc = PyUnicode_InternFromString("_tilec_tensordesc");
  if (!dtype_cache || !tpy_str_data_ptr || !tpy_str_dtype || !tpy_str_is_cpu || !tpy_str_device ||
      !tpy_str_array_interface || !tpy_str_dlpack || !tpy_str_tensordesc)
    return -1;
  return PyModule_AddFunctions(module, args_methods);
}
