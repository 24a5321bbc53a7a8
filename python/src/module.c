/* python/src/module.c — the extension module tilec._C: module setup, and tilec_status ->
 * Python exception (tilec.errors builds CompilationError / KernelError from the status's
 * code, message and location). In: statuses from the C API. Out: raised exceptions. */
#include "tilec_py.h"

#include <string.h>

/* The source line a located status carries (between its first and last newline of the
 * formatted text), or NULL. */
static PyObject *status_line_text(tilec_status *st) {
  if (tilec_status_needs_line_text(st) || !tilec_status_file(st)) return NULL;
  const char *f = tilec_status_format(st);
  const char *a = strchr(f, '\n');
  const char *b = strrchr(f, '\n');
  if (!a || b <= a) return NULL;
  return PyUnicode_DecodeUTF8(a + 1, b - a - 1, "replace");
}

/* The status's frames as a list of (function, file, def_line, line, col), innermost first. */
static PyObject *status_frames(const tilec_status *st) {
  int n = tilec_status_frame_count(st);
  PyObject *list = PyList_New(n);
  for (int i = 0; list && i < n; i++) {
    const tilec_status_frame *f = tilec_status_frame_at(st, i);
    PyObject *t = Py_BuildValue("(zziii)", f->function, f->file, f->def_line, f->line, f->col);
    if (!t) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, t);
  }
  return list;
}

/* The enum's own name: tilec.errors keys on it (tilec_status_code_name is prose). */
static const char *code_enum_name(tilec_status_code c) {
  switch (c) {
    case TILEC_OK: return "TILEC_OK";
    case TILEC_ERROR_INVALID_ARGUMENT: return "TILEC_ERROR_INVALID_ARGUMENT";
    case TILEC_ERROR_SYNTAX: return "TILEC_ERROR_SYNTAX";
    case TILEC_ERROR_SEMANTIC: return "TILEC_ERROR_SEMANTIC";
    case TILEC_ERROR_UNSUPPORTED: return "TILEC_ERROR_UNSUPPORTED";
    case TILEC_ERROR_NOT_FOUND: return "TILEC_ERROR_NOT_FOUND";
    case TILEC_ERROR_ABI: return "TILEC_ERROR_ABI";
    case TILEC_ERROR_IO: return "TILEC_ERROR_IO";
    case TILEC_ERROR_INTERNAL: return "TILEC_ERROR_INTERNAL";
    case TILEC_ERROR_RUNTIME: return "TILEC_ERROR_RUNTIME";
  }
  return "TILEC_ERROR_UNKNOWN";
}

PyObject *tpy_raise_status(tilec_status *st, const char *kernel) {
  if (!st) {
    PyErr_SetString(PyExc_SystemError, "tilec: error without a status");
    return NULL;
  }
  tilec_status_code code = tilec_status_code_of(st);
  const char *file = tilec_status_file(st);
  PyObject *line_text = status_line_text(st);
  if (!line_text) {
    PyErr_Clear();
    line_text = Py_NewRef(Py_None);
  }
  PyObject *frames = status_frames(st);
  PyObject *errors = frames ? PyImport_ImportModule("tilec.errors") : NULL;
  PyObject *exc = NULL;
  if (errors) {
    exc = PyObject_CallMethod(errors, "_from_status", "ssziiOzsiO", code_enum_name(code), tilec_status_message(st),
                              file, tilec_status_line(st), tilec_status_column(st), line_text, kernel,
                              tilec_status_reason(st), (int)tilec_status_origin_of(st), frames);
    Py_DECREF(errors);
  }
  Py_XDECREF(frames);
  Py_DECREF(line_text);
  if (exc) {
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  } else if (!PyErr_Occurred()) {
    PyErr_SetString(PyExc_RuntimeError, tilec_status_format(st));
  }
  tilec_status_destroy(st);
  return NULL;
}

static PyObject *py_version(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  return PyUnicode_FromString(tilec_version());
}

/* ((name, group, refusal or None), ...): tilec_language_functions, for tilec.language. */
static PyObject *py_language_functions(PyObject *self, PyObject *noargs) {
  (void)self;
  (void)noargs;
  size_t n;
  const tilec_language_function *fns = tilec_language_functions(&n);
  PyObject *out = PyTuple_New((Py_ssize_t)n);
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    PyObject *row = Py_BuildValue("(ssz)", fns[i].name, fns[i].group, fns[i].refusal);
    if (!row) {
      Py_DECREF(out);
      return NULL;
    }
    PyTuple_SET_ITEM(out, (Py_ssize_t)i, row);
  }
  return out;
}

/* mark_uninitialized(address, nbytes) and forget(address) -> bool: the runtime's marks for
 * --check init (tilec_debug_mark_uninitialized / tilec_debug_forget), for tilec.debug. */
static PyObject *py_mark_uninitialized(PyObject *self, PyObject *args) {
  (void)self;
  unsigned long long address;
  Py_ssize_t nbytes;
  if (!PyArg_ParseTuple(args, "Kn", &address, &nbytes)) return NULL;
  if (nbytes < 0) return PyErr_Format(PyExc_ValueError, "mark_uninitialized: nbytes is negative (%zd)", nbytes);
  tilec_status *st = tilec_debug_mark_uninitialized((const void *)(uintptr_t)address, (size_t)nbytes);
  if (st) return tpy_raise_status(st, NULL);
  Py_RETURN_NONE;
}

static PyObject *py_forget(PyObject *self, PyObject *arg) {
  (void)self;
  unsigned long long address = PyLong_AsUnsignedLongLong(arg);
  if (address == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  return PyBool_FromLong(tilec_debug_forget((const void *)(uintptr_t)address));
}

static PyMethodDef module_methods[] = {
    {"version", py_version, METH_NOARGS, "The tilec library version."},
    {"mark_uninitialized", py_mark_uninitialized, METH_VARARGS,
     "mark_uninitialized(address, nbytes): the memory is not yet written (--check init reports loads of it "
     "that no kernel stored)."},
    {"forget", py_forget, METH_O, "forget(address) -> bool: drops the mark made at address."},
    {"language_functions", py_language_functions, METH_NOARGS,
     "The kernel language's functions as the compiler knows them: ((name, group, refusal or None), ...) "
     "sorted by name; group is the builtin registry's family or 'prelude'."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef tilec_module = {
    PyModuleDef_HEAD_INIT,
    "tilec._C",
    "tilec's C extension: compile kernels through the tilec C API, classify launch arguments, "
    "and launch compiled kernels with the GIL released.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL};

PyMODINIT_FUNC PyInit__C(void) {
  PyObject *m = PyModule_Create(&tilec_module);
  if (!m) return NULL;
  if (tpy_args_init(m) < 0 || tpy_compiler_init(m) < 0 || tpy_dispatch_init(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  if (PyModule_AddIntConstant(m, "ABI_VERSION", TILEC_ABI_VERSION) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
