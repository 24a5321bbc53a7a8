/* conversion/checks.h — the `--check` instrumentation of the lowering (bounds.c): bounds
 * of accesses against their argument's extent, race logging, non-finite values.
 * In: the lowering model (conversion/lower.h) at an access. Out: checks and runtime calls
 * emitted beside the access. */
#ifndef TILEC_CONVERSION_CHECKS_H
#define TILEC_CONVERSION_CHECKS_H

#include "conversion/lower.h"

/* --- bounds.c: --check-bounds ------------------------------------------------------------ */
/* Checks the active lanes of an access at pos against the extent of the pointer argument
 * the pointer tile derives from (no check when it derives from a loaded/int pointer). */
void tc_check_access(tc_chunk *c, MlirOperation op, MlirValue old_ptr, tc_cval p, MlirValue mask, const tc_pos *pos);
void tc_check_scalar_access(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue old_ptr, MlirValue addr,
                            MlirValue mask);
/* i1: bytes [lo, hi) (i64 addresses) lie in the buffer of the argument old_ptr derives
 * from, or its extent is unknown; null when it derives from no argument. */
MlirValue tc_bounds_bytes_within(tc_lower *L, tc_builder *b, MlirValue old_ptr, MlirValue lo, MlirValue hi);
int tc_root_arg(tc_lower *L, MlirValue old_ptr); /* kernel argument index, or -1 */
/* The debug checks' per-program state, made at the kernel's entry (begin) and completed
 * when its body is lowered (end): --check nan's "loaded a NaN/Inf" flag; --check races'
 * block from the runtime (the number of sites is set at the end).
 * --check races: each load or store logs its active lanes (a store always, a load when its
 * argument is stored through or the runtime says it may alias one); atomics mark lock
 * acquire (a successful CAS) and release (an XCHG of the address a CAS locked). */
void tc_checks_begin(tc_lower *L);
void tc_checks_end(tc_lower *L);
void tc_race_access(tc_chunk *c, MlirOperation op, MlirValue old_ptr, tc_cval p, MlirValue mask, const tc_pos *pos,
                    bool write);
void tc_race_scalar_access(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue old_ptr, MlirValue addr,
                           MlirValue mask, bool write);
void tc_race_atomic(tc_lower *L, tc_builder *b, MlirOperation op, MlirValue addr, MlirValue old, MlirValue cmp);
/* --check nan: a float load notes non-finite values among all its lanes (masked-off lanes
 * hold its `other` or zero: loaded, not produced) in the program's flag, without a call; a
 * float store of non-finite active lanes is reported unless the flag is set. */
void tc_nan_note_load(tc_chunk *c, MlirValue v);
void tc_nan_note_scalar_load(tc_lower *L, tc_builder *b, MlirValue v);
void tc_nan_check_store(tc_chunk *c, MlirOperation op, MlirValue old_ptr, MlirValue v, MlirValue mask,
                        const tc_pos *pos);

#endif
