/* backend/backend.h — the seam between the target-independent lowering and a code
 * generator. The lowering (conversion/) decides how a kernel's tiles become loop nests:
 * which ops are evaluated lazily where consumed, which share a nest, what is buffered,
 * which masks are bounds (the analyses). What those nests become on a machine is asked
 * of a backend, through the hooks of tc_backend, in five groups by who calls them:
 *
 *   machine model     conversion/ (lower.c, nest.c, register_tiles.c, reduce.c, shape_ops.c,
 *                     memory.c, dot.c) asks: chunk width, vector registers, min/max as
 *                     select, heap buffers, aligned vectors, transposes in registers,
 *                     descriptors by value, paired-dot lanes.
 *   per-kernel state  conversion/lower.c calls begin_kernel/end_kernel around each kernel;
 *                     the state is the backend's alone (L->backend_state, never read by
 *                     conversion/); a fact conversion needs of it is a named hook (redundant).
 *   nest enumeration  conversion/ (nest.c, memory.c, lower.c, dot.c, regions.c,
 *                     output_buffer.c): how a nest's positions are run (emit_nest,
 *                     shared_loop), where its buffers live (alloc_shared, thread tiles),
 *                     loop-carried tiles in registers.
 *   op rows           conversion/op_table.c takes each tile op's row from op_rows; the rows
 *                     (conversion/ and the backend's own) ask for prefetch and pair_dot.
 *   code generation   conversion/pipeline.c, after the lowering: lower_math (the vector
 *                     stage's math library), emit (LLVM IR, assembly, object).
 *
 * This header depends on no conversion/ header: the lowering's types are opaque here, the
 * stages and codegen options come from target/stage.h. conversion/lower.h holds only a
 * pointer to the backend; the conversion files that ask a hook include this header.
 *
 * tc_backend_cpu (backend/cpu.c) is the x86-64/AArch64 one. The NVPTX backend (one program
 * = one CTA; backend/nvptx.c, nvptx_reduce.c, nvptx_dot.c, nvptx_frags.c) implements the same struct: its
 * emit_nest gives each thread its share of a nest's positions, its op rows replace the
 * emitters of the roots that combine across threads (reductions, scans, dot, atomics),
 * its lower_math links libdevice, its emit prints PTX.
 * In: a target. Out: the backend that compiles for it. */
#ifndef TILEC_BACKEND_BACKEND_H
#define TILEC_BACKEND_BACKEND_H

#include "dialects/builder.h"
#include "target/stage.h"
#include "target/target.h"
#include "tilec/status.h"
#include <mlir-c/IR.h>

typedef struct tc_lower tc_lower;
typedef struct tc_op_lowering tc_op_lowering;
typedef struct tc_chunk tc_chunk;
typedef struct tc_pos tc_pos;
typedef void (*tc_nest_body)(tc_chunk *c, const tc_pos *pos, void *user);

/* The 16-bit pairs of a pair_dot: signed i16 summed into i32 (i8 dot), or bf16 summed into
 * f32 (bf16 dot). */
typedef enum { TC_PAIR_I16, TC_PAIR_BF16 } tc_pair_kind;

/* Loop-carried tiles a backend keeps in registers of its own across an scf.for (nvptx: a
 * tl.dot accumulator as each warp's MMA fragments, backend/nvptx_frags.c). For carried tile i
 * of `loop`: count is how many new values carry it (0: the generic lowering's buffer);
 * init emits them from the loop's init operand at L->b, before the loop; bind gives the
 * body's block arguments for them; yield gives, at the body's end, what the body computed;
 * done takes the loop's results (at L->b, after the loop) and leaves the tile where later
 * code reads it. */
typedef struct tc_loop_carries {
  int (*count)(tc_lower *L, MlirOperation loop, int i);
  void (*init)(tc_lower *L, MlirOperation loop, int i, MlirValue *vals);
  void (*bind)(tc_lower *L, MlirOperation loop, int i, const MlirValue *vals);
  void (*yield)(tc_lower *L, MlirOperation loop, int i, MlirValue *vals);
  void (*done)(tc_lower *L, MlirOperation loop, int i, const MlirValue *vals);
} tc_loop_carries;

