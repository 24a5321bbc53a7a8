/* backend/nvptx.h — what the NVPTX backend's files share (backend/nvptx.c: nests, shared
 * memory, the backends; backend/nvptx_reduce.c: the roots its threads compute together).
 * Everything here works for both nvptx and nvptx-emu (L->target->gpu_emulation). */
#ifndef TILEC_BACKEND_NVPTX_H
#define TILEC_BACKEND_NVPTX_H

#include "backend/backend.h"

/* The backend's state for the kernel being lowered (its begin_kernel makes it, end_kernel
 * frees it; conversion/ keeps it in L->backend_state and never looks inside). */
#define TC_NVPTX_MAX_FRESH 16
typedef struct tc_nvptx_kernel {
  /* While a root's nest is emitted `redundant` is set (emit_redundant: tl.sort): every
   * thread computes the whole root, sequentially, into buffers of its own; otherwise nests
   * are shared out and their buffers live in the CTA's shared memory. */
  bool redundant;
  bool single_thread;   /* code thread 0 runs for the CTA (atomics): nests run whole in it, buffers stay shared */
  int64_t shared_bytes; /* shared memory given out so far, from shared_base */
  bool over_limit;      /* shared_bytes went over the chip's limit (checked again after packing) ... */
  MlirLocation over_limit_loc; /* ... at the allocation there */
  MlirValue shared_base;       /* made at the kernel's entry on first use (null: not yet) */
  void *carries;               /* nvptx_frags.c's records of loop-carried MMA accumulators (one malloc'ed block) */
  void *frags;                 /* nvptx_frags.c's tiles kept in MMA fragments (one malloc'ed block) */
  void *pipes;                 /* nvptx_pipeline.c's groups: loops' operands loaded together (one malloc'ed block) */
  int stages;                  /* the most buffers a K-loop pipeline of the kernel took (nvptx_pipeline.c; 0: none) */
  /* tc_nvptx_fresh_thread_id's reads of %tid.x, each for the code in its block (the innermost) */
  struct tc_nvptx_fresh {
    MlirValue tid;
    MlirBlock block;
  } fresh[TC_NVPTX_MAX_FRESH];
  int nfresh;
  /* tc_nvptx_alloc_shared's buffers, in order: their memref, the constant byte offset from
   * shared_base they are made at (end_kernel packs the ones whose lives do not meet), bytes */
  struct tc_nvptx_shared_buf {
    MlirValue view;
    MlirOperation offset;
    int64_t bytes;
    MlirOperation loop; /* non-null: used only inside this loop, through pointers (tc_nvptx_shared_in_loop) */
    int64_t align;      /* its offset's alignment in bytes (64, or 1024: wgmma's swizzled stages) */
  } *bufs;
  int nbufs, capbufs;
  int64_t next_align; /* the next shared buffer's alignment (tc_nvptx_alloc_aligned), 0: 64 */
} tc_nvptx_kernel;
tc_nvptx_kernel *tc_nvptx_kernel_of(tc_lower *L);
/* Does this thread run the nest being emitted whole (redundant or single-thread code)? */
bool tc_nvptx_alone(tc_lower *L);

/* The thread's index in its CTA (%tid.x), as an index. */
MlirValue tc_nvptx_thread_id(tc_lower *L, tc_builder *b);
/* From here on (in b's block and those nested in it) the thread's index is read anew, a read
 * LLVM keeps apart from the earlier ones: addresses after a loop that holds many registers
 * (a tl.dot accumulator's fragments) are computed there, not kept live through the loop from
 * the same ones before it (attention's output rows, q's: spilled around the loop). GPU only. */
void tc_nvptx_fresh_thread_id(tc_lower *L, tc_builder *b);
/* Asks LLVM to unroll the scf.for `loop` fully (unroll) or not at all (!unroll). */
void tc_nvptx_unroll(tc_lower *L, MlirOperation loop, bool unroll);
/* bar.sync 0: only where every thread of the CTA gets (uniform control flow). */
void tc_nvptx_barrier(tc_lower *L, tc_builder *b);
/* A buffer in the CTA's shared memory (the backend's alloc_shared). */
MlirValue tc_nvptx_alloc_shared(tc_lower *L, MlirType memref_type, int64_t bytes);
/* Buffer view (tc_nvptx_alloc_shared's) is used only inside `loop`, also through pointers
 * derived from it (the K-loop pipeline's stages): it lives there for end_kernel's packing. */
