/* conversion/lower.h — internals shared by the tile → vector/scf lowering files.
 * In: a verified tile-dialect module. Out: a new module in func/scf/arith/math/vector/
 * memref (+ llvm pointers) where every tile is processed as a loop over native-width
 * chunks (see DESIGN.md, "performance contract"). */
#ifndef TILEC_CONVERSION_LOWER_H
#define TILEC_CONVERSION_LOWER_H

#include "conversion/axis_info.h"
#include "conversion/target.h"
#include "conversion/valuemap.h"
#include "dialects/builder.h"
#include "tilec/status.h"

/* Lowers every func.func of `tile_module` into a fresh module (caller destroys it). */
tilec_status *tc_lower_to_vector(MlirModule tile_module, const tc_target *target, MlirModule *out);

typedef struct tc_lower tc_lower;

/* A tile value inside one chunk: a vector of `width` lanes, or for pointer tiles a scalar
 * base pointer plus a vector of element offsets (NULL offsets = all zero). */
typedef struct tc_cval {
  MlirValue vec;
  MlirValue base;
  bool is_ptr;
} tc_cval;

typedef enum tc_chunk_mode {
  TC_CHUNK_GENERIC, /* every mask computed lane by lane */
  TC_CHUNK_FULL,    /* all lanes inside the group's bound: bound masks are all-true */
  TC_CHUNK_TAIL     /* the last, partial chunk: bound masks become tail_mask */
} tc_chunk_mode;

/* Evaluation context for scalar lane values at a given lane index. */
typedef struct tc_lanectx {
  tc_lower *L;
  tc_builder *b;
  MlirValue idx; /* index of the lane */
  tc_valmap memo; /* old value -> MlirValue */
} tc_lanectx;

typedef struct tc_chunk {
  tc_lower *L;
  tc_builder b;
  MlirValue iv;        /* index of the chunk's first lane */
  int64_t width;
  tc_chunk_mode mode;
  MlirValue bound_mask; /* old i1 tile that is the group bound (null if none) */
  MlirValue tail_mask;  /* vector<width x i1>, TAIL only */
  tc_valmap vals;       /* old value -> tc_cval */
  tc_lanectx lanes;     /* lane values at iv */
} tc_chunk;

struct tc_lower {
  MlirContext ctx;
  const tc_target *target;
  tc_axis_analysis axis;
  tc_valmap scalars;   /* old scalar value -> new value */
  tc_valmap buffers;   /* old tile value -> memref holding the whole tile */
  tc_valmap in_group;  /* old op -> marker, for the group being formed */
  tc_valmap views;     /* new base pointer -> tc_view, memref views made before a group's loops */
  tc_builder b;        /* function level, appends to the current block */
  tc_builder entry;    /* before the first op of the entry block (allocas) */
  MlirOperation new_func;
  MlirValue pid[3], grid[3];
  tilec_status *status;
  /* current group of fused tile ops */
  MlirOperation *group;
  int ngroup, capgroup;
  int64_t group_shape[TC_AXIS_MAX_RANK];
  int group_rank;
  bool group_has_store;
  MlirOperation *deallocs; /* buffers allocated on the heap, freed before returns */
  int ndeallocs, capdeallocs;
};

typedef struct tc_view {
  MlirValue memref;
  MlirType elem;
} tc_view;

/* --- lower.c ---------------------------------------------------------------------- */
tilec_status *tc_lower_error(tc_lower *L, MlirOperation op, tilec_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
MlirValue tc_scalar(tc_lower *L, MlirValue old); /* mapped scalar (null if unknown) */
MlirType tc_lower_scalar_type(tc_lower *L, MlirType t); /* !tile.ptr -> !llvm.ptr */
bool tc_op_is(MlirOperation op, const char *name);
bool tc_op_in_dialect(MlirOperation op, const char *dialect);
MlirType tc_vec_type(MlirContext ctx, int64_t width, MlirType elem);

/* --- elementwise.c: chunk values of pure tile ops ------------------------------- */
tc_cval tc_chunk_value(tc_chunk *c, MlirValue old);
MlirValue tc_lane_value(tc_lanectx *lc, MlirValue old); /* null when not derivable */
/* Clones an elementwise arith/math op with new operands and result types. */
MlirOperation tc_clone_elementwise(tc_builder *b, MlirOperation op, const MlirValue *operands,
                                   MlirType result_type);
void tc_lanectx_init(tc_lanectx *lc, tc_lower *L, tc_builder *b, MlirValue idx);
void tc_lanectx_free(tc_lanectx *lc);

/* --- memory.c: loads and stores -------------------------------------------------------- */
tc_cval tc_chunk_load(tc_chunk *c, MlirOperation load);
void tc_chunk_store(tc_chunk *c, MlirOperation store);
void tc_lower_scalar_load(tc_lower *L, MlirOperation load);
void tc_lower_scalar_store(tc_lower *L, MlirOperation store);
MlirValue tc_scalar_addptr(tc_lower *L, tc_builder *b, MlirValue base, MlirValue offset, MlirType pointee);
/* A memref<?xT> view starting at a raw pointer. */
MlirValue tc_memref_from_ptr(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem);
/* The view made before the group's loops when there is one, else a new view at b. */
MlirValue tc_view_of(tc_lower *L, tc_builder *b, MlirValue ptr, MlirType elem);
/* Makes views at the function level for every pointer the current group accesses. */
void tc_prepare_views(tc_lower *L);
MlirType tc_memory_type(MlirContext ctx, MlirType elem); /* i1 is stored as i8 */

/* --- mask.c: masks of the form `offsets < n` --------------------------------------- */
/* If mask (an old i1 tile of numel lanes) is "lane < bound", returns the bound as an
 * index clamped to [0, numel], computed with pre; null otherwise. */
MlirValue tc_mask_bound(tc_lanectx *pre, MlirValue mask, int64_t numel);
/* The chunk's mask for an old mask value: null when provably all-true here. */
MlirValue tc_chunk_mask(tc_chunk *c, MlirValue old_mask);

#endif
