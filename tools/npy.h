/* tools/npy.h — NumPy .npy files (format 1.0/2.0/3.0, little-endian, C order) as tilec arrays.
 * In: a file path or an in-memory array. Out: a tilec_npy with a 64-byte aligned buffer it
 * owns, or a status naming the file and what in it was wrong. */
#ifndef TILEC_NPY_H
#define TILEC_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tilec/abi.h"
#include "tilec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TILEC_NPY_MAX_DIMS 8

typedef struct tilec_npy {
  tilec_dtype dtype;
  int ndim;                          /* 0 for a scalar (0-d) array */
  int64_t shape[TILEC_NPY_MAX_DIMS]; /* entries past ndim are 0 */
  size_t count;                      /* product of shape; 1 for 0-d */
  size_t nbytes;                     /* count * tilec_dtype_size(dtype) */
  void *data;                        /* 64-byte aligned, owned; never NULL after a read */
} tilec_npy;

/* Reads a .npy file. Supported dtypes: bool, int8..int64, uint8..uint64, float16/32/64
 * (i1 i8 i16 i32 i64 u8 u16 u32 u64 fp16 fp32 fp64). On success *out owns its data; free
 * it with tilec_npy_free. On error *out is zeroed. */
tilec_status *tilec_npy_read(const char *path, tilec_npy *out);
/* The same from an open stream (the caller closes it; `path` names it in messages): the
 * data size is checked against fstat of the stream's descriptor, as for a file. */
tilec_status *tilec_npy_read_stream(FILE *f, const char *path, tilec_npy *out);

/* Writes arr as a .npy file, format 1.0 (a header for at most 8 dimensions always fits),
 * byte for byte as numpy.save does, so the data starts at a multiple of 64 bytes. arr is
 * borrowed. dtypes without a NumPy equivalent (bf16, fp8) are refused. A partially written
 * file is removed. */
tilec_status *tilec_npy_write(const char *path, const tilec_npy *arr);

/* Frees arr->data and zeroes *arr. NULL is a no-op. */
void tilec_npy_free(tilec_npy *arr);

#ifdef __cplusplus
}
#endif
#endif
