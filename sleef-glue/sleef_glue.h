/* sleef-glue/sleef_glue.h — maps math.* ops on vectors to SLEEF entry points chosen by
 * the target's ISA, the vector width and the accuracy (u10, or u35 under fast-math).
 * In: a vector-stage module. Out: the same module with func.call @Sleef_* in place. */
#ifndef TILEC_SLEEF_GLUE_H
#define TILEC_SLEEF_GLUE_H

#include "target/target.h"
#include "tilec/status.h"
#include <mlir-c/IR.h>

/* math.exp / math.exp2 on fp32 vectors in line (inline_exp.c); false when out of memory. */
bool tc_inline_exp(MlirModule module, const tc_target *target);
tilec_status *tc_sleef_glue(MlirModule module, const tc_target *target, bool fast_math);
/* The SLEEF name for math op `op` ("exp", ...) on `lanes` x `bits`-bit floats, or NULL
 * when SLEEF has no such entry; writes into buf. */
const char *tc_sleef_name(const tc_target *target, const char *op, int lanes, unsigned bits, bool fast_math, char *buf,
                          size_t n);

#endif
