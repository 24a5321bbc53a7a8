/* conversion/lower.h — internals shared by the tile → vector/scf lowering files.
 * In: a verified tile-dialect module. Out: a new module in func/scf/arith/math/vector/
 * memref (+ llvm pointers) where tiles are processed by loop nests over native-width
 * chunks of their last dimension (see docs/DESIGN.md, "performance contract").
 *
 * Model: pure tile ops (range, splat, broadcast, arith, addptr, ...) are never emitted
 * where they stand; they are evaluated lazily at a position (an index per dimension,
 * the last one possibly a chunk of `width` lanes) inside the loop nest of whatever
 * consumes them. Roots (stores, reductions, dot, materializations) own loop nests. A
 * tile that must outlive its nest (loop-carried, used after a store, reshaped, ...)
 * lives in a flat stack buffer. */
#ifndef TILEC_CONVERSION_LOWER_H
#define TILEC_CONVERSION_LOWER_H

#include "backend/backend.h"
#include "conversion/axis_info.h"
#include "conversion/valuemap.h"
#include "dialects/builder.h"
#include "target/target.h"
#include "tilec/status.h"

/* Lowers every func.func of `tile_module` into a fresh module (caller destroys it). */
tilec_status *tc_lower_to_vector(MlirModule tile_module, const tc_target *target, uint32_t checks, MlirModule *out);

#define TC_RANK TC_AXIS_MAX_RANK

/* A position in a tile: one index per dimension; when `chunked`, the last index starts a
 * chunk of the nest's width lanes. */
struct tc_pos {
  int rank;
  bool chunked;
  MlirValue idx[TC_RANK];
};

/* A tile value at a position: a vector (chunked) or a scalar; pointer tiles are a scalar
 * base pointer plus element offsets (NULL offsets = zero). */
typedef struct tc_cval {
  MlirValue vec;
  MlirValue base;
  bool is_ptr;
} tc_cval;

typedef enum tc_chunk_mode {
  TC_CHUNK_GENERIC, /* every mask computed lane by lane */
  TC_CHUNK_FULL,    /* all lanes inside the nest's bound: the bound mask is all-true */
  TC_CHUNK_TAIL     /* the last, partial chunk: the bound mask is tail_mask */
} tc_chunk_mode;

typedef struct tc_memo_entry {
  const void *v;
  const void *idx[TC_RANK];
  int rank;
  int chunked;
  tc_cval val;
} tc_memo_entry;

typedef struct tc_memo {
  tc_memo_entry *slots;
  size_t nslots, count;
} tc_memo;

/* One loop-nest body being filled. */
struct tc_chunk {
  tc_lower *L;
  tc_builder b;
  int64_t width;
  tc_chunk_mode mode;
  MlirValue bound_mask; /* old i1 tile that is the nest's bound (null if none) */
  MlirValue tail_mask;  /* vector<width x i1>, TAIL only */
  tc_pos root;          /* the nest's own position (bound shortcuts apply only here) */
  tc_memo memo;
  int slot; /* nvptx's unrolled nests: 1 + which of its thread's chunks this is (0: none), for
             * tiles kept in the thread's registers (backend.h, thread_tile) */
};

typedef enum tc_special_kind { TC_SPECIAL_BUFFER = 1, TC_SPECIAL_AFFINE = 2 } tc_special_kind;

/* How a tile value is represented when it is not recomputed from its defining op. */
typedef struct tc_special {
  int kind;
  MlirValue buffer; /* BUFFER: flat memref<numel x memtype> (or memref<? x memtype>) */
  MlirValue mask;   /* BUFFER in user memory (output_buffer.c): only the lanes of this old
                     * i1 tile are the buffer's; the others are read as 0 (null: all) */
  MlirValue init;   /* AFFINE: the old tile the value started from ... */
  MlirValue delta;  /* ... plus this new scalar (element offset for pointers) */
  MlirValue step;   /* AFFINE in a loop: the old scalar added per iteration (or null) */
  /* BUFFER filled by tc_materialize where the value is consumed: the new block the fill
   * was emitted in. The buffer holds the value only where that block encloses the
   * insertion point (a dot operand loaded inside a loop is not there after a loop that
   * ran zero times); elsewhere tc_special_of ignores the entry. Null: valid everywhere. */
  MlirBlock fill_block;
} tc_special;

