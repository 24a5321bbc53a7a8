/* conversion/op_rows.h — how each tile op is lowered: the op table's row type, the table,
 * and the row functions of the family files (memory.c, pointers.c, shape_ops.c, reduce.c,
 * dot.c, sort.c, atomics.c, debug_ops.c, eval.c, lower.c), with the helpers a backend's
 * own rows share with them (reductions and scans, dot operands, debug elements).
 * In: the lowering model (conversion/lower.h). Out: the rows' entry points. */
#ifndef TILEC_CONVERSION_OP_ROWS_H
#define TILEC_CONVERSION_OP_ROWS_H

#include "conversion/lower.h"

/* --- op_table.c: how each tile op is lowered ------------------------------------------- */
/* One row per op of dialects/tile_ops.def; the functions live in the op's family file
 * (memory.c, pointers.c, shape_ops.c, reduce.c, dot.c, sort.c, atomics.c, debug_ops.c,
 * eval.c, lower.c). The driver (lower.c) and the evaluator (eval.c) dispatch through it;
 * ops of other dialects (arith, math, scf, func) are handled by name in those two files. */
typedef struct tc_op_lowering tc_op_lowering;
struct tc_op_lowering {
  /* Program order: the pending group's nests are emitted before the op (it reads or
   * writes memory the group's stores may touch, or prints). */
  bool flush_before;
  /* Program order, where the op stands. Lazy ops (TILE_TRAIT_LAZY) with a tile result
   * are not lowered there but evaluated where consumed: `lower` then sees only their
   * scalar form. NULL: nothing to do in program order. */
  void (*lower)(tc_lower *L, MlirOperation op);
  /* The op's result at a position inside a loop nest (lazy ops, loads, and the
   * lane-moving roots once their operand is materialized). */
  tc_cval (*eval)(tc_chunk *c, MlirOperation op, const tc_pos *pos);
  /* A root's loop nest, when its group is flushed: roots[0] is the op, followed by the
   * group's later ops (n in all); returns how many it handled (at least 1): a run of
   * same-shaped stores shares one nest. */
  int (*emit)(tc_lower *L, MlirOperation *roots, int n);
};

/* The row of a tile op in the backend's table, or NULL for ops of other dialects. */
const tc_op_lowering *tc_op_lowering_of(const tc_lower *L, MlirOperation op);
/* The rows of op_table.c, indexed by tile_op_id (the CPU backend's op_rows). */
const tc_op_lowering *tc_op_rows(void);
/* What the kernel's source says for a tile op ("tl.sort"), for messages; NULL for ops of
 * other dialects. */
const char *tc_op_user_name(MlirOperation op);

/* Row functions shared by several families (lower.c). */
void tc_lower_grouped(tc_lower *L, MlirOperation op);                     /* joins the group being formed */
int tc_emit_materialize_source(tc_lower *L, MlirOperation *roots, int n); /* operand 0 into a buffer */
/* Does store o join the run of n same-shaped stores that share one nest (memory.c)? Not
 * when one of them scatters (an address computed from data: a loaded, sorted or gathered
 * index) into memory the other may write: the chunks of a shared nest interleave, so of
 * x[perm] = a; x[offs] = b the scatter would land after part of the second store. */
bool tc_store_joins_run(tc_lower *L, const MlirOperation *run, int n, MlirOperation o);
#define TC_STORE_RUN_MAX 64

/* --- op table rows, by family file (see tc_op_lowering) ------------------------------------ */
void tc_lower_grid_id(tc_lower *L, MlirOperation op);                      /* lower.c */
tc_cval tc_eval_range(tc_chunk *c, MlirOperation op, const tc_pos *pos);   /* eval.c */
tc_cval tc_eval_operand(tc_chunk *c, MlirOperation op, const tc_pos *pos); /* eval.c: splat, hint */
void tc_lower_forward(tc_lower *L, MlirOperation op);                      /* eval.c: scalar hint */
tc_cval tc_eval_addptr(tc_chunk *c, MlirOperation op, const tc_pos *pos);  /* pointers.c */
tc_cval tc_eval_pointer_cast(tc_chunk *c, MlirOperation op, const tc_pos *pos);
tc_cval tc_eval_pointer_select(tc_chunk *c, MlirOperation op, const tc_pos *pos); /* arith.select */
void tc_lower_scalar_addptr_op(tc_lower *L, MlirOperation op);
void tc_lower_scalar_pointer_cast(tc_lower *L, MlirOperation op);
void tc_lower_reshape(tc_lower *L, MlirOperation op);
tc_cval tc_eval_moved(tc_chunk *c, MlirOperation op, const tc_pos *pos); /* broadcast, expand_dims, reshape */
tc_cval tc_eval_trans(tc_chunk *c, MlirOperation op, const tc_pos *pos);
/* trans: its source into a buffer; on a backend that transposes in registers, the
 * transpose of the last two dims into a buffer of its own too. */
