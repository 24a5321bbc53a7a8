/* python/src/tilec_py.h — what the files of the extension module tilec._C share: the
 * Kernel and Compiler types, argument classification (arrays, tensors, scalars -> kernel
 * argument values) and the conversion of tilec_status into Python exceptions.
 * Everything here is built on the public C API (include/tilec/) only. */
#ifndef TILEC_PY_H
#define TILEC_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include "tilec/tilec.h"

/* Most parameters a kernel launched from Python may have. */
#define TPY_MAX_PARAMS 128

/* ---- Kernel: one compiled, loaded specialization (tilec_jit_kernel) ---------------- */
typedef struct {
  PyObject_HEAD tilec_jit_kernel *k;
  const tilec_kernel_desc *desc;
  bool checked;   /* compiled with bounds/race checks: launches pass buffer extents */
  PyObject *dict; /* instance attributes (Python subclasses: CompiledKernel) */
  PyObject *weaklist;
} tpy_kernel;

extern PyTypeObject tpy_kernel_type;
extern PyTypeObject tpy_compiler_type;
extern PyTypeObject tpy_dispatcher_type;
extern PyTypeObject tpy_launcher_type;

/* ---- argument values ---------------------------------------------------------------- */
typedef enum {
  TPY_NONE = 0,
  TPY_BOOL,
  TPY_INT,       /* Python int (or an integer numpy scalar) */
  TPY_FLOAT,     /* Python float (or a floating numpy scalar) */
  TPY_POINTER,   /* array or tensor: data pointer + element dtype */
  TPY_CONSTEXPR, /* an object the kernel sees as a compile-time value (tl.constexpr, a dtype, ...) */
  TPY_TENSORDESC /* a host tensor descriptor (Triton's TensorDescriptor): base pointer + dtype as
                  * TPY_POINTER, plus shape/strides/padding and the block shape */
} tpy_val_kind;

typedef struct tpy_val {
  tpy_val_kind kind;
  bool is_u64; /* TPY_INT above INT64_MAX (then .u holds it) */
  long long i;
  unsigned long long u;
  double f;
  void *ptr;
  tilec_dtype dtype;            /* TPY_POINTER: element type */
  int64_t extent;               /* TPY_POINTER: elements from ptr to the end of the buffer, -1 unknown */
  PyObject *hold;               /* released after the launch (a DLPack capsule) */
  PyObject *desc_sig;           /* TPY_TENSORDESC: its signature entry "tensordesc<fp16[64, 64]>" (owned) */
  tilec_tensor_descriptor desc; /* TPY_TENSORDESC: what the kernel reads */
  Py_buffer view;
  bool has_view;
} tpy_val;

/* Classifies one argument. `param` names the parameter in error messages; extents are
 * computed only when want_extent. Returns 0, or -1 with a TypeError/ValueError set. */
int tpy_classify(PyObject *obj, const char *param, const char *kernel, bool want_extent, tpy_val *out);
void tpy_val_release(tpy_val *v);
/* dtype object (torch, numpy, tilec.language) -> tilec dtype, or TILEC_DTYPE_INVALID with
 * *name_out set to its printed name (new reference) when unsupported. Cached by object. */
tilec_dtype tpy_dtype_of(PyObject *dtype_obj, PyObject **name_out);
/* Objects whose classes the Python layer registered as compile-time values. */
extern PyObject *tpy_constexpr_types; /* tuple of types, or NULL */

/* ---- errors --------------------------------------------------------------------------- */
/* Raises the Python exception for st (CompilationError / KernelError / TilecError / ValueError
 * by its code) and destroys st. kernel may be NULL. Always returns NULL. */
PyObject *tpy_raise_status(tilec_status *st, const char *kernel);

/* Launches k on a grid with packed argument pointers, with the GIL released. extents may
 * be NULL. Returns 0 or -1 with an exception set. */
int tpy_kernel_launch(tpy_kernel *k, const uint32_t grid[3], void *const *args, size_t nargs, const int64_t *extents,
                      uint32_t num_threads);
/* grid: a tuple/list of 1-3 ints. Returns 0 or -1 with an exception set. */
int tpy_parse_grid(PyObject *grid, uint32_t out[3]);

/* Interned attribute names used on hot paths. */
extern PyObject *tpy_str_data_ptr, *tpy_str_dtype, *tpy_str_is_cpu, *tpy_str_device, *tpy_str_array_interface,
    *tpy_str_dlpack;

int tpy_args_init(PyObject *module);
int tpy_compiler_init(PyObject *module);
int tpy_dispatch_init(PyObject *module);

#endif