typedef struct tc_backend {
  const char *name;

  /* ---- machine model: what the loop-nest lowering (conversion/) asks of the machine ---- */
  /* Bits of one chunk of a nest (a vector register): chunks have bits / 32 lanes. */
  int (*chunk_bits)(const tc_target *t);
  /* Bits of a chunk for the kernel fn (its nests' widths: bits / 32 lanes; NULL: chunk_bits):
   * nvptx gives a kernel whose tile loads and stores are all 16-bit chunks of 8 lanes. */
  int (*kernel_chunk_bits)(tc_lower *L, MlirOperation fn);
  /* Vector registers a loop may keep tiles in (conversion/register_tiles.c uses half). */
  int (*vector_registers)(const tc_target *t);
  /* Float min/max reductions as compare + select (one instruction on x86) instead of
   * maxnum/minnum. */
  bool (*select_minmax)(const tc_target *t);
  /* Buffers too large for the stack may come from the heap (malloc in the kernel). */
  bool heap_buffers;
  /* Contiguous vector loads and stores carry the alignment the axis analysis proves (the
   * CPU's vector loads do not need it; NVPTX only emits ld.global.v4 for aligned ones). */
  bool aligned_vectors;
  /* A tile's transpose (the last two dims swapped) is written to a buffer of its own in
   * square blocks, each read as rows, transposed by vector shuffles and stored as rows
   * (conversion/shape_ops.c), instead of being read through a gather per chunk. For a
   * backend whose program is one thread with wide vector registers. */
  bool transpose_in_registers;
  /* Tensor descriptor arguments are byval parameters holding the descriptor's bytes (a GPU
   * kernel's parameters are copied by the launch; conversion/lower.c), not pointers to the
   * caller's descriptor. */
  bool descriptors_by_value;
  /* The lane count pair_dot (below) takes for kind on t (0: none; NULL: no pair_dot). */
  int64_t (*pair_dot_lanes)(const tc_target *t, tc_pair_kind kind);

  /* ---- per-kernel state, private to the backend (conversion/lower.c) ---- */
  /* begin_kernel, before a kernel's body is lowered, returns the backend's state for the
   * kernel, which the lowering keeps in L->backend_state without looking inside (NULL: out
   * of memory); end_kernel, after the body, also where lowering failed, finishes the kernel
   * where L->status is null (nvptx: drops barriers that order nothing) and frees the state.
   * NULL: no state. */
  void *(*begin_kernel)(tc_lower *L);
  void (*end_kernel)(tc_lower *L);
  /* Is the nest being emitted computed whole by every thread of the program, each into
   * buffers of its own (nvptx: tl.sort)? conversion/dot.c then does not accumulate a dot
   * into a loop-carried buffer, which the threads share. NULL: never. */
  bool (*redundant)(tc_lower *L);

  /* ---- nest enumeration: how a nest's positions run, where its buffers live ---- */
  /* Runs body over the positions of shape (rank >= 1): chunks of the last dim, loops over
   * the others; with a bound mask, bounded chunks (complete: also those past the bound). */
  void (*emit_nest)(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, bool complete, tc_nest_body body,
                    void *user);
  /* A loop over [0, count) whose iterations the program's threads share: its body block
   * (the caller ends it with scf.yield) and the iteration in *index; fenced so the body
   * sees what the threads wrote before and what follows sees what it wrote. NULL: the
   * program is one thread (a plain loop). */
  MlirBlock (*shared_loop)(tc_lower *L, tc_builder *b, int64_t count, MlirValue *index);
  /* A tile buffer of type memref_type (bytes long) in memory all of a program's threads
   * share, for buffers written by shared-out nests; null where the nest being emitted is the
   * thread's own (computed redundantly): a buffer on its stack then. NULL: buffers are the
   * program's stack (conversion/memory.c). */
  MlirValue (*alloc_shared)(tc_lower *L, MlirType memref_type, int64_t bytes);
  /* Backends whose program runs on many threads that deal a nest's chunks the same way for
   * every nest of one shape (nvptx): may the buffered tile `old` stay in each thread's
   * registers, because every consumer reads it only at the positions the thread itself
   * produced (same-shaped nests, elementwise ops, a row reduction)? Then alloc_thread_tile
   * gives it a buffer private to the thread (null: not possible), thread_tile_index the index
   * of a chunk in such a buffer (null: buf is not one) — a reduction whose operand may stay
   * in registers does not capture it (conversion/lower.c). NULL: never. */
  bool (*thread_tile)(tc_lower *L, MlirValue old);
  MlirValue (*alloc_thread_tile)(tc_lower *L, MlirValue old);
  MlirValue (*thread_tile_index)(tc_chunk *c, MlirValue buf, const tc_pos *pos);
  /* The same for tile i a scf.for carries in a buffer (conversion/regions.c): a buffer
   * private to the thread when the body reads it, and the code after the loop its result,
   * only where the thread produced it (layer norm's `acc += x` across column blocks); null:
   * a shared buffer. NULL: never. */
  MlirValue (*alloc_carried_tile)(tc_lower *L, MlirOperation loop, int i);
  /* Loop-carried tiles in the backend's own registers (above; conversion/regions.c); NULL: none. */
  const tc_loop_carries *loop_carries;
  /* A costly tile two consumers need (conversion/lower.c's materialize_shared): true when the
   * backend computed `old` into registers of its own (nvptx: a tile computed from a tl.dot
   * result kept in the MMA fragments, whose consumers read it there); false: a buffer as
   * usual. NULL: never. */
  bool (*materialize_fragments)(tc_lower *L, MlirValue old);

  /* ---- op rows: how each tile op is lowered, and the instructions rows ask for ---- */
  /* The rows, indexed by tile op (conversion/op_table.c has the CPU's; nvptx replaces some). */
  const tc_op_lowering *(*op_rows)(void);
  /* A prefetch of view[index] (a memref element) for reading or writing. NULL: none. */
  void (*prefetch)(tc_builder *b, MlirValue view, MlirValue index, bool write);
  /* Dot in pairs (conversion/dot.c): acc += a.lo * b.lo + a.hi * b.hi in each lane, where
   * a and b are vector<lanes x i32> whose lanes hold two 16-bit values of the kind's type
   * and acc is vector<lanes x i32> (TC_PAIR_I16) or vector<lanes x f32> (TC_PAIR_BF16),
   * lanes = pair_dot_lanes(t, kind). NULL: none. */
  MlirValue (*pair_dot)(tc_builder *b, tc_pair_kind kind, MlirValue acc, MlirValue a, MlirValue bv);

  /* ---- code generation: the stages after the lowering (conversion/pipeline.c) ---- */
  /* math.* ops of the vector stage to the backend's math library (SLEEF, libdevice). */
  tilec_status *(*lower_math)(MlirModule module, const tc_target *t, bool fast_math);
  /* From the LLVM dialect: LLVM IR text, assembly text, or object bytes (*out malloc'ed). */
  tilec_status *(*emit)(MlirModule module, tc_stage stage, const tc_target *t, const tc_codegen_options *opts,
                        char **out, size_t *len);
} tc_backend;

extern const tc_backend tc_backend_cpu;
extern const tc_backend tc_backend_nvptx;     /* backend/nvptx.c */
extern const tc_backend tc_backend_nvptx_emu; /* backend/nvptx.c: the nvptx lowering on this CPU */
/* The CPU backend's LLVM preparation (target CPU and features on every function). */
tilec_status *tc_backend_cpu_prepare(LLVMModuleRef m, const tc_target *t);

/* The backend that compiles for t. */
const tc_backend *tc_backend_for(const tc_target *t);

/* backend/llvm_emit.c, for backends that generate code with LLVM: translates an
 * LLVM-dialect module, sets t's triple and data layout, calls prepare (may be NULL) on
 * the LLVM module, runs default<O{opt_level}>, calls finish (may be NULL: rewrites no
 * optimization may undo), and prints IR or emits assembly/object. */
typedef tilec_status *(*tc_llvm_prepare)(LLVMModuleRef m, const tc_target *t);
tilec_status *tc_llvm_emit(MlirModule module, tc_stage stage, const tc_target *t, const tc_codegen_options *opts,
                           tc_llvm_prepare prepare, tc_llvm_prepare finish, char **out, size_t *len);

#endif
