/* conversion/axis_info.h — per-dimension contiguity, divisibility and constancy of tile
 * values. In: tile IR values (computed on demand, memoized). Out: facts the memory
 * lowering uses to pick vector loads, scalar loads or gathers. */
#ifndef TILEC_CONVERSION_AXIS_INFO_H
#define TILEC_CONVERSION_AXIS_INFO_H

#include "conversion/valuemap.h"
#include <mlir-c/IR.h>
#include <stdint.h>

#define TC_AXIS_MAX_RANK 16
#define TC_AXIS_MAX_DIV ((int64_t)1 << 30)

typedef struct tc_axis {
  int rank; /* 0 for scalars: then only divisibility[0] is meaningful */
  /* Along dim d: runs of `contiguity` consecutive elements differ by +1; the first element
   * of each run is a multiple of `divisibility`; runs of `constancy` elements are equal. */
  int64_t contiguity[TC_AXIS_MAX_RANK];
  int64_t divisibility[TC_AXIS_MAX_RANK];
  int64_t constancy[TC_AXIS_MAX_RANK];
} tc_axis;

typedef struct tc_axis_analysis {
  tc_valmap memo;   /* value -> tc_axis */
  bool proven_only; /* ignore tl.max_contiguous / max_constancy promises: what the IR proves */
} tc_axis_analysis;

void tc_axis_init(tc_axis_analysis *a);
void tc_axis_free(tc_axis_analysis *a);
tc_axis tc_axis_of(tc_axis_analysis *a, MlirValue v);
/* Largest power of two dividing v (TC_AXIS_MAX_DIV for 0). */
int64_t tc_axis_pow2_divisor(int64_t v);

#endif