typedef struct tc_view {
  MlirValue memref;
  MlirType elem;
} tc_view;

struct tc_lower {
  MlirContext ctx;
  const tc_target *target;
  const tc_backend *backend; /* what the nests become on the target (backend/backend.h) */
  tc_axis_analysis axis;
  tc_valmap scalars;        /* old scalar value -> new value */
  tc_valmap special;        /* old tile value -> tc_special */
  tc_valmap in_group;       /* old op -> marker, for the group being formed */
  tc_valmap views;          /* new base pointer -> tc_view */
  tc_valmap dot_prefetched; /* old tile loads whose next-trip prefetch a dot spreads (dot.c) */
  tc_builder b;             /* current insertion point (function body or a region) */
  MlirOperation new_func;
  MlirValue pid[3], grid[3];
  tilec_status *status;
  MlirOperation *group; /* ops of the current group, in program order */
  int ngroup, capgroup;
  bool group_has_store;
  bool flush_before_yield;    /* the flush happens right before the block's yield is lowered */
  bool check_bounds;          /* emit bounds checks (the kernel gets an extents argument) */
  bool check_nan;             /* emit non-finite load notes and store checks */
  bool check_races;           /* log accesses for the runtime's race check (bounds.c) */
  bool check_init;            /* send accesses to memory marked uninitialized to the runtime */
  MlirValue nan_seen;         /* --check nan: memref<1xi8>, 1 once the program loaded a NaN/Inf */
  MlirValue race_block;       /* the runtime's per-thread block: per-argument flags, cursors */
  MlirOperation race_nsites;  /* the constant telling the runtime how many cursors */
  int race_sites, race_nargs; /* access sites (cursors) so far; the kernel's arguments */
  unsigned char *race_stored; /* per argument: the kernel stores through it */
  MlirValue *race_flags;      /* per argument: the runtime's flag, loaded once per program */
  MlirValue extents;          /* new !llvm.ptr to int64 extents, one per runtime argument */
  MlirOperation old_func;
  MlirOperation *deallocs; /* heap buffers, freed before returns */
  int ndeallocs, capdeallocs;
  int nstrings; /* private string globals made so far (debug_ops.c names them) */
  /* Backends whose program runs on many threads (nvptx): while a root's nest is emitted
   * `redundant` is set — every thread computes the whole root, sequentially, into buffers
   * of its own; otherwise nests are shared out and their buffers live in memory the
   * program's threads share (shared_bytes so far, from shared_base; backend.h). */
  bool redundant;
  bool single_thread; /* code that one thread runs for the program (atomics): nests run
                       * whole in it, buffers stay shared */
  int64_t shared_bytes;
  MlirValue shared_base;
  int chunk_bits;        /* the kernel's chunk (backend's kernel_chunk_bits; 0: its chunk_bits) */
  void *backend_carries; /* the backend's state for its loop_carries (backend.h) */
};

/* --- op_table.c: how each tile op is lowered ------------------------------------------- */
/* One row per op of dialects/tile_ops.def; the functions live in the op's family file
 * (memory.c, pointers.c, shape_ops.c, reduce.c, dot.c, sort.c, atomics.c, debug_ops.c,
 * eval.c, lower.c). The driver (lower.c) and the evaluator (eval.c) dispatch through it;
 * ops of other dialects (arith, math, scf, func) are handled by name in those two files. */
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

/* --- combine.c: before the lowering -------------------------------------------------------- */
/* add(d, dot(a, b, 0)) -> dot(a, b, d) where the dot's result has no other use (as
 * Triton's combine pass; the pipeline's step dot-combine). */
void tc_combine_dot_adds(MlirModule module);

/* --- version_loops.c: before the lowering ------------------------------------------------- */
/* Puts each kernel's code from its first accumulation loop with a buffered tile on under
 * `scf.if (every such loop runs once)`, with those loops inlined in the then-branch (see
 * the file's comment). Rewrites the tile module in place (the pipeline's step
 * single-trip-loops). */
void tc_version_single_trip_loops(const tc_target *target, MlirModule module);

