/* conversion/op_table.c — how the lowering handles each tile op: one row per op of
 * dialects/tile_ops.def (see tc_op_lowering in lower.h). A row names the op's functions
 * in its family file; the driver (lower.c) and the evaluator (eval.c) only dispatch.
 *   lower  program order, where the op stands (lazy tiles: never; their scalar form: here)
 *   eval   its value at a position inside a nest
 *   emit   a root's loop nest when its group is flushed */
#include "backend/backend.h"
#include "conversion/op_rows.h"

#include "dialects/tile.h"

static const tc_op_lowering rows[TILE_OP_COUNT] = {
    /* grid (lower.c) */
    [TILE_PROGRAM_ID] = {.lower = tc_lower_grid_id},
    [TILE_NUM_PROGRAMS] = {.lower = tc_lower_grid_id},
    /* elementwise (eval.c) */
    [TILE_RANGE] = {.eval = tc_eval_range},
    [TILE_SPLAT] = {.eval = tc_eval_operand},
    [TILE_HINT] = {.lower = tc_lower_forward, .eval = tc_eval_operand},
    /* pointers (pointers.c) */
    [TILE_ADDPTR] = {.lower = tc_lower_scalar_addptr_op, .eval = tc_eval_addptr},
    [TILE_PTR_TO_INT] = {.lower = tc_lower_scalar_pointer_cast, .eval = tc_eval_pointer_cast},
    [TILE_INT_TO_PTR] = {.lower = tc_lower_scalar_pointer_cast, .eval = tc_eval_pointer_cast},
    [TILE_BITCAST] = {.lower = tc_lower_scalar_pointer_cast, .eval = tc_eval_pointer_cast},
    /* shapes (shape_ops.c); the roots among them materialize their source (lower.c) */
    [TILE_BROADCAST] = {.eval = tc_eval_moved},
    [TILE_EXPAND_DIMS] = {.eval = tc_eval_moved},
    [TILE_RESHAPE] = {.lower = tc_lower_reshape, .eval = tc_eval_moved, .emit = tc_emit_materialize_source},
    [TILE_TRANS] = {.lower = tc_lower_grouped, .eval = tc_eval_trans, .emit = tc_emit_trans},
    [TILE_GATHER] = {.lower = tc_lower_grouped, .eval = tc_eval_gather, .emit = tc_emit_materialize_source},
    /* memory (memory.c) */
    [TILE_LOAD] = {.lower = tc_lower_load, .eval = tc_eval_load},
    [TILE_STORE] = {.lower = tc_lower_store, .emit = tc_emit_stores},
    /* atomics (atomics.c) */
    [TILE_ATOMIC_RMW] = {.flush_before = true, .lower = tc_lower_atomic},
    [TILE_ATOMIC_CAS] = {.flush_before = true, .lower = tc_lower_atomic},
    /* reductions, scans, dot, sort (reduce.c, dot.c, sort.c) */
    [TILE_REDUCE] = {.lower = tc_lower_reduce, .emit = tc_emit_reduce},
    [TILE_SCAN] = {.lower = tc_lower_grouped, .emit = tc_emit_scan},
    [TILE_DOT] = {.lower = tc_lower_grouped, .emit = tc_emit_dot},
    [TILE_SORT] = {.lower = tc_lower_grouped, .emit = tc_emit_sort},
    /* debug (debug_ops.c) */
    [TILE_PRINT] = {.flush_before = true, .lower = tc_lower_debug_op},
    [TILE_ASSERT] = {.flush_before = true, .lower = tc_lower_debug_op},
};

const tc_op_lowering *tc_op_rows(void) { return rows; }

/* What the kernel author wrote for each tile op: messages of the lowering name these, never
 * the internal ops ('tile.*'). */
static const char *const user_names[TILE_OP_COUNT] = {
    [TILE_PROGRAM_ID] = "tl.program_id",
    [TILE_NUM_PROGRAMS] = "tl.num_programs",
    [TILE_RANGE] = "tl.arange",
    [TILE_SPLAT] = "a scalar used as a tile",
    [TILE_BROADCAST] = "tl.broadcast_to",
    [TILE_EXPAND_DIMS] = "tl.expand_dims",
    [TILE_RESHAPE] = "tl.reshape",
    [TILE_TRANS] = "tl.trans / tl.permute",
    [TILE_ADDPTR] = "pointer arithmetic",
    [TILE_PTR_TO_INT] = "a pointer cast to an integer",
    [TILE_INT_TO_PTR] = "an integer cast to a pointer",
    [TILE_BITCAST] = "a bitcast",
    [TILE_HINT] = "tl.multiple_of / tl.max_contiguous",
    [TILE_LOAD] = "tl.load",
    [TILE_STORE] = "tl.store",
    [TILE_ATOMIC_RMW] = "tl.atomic_*",
    [TILE_ATOMIC_CAS] = "tl.atomic_cas",
    [TILE_DOT] = "tl.dot",
    [TILE_REDUCE] = "a reduction (tl.sum, tl.max, tl.reduce, ...)",
    [TILE_SCAN] = "a scan (tl.cumsum, tl.cumprod, tl.associative_scan)",
    [TILE_GATHER] = "tl.gather / tl.flip",
    [TILE_SORT] = "tl.sort",
    [TILE_PRINT] = "tl.device_print",
    [TILE_ASSERT] = "tl.device_assert",
};

const char *tc_op_user_name(MlirOperation op) {
  tile_op_id k = tile_op_of(op);
  return k > 0 && k < TILE_OP_COUNT && user_names[k] ? user_names[k] : NULL;
}

const tc_op_lowering *tc_op_lowering_of(const tc_lower *L, MlirOperation op) {
  tile_op_id k = tile_op_of(op);
  return k > 0 && k < TILE_OP_COUNT ? &L->backend->op_rows()[k] : NULL;
}
