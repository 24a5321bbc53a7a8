/* conversion/lower.h — the lowering model shared by the tile → vector/scf lowering files:
 * the lowering state (tc_lower), positions, chunk contexts (nest bodies), values at
 * positions (eval), loop nests, buffers and memory access, masks at positions, scalars,
 * specials, control flow and runtime calls.
 * In: a verified tile-dialect module. Out: a new module in func/scf/arith/math/vector/
 * memref (+ llvm pointers) where tiles are processed by loop nests over native-width
 * chunks of their last dimension (see docs/DESIGN.md, "performance contract").
 * The layers around it: dialects/ir_util.h (stateless IR helpers), conversion/analyses.h
 * (axis, bound, value equality), conversion/op_rows.h (how each tile op is lowered, the
 * family files' rows), conversion/checks.h (--check instrumentation), conversion/steps.h
 * (the pipeline's entry points).
 *
 * Model: pure tile ops (range, splat, broadcast, arith, addptr, ...) are never emitted
 * where they stand; they are evaluated lazily at a position (an index per dimension,
 * the last one possibly a chunk of `width` lanes) inside the loop nest of whatever
 * consumes them. Roots (stores, reductions, dot, materializations) own loop nests. A
 * tile that must outlive its nest (loop-carried, used after a store, reshaped, ...)
 * lives in a flat stack buffer. */
#ifndef TILEC_CONVERSION_LOWER_H
#define TILEC_CONVERSION_LOWER_H

#include "conversion/axis_info.h"
#include "conversion/valuemap.h"
#include "dialects/builder.h"
#include "dialects/ir_util.h"
#include "target/target.h"
#include "tilec/status.h"

/* What the nests become on the target: only a pointer here (L->backend); the files that ask
 * the backend include backend/backend.h. */
typedef struct tc_backend tc_backend;
typedef struct tc_lower tc_lower;
typedef struct tc_chunk tc_chunk;
typedef struct tc_pos tc_pos;
/* The body of a loop nest, run at each position (tc_emit_nest, the backend's emit_nest). */
typedef void (*tc_nest_body)(tc_chunk *c, const tc_pos *pos, void *user);

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
  /* nvptx's nests dealt to threads: position p of a rank-1 nest runs on thread (p / width)
   * mod threads; its contiguous accesses at the chunk's own position are marked with
   * TC_OWNER_ATTR (memory.c) for the barrier analysis */
  bool dealt;
};

/* On a contiguous vector access of a dealt chunk (tc_chunk.dealt): [chunk bytes, the largest
 * power of two known to divide the byte offset of the tile's first element from its base
 * pointer] and, when the offsets are tl.aranges, [first byte, end byte] of the tile from the
 * base pointer (masked lanes included). Thread (p / width) mod T touches the element at
 * position p. */
#define TC_OWNER_ATTR "tilec.owner"

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
  tc_axis_analysis axis_proven; /* the same without the kernel's contiguity/constancy promises */
  tc_valmap scalars;            /* old scalar value -> new value */
  tc_valmap special;            /* old tile value -> tc_special */
  tc_valmap in_group;           /* old op -> marker, for the group being formed */
  tc_valmap views;              /* new base pointer -> tc_view */
  tc_valmap aligned_buffers;    /* new buffers tc_alloc_buffer got from the backend (64-byte aligned) */
  tc_valmap dot_prefetched;     /* old tile loads whose next-trip prefetch a dot spreads (dot.c) */
  tc_builder b;                 /* current insertion point (function body or a region) */
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
  int nstrings;        /* private string globals made so far (debug_ops.c names them) */
  int chunk_bits;      /* the kernel's chunk (backend's kernel_chunk_bits; 0: its chunk_bits) */
  void *backend_state; /* the backend's, for the kernel being lowered (backend.h begin_kernel); never read here */
  int retry_stages;    /* set by the backend's end_kernel with a failure: lower the kernel again with
                        * stage_cap = this (nvptx: the K-loop pipeline's buffers took it over the
                        * chip's shared memory) */
  int stage_cap;       /* K-loop pipelines at most this deep (0: as num_stages and tl.range say) */
  int retries;         /* how many times the kernel has been lowered again so far */
};