/* --- lower.c: driver -------------------------------------------------------------- */
tilec_status *tc_lower_error(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tc_fail(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* tc_fail at the location of the op being lowered (L->b.loc). */
void tc_fail_here(tc_lower *L, tilec_status_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
MlirValue tc_scalar(tc_lower *L, MlirValue old);
/* Is `outer` the block `inner` is in, or a block some op enclosing `inner` stands in? */
bool tc_block_encloses(MlirBlock outer, MlirBlock inner);
void tc_map_scalar(tc_lower *L, MlirValue old, MlirValue v);
MlirType tc_lower_scalar_type(tc_lower *L, MlirType t); /* !tile.ptr -> !llvm.ptr */
bool tc_op_is(MlirOperation op, const char *name);
bool tc_op_in_dialect(MlirOperation op, const char *dialect);
MlirType tc_vec_type(MlirContext ctx, int64_t width, MlirType elem);
void tc_lower_block(tc_lower *L, MlirBlock old_block);
void tc_lower_op(tc_lower *L, MlirOperation op); /* one op of a block being lowered */
/* A scalar op without side effects or memory reads: arith/math, and the tile dialect's
 * TILE_TRAIT_PURE ops (scalar addptr, program_id, num_programs, hint, ptr_to_int, ...). */
bool tc_is_pure_scalar_op(MlirOperation op);
/* Makes v evaluable at L->b without memory reads: tiles from lazily evaluated ops (no
 * loads, no trans/reshape) over buffered or affine tiles, scalars already lowered or
 * computed by pure scalar ops — those are lowered now, at L->b (lowering them again later
 * in program order is harmless). False when v needs anything else. */
bool tc_lower_pure_cone(tc_lower *L, MlirValue v);
void tc_flush(tc_lower *L);
/* Does this reduction (one operand, along the last dim) compute its operand into a buffer
 * as it goes, because the operand is costly and other roots read it too? */
bool tc_reduce_captures(tc_lower *L, MlirOperation op);
tc_special *tc_special_of(tc_lower *L, MlirValue old);
tc_special *tc_special_put(tc_lower *L, MlirValue old);

/* --- eval.c: values at positions ------------------------------------------------------ */
tc_cval tc_eval(tc_chunk *c, MlirValue old, const tc_pos *pos);
/* old at pos (chunked: w lanes), evaluated at b's insertion point in a chunk of its own
 * (its memo is per op, not per position: one per row a caller reads); b moves past it. */
MlirValue tc_eval_chunk_at(tc_lower *L, tc_builder *b, MlirValue old, const tc_pos *pos, int64_t w);
/* Clones an elementwise arith/math op with new operands and result type (integer division,
 * remainder and shifts through tc_build_guarded_int_op). */
MlirOperation tc_clone_elementwise(tc_builder *b, MlirOperation op, const MlirValue *operands, MlirType result);
/* int_semantics.c: arith.divsi/divui/remsi/remui/shli/shrsi/shrui with Triton's results for
 * every operand value (no trap, no poison); returns the op defining the value. */
bool tc_is_guarded_int_op(const char *name);
MlirOperation tc_build_guarded_int_op(tc_builder *b, const char *name, MlirValue x, MlirValue y, MlirType t);
bool tc_is_lazy_op(MlirOperation op); /* pure tile op evaluated at positions */
/* tc_is_lazy_op, and never a nest of its own instead (not reshape, trans: LAZY | ROOT). */
bool tc_is_always_lazy_op(MlirOperation op);
int tc_shape_of(MlirType t, int64_t *shape); /* rank of a ranked tensor (0 for scalars) */
bool tc_same_shape(MlirType a, MlirType b);
MlirValue tc_iota(tc_builder *b, int64_t width); /* vector<width x i32> 0, 1, ... */
int64_t tc_numel(int rank, const int64_t *shape);
/* Row-major linear index of pos (chunk start when chunked). */
MlirValue tc_linear_index(tc_builder *b, const tc_pos *pos, const int64_t *shape);
tc_pos tc_pos_with(const tc_pos *p, bool chunked);
bool tc_pos_equal(const tc_pos *a, const tc_pos *b);
void tc_chunk_init(tc_chunk *c, tc_lower *L, MlirBlock block, int64_t width);
void tc_chunk_free(tc_chunk *c);
/* Makes tc_eval(c, old, pos) return v (a loop-carried value known at that position). */
void tc_chunk_bind(tc_chunk *c, MlirValue old, const tc_pos *pos, tc_cval v);
MlirValue tc_splat_vec(tc_builder *b, MlirValue s, int64_t width);

/* --- memory.c: loads, stores, buffers ------------------------------------------------------ */
tc_cval tc_eval_load(tc_chunk *c, MlirOperation load, const tc_pos *pos); /* the op table's load row */
/* Whether the chunk of pointer tile old_ptr (evaluated to p) is one contiguous run, and the
 * element offset of its first lane from p.base (for the debug checks, bounds.c). */
bool tc_chunk_contiguous(tc_chunk *c, MlirValue old_ptr, tc_cval p);
MlirValue tc_chunk_first_offset(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos);
void tc_emit_store(tc_chunk *c, MlirOperation store, const tc_pos *pos, tc_cval ptr, tc_cval val, MlirValue mask);
/* Prefetches for writing the cache line a later nest's store (through a contiguous
 * pointer tile) writes at pos; nothing otherwise. Only for stores whose pointer
 * tc_store_prefetchable accepted (tc_lower_pure_cone of its pointer, so call it before
 * the nest is built). */
bool tc_store_prefetchable(tc_lower *L, MlirOperation store);
/* Is v a tile load through a pointer tile, contiguous along its last dim in runs of
 * `width` (chunk) elements, that the enclosing loop advances by a fixed step? Then tc_prefetch_next_trip(c, v, pos)
 * prefetches the chunk at pos of the tile the next trip loads. Such loads are otherwise
 * prefetched chunk by chunk where they are evaluated, unless in L->dot_prefetched. */
bool tc_load_prefetchable(tc_lower *L, MlirValue v, int64_t width);
void tc_prefetch_next_trip(tc_chunk *c, MlirValue v, const tc_pos *pos);
void tc_prefetch_store(tc_chunk *c, MlirOperation store, const tc_pos *pos);
void tc_lower_scalar_load(tc_lower *L, MlirOperation load);
void tc_lower_scalar_store(tc_lower *L, MlirOperation store);
MlirValue tc_scalar_addptr(tc_lower *L, tc_builder *b, MlirValue base, MlirValue offset, MlirType pointee);
MlirValue tc_memref_from_ptr(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem);
MlirType tc_memory_type(MlirContext ctx, MlirType elem); /* i1 is stored as i8 */
MlirValue tc_alloc_buffer(tc_lower *L, MlirType elem, int64_t numel);
/* Reads / writes a buffered tile at pos (i1 converted to and from i8). */
MlirValue tc_buffer_read(tc_chunk *c, MlirValue buf, MlirType elem, const tc_pos *pos, const int64_t *shape);
void tc_buffer_write(tc_chunk *c, MlirValue buf, MlirValue v, const tc_pos *pos, const int64_t *shape);
/* The same where only the lanes of a new i1 mask (null: all) are accessed; a read gives 0
 * elsewhere. */
MlirValue tc_buffer_read_masked(tc_chunk *c, MlirValue buf, MlirType elem, const tc_pos *pos, const int64_t *shape,
                                MlirValue mask);
void tc_buffer_write_masked(tc_chunk *c, MlirValue buf, MlirValue v, const tc_pos *pos, const int64_t *shape,
                            MlirValue mask);
/* The address of a pointer tile's element at an unchunked position. */
MlirValue tc_lane_address(tc_chunk *c, MlirValue old_ptr, const tc_pos *pos);

/* --- output_buffer.c: a captured reduction operand kept where its store writes ----------- */
/* For a reduction that captures its operand in `stack` (memref<numel x T>) and the store
 * that operand feeds: a memref<? x T> that is, at run time, the store's own row when
 * nothing can observe the early write (see the file), else `stack`; emitted at b. rereads:
 * the reduction may evaluate its operand again after the capture pass. Null
 * when the store cannot hold it. The capture then writes, and the store's nest reads, only
 * the lanes of the store's mask. */
MlirValue tc_output_buffer(tc_lower *L, tc_builder *b, MlirOperation reduce, MlirOperation store, MlirValue stack,
                           bool rereads);

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

/* --- mask.c: masks that are bounds on the last dimension ------------------------------ */
/* If mask is "lane < bound" along the last dim at row position `row` (last index 0),
 * returns the bound as an index clamped to [0, n]; null otherwise. */
/* What the bound analysis finds in a mask over rows of n lanes (conversion/mask.c):
 * ROW  — constant along the last dim (the row is in or out; a = the mask);
 * LESS — a < c (a <= c when inclusive), a contiguous and c constant along the last dim;
 * AND  — a & c, both bounds. */
enum { TC_BOUND_NONE = 0, TC_BOUND_ROW, TC_BOUND_LESS, TC_BOUND_AND };
typedef struct tc_bound {
  int kind;
  MlirValue a, c;
  bool inclusive, is_unsigned;
} tc_bound;
bool tc_bound_plan(tc_axis_analysis *ax, MlirValue mask, int64_t n, tc_bound *out);
/* `--emit analysis`: axis info of every integer/pointer value and the bound of every
 * load/store mask of a tile module, as text (conversion/analysis.c). *out is malloc'ed. */
tilec_status *tc_analysis_print(MlirModule module, char **out);
MlirValue tc_mask_bound(tc_chunk *pre, MlirValue mask, const tc_pos *row, int64_t n);
/* Is a mask with a bound the same for all w lanes of each chunk at a multiple of w (`cols < N`
 * with cols' first element and N both multiples of w)? Then a chunk is wholly inside its
 * bound or wholly outside it, never split (conversion/mask.c). */
bool tc_mask_bound_chunk_uniform(tc_axis_analysis *ax, MlirValue mask, int64_t n, int64_t w);
/* Do a and b compute the same tile: equal values, or the same lazily evaluated op with
 * equal attributes over the same operands (`cols < N` written twice)? */
bool tc_same_value(MlirValue a, MlirValue b, int depth);
/* The mask of a masked load `old` is computed from (searching a few levels of its
 * elementwise operands, same shape only), or null. Any mask is a safe choice of bound:
 * chunks it cannot prove all-true run generically. */
MlirValue tc_load_mask_within(tc_lower *L, MlirValue old, MlirType shape, int depth);
/* In a FULL or TAIL chunk at the nest's own position, a mask equal to the nest's bound is
 * known: *out = null (all lanes on) or the tail mask. False otherwise. */
bool tc_chunk_bound_mask(tc_chunk *c, MlirValue old_mask, const tc_pos *pos, MlirValue *out);
/* Is the tile `old` one value at every lane past the bound of bound_mask (where that mask is
 * false)? True when it reads the position only through that mask: scalars, splat constants,
 * loads masked by it (or by `&` with it; they give `other` and read nothing), tl.where on
 * it (the other branch) and elementwise ops of such. */
bool tc_uniform_past_bound(tc_lower *L, MlirValue old, MlirValue bound_mask, int depth);
/* The chunk's mask for an old mask value at pos: null when provably all-true there. */
MlirValue tc_chunk_mask(tc_chunk *c, MlirValue old_mask, const tc_pos *pos);

/* --- nest.c: loop nests ------------------------------------------------------------------ */
/* scf.for loops over dims [0, ndims) of shape at b (a dim of extent 1 gets index 0, no
 * loop), their indices in pos; returns how many were opened, for tc_close_loops. */
int tc_open_loops(tc_lower *L, tc_builder *b, int ndims, const int64_t *shape, tc_pos *pos, MlirBlock *opened);
void tc_close_loops(tc_lower *L, const MlirBlock *opened, int nopened);
/* body once per element of shape (scalar positions, a width-1 chunk); rank 0: once. */
void tc_emit_scalar_nest(tc_lower *L, int rank, const int64_t *shape, tc_nest_body body, void *user);
/* A loop nest over shape at L->b: loops over leading dims, chunks of the last. With a
 * bound mask the last dim runs unmasked full chunks and one masked tail. */
void tc_emit_nest(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, tc_nest_body body, void *user);
/* complete: also run the chunks past the bound (generic masks), for nests that must
 * produce every element (materializations). Both go through the backend's emit_nest. */
void tc_emit_nest_ex(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, bool complete,
                     tc_nest_body body, void *user);
/* Evaluates old (a tile) into a new flat buffer and marks it BUFFER. */
MlirValue tc_materialize(tc_lower *L, MlirValue old);
/* Evaluates old into an existing buffer of its shape. */
void tc_materialize_into(tc_lower *L, MlirValue old, MlirValue buf);
#define TC_MAX_ITER_ARGS 64
/* scf.for lb..ub step `step` carrying niter (<= TC_MAX_ITER_ARGS) values at b; returns its
 * body block (arguments: induction variable, then the carried values). */
MlirBlock tc_build_for(tc_lower *L, tc_builder *b, MlirValue lb, MlirValue ub, MlirValue step, intptr_t niter,
                       const MlirValue *inits, MlirOperation *for_op);
int64_t tc_nest_width(tc_lower *L, int64_t last_dim);
/* The CPU backend's emit_nest: scf.for over the leading dims and over chunks of the last. */
void tc_emit_chunked_nest(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, bool complete,
                          tc_nest_body body, void *user);

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
bool tc_reshape_is_unit(MlirOperation op); /* shape_ops.c */
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
/* The same element by element (a scalar nest over the operands' shape), with a backend's
 * own element emitters (idx64: the element's index as four i64, 0 past the rank). */
/* The byte address of a pointer value at a position (printed by device_print). */
MlirValue tc_debug_address(tc_chunk *c, tc_cval v, MlirType ptr_type);
typedef void (*tc_debug_element)(tc_lower *L, tc_chunk *c, MlirOperation op, const tc_pos *pos, MlirValue idx64[4]);
void tc_lower_debug_op_with(tc_lower *L, MlirOperation op, tc_debug_element print, tc_debug_element assert_);

/* --- regions.c, debug_ops.c ------------------------------------------------------------------ */
/* A func.call to a tilec_rt_* runtime function (declared on first use). */
void tc_call_runtime(tc_lower *L, tc_builder *b, const char *name, intptr_t n, const MlirValue *args);
/* ... returning one value of type result (null type: none). */
MlirValue tc_call_runtime_value(tc_lower *L, tc_builder *b, const char *name, MlirType result, intptr_t n,
                                const MlirValue *args);
/* An !llvm.ptr to a NUL-terminated private copy of s (of string attribute attr of op). */
MlirValue tc_string_constant(tc_lower *L, tc_builder *b, const char *s);
MlirValue tc_string_attr_constant(tc_lower *L, tc_builder *b, MlirOperation op, const char *attr);
void tc_lower_if(tc_lower *L, MlirOperation op);
void tc_lower_for(tc_lower *L, MlirOperation op);
void tc_lower_while(tc_lower *L, MlirOperation op);
/* If y == arg + splat(s) (addptr or addi), returns the old scalar s (a loop-carried tile
 * advanced by a uniform step). */
MlirValue tc_affine_step(tc_lower *L, MlirValue arg, MlirValue y);
/* A loop-carried pointer/int tile advanced by a uniform step is its initial tile plus a
 * carried scalar delta: the delta's type (i64 for pointers), or a null type otherwise. */
MlirType tc_affine_carry_type(tc_lower *L, MlirValue arg, MlirValue yield);
/* The next iteration's delta (at L->b): delta plus the step, in delta's type. */
MlirValue tc_affine_next(tc_lower *L, MlirValue delta, MlirValue arg, MlirValue yield);
/* Marks old as `init` advanced by the scalar `delta` (step: per iteration, or null). */
void tc_set_affine(tc_lower *L, MlirValue old, MlirValue init, MlirValue delta, MlirValue step);
/* Does the lazy cone of v reach `target`? With moved_only, only through ops that read
 * their operand at another position (broadcast, expand_dims, reshape, a gather's source). */
bool tc_cone_reaches(MlirValue v, MlirValue target, bool moved_only, bool moved, int depth);
/* --- register_tiles.c ---------------------------------------------------------------------- */
/* Lowers an scf.for whose carried tiles evolve lane by lane (each lane of the yield reads
 * only the same lane of the carried tiles; no stores, reductions or nested regions in the
 * body) and fit in half the vector registers, with the tiles' chunks as vector iter_args.
 * Returns false (having emitted nothing) when the loop does not qualify. */
bool tc_lower_for_in_registers(tc_lower *L, MlirOperation op);
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

#endif
