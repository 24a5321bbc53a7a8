/* frontend/types.h — Triton's element types as the front end sees them (signedness
 * included, which MLIR's signless integers drop) and Triton's promotion rules.
 * In: dtypes. Out: MLIR types, names, and the result type of mixed arithmetic. */
#ifndef TILEC_FRONTEND_TYPES_H
#define TILEC_FRONTEND_TYPES_H

#include "tilec/abi.h"
#include <mlir-c/IR.h>
#include <stdbool.h>

/* An element type: dt, or a pointer (ptr_depth levels) to dt. */
typedef struct tc_ty {
  tilec_dtype dt;
  int ptr_depth;
  bool is_const; /* a pointer to constant data (a `tl.const` parameter): stores are refused */
} tc_ty;

tc_ty tc_ty_make(tilec_dtype dt);
bool tc_ty_eq(tc_ty a, tc_ty b);
bool tc_ty_is_ptr(tc_ty t);
bool tc_ty_is_int(tc_ty t);    /* i1 included */
bool tc_ty_is_float(tc_ty t);  /* fp8/16/32/64, bf16 */
bool tc_ty_is_fp8(tc_ty t);    /* the five fp8 storage types */
bool tc_ty_is_signed(tc_ty t); /* signed integers (i1 counts as unsigned) */
bool tc_ty_is_bool(tc_ty t);
unsigned tc_ty_bits(tc_ty t); /* 64 for pointers */
int tc_ty_mantissa_bits(tc_ty t);
/* Triton's name: "fp32", "i32", "*fp16" ... (static storage per call site: copy it). */
void tc_ty_name(tc_ty t, char *buf, size_t n);
/* The dtype as kernel code names it: "tl.float16", "tl.pointer_type(tl.int32)". */
void tc_ty_tl_name(tc_ty t, char *buf, size_t n);
/* Parses a Triton dtype spelling: signature names (fp32, i32, bf16...) and tl names
 * (float32, int32, bfloat16...). Returns false when unknown. */
bool tc_ty_parse(const char *s, size_t len, tc_ty *out);
MlirType tc_ty_mlir(MlirContext ctx, tc_ty t);

/* Result element type of arithmetic between a and b (Triton's computation_type_impl):
 * a_is_literal/b_is_literal mark Python number literals (weakly typed). */
bool tc_ty_computation(tc_ty a, bool a_is_literal, tc_ty b, bool b_is_literal, bool div_or_mod, tc_ty *out, char *err,
                       size_t errn);
tc_ty tc_ty_integer_promote(tc_ty a, tc_ty b);

#endif