/* --- lower.c: driver -------------------------------------------------------------- */
tilec_status *tc_lower_error(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tc_fail(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* tc_fail at the location of the op being lowered (L->b.loc). */
void tc_fail_here(tc_lower *L, tilec_status_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
MlirValue tc_scalar(tc_lower *L, MlirValue old);
void tc_map_scalar(tc_lower *L, MlirValue old, MlirValue v);
MlirType tc_lower_scalar_type(tc_lower *L, MlirType t); /* !tile.ptr -> !llvm.ptr */
void tc_lower_block(tc_lower *L, MlirBlock old_block);
void tc_lower_op(tc_lower *L, MlirOperation op); /* one op of a block being lowered */
/* Makes v evaluable at L->b without memory reads: tiles from lazily evaluated ops (no
 * loads, no trans/reshape) over buffered or affine tiles, scalars already lowered or
 * computed by pure scalar ops — those are lowered now, at L->b (lowering them again later
 * in program order is harmless). False when v needs anything else. */
bool tc_lower_pure_cone(tc_lower *L, MlirValue v);
void tc_flush(tc_lower *L);
tc_special *tc_special_of(tc_lower *L, MlirValue old);
tc_special *tc_special_put(tc_lower *L, MlirValue old);
/* A builder at the start of the kernel's entry block (before every use): allocations made
 * there keep loops free of stack growth. */
tc_builder tc_entry_builder(tc_lower *L);
/* An llvm.alloca of one t at the kernel's entry. */
MlirValue tc_entry_alloca(tc_lower *L, MlirType t);
/* Stores vals[0..n) at b into the fields (or elements) 0..n-1 of the aggregate `agg` at buf. */
void tc_store_fields(tc_lower *L, tc_builder *b, MlirValue buf, MlirType agg, const MlirValue *vals, int n);

/* --- eval.c: values at positions ------------------------------------------------------ */
tc_cval tc_eval(tc_chunk *c, MlirValue old, const tc_pos *pos);
/* old at pos (chunked: w lanes), evaluated at b's insertion point in a chunk of its own
 * (its memo is per op, not per position: one per row a caller reads); b moves past it. */
MlirValue tc_eval_chunk_at(tc_lower *L, tc_builder *b, MlirValue old, const tc_pos *pos, int64_t w);
/* Row-major linear index of pos (chunk start when chunked). */
MlirValue tc_linear_index(tc_builder *b, const tc_pos *pos, const int64_t *shape);
tc_pos tc_pos_with(const tc_pos *p, bool chunked);
bool tc_pos_equal(const tc_pos *a, const tc_pos *b);
void tc_chunk_init(tc_chunk *c, tc_lower *L, MlirBlock block, int64_t width);
void tc_chunk_free(tc_chunk *c);
/* Makes tc_eval(c, old, pos) return v (a loop-carried value known at that position). */
void tc_chunk_bind(tc_chunk *c, MlirValue old, const tc_pos *pos, tc_cval v);

/* --- memory.c: loads, stores, buffers ------------------------------------------------------ */
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
/* Is v computed outside `loop` (the same in every trip)? */
bool tc_outside_loop(MlirValue v, MlirOperation loop);
/* How much v (an integer or pointer, scalar or tile) grows from one trip of `loop` to the
 * next (elements for pointers), as an i64 emitted at b: *d, null for "the same every trip".
 * False when v is not an affine function of the induction variable whose coefficients can
 * be lowered at b. */
bool tc_trip_delta(tc_lower *L, tc_builder *b, MlirOperation loop, MlirValue v, MlirValue *d);
/* The alignment (bytes) the axis analysis proves for the first lane of c's contiguous
 * chunks of pointer tile old_ptr to elements of mem; 0 when it states none (memory.c). */
int64_t tc_chunk_alignment(tc_chunk *c, MlirValue old_ptr, MlirType mem);
void tc_prefetch_next_trip(tc_chunk *c, MlirValue v, const tc_pos *pos);
void tc_prefetch_store(tc_chunk *c, MlirOperation store, const tc_pos *pos);
void tc_lower_scalar_load(tc_lower *L, MlirOperation load);
void tc_lower_scalar_store(tc_lower *L, MlirOperation store);
MlirValue tc_scalar_addptr(tc_lower *L, tc_builder *b, MlirValue base, MlirValue offset, MlirType pointee);
MlirValue tc_memref_from_ptr(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem);
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

/* --- mask.c: masks at positions (the analyses behind them: conversion/analyses.h) ------------ */
/* If mask is "lane < bound" along the last dim at row position `row` (last index 0),
 * returns the bound as an index clamped to [0, n]; null otherwise. */
MlirValue tc_mask_bound(tc_chunk *pre, MlirValue mask, const tc_pos *row, int64_t n);
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

/* --- regions.c, debug_ops.c: control flow, loop-carried tiles, runtime calls ---------------- */
/* A func.call to a tilec_rt_* runtime function (declared on first use). */
void tc_call_runtime(tc_lower *L, tc_builder *b, const char *name, intptr_t n, const MlirValue *args);
/* ... returning one value of type result (null type: none). */
MlirValue tc_call_runtime_value(tc_lower *L, tc_builder *b, const char *name, MlirType result, intptr_t n,
                                const MlirValue *args);
/* An !llvm.ptr to a NUL-terminated private copy of s (of string attribute attr of op). */
MlirValue tc_string_constant(tc_lower *L, tc_builder *b, const char *s);
MlirValue tc_string_attr_constant(tc_lower *L, tc_builder *b, MlirOperation op, const char *attr);
/* A position's tile index as the runtime's reports take it (runtime/debug.h): four i64
 * words, the indices up to rank 4 (0 past the rank); above rank 4 the first word is the
 * address of an i64 array of every index (made at the kernel's entry), the others 0. lane
 * (null: none) is added to the last index. */
void tc_index_words(tc_lower *L, tc_builder *b, const tc_pos *pos, MlirValue lane, MlirValue words[4]);
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
/* --- register_tiles.c ---------------------------------------------------------------------- */
/* Lowers an scf.for whose carried tiles evolve lane by lane (each lane of the yield reads
 * only the same lane of the carried tiles; no stores, reductions or nested regions in the
 * body) and fit in half the vector registers, with the tiles' chunks as vector iter_args.
 * Returns false (having emitted nothing) when the loop does not qualify. */
bool tc_lower_for_in_registers(tc_lower *L, MlirOperation op);

#endif