void tc_nvptx_shared_in_loop(tc_lower *L, MlirValue view, MlirOperation loop);
/* The scalar v of lane laneid + delta of the warp (up: laneid - delta; xor: laneid ^ delta),
 * or v itself past the warp's end: shfl.sync.down/up/bfly on the GPU (values wider than 32
 * bits in two halves), the emulator's exchange on the CPU. Every thread of the CTA must call
 * it (the emulator's exchange is a CTA barrier). */
typedef enum { TC_SHFL_DOWN, TC_SHFL_UP, TC_SHFL_XOR } tc_shfl_kind;
MlirValue tc_nvptx_shfl(tc_lower *L, tc_builder *b, MlirValue v, int delta, tc_shfl_kind kind);

/* A nest whose threads run at most this many chunks each is unrolled (nvptx.c); a row a
 * reduction deals the same way too (nvptx_reduce.c), so a rank-1 tile kept in registers
 * is read where it was written. */
#define TC_NVPTX_UNROLL_MAX 16
/* How many chunks of a nest over shape each thread runs when the nest is unrolled (chunk
 * tid + i T at slot i + 1); 0: it is a loop, or a thread runs it whole. */
int64_t tc_nvptx_unrolled_chunks(tc_lower *L, int rank, const int64_t *shape);
/* This thread's chunks of an unrolled nest over shape, as nests deal them (so a tile kept in
 * its registers is read in place), at b, with no barrier. */
void tc_nvptx_deal_unrolled(tc_lower *L, tc_builder *b, int rank, const int64_t *shape, MlirValue bound_mask,
                            tc_nest_body body, void *user);
/* n elements of type elem of the thread's own at the kernel's entry (a memref; registers
 * when every access has a constant index). */
MlirValue tc_nvptx_private_array(tc_lower *L, MlirType elem, int64_t n);
/* The thread's own array (its registers) for the tile `old`, written and read only at the
 * chunks an unrolled nest over its shape deals the thread (chunk t + i T at index i * width),
 * where every reader reads it so (backend.h alloc_thread_tile); null: a shared buffer. */
MlirValue tc_nvptx_thread_tile(tc_lower *L, MlirValue old);
bool tc_nvptx_thread_tile_ok(tc_lower *L, MlirValue old); /* would it be one? */
/* Does a reduction along `axis` of a rank >= 2 tile of this shape (its last axis, or axis 0
 * of a 2-D tile) fold each thread's chunks where nests deal them (nvptx_reduce.c), reading a
 * tile kept in registers in place? */
bool tc_nvptx_reduce_deals(tc_lower *L, int rank, const int64_t *shape, int axis);
/* The op b emitted last; whether the ops after `from` up to b's insertion point read or
 * write memory other threads may see (a barrier may order them). */
MlirOperation tc_nvptx_last_op(const tc_builder *b);
bool tc_nvptx_touches_memory(MlirOperation from, const tc_builder *b);
/* ... whether they write such memory. */
bool tc_nvptx_writes_memory(MlirOperation from, const tc_builder *b);
/* An inline asm that reads shared memory at most (wgmma, its fences and waits): the barrier
 * analysis counts it as a read of any shared buffer, not as everything. */
void tc_nvptx_mark_shared_read(MlirOperation op);

/* n floats of this thread's own at the kernel's entry (an !llvm.ptr). */
MlirValue tc_nvptx_scratch(tc_lower *L, int n);

/* After the threads wrote a root's result tiles (bufs, one per result of op) into shared
 * buffers: a barrier, then the results are those buffers (nvptx_reduce.c). */
void tc_nvptx_publish_results(tc_lower *L, MlirOperation op, int n, const MlirValue *bufs);
/* Op-table emitters of the roots the threads compute together (nvptx_reduce.c). */
int tc_nvptx_emit_reduce(tc_lower *L, MlirOperation *roots, int n);
int tc_nvptx_emit_scan(tc_lower *L, MlirOperation *roots, int n);
int tc_nvptx_emit_dot(tc_lower *L, MlirOperation *roots, int n); /* nvptx_dot.c */
/* tl.trans: nothing where its only reader is a tensor-core tl.dot's B (the dot reads the
 * source itself, nvptx_dot.c), else the CPU's row (conversion/shape_ops.c). */