int tc_emit_trans(tc_lower *L, MlirOperation *roots, int n);
tc_cval tc_eval_gather(tc_chunk *c, MlirOperation op, const tc_pos *pos);
void tc_lower_load(tc_lower *L, MlirOperation op); /* memory.c */
void tc_lower_store(tc_lower *L, MlirOperation op);
int tc_emit_stores(tc_lower *L, MlirOperation *roots, int n);
void tc_lower_reduce(tc_lower *L, MlirOperation op); /* reduce.c */
int tc_emit_reduce(tc_lower *L, MlirOperation *roots, int n);
int tc_emit_scan(tc_lower *L, MlirOperation *roots, int n);
int tc_emit_dot(tc_lower *L, MlirOperation *roots, int n); /* dot.c */
/* A dot's operand as a flat buffer (its own, or materialized); the buffer its result
 * accumulates into (acc's, in place, when acc is the loop-carried tile it replaces). */
MlirValue tc_dot_operand(tc_lower *L, MlirValue old);
MlirValue tc_dot_accumulator(tc_lower *L, MlirOperation op);
/* Where a dot that evaluates its acc operand at each position of C writes C: the
 * loop-carried buffer the result goes back into when acc reads it only at the position it
 * is evaluated at, else a buffer of the dot's own. */
MlirValue tc_dot_destination(tc_lower *L, MlirOperation op);
int tc_emit_sort(tc_lower *L, MlirOperation *roots, int n); /* sort.c */
void tc_lower_atomic(tc_lower *L, MlirOperation op);        /* atomics.c */
void tc_lower_debug_op(tc_lower *L, MlirOperation op);      /* debug_ops.c: print, assert */
/* device_print's shared facts, for every backend: the printed width of each index
 * (Triton's ceil(log10(dim)) digits, packed 4 bits a dimension, runtime/debug.h), whether
 * operand i prints unsigned, whether it prints hex. */
int64_t tc_print_index_widths(MlirOperation op);
bool tc_print_operand_unsigned(MlirOperation op, intptr_t i);
bool tc_print_hex(MlirOperation op);
/* The byte address of a pointer value at a position (printed by device_print). */
MlirValue tc_debug_address(tc_chunk *c, tc_cval v, MlirType ptr_type);
/* The same element by element (a scalar nest over the operands' shape), with a backend's
 * own element emitters (pos: the element's index). */
typedef void (*tc_debug_element)(tc_lower *L, tc_chunk *c, MlirOperation op, const tc_pos *pos);
void tc_lower_debug_op_with(tc_lower *L, MlirOperation op, tc_debug_element print, tc_debug_element assert_);

/* --- shared by the rows of reductions and scans (reduce.c; a backend's own rows) ------------ */
/* Does this reduction (one operand, along the last dim) compute its operand into a buffer
 * as it goes, because the operand is costly and other roots read it too? */
bool tc_reduce_captures(tc_lower *L, MlirOperation op);
tc_cval tc_eval_load(tc_chunk *c, MlirOperation load, const tc_pos *pos); /* the op table's load row */
/* --- output_buffer.c: a captured reduction operand kept where its store writes ----------- */
/* For a reduction that captures its operand in `stack` (memref<numel x T>) and the store
 * that operand feeds: a memref<? x T> that is, at run time, the store's own row when
 * nothing can observe the early write (see the file), else `stack`; emitted at b. rereads:
 * the reduction may evaluate its operand again after the capture pass. Null
 * when the store cannot hold it. The capture then writes, and the store's nest reads, only
 * the lanes of the store's mask. */
MlirValue tc_output_buffer(tc_lower *L, tc_builder *b, MlirOperation reduce, MlirOperation store, MlirValue stack,
                           bool rereads);
/* Reductions and scans combine at most this many tiles (tl.reduce of a tuple). */
#define TC_REDUCE_MAX_VALUES 8
/* The operand tiles, their shape and the axis of a reduce or scan (`what`, `plural` name
 * it in errors); false (with L failed) when there are too many operands or the axis is bad. */
bool tc_reduce_operands(tc_lower *L, MlirOperation op, const char *what, const char *plural, int *nvals,
                        MlirValue *olds, int *rank, int64_t *shape, int *axis);
/* Tree reduction of n vectors of `width` lanes (one per reduced value) to scalars (out). */
bool tc_reduce_horizontal(tc_lower *L, tc_builder *b, MlirOperation op, int n, MlirValue *acc, int64_t width,
                          MlirValue *out);
/* Inclusive scan of one chunk of w lanes (v: nvals vectors, in place; reverse: from the
 * last lane), then, with a carry (nvals scalars, earlier in scan order), combined with it. */
bool tc_scan_chunk(tc_lower *L, tc_builder *b, MlirOperation op, int nvals, bool reverse, MlirValue *v, int64_t w,
                   const MlirValue *carry);
/* Applies a combine function (func.func by symbol) to vectors or scalars: clones its
 * body with the operand types. n inputs (2 * nvalues) -> nvalues results. */
bool tc_apply_combine(tc_lower *L, tc_builder *b, MlirOperation reduce_op, const MlirValue *args, int nargs,
                      MlirValue *results);
/* Is the combine of a one-value reduce a commutative arith op of its two arguments (tl.sum,
 * tl.max, tl.min, ...: combine(x, y) and combine(y, x) are the same bits)? */
bool tc_reduce_commutative(tc_lower *L, MlirOperation op);

#endif
