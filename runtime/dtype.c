/* runtime/dtype.c — names and storage sizes of tilec element types.
 * In: a tilec_dtype or a Triton signature spelling ("fp32", "i1", ...).
 * Out: the spelling, the size in bytes, or the dtype (INVALID when unknown). */
#include "tilec/runtime.h"

#include <string.h>

/* Indexed by tilec_dtype; the static assert keeps the table in step with abi.h. */
static const struct {
  const char *name;
  size_t size;
} dtype_table[] = {
    [TILEC_DTYPE_INVALID] = {"invalid", 0},
    [TILEC_DTYPE_I1] = {"i1", 1},
    [TILEC_DTYPE_I8] = {"i8", 1},
    [TILEC_DTYPE_I16] = {"i16", 2},
    [TILEC_DTYPE_I32] = {"i32", 4},
    [TILEC_DTYPE_I64] = {"i64", 8},
    [TILEC_DTYPE_U8] = {"u8", 1},
    [TILEC_DTYPE_U16] = {"u16", 2},
    [TILEC_DTYPE_U32] = {"u32", 4},
    [TILEC_DTYPE_U64] = {"u64", 8},
    [TILEC_DTYPE_F16] = {"fp16", 2},
    [TILEC_DTYPE_BF16] = {"bf16", 2},
    [TILEC_DTYPE_F32] = {"fp32", 4},
    [TILEC_DTYPE_F64] = {"fp64", 8},
    [TILEC_DTYPE_FP8E5] = {"fp8e5", 1},
    [TILEC_DTYPE_FP8E4NV] = {"fp8e4nv", 1},
    [TILEC_DTYPE_FP8E4B15] = {"fp8e4b15", 1},
    [TILEC_DTYPE_FP8E4B8] = {"fp8e4b8", 1},
    [TILEC_DTYPE_FP8E5B16] = {"fp8e5b16", 1},
};
_Static_assert(sizeof dtype_table / sizeof dtype_table[0] == TILEC_DTYPE_COUNT,
               "dtype_table must cover every tilec_dtype");

const char *tilec_dtype_name(tilec_dtype t) {
  /* The enum may arrive from a uint32_t field of a foreign library: range-check it. */
  if ((unsigned)t >= TILEC_DTYPE_COUNT) return "invalid";
  return dtype_table[t].name;
}

size_t tilec_dtype_size(tilec_dtype t) {
  if ((unsigned)t >= TILEC_DTYPE_COUNT) return 0;
  return dtype_table[t].size;
}

tilec_dtype tilec_dtype_from_name(const char *s) {
  if (!s) return TILEC_DTYPE_INVALID;
  for (unsigned i = TILEC_DTYPE_INVALID + 1; i < TILEC_DTYPE_COUNT; i++)
    if (strcmp(s, dtype_table[i].name) == 0) return (tilec_dtype)i;
  return TILEC_DTYPE_INVALID;
}