int tc_nvptx_emit_trans(tc_lower *L, MlirOperation *roots, int n);
/* Tiles computed from tl.dot results kept in the warps' MMA fragments (nvptx_frags.c): a
 * reduction over their rows (1: emitted, 0: not such a reduction), and the backend's
 * materialize_fragments. */
int tc_nvptx_frag_reduce(tc_lower *L, MlirOperation op);
bool tc_nvptx_materialize_fragments(tc_lower *L, MlirValue old);
/* The address of element i of a shared buffer (ldmatrix's, cp.async's destination): an
 * !llvm.ptr<3> (the emulator: a plain pointer) (nvptx_dot.c). */
MlirValue tc_nvptx_shared_address(tc_lower *L, tc_builder *b, MlirValue buf, MlirValue i);
/* Elements between rows of a staged tl.dot operand of `cols` columns of `bits`-bit elements
 * (padded so that ldmatrix, or element loads `bank` banks apart, meet no bank conflict). */
int64_t tc_nvptx_operand_stride(int64_t cols, unsigned bits, int64_t bank);
/* Bytes of shared memory a CTA may have on the target's chip. */
int64_t tc_nvptx_shared_limit(tc_lower *L);
/* tl.dot operands olds[0..n) (null: not to pipeline) whose tile loads the K loop around dot
 * runs num_stages - 1 trips ahead (nvptx_pipeline.c): bufs[i] this trip's shared buffer,
 * strides[i] its row stride, for those it took (the others null); returns how many. swizzled:
 * every operand in wgmma's swizzled layouts (atoms of 8 rows, 1024-byte aligned stages,
 * nvptx_pipeline.c's chunk_at; strides 0), or none is taken (0, nothing emitted but dead
 * values). *fenced: a barrier since the operands landed orders everything before the dot
 * (the first dot of a loop's group emits it; a later one's operands come from that group,
 * fenced when nothing since wrote memory). */
int tc_nvptx_pipeline_operands(tc_lower *L, MlirOperation dot, const MlirValue *olds, const int64_t *banks, int n,
                               bool swizzled, MlirValue *bufs, int64_t *strides, bool *fenced);
/* What a tl.dot not yet lowered will ask of the pipeline (nvptx_dot.c: the first pipelined
 * dot of a loop loads the later ones' operands in its groups): wgmma's layouts for wg[]
 * (try_wg: all of them swizzled, or none), else padded rows for olds[] (banks[]). */
typedef struct tc_pipe_request {
  bool try_wg;
  MlirValue wg[2], olds[2];
  int64_t banks[2];
} tc_pipe_request;
bool tc_nvptx_dot_request(tc_lower *L, MlirOperation dot, tc_pipe_request *r);
/* The kernel's shared bytes so far but those of buffers used only inside loops that do not
 * enclose where L emits (end_kernel's packing lets later buffers share their bytes; a kernel
 * lowered again because packing fell short counts every byte). */
int64_t tc_nvptx_shared_live(tc_lower *L);
/* Can a tile of `rows` rows of per_row 16-byte chunks take wgmma's swizzled layout (whole
 * atoms of 8 rows; rows of 32, 64 or a multiple of 128 bytes)? */
bool tc_nvptx_swizzle_fits(int64_t rows, int64_t per_row);
/* The element index of chunk c of row r (index values) of such a tile of w-element chunks in
 * the swizzled layout (nvptx_pipeline.c's chunk_at): what the stages and a dot's operand
 * staged once (nvptx_dot.c) share. */
MlirValue tc_nvptx_swizzled_at(tc_builder *b, int64_t per_row, int64_t w, MlirValue r, MlirValue c);
/* A shared buffer of n elements of type elem whose offset is a multiple of align bytes (and
 * stays one when buffers are packed), the CTA's shared memory itself being 1024-aligned. */
MlirValue tc_nvptx_alloc_aligned(tc_lower *L, MlirType elem, int64_t n, int64_t align);
/* One PTX statement without operands, as an inline asm with side effects that orders memory
 * (a fence, wgmma's fence/commit); nothing in the emulator. */
void tc_nvptx_asm(tc_lower *L, tc_builder *b, const char *ptx);
/* Loop-carried tl.dot accumulators kept in the warps' MMA fragments (nvptx_frags.c). */
extern const tc_loop_carries tc_nvptx_mma_carries;

#endif
