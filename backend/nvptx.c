/* backend/nvptx.c — the NVPTX backend: PTX for NVIDIA GPUs from the same lowering as the
 * CPU, correct first. One program is one CTA of 32 * num_warps threads (Triton's model).
 * A loop nest's chunks (128 bits of lanes, a thread's widest global access) are dealt to
 * the CTA's threads round-robin (chunk c runs on thread c mod nthreads), as straight-line
 * code when each thread has at most 16 (its loads all issued before its stores); barriers
 * stand only where they order memory accesses of different threads. Scalar code runs in
 * every thread, scalar stores and atomics on thread 0 only. A tile that nests over its shape
 * read where they wrote it stays in each thread's registers; one read at other positions
 * lives in dynamic shared memory;
 * reductions and scans are computed by the threads together through warp shuffles and
 * shared memory (backend/nvptx_reduce.c); dot and sort are computed whole by every thread
 * into its own buffers (no mma.sync yet). Math follows Triton on NVIDIA: fp32 `/` is div.full.f32,
 * tl.exp ex2.approx.f32 of x * log2(e), tl.exp2/sqrt/rsqrt their .approx.ftz instructions
 * (the accurate forms div_rn, sqrt_rn, libdevice.exp/exp2 stay IEEE / libdevice), the other
 * functions libdevice's (__nv_* functions, linked from the libdevice.10.bc found on the
 * system), and each kernel gets a PTX entry taking the
 * kernel's parameters and reading its program id from %ctaid. device_print/device_assert
 * run on thread 0 through CUDA's vprintf/__assertfail.
 *
 * tc_backend_nvptx_emu runs the same lowering on this CPU: thread ids, barriers and shared
 * memory come from runtime/emu.c, each program is a CTA of real threads, math is SLEEF
 * (tl.exp in the GPU's form, exp2 of x * log2(e)).
 * In: a target with is_nvptx or gpu_emulation. Out: the two backends. */
#include "backend/nvptx.h"

#include "conversion/analyses.h"
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"
#include "dialects/tile.h"
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <mlir-c/Dialect/LLVM.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KERNEL_PREFIX "__tilec_kernel_"

static int chunk_bits(const tc_target *t) {
  (void)t;
  return 128; /* a thread's widest global access: ld.global.v4.f32 */
}

/* The tile loads and stores a kernel's chunk width is chosen by: those of the deepest loop
 * nest (the accesses that run most), the widest element among them; a tl.dot anywhere sets
 * dot (its operands and layouts are nvptx_dot.c's: 4 lanes). */
typedef struct access_scan {
  MlirOperation fn;
  int depth, bits;
  bool dot;
} access_scan;

/* The loops around op inside fn. */
static int loop_depth(MlirOperation op, MlirOperation fn) {
  int d = 0;
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p) && !mlirOperationEqual(p, fn);
       p = mlirOperationGetParentOperation(p))
    d += tc_op_is(p, "scf.for") || tc_op_is(p, "scf.while");
  return d;
}

static MlirWalkResult scan_access(MlirOperation op, void *user) {
  access_scan *s = user;
  tile_op_id k = tile_op_of(op);
  if (k == TILE_DOT) {
    s->dot = true;
    return MlirWalkResultInterrupt;
  }
  if (k != TILE_LOAD && k != TILE_STORE) return MlirWalkResultAdvance;
  MlirType t = mlirValueGetType(mlirOperationGetOperand(op, 0));
  if (!mlirTypeIsARankedTensor(t)) return MlirWalkResultAdvance; /* scalar accesses: one thread's */
  MlirType pointee = tile_ptr_pointee(mlirShapedTypeGetElementType(t));
  int b = tile_type_is_ptr(pointee) ? 64 : (int)tcb_bitwidth(pointee), d = loop_depth(op, s->fn);
  if (d > s->depth) s->depth = d, s->bits = b;
  else if (d == s->depth && b > s->bits) s->bits = b;
  return MlirWalkResultAdvance;
}

/* Chunks of 4 lanes are a thread's 16-byte access of 32-bit elements; a kernel without tl.dot
 * whose hottest tile loads and stores (those of its deepest loops) are all of 16-bit (or
 * narrower) elements gets chunks of 8 lanes, so those accesses are 16 bytes too (Triton's
 * 128-bit vectors: LLM backward kernels read bf16 rows in a loop and store fp32 partial sums
 * once after it, each such store then two 16-byte accesses a chunk). */
static int kernel_chunk_bits(tc_lower *L, MlirOperation fn) {
  access_scan s = {.fn = fn, .depth = -1};
  mlirOperationWalk(fn, scan_access, &s, MlirWalkPreOrder);
  return !s.dot && s.bits > 0 && s.bits <= 16 ? 2 * chunk_bits(L->target) : chunk_bits(L->target);
}

static int vector_registers(const tc_target *t) {
  (void)t;
  return 16; /* what a thread may keep of a loop-carried tile before it spills */
}

static bool select_minmax(const tc_target *t) {
  (void)t;
  return false;
}

/* ---- nests: chunks dealt to the CTA's threads ------------------------------------------ */

/* The read of %tid.x that LLVM may not merge with another (an inline asm with side effects). */
#define FRESH_TID_ASM "mov.u32 $0, %tid.x;"

/* Is op tc_nvptx_fresh_thread_id's read of %tid.x? */
static bool is_fresh_tid(MlirOperation op) {
  if (!tc_op_is(op, "llvm.inline_asm")) return false;
  MlirAttribute s = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("asm_string"));
  return !mlirAttributeIsNull(s) && mlirAttributeIsAString(s) &&
         mlirStringRefEqual(mlirStringAttrGetValue(s), mlirStringRefCreateFromCString(FRESH_TID_ASM));
}

void tc_nvptx_fresh_thread_id(tc_lower *L, tc_builder *b) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  if (L->target->gpu_emulation || !k) return;
  MlirType i32 = tcb_int_type(b->ctx, 32);
  MlirNamedAttribute a[3] = {
      tcb_named(b->ctx, "asm_string", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(FRESH_TID_ASM))),
      tcb_named(b->ctx, "constraints", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString("=r"))),
      tcb_named(b->ctx, "has_side_effects", mlirUnitAttrGet(b->ctx))};
  MlirValue tid = tcb_op1(b, "llvm.inline_asm", i32, 0, NULL, 3, a);
  /* what LLVM knew of the intrinsic's range: tid < threads (the nests' checks fold) */
  MlirValue lt = tcb_cmpi(b, "ult", tid, tcb_const_int(b, i32, tc_target_threads(L->target)));
  MlirNamedAttribute bundles = tcb_named(L->ctx, "op_bundle_sizes", mlirDenseI32ArrayGet(L->ctx, 0, NULL));
  tcb_op(b, "llvm.intr.assume", 0, NULL, 1, &lt, 1, &bundles);
  if (k->nfresh < TC_NVPTX_MAX_FRESH) k->fresh[k->nfresh++] = (struct tc_nvptx_fresh){tid, b->block};
}

/* %tid.x on the GPU; the emulator's thread id on the CPU (runtime/emu.c). */
MlirValue tc_nvptx_thread_id(tc_lower *L, tc_builder *b) {
  MlirType i32 = tcb_int_type(b->ctx, 32);
  MlirValue tid;
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  int fresh = -1; /* the innermost read anew whose block holds b's */
  for (int i = 0; k && i < k->nfresh; i++)
    if (tc_block_encloses(k->fresh[i].block, b->block) &&
        (fresh < 0 || tc_block_encloses(k->fresh[fresh].block, k->fresh[i].block)))
      fresh = i;
  if (fresh >= 0) {
    tid = k->fresh[fresh].tid;
  } else if (L->target->gpu_emulation) {
    tid = tc_call_runtime_value(L, b, "tilec_rt_emu_thread_id", i32, 0, NULL);
  } else {
    /* [0, threads): LLVM folds the checks a thread's chunks make against the CTA's span (the
     * kernel's body is a function of its own, so the entry's nvvm.maxntid does not reach it). */
    char range[64];
    snprintf(range, sizeof range, "#llvm.constant_range<i32, 0, %d>", tc_target_threads(L->target));
    MlirNamedAttribute attr = tcb_named(b->ctx, "range", tcb_attr(b->ctx, range));
    tid = tcb_op1(b, "nvvm.read.ptx.sreg.tid.x", i32, 0, NULL, 1, &attr);
  }
  return tcb_cast(b, "arith.index_cast", tid, tcb_index(b->ctx));
}

void tc_nvptx_unroll(tc_lower *L, MlirOperation loop, bool unroll) {
  mlirOperationSetAttributeByName(loop, mlirStringRefCreateFromCString("loop_annotation"),
                                  tcb_attr(L->ctx, unroll ? "#llvm.loop_annotation<unroll = <full = true>>"
                                                          : "#llvm.loop_annotation<unroll = <disable = true>>"));
}

/* bar.sync 0 on the GPU; the emulated CTA's barrier on the CPU. Only ever emitted where
 * every thread of the CTA gets (scalar control flow is the same in every thread). */
void tc_nvptx_barrier(tc_lower *L, tc_builder *b) {
  if (L->target->gpu_emulation) tc_call_runtime(L, b, "tilec_rt_emu_barrier", 0, NULL);
  else tcb_op(b, "nvvm.barrier0", 0, NULL, 0, NULL, 0, NULL);
}

#define SHARED_READ_MARK "tilec.shared_read" /* tc_nvptx_mark_shared_read's inline asm */

void tc_nvptx_asm(tc_lower *L, tc_builder *b, const char *ptx) {
  if (L->target->gpu_emulation) return;
  MlirNamedAttribute a[3] = {
      tcb_named(b->ctx, "asm_string", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString(ptx))),
      tcb_named(b->ctx, "constraints", mlirStringAttrGet(b->ctx, mlirStringRefCreateFromCString("~{memory}"))),
      tcb_named(b->ctx, "has_side_effects", mlirUnitAttrGet(b->ctx))};
  tc_nvptx_mark_shared_read(tcb_op(b, "llvm.inline_asm", 0, NULL, 0, NULL, 3, a));
}

void tc_nvptx_mark_shared_read(MlirOperation op) {
  mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString(SHARED_READ_MARK),
                                  mlirUnitAttrGet(mlirOperationGetContext(op)));
}

/* ---- barriers only where they order something -------------------------------------------
 * A nest is fenced by a barrier before it when it reads or writes memory other threads may
 * have written or read (shared or global: every memory op except on a thread's own allocas,
 * its registers once LLVM promotes them), and after it when it writes such memory. A nest
 * that only computes in registers (a tile kept there, backend.h thread_tile) needs neither.
 * After the kernel is lowered (end_kernel), a barrier with no such mem_access between it and
 * the kernel's start (no write), its end (no access) or the barrier before it goes.
 *
 * Owned accesses: a nest's contiguous access marked TC_OWNER_ATTR (memory.c) through a base
 * pointer b computed once per program (outside every loop), its first element at a byte
 * offset from b that is a multiple of B * T (B the chunk's bytes, T threads), touches the
 * byte at address a only from thread ((a - b) / B) mod T. Two such accesses through the same
 * b (or through b1, b2 with b1 - b2 a multiple of B * T) with the same B touch each address
 * from the same thread, which orders them itself: no barrier between them (cross entropy's
 * loop loads logits and stores the gradient in place, each thread its own chunks). Through
 * bases not known to be congruent the barrier stays, run only when they are not (a uniform
 * test of b1 - b2, scf.if around it: a conditional barrier). A conditional barrier orders
 * nothing for the analysis of the others (they judge as if it were not there). */

#define COND_BARRIER_MARK "tilec.cond_barrier"
#define SHARED_READ_MARK "tilec.shared_read"   /* tc_nvptx_mark_shared_read's inline asm */
#define SHARED_GROUP_MARK "tilec.shared_group" /* pack_shared's groups of buffers sharing bytes */

static bool marked(MlirOperation op, const char *mark) {
  return !mlirAttributeIsNull(mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(mark)));
}

/* The function a func.call calls ("" for any other op): the emulator's runtime calls. */
static MlirStringRef callee_of(MlirOperation op) {
  MlirAttribute a = tc_op_is(op, "func.call")
                        ? mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("callee"))
                        : mlirAttributeGetNull();
  return mlirAttributeIsNull(a) ? mlirStringRefCreateFromCString("") : mlirSymbolRefAttrGetRootReference(a);
}

static bool calls(MlirOperation op, const char *name) {
  return mlirStringRefEqual(callee_of(op), mlirStringRefCreateFromCString(name));
}

/* A barrier op (nvvm.barrier0 or the emulator's call), conditional ones included. */
static bool any_barrier(MlirOperation op) { return tc_op_is(op, "nvvm.barrier0") || calls(op, "tilec_rt_emu_barrier"); }

/* A barrier that orders everything (not a conditional one). */
static bool is_barrier(MlirOperation op) { return any_barrier(op) && !marked(op, COND_BARRIER_MARK); }

static bool private_memory(MlirValue v) {
  if (!mlirValueIsAOpResult(v)) return false;
  MlirOperation d = mlirOpResultGetOwner(v);
  return tc_op_is(d, "memref.alloca") || tc_op_is(d, "llvm.alloca");
}

/* What code does to memory other threads may see: reads and writes of shared memory and of
 * global memory (a view of a pointer, an offset from a kernel's pointer argument). Shared
 * buffers (tc_nvptx_alloc_shared's, never reused) are told apart, up to TRACKED of each;
 * an access through anything else counts as one of any buffer and of global memory. */
enum { SHARED_R = 1, SHARED_W = 2, GLOBAL_R = 4, GLOBAL_W = 8, SHARED_ANY_R = 16, SHARED_ANY_W = 32, ALL = 63 };
/* Global memory only thread 0 reads or writes (scalar stores run there): never ordered
 * against thread 0's own accesses, against the others' as GLOBAL_R / GLOBAL_W. */
enum { THREAD0_R = 64, THREAD0_W = 128 };
#define TRACKED 8
typedef struct owned {
  MlirValue base; /* the base pointer (defined outside every loop) */
  int64_t bytes;  /* its chunks' bytes */
  bool spans;     /* the tile's bytes from base are known: [lo, hi) */
  int64_t lo, hi;
} owned;
/* A scalar access thread 0 makes (a scalar store, a scalar load of a thread-0 branch). */
typedef struct scalar0 {
  MlirValue ptr;
  int64_t bytes;
} scalar0;
typedef struct mem_access {
  unsigned bits;
  int nr, nw, nor, now, n0r, n0w;
  const void *r[TRACKED], *w[TRACKED];  /* the shared buffers read, written */
  owned own_r[TRACKED], own_w[TRACKED]; /* the owned global accesses: reads, writes */
  scalar0 t0_r[TRACKED], t0_w[TRACKED]; /* thread 0's scalar accesses (THREAD0_R / _W) */
  bool t0_untracked;                    /* some of thread 0's accesses are not among them */
} mem_access;

static const mem_access NONE = {0}, EVERYTHING = {.bits = ALL};

static void add_buffer(mem_access *a, const void *buf, bool write) {
  const void **list = write ? a->w : a->r;
  int *n = write ? &a->nw : &a->nr;
  a->bits |= write ? SHARED_W : SHARED_R;
  for (int i = 0; i < *n; i++)
    if (list[i] == buf) return;
  if (*n == TRACKED) a->bits |= write ? SHARED_ANY_W : SHARED_ANY_R;
  else list[(*n)++] = buf;
}

/* An owned access through o.base; past TRACKED of them, an access of any global memory. */
static void add_owned(mem_access *a, owned o, bool write) {
  owned *list = write ? a->own_w : a->own_r;
  int *n = write ? &a->now : &a->nor;
  for (int i = 0; i < *n; i++)
    if (mlirValueEqual(list[i].base, o.base) && list[i].bytes == o.bytes && list[i].spans == o.spans &&
        (!o.spans || (list[i].lo == o.lo && list[i].hi == o.hi)))
      return;
  if (*n == TRACKED) a->bits |= write ? GLOBAL_W : GLOBAL_R;
  else list[(*n)++] = o;
}

/* A scalar access of thread 0 (its THREAD0_R / _W bit set by the caller). */
static void add_scalar0(mem_access *a, scalar0 x, bool write) {
  scalar0 *list = write ? a->t0_w : a->t0_r;
  int *n = write ? &a->n0w : &a->n0r;
  for (int i = 0; i < *n; i++)
    if (mlirValueEqual(list[i].ptr, x.ptr) && list[i].bytes == x.bytes) return;
  if (*n == TRACKED) a->t0_untracked = true;
  else list[(*n)++] = x;
}

static void merge(mem_access *a, const mem_access *b) {
  a->bits |= b->bits;
  a->t0_untracked |= b->t0_untracked;
  for (int i = 0; i < b->n0r; i++) add_scalar0(a, b->t0_r[i], false);
  for (int i = 0; i < b->n0w; i++) add_scalar0(a, b->t0_w[i], true);
  for (int i = 0; i < b->nr; i++) add_buffer(a, b->r[i], false);
  for (int i = 0; i < b->nw; i++) add_buffer(a, b->w[i], true);
  for (int i = 0; i < b->nor; i++) add_owned(a, b->own_r[i], false);
  for (int i = 0; i < b->now; i++) add_owned(a, b->own_w[i], true);
}

static bool writes(const mem_access *a) { return (a->bits & (SHARED_W | GLOBAL_W | THREAD0_W)) != 0 || a->now > 0; }
static bool touches(const mem_access *a) { return a->bits || a->nor || a->now; }

/* The pointer a memref view of a pointer (memory.c's tc_memref_from_ptr) was built from. */
static MlirValue view_pointer(MlirValue m) {
  if (!mlirValueIsAOpResult(m) || !tc_op_is(mlirOpResultGetOwner(m), "builtin.unrealized_conversion_cast"))
    return (MlirValue){NULL};
  MlirValue d = mlirOperationGetOperand(mlirOpResultGetOwner(m), 0);
  MlirOperation last = {NULL};
  for (int i = 0; i < 16 && mlirValueIsAOpResult(d) && tc_op_is(mlirOpResultGetOwner(d), "llvm.insertvalue"); i++) {
    last = mlirOpResultGetOwner(d);
    d = mlirOperationGetOperand(last, 0);
  }
  if (mlirOperationIsNull(last) || !mlirValueIsAOpResult(d) || !tc_op_is(mlirOpResultGetOwner(d), "llvm.mlir.poison"))
    return (MlirValue){NULL};
  return mlirOperationGetOperand(last, 1);
}

/* Is v computed once per program: not inside a loop? */
static bool outside_loops(MlirValue v) {
  MlirOperation o = mlirValueIsAOpResult(v) ? mlirOperationGetParentOperation(mlirOpResultGetOwner(v))
                                            : mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  for (; !mlirOperationIsNull(o) && !tc_op_is(o, "func.func"); o = mlirOperationGetParentOperation(o))
    if (tc_op_is(o, "scf.for") || tc_op_is(o, "scf.while") || tc_op_is(o, "scf.parallel")) return false;
  return !mlirOperationIsNull(o);
}

/* The owned access op makes through memref m (its TC_OWNER_ATTR kept by mark_owned), or a
 * null base. */
static owned owned_access(MlirOperation op, MlirValue m) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(TC_OWNER_ATTR));
  if (mlirAttributeIsNull(a)) return (owned){{NULL}, 0, false, 0, 0};
  bool spans = mlirDenseArrayGetNumElements(a) >= 4;
  return (owned){view_pointer(m), mlirDenseI64ArrayGetElement(a, 0), spans,
                 spans ? mlirDenseI64ArrayGetElement(a, 2) : 0, spans ? mlirDenseI64ArrayGetElement(a, 3) : 0};
}

/* Which shared buffer a tc_nvptx_alloc_shared memref is: buffers packed into the same
 * bytes (pack_shared) are one. */
static const void *buffer_key(MlirValue v);

/* Does op carry an address from its first operand to its result (a cast, an offset by GEP)?
 * What the walks over shared addresses below go through, besides additions. */
static bool address_cast(MlirOperation op) {
  static const char *const casts[] = {"llvm.addrspacecast", "llvm.inttoptr", "llvm.ptrtoint", "arith.index_cast",
                                      "arith.index_castui", "arith.extui",   "arith.trunci",  "llvm.getelementptr"};
  for (size_t i = 0; i < sizeof casts / sizeof casts[0]; i++)
    if (tc_op_is(op, casts[i])) return true;
  return false;
}

/* The tc_nvptx_alloc_shared buffer (its memref.cast) an address or view v is computed from
 * — a stage of the K-loop pipeline, an ldmatrix or cp.async address: its aligned pointer
 * plus offsets, cast — or null (none, or more than one). */
static MlirValue shared_buffer_behind(MlirValue v, int depth) {
  MlirValue none = {NULL};
  if (depth > 12 || !mlirValueIsAOpResult(v)) return none;
  MlirOperation d = mlirOpResultGetOwner(v);
  if (tc_op_is(d, "memref.extract_aligned_pointer_as_index")) {
    MlirValue m = mlirOperationGetOperand(d, 0);
    if (mlirValueIsAOpResult(m) && tc_op_is(mlirOpResultGetOwner(m), "memref.cast")) return m;
    return shared_buffer_behind(m, depth + 1); /* a view of a stage */
  }
  if (tc_op_is(d, "builtin.unrealized_conversion_cast")) {
    MlirValue p = view_pointer(v);
    return mlirValueIsNull(p) ? none : shared_buffer_behind(p, depth + 1);
  }
  if (address_cast(d)) return shared_buffer_behind(mlirOperationGetOperand(d, 0), depth + 1);
  if (!tc_op_is(d, "arith.addi") && !tc_op_is(d, "llvm.add")) return none;
  MlirValue x = shared_buffer_behind(mlirOperationGetOperand(d, 0), depth + 1),
            y = shared_buffer_behind(mlirOperationGetOperand(d, 1), depth + 1);
  if (mlirValueIsNull(x)) return y;
  return mlirValueIsNull(y) ? x : none; /* the sum of two addresses: not one buffer's */
}

/* What an access through address v (memref or pointer) may touch. */
static mem_access space_of(MlirValue v, bool write) {
  mem_access a = NONE;
  unsigned global = write ? GLOBAL_W : GLOBAL_R, any = write ? SHARED_ANY_W | SHARED_W : SHARED_ANY_R | SHARED_R;
  MlirValue sb = shared_buffer_behind(v, 0);
  if (!mlirValueIsNull(sb)) {
    add_buffer(&a, buffer_key(sb), write);
    return a;
  }
  for (int i = 0; i < 16 && mlirValueIsAOpResult(v) && tc_op_is(mlirOpResultGetOwner(v), "llvm.getelementptr"); i++)
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  if (!mlirValueIsAOpResult(v)) {
    MlirOperation f = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    a.bits = !mlirOperationIsNull(f) && tc_op_is(f, "func.func") && mlirTypeIsALLVMPointerType(mlirValueGetType(v))
                 ? global
                 : global | any;
    return a;
  }
  MlirOperation d = mlirOpResultGetOwner(v);
  if (tc_op_is(d, "memref.cast")) add_buffer(&a, buffer_key(v), write);        /* tc_nvptx_alloc_shared's */
  else if (tc_op_is(d, "builtin.unrealized_conversion_cast")) a.bits = global; /* a view of a pointer */
  else a.bits = global | any;
  return a;
}

/* Is v the thread's index in its CTA (%tid.x or the emulator's, maybe cast)? */
static bool is_thread_id(MlirValue v) {
  for (int i = 0; i < 4 && mlirValueIsAOpResult(v); i++) {
    MlirOperation d = mlirOpResultGetOwner(v);
    if (tc_op_is(d, "nvvm.read.ptx.sreg.tid.x") || is_fresh_tid(d)) return true;
    if (tc_op_is(d, "func.call")) return calls(d, "tilec_rt_emu_thread_id");
    if (!tc_op_is(d, "arith.index_cast") && !tc_op_is(d, "arith.index_castui") && !tc_op_is(d, "arith.extui") &&
        !tc_op_is(d, "arith.extsi"))
      return false;
    v = mlirOperationGetOperand(d, 0);
  }
  return false;
}

static bool is_int_zero(MlirValue v) {
  if (!mlirValueIsAOpResult(v) || !tc_op_is(mlirOpResultGetOwner(v), "arith.constant")) return false;
  MlirAttribute a = mlirOperationGetAttributeByName(mlirOpResultGetOwner(v), mlirStringRefCreateFromCString("value"));
  return mlirAttributeIsAInteger(a) && mlirIntegerAttrGetValueInt(a) == 0;
}

/* Does only thread 0 run op: is it in the then-branch of an scf.if on tid == 0 (the
 * lowering's guard of scalar stores and atomics)? */
static bool thread0_only(MlirOperation op) {
  for (MlirOperation o = op, p; !mlirOperationIsNull(p = mlirOperationGetParentOperation(o)); o = p) {
    if (tc_op_is(p, "func.func")) return false;
    if (!tc_op_is(p, "scf.if") ||
        !mlirRegionEqual(mlirBlockGetParentRegion(mlirOperationGetBlock(o)), mlirOperationGetRegion(p, 0)))
      continue;
    MlirValue c = mlirOperationGetOperand(p, 0);
    if (!mlirValueIsAOpResult(c) || !tc_op_is(mlirOpResultGetOwner(c), "arith.cmpi")) continue;
    MlirOperation cmp = mlirOpResultGetOwner(c);
    MlirAttribute pred = mlirOperationGetAttributeByName(cmp, mlirStringRefCreateFromCString("predicate"));
    if (mlirAttributeIsNull(pred) || !mlirAttributeIsAInteger(pred) || mlirIntegerAttrGetValueInt(pred) != 0)
      continue; /* arith.cmpi eq */
    MlirValue x = mlirOperationGetOperand(cmp, 0), y = mlirOperationGetOperand(cmp, 1);
    if ((is_thread_id(x) && is_int_zero(y)) || (is_thread_id(y) && is_int_zero(x))) return true;
  }
  return false;
}

/* What op (not its regions) does to such memory. */
static mem_access op_access(MlirOperation op) {
  static const char *const reads[] = {"vector.load", "vector.maskedload", "vector.gather", "memref.load", "llvm.load"};
  static const char *const stores[] = {"vector.store", "vector.maskedstore", "vector.scatter", "memref.store",
                                       "llvm.store"};
  int kind = 0;
  for (size_t i = 0; i < sizeof reads / sizeof reads[0] && !kind; i++)
    if (tc_op_is(op, reads[i])) kind = 1;
  for (size_t i = 0; i < sizeof stores / sizeof stores[0] && !kind; i++)
    if (tc_op_is(op, stores[i])) kind = 2;
  if (kind) {
    mem_access a = NONE;
    bool found = false;
    for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
      MlirValue v = mlirOperationGetOperand(op, i);
      MlirType t = mlirValueGetType(v);
      if (!mlirTypeIsAMemRef(t) && !mlirTypeIsALLVMPointerType(t)) continue;
      if (private_memory(v)) return NONE; /* the thread's own: registers */
      owned o = owned_access(op, v);
      if (!mlirValueIsNull(o.base)) {
        add_owned(&a, o, kind == 2);
        found = true;
        continue;
      }
      mem_access x = space_of(v, kind == 2);
      if ((x.bits == GLOBAL_R || x.bits == GLOBAL_W) && thread0_only(op)) {
        x.bits = kind == 2 ? THREAD0_W : THREAD0_R;
        /* an llvm.load / llvm.store of a scalar: its address and size, for the test against
         * owned tiles' spans (conflict) */
        MlirType t = kind == 2 ? mlirValueGetType(mlirOperationGetOperand(op, 0))
                               : mlirValueGetType(mlirOperationGetResult(op, 0));
        int64_t bytes = mlirTypeIsALLVMPointerType(t) ? 8 : (tcb_bitwidth(t) + 7) / 8;
        if (mlirTypeIsALLVMPointerType(mlirValueGetType(v)) &&
            (tc_op_is(op, "llvm.load") || tc_op_is(op, "llvm.store")) && bytes > 0)
          add_scalar0(&x, (scalar0){v, bytes}, kind == 2);
        else x.t0_untracked = true;
      }
      merge(&a, &x);
      found = true;
    }
    return found ? a : EVERYTHING;
  }
  if (any_barrier(op) && marked(op, COND_BARRIER_MARK)) return NONE; /* orders nothing for the analysis */
  /* tensor-core instructions: ldmatrix reads its shared buffer; cp.async reads global memory
   * and writes its shared buffer, the write landing by cp.async.wait_group, which counts as
   * a write of any shared buffer (a barrier after it makes a stage every thread's); mma,
   * cvt and the group's commit touch registers only */
  if (tc_op_is(op, "nvvm.ldmatrix")) return space_of(mlirOperationGetOperand(op, 0), false);
  if (tc_op_is(op, "nvvm.cp.async.shared.global") || calls(op, "tilec_rt_emu_cp_async")) { /* the emulator's too */
    mem_access a = space_of(mlirOperationGetOperand(op, 0), true), g = space_of(mlirOperationGetOperand(op, 1), false);
    merge(&a, &g);
    return a;
  }
  if (tc_op_is(op, "nvvm.cp.async.wait.group") || calls(op, "tilec_rt_emu_cp_async_wait"))
    return (mem_access){.bits = SHARED_W | SHARED_ANY_W};
  if (tc_op_is(op, "nvvm.mma.sync") || tc_op_is(op, "nvvm.convert.float.to.tf32") ||
      tc_op_is(op, "nvvm.cp.async.commit.group"))
    return NONE;
  if (tc_op_is(op, "func.call")) {
    /* the emulator's thread id, shuffles and shared base touch nothing a barrier orders (a
     * shuffle is an exchange of registers on the GPU); anything else may */
    MlirStringRef name = callee_of(op);
    static const char emu[] = "tilec_rt_emu_";
    if (calls(op, "tilec_rt_emu_ldmatrix_x4"))
      return space_of(mlirOperationGetOperand(op, 1), false); /* the emulated ldmatrix: its row's buffer */
    if (calls(op, "tilec_rt_emu_wgmma_m64nNk16")) {
      mem_access a = space_of(mlirOperationGetOperand(op, 2), false),
                 g = space_of(mlirOperationGetOperand(op, 4), false);
      merge(&a, &g); /* the emulated wgmma: its operands' stage buffers (A from registers: B's twice) */
      return a;
    }
    if (name.length > strlen(emu) && !strncmp(name.data, emu, strlen(emu)) && !is_barrier(op)) return NONE;
    return EVERYTHING;
  }
  if (is_fresh_tid(op)) return NONE;                                   /* a register read */
  if (tc_op_is(op, "llvm.inline_asm") && marked(op, SHARED_READ_MARK)) /* wgmma, its fences */
    return (mem_access){.bits = SHARED_R | SHARED_ANY_R};
  if (tc_op_is(op, "llvm.atomicrmw") || tc_op_is(op, "llvm.cmpxchg") || tc_op_is(op, "llvm.call") ||
      tc_op_is(op, "llvm.inline_asm") || tc_op_is(op, "memref.atomic_rmw") || tc_op_is(op, "memref.generic_atomic_rmw"))
    return EVERYTHING;
  if (tc_op_in_dialect(op, "nvvm") && !tc_op_is(op, "nvvm.read.ptx.sreg.tid.x") && !tc_op_is(op, "nvvm.shfl.sync"))
    return EVERYTHING; /* a barrier, mma with shared operands: as if it accessed everything */
  return NONE;
}

static MlirWalkResult walk_access(MlirOperation op, void *user) {
  mem_access x = op_access(op);
  merge(user, &x);
  return MlirWalkResultAdvance;
}

/* What op and the ops inside it do to such memory. */
static mem_access access_of(MlirOperation op) {
  mem_access a = NONE;
  mlirOperationWalk(op, walk_access, &a, MlirWalkPreOrder);
  return a;
}

static bool shares(const void *const *x, int nx, const void *const *y, int ny) {
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      if (x[i] == y[j]) return true;
  return false;
}

/* What must hold for accesses to need no barrier between them: base pointers a, b of owned
 * accesses congruent (mod their chunks' bytes * T; span 0), or a scalar of thread 0 at a
 * (bytes long) outside the span [b + lo, b + hi) of an owned tile (span 1). */
#define PAIRS (2 * TRACKED * TRACKED)
typedef struct base_pairs {
  int n;
  MlirValue a[PAIRS], b[PAIRS];
  int64_t bytes[PAIRS], lo[PAIRS], hi[PAIRS];
  bool span[PAIRS];
} base_pairs;

/* Owned accesses x (one of nx) then y: false when some pair must be ordered whatever the
 * bases; pairs through different bases are added to *p. */
static bool owned_pairs(const owned *x, int nx, const owned *y, int ny, base_pairs *p) {
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      if (x[i].bytes != y[j].bytes) return false;
      if (mlirValueEqual(x[i].base, y[j].base)) continue;
      bool known = false;
      for (int k = 0; k < p->n && !known; k++)
        known = !p->span[k] && p->bytes[k] == x[i].bytes &&
                ((mlirValueEqual(p->a[k], x[i].base) && mlirValueEqual(p->b[k], y[j].base)) ||
                 (mlirValueEqual(p->a[k], y[j].base) && mlirValueEqual(p->b[k], x[i].base)));
      if (known) continue;
      if (p->n == PAIRS) return false;
      p->a[p->n] = x[i].base;
      p->b[p->n] = y[j].base;
      p->span[p->n] = false;
      p->bytes[p->n++] = x[i].bytes;
    }
  return true;
}

/* Thread 0's scalar accesses x (one of nx) against owned accesses y (one of ny): false when
 * some pair must be ordered whatever the addresses (a tile with no known span); the others
 * are added to *p, to be ordered only when the scalar lies in the tile's span. */
static bool scalar_pairs(const scalar0 *x, int nx, const owned *y, int ny, base_pairs *p) {
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      if (!y[j].spans) return false;
      bool known = false;
      for (int k = 0; k < p->n && !known; k++)
        known = p->span[k] && mlirValueEqual(p->a[k], x[i].ptr) && mlirValueEqual(p->b[k], y[j].base) &&
                p->bytes[k] == x[i].bytes && p->lo[k] == y[j].lo && p->hi[k] == y[j].hi;
      if (known) continue;
      if (p->n == PAIRS) return false;
      p->a[p->n] = x[i].ptr;
      p->b[p->n] = y[j].base;
      p->bytes[p->n] = x[i].bytes;
      p->lo[p->n] = y[j].lo;
      p->hi[p->n] = y[j].hi;
      p->span[p->n++] = true;
    }
  return true;
}

/* Must code doing x run before code doing y in other threads (one writes what the other
 * reads or writes)? True when it must; false when not, or only where owned accesses go
 * through bases of *p that are not congruent. */
static bool conflict(const mem_access *x, const mem_access *y, base_pairs *p) {
  const unsigned global = GLOBAL_R | GLOBAL_W | THREAD0_R | THREAD0_W;
  bool xg = x->bits & global || x->nor || x->now, yg = y->bits & global || y->nor || y->now;
  bool xw = x->bits & (GLOBAL_W | THREAD0_W) || x->now, yw = y->bits & (GLOBAL_W | THREAD0_W) || y->now;
  if (((x->bits & GLOBAL_W) && yg) || ((y->bits & GLOBAL_W) && xg)) return true;
  if (((x->bits & GLOBAL_R) && yw) || ((y->bits & GLOBAL_R) && xw)) return true;
  /* thread 0's own accesses against the owned ones (thread 0's among them too: not told
   * apart), unless the scalar is outside the tile (its span known: a conditional barrier) */
  if ((x->t0_untracked && (((x->bits & THREAD0_W) && (y->nor || y->now)) || ((x->bits & THREAD0_R) && y->now))) ||
      (y->t0_untracked && (((y->bits & THREAD0_W) && (x->nor || x->now)) || ((y->bits & THREAD0_R) && x->now))))
    return true;
  if (!scalar_pairs(x->t0_w, x->n0w, y->own_r, y->nor, p) || !scalar_pairs(x->t0_w, x->n0w, y->own_w, y->now, p) ||
      !scalar_pairs(x->t0_r, x->n0r, y->own_w, y->now, p) || !scalar_pairs(y->t0_w, y->n0w, x->own_r, x->nor, p) ||
      !scalar_pairs(y->t0_w, y->n0w, x->own_w, x->now, p) || !scalar_pairs(y->t0_r, y->n0r, x->own_w, x->now, p))
    return true;
  if (!owned_pairs(x->own_w, x->now, y->own_r, y->nor, p) || !owned_pairs(x->own_w, x->now, y->own_w, y->now, p) ||
      !owned_pairs(x->own_r, x->nor, y->own_w, y->now, p))
    return true;
  if ((x->bits & SHARED_W) && (y->bits & (SHARED_R | SHARED_W))) {
    if ((x->bits & SHARED_ANY_W) || (y->bits & (SHARED_ANY_R | SHARED_ANY_W))) return true;
    if (shares(x->w, x->nw, y->r, y->nr) || shares(x->w, x->nw, y->w, y->nw)) return true;
  }
  if ((x->bits & SHARED_R) && (y->bits & SHARED_W)) {
    if ((x->bits & SHARED_ANY_R) || (y->bits & SHARED_ANY_W)) return true;
    if (shares(x->r, x->nr, y->w, y->nw)) return true;
  }
  return false;
}

typedef enum order { ORDER_NONE, ORDER_ALWAYS, ORDER_UNLESS_CONGRUENT } order;

/* What a barrier between code doing x and code doing y must order (either way round). */
static order order_of(const mem_access *x, const mem_access *y, base_pairs *p) {
  p->n = 0;
  if (conflict(x, y, p) || conflict(y, x, p)) return ORDER_ALWAYS;
  return p->n ? ORDER_UNLESS_CONGRUENT : ORDER_NONE;
}

/* Is v defined where op runs (before it in its block or an enclosing one)? */
static bool dominates(MlirValue v, MlirOperation op) {
  MlirBlock blk =
      mlirValueIsAOpResult(v) ? mlirOperationGetBlock(mlirOpResultGetOwner(v)) : mlirBlockArgumentGetOwner(v);
  for (MlirOperation o = op; !mlirOperationIsNull(o); o = mlirOperationGetParentOperation(o)) {
    if (!mlirBlockEqual(mlirOperationGetBlock(o), blk)) continue;
    if (!mlirValueIsAOpResult(v)) return true;
    for (MlirOperation q = mlirOpResultGetOwner(v); !mlirOperationIsNull(q); q = mlirOperationGetNextInBlock(q))
      if (mlirOperationEqual(q, o)) return !mlirOperationEqual(q, mlirOpResultGetOwner(v));
    return false;
  }
  return false;
}

/* Makes barrier `bar` run only when some pair of *p does not hold: bases not congruent,
 * (a - b) mod (bytes * T) != 0, or a scalar [a, a + bytes) meeting a span [b + lo, b + hi),
 * a uniform test (scf.if around it), and marks it conditional. False (nothing changed) when
 * a pointer is not defined at the barrier or bytes * T is not a power of two. */
static bool make_conditional(MlirOperation bar, const base_pairs *p, int64_t threads) {
  for (int i = 0; i < p->n; i++) {
    int64_t m = p->bytes[i] * threads;
    if ((!p->span[i] && (m <= 0 || (m & (m - 1)))) || !dominates(p->a[i], bar) || !dominates(p->b[i], bar))
      return false;
  }
  MlirContext ctx = mlirOperationGetContext(bar);
  tc_builder b;
  tcb_init(&b, ctx);
  b.loc = mlirOperationGetLocation(bar);
  tcb_set_before(&b, bar);
  MlirType i64 = tcb_int_type(ctx, 64);
  MlirValue any = {NULL};
  for (int i = 0; i < p->n; i++) {
    MlirValue a = tcb_cast(&b, "llvm.ptrtoint", p->a[i], i64), base = tcb_cast(&b, "llvm.ptrtoint", p->b[i], i64);
    MlirValue ne;
    if (p->span[i]) {
      /* a + bytes > base + lo && a < base + hi: a - (base + lo - bytes + 1) is below
       * hi - lo + bytes - 1 (unsigned, modulo 2^64: the interval of a's that meet the span) */
      MlirValue d = tcb_binary(&b, "arith.subi", a, base);
      d = tcb_binary(&b, "arith.subi", d, tcb_const_int(&b, i64, p->lo[i] - p->bytes[i] + 1));
      ne = tcb_cmpi(&b, "ult", d, tcb_const_int(&b, i64, p->hi[i] - p->lo[i] + p->bytes[i] - 1));
    } else {
      MlirValue d = tcb_binary(&b, "arith.subi", a, base);
      d = tcb_binary(&b, "arith.andi", d, tcb_const_int(&b, i64, p->bytes[i] * threads - 1));
      ne = tcb_cmpi(&b, "ne", d, tcb_const_int(&b, i64, 0));
    }
    any = mlirValueIsNull(any) ? ne : tcb_binary(&b, "arith.ori", any, ne);
  }
  tc_builder then;
  tcb_if(&b, any, 0, NULL, &then, NULL);
  MlirOperation y = tcb_op(&then, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  mlirOperationMoveBefore(bar, y);
  mlirOperationSetAttributeByName(bar, mlirStringRefCreateFromCString(COND_BARRIER_MARK), mlirUnitAttrGet(ctx));
  return true;
}

/* The op b emitted last. */
static MlirOperation just_emitted(const tc_builder *b) {
  MlirOperation o = mlirBlockGetFirstOperation(b->block), last = {NULL};
  for (; !mlirOperationIsNull(o) && !mlirOperationEqual(o, b->before); o = mlirOperationGetNextInBlock(o)) last = o;
  return last;
}

/* The ops after `from` up to b's insertion point. */
static mem_access access_since(MlirOperation from, const tc_builder *b) {
  mem_access a = NONE;
  for (MlirOperation o = mlirOperationGetNextInBlock(from);
       !mlirOperationIsNull(o) && !mlirOperationEqual(o, b->before); o = mlirOperationGetNextInBlock(o)) {
    mem_access x = access_of(o);
    merge(&a, &x);
  }
  return a;
}

MlirOperation tc_nvptx_last_op(const tc_builder *b) { return just_emitted(b); }

bool tc_nvptx_touches_memory(MlirOperation from, const tc_builder *b) {
  mem_access a = access_since(from, b);
  return touches(&a);
}

bool tc_nvptx_writes_memory(MlirOperation from, const tc_builder *b) {
  mem_access a = access_since(from, b);
  return writes(&a);
}

/* What the ops of a block from `from` on do until the block's first barrier (or its end:
 * then also `after`, what runs after the block until the next barrier). A loop whose body
 * starts with a barrier adds nothing (its first trip stops there) but does not stop the
 * scan (it may run no trip). */
static mem_access access_until_barrier(MlirOperation from, const mem_access *after) {
  mem_access a = NONE;
  for (MlirOperation o = from; !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    if (is_barrier(o)) return a;
    if (tc_op_is(o, "scf.for")) {
      MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(o, 0));
      mem_access head = NONE;
      MlirOperation first = mlirBlockGetFirstOperation(body);
      for (; !mlirOperationIsNull(first) && !is_barrier(first); first = mlirOperationGetNextInBlock(first)) {
        mem_access x = access_of(first);
        merge(&head, &x);
      }
      if (!mlirOperationIsNull(first)) { /* the body's barrier comes first: only what precedes it */
        merge(&a, &head);
        continue;
      }
    }
    mem_access x = access_of(o);
    merge(&a, &x);
  }
  merge(&a, after);
  return a;
}

/* What a loop body's ops do from just after barrier `at` (its top-level op) on, until the next
 * barrier of the body: at the body's end, `exit` (the loop's last trip: what follows the loop)
 * and the next trip from the body's start. */
static mem_access loop_until(MlirBlock body, MlirOperation at, const mem_access *exit) {
  mem_access a = NONE;
  for (MlirOperation o = mlirOperationGetNextInBlock(at); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    if (is_barrier(o)) return a;
    mem_access x = access_of(o);
    merge(&a, &x);
  }
  merge(&a, exit);
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o) && !is_barrier(o);
       o = mlirOperationGetNextInBlock(o)) {
    mem_access x = access_of(o);
    merge(&a, &x);
  }
  return a;
}

/* What ran since the body's barrier before `at`: back to the body's start, then `pre` (the
 * first trip: what ran before the loop since its last barrier) and the previous trip's ops
 * after the body's last barrier. */
static mem_access loop_since(MlirBlock body, MlirOperation at, const mem_access *pre) {
  mem_access a = NONE;
  MlirOperation o = mlirBlockGetFirstOperation(body), last_bar = {NULL};
  for (; !mlirOperationIsNull(o) && !mlirOperationEqual(o, at); o = mlirOperationGetNextInBlock(o))
    if (is_barrier(o)) last_bar = o;
  o = mlirOperationIsNull(last_bar) ? mlirBlockGetFirstOperation(body) : mlirOperationGetNextInBlock(last_bar);
  for (; !mlirOperationEqual(o, at); o = mlirOperationGetNextInBlock(o)) {
    mem_access x = access_of(o);
    merge(&a, &x);
  }
  if (!mlirOperationIsNull(last_bar)) return a;
  merge(&a, pre);
  last_bar = at; /* the previous trip: after the body's last barrier (at the latest, `at`) */
  for (o = mlirOperationGetNextInBlock(at); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    if (is_barrier(o)) last_bar = o;
  for (o = mlirOperationGetNextInBlock(last_bar); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o)) {
    mem_access x = access_of(o);
    merge(&a, &x);
  }
  return a;
}

/* Is bar the only barrier at the top level of body? */
static bool only_barrier(MlirBlock body, MlirOperation bar) {
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    if (is_barrier(o) && !mlirOperationEqual(o, bar)) return false;
  return true;
}

/* Drops the barriers at the top level of an scf.for body that order nothing, one at a time,
 * each judged against the barriers still there: what ran since the barrier before it (the
 * previous trip's tail and, on the first trip, `pre`) and what runs until the one after it
 * (the next trip's head and, after the last, `exit`) do not conflict. A barrier nested in
 * the body's ops counts as an access of everything (it is kept, and so are its neighbours).
 * The body's one barrier, when needed only for what ran before the loop (`pre`: a scalar
 * store before cross entropy's gradient loop), moves out of the trips: a copy before `loop`
 * orders `pre`, which becomes NONE (the caller's since), and the body's barrier is judged
 * without it (dropped, or made conditional). */
static void drop_loop_barriers(MlirOperation loop, mem_access *pre, const mem_access *exit, int64_t threads) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  base_pairs pairs;
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
         o = mlirOperationGetNextInBlock(o)) {
      if (!is_barrier(o)) continue;
      mem_access since = loop_since(body, o, pre), until = loop_until(body, o, exit);
      order k = order_of(&since, &until, &pairs);
      if (k == ORDER_ALWAYS && touches(pre) && only_barrier(body, o)) {
        /* the body's one barrier: without pre, can it go or be made conditional? */
        mem_access trips = loop_since(body, o, &NONE);
        order t = order_of(&trips, &until, &pairs);
        MlirOperation copy = mlirOperationClone(o);
        if (t == ORDER_NONE || (t == ORDER_UNLESS_CONGRUENT && make_conditional(o, &pairs, threads))) {
          mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(loop), loop, copy);
          *pre = NONE;
          if (t == ORDER_NONE) mlirOperationDestroy(o);
          dropped = true;
          break;
        }
        mlirOperationDestroy(copy);
      }
      if (k == ORDER_ALWAYS || (k == ORDER_UNLESS_CONGRUENT && !make_conditional(o, &pairs, threads))) continue;
      if (k == ORDER_NONE) mlirOperationDestroy(o);
      dropped = true;
      break;
    }
  }
}

/* Drops the barriers of block that order nothing: in order, a barrier goes when what ran
 * since the last barrier kept (`since` on entry: before the block) and what runs until the
 * next barrier (`after`: past the block's end) do not conflict. The branches of an scf.if
 * are blocks of their own (one runs, then what follows the if); a loop's body is seen
 * around its back edge (drop_loop_barriers: its barriers also order the next trip).
 * Returns what ran since the last barrier kept at the block's end. */
static mem_access drop_barriers(MlirBlock block, mem_access since, const mem_access *after, int64_t threads) {
  base_pairs pairs;
  for (MlirOperation o = mlirBlockGetFirstOperation(block), next; !mlirOperationIsNull(o); o = next) {
    next = mlirOperationGetNextInBlock(o);
    if (is_barrier(o)) {
      mem_access until = access_until_barrier(next, after);
      order k = order_of(&since, &until, &pairs);
      if (k == ORDER_NONE) mlirOperationDestroy(o);
      else if (k == ORDER_ALWAYS || !make_conditional(o, &pairs, threads)) since = NONE;
      continue; /* a conditional barrier: since goes on (it orders nothing for the others) */
    }
    if (tc_op_is(o, "scf.for")) {
      mem_access exit = access_until_barrier(next, after);
      MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(o, 0));
      drop_loop_barriers(o, &since, &exit, threads);
      MlirOperation last = {NULL};
      for (MlirOperation q = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(q);
           q = mlirOperationGetNextInBlock(q))
        if (is_barrier(q)) last = q;
      if (!mlirOperationIsNull(last)) { /* no trip: since; else the last trip's tail after its last barrier */
        for (MlirOperation q = mlirOperationGetNextInBlock(last); !mlirOperationIsNull(q);
             q = mlirOperationGetNextInBlock(q)) {
          mem_access x = access_of(q);
          merge(&since, &x);
        }
        continue;
      }
    }
    if (tc_op_is(o, "scf.if")) {
      /* one branch runs: what ran since the last barrier kept is what either branch leaves */
      mem_access rest = access_until_barrier(next, after), out = NONE;
      for (intptr_t r = 0; r < mlirOperationGetNumRegions(o); r++) {
        MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(o, r));
        mem_access x = mlirBlockIsNull(b) ? since : drop_barriers(b, since, &rest, threads);
        merge(&out, &x);
      }
      if (mlirOperationGetNumRegions(o) < 2) merge(&out, &since);
      since = out;
      continue;
    }
    mem_access x = access_of(o);
    merge(&since, &x);
  }
  return since;
}

/* ---- per-kernel state ------------------------------------------------------------------- */

tc_nvptx_kernel *tc_nvptx_kernel_of(tc_lower *L) { return L->backend_state; }

bool tc_nvptx_alone(tc_lower *L) {
  tc_nvptx_kernel *k = L->backend_state;
  return k->redundant || k->single_thread;
}

static void *begin_kernel(tc_lower *L) {
  (void)L;
  return calloc(1, sizeof(tc_nvptx_kernel));
}

/* Keeps the TC_OWNER_ATTR marks that make an access owned (see above: a base pointer outside
 * every loop, the first element's offset a multiple of the chunk's bytes * T), drops the
 * others (with a user pointer: the threads). */
static MlirWalkResult mark_owned(MlirOperation op, void *user) {
  MlirStringRef name = mlirStringRefCreateFromCString(TC_OWNER_ATTR);
  MlirAttribute a = mlirOperationGetAttributeByName(op, name);
  if (mlirAttributeIsNull(a)) return MlirWalkResultAdvance;
  int64_t threads = *(const int64_t *)user, bytes = mlirDenseI64ArrayGetElement(a, 0);
  int64_t offset_div = mlirDenseI64ArrayGetElement(a, 1);
  MlirValue m = {NULL};
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op) && mlirValueIsNull(m); i++)
    if (mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetOperand(op, i)))) m = mlirOperationGetOperand(op, i);
  MlirValue base = mlirValueIsNull(m) ? m : view_pointer(m);
  if (mlirValueIsNull(base) || !outside_loops(base) || bytes <= 0 || offset_div % (bytes * threads))
    mlirOperationRemoveAttributeByName(op, name);
  return MlirWalkResultAdvance;
}

/* Takes the analysis' marks off (the barrier ops' and the accesses'). */
static MlirWalkResult unmark(MlirOperation op, void *user) {
  (void)user;
  mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString(TC_OWNER_ATTR));
  mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString(COND_BARRIER_MARK));
  mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString(SHARED_GROUP_MARK));
  mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString(SHARED_READ_MARK));
  return MlirWalkResultAdvance;
}

/* ---- shared buffers packed by lifetime ----------------------------------------------------
 * tc_nvptx_alloc_shared gives each buffer its own bytes as the lowering asks for them (layer
 * norm's two loop-carried accumulators: 2 x 32 KB, which holds a CTA of 8 warps to 3 per SM).
 * After lowering, a buffer read and written only by loads and stores is live from its first
 * to its last use in program order (a loop around a use: the whole loop); a buffer whose
 * last use and another's first use have a barrier between them at the top level of a block
 * holding both (or lie in two branches of one scf.if) may take the same bytes. Buffers used
 * otherwise (a pointer taken: tl.dot's staging) and small ones keep bytes of their own, but for
 * those the lowering says live in one loop (the K-loop pipeline's stages: the loop is their
 * life). Buffers that share
 * bytes are one buffer for the barrier analysis (tilec.shared_group on their memref.cast). */

#define MAX_PACKED 64
static const char shared_group_keys[MAX_PACKED]; /* &shared_group_keys[g]: group g's key */

typedef struct span {
  int64_t start, end; /* an op's number in program order, the last number inside it */
} span;

static int64_t number_ops(MlirOperation op, tc_valmap *m, int64_t next) {
  span *sp = tc_valmap_put(m, op.ptr);
  int64_t start = next++;
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
        next = number_ops(o, m, next);
  sp = tc_valmap_get(m, op.ptr); /* the map may have grown */
  if (sp) *sp = (span){start, next - 1};
  return next;
}

typedef struct buf_life {
  bool pinned;               /* used otherwise than by loads and stores: live throughout */
  int64_t lo, hi;            /* first and last use (lo > hi: none) */
  MlirOperation first, last; /* the ops (or loops around them) at lo and hi */
  int64_t offset;            /* where it is placed */
} buf_life;

/* Does op only load or store through buf (its address operand, and no other)? */
static bool loads_or_stores(MlirOperation op, MlirValue buf) {
  static const struct {
    const char *name;
    int address; /* the memref operand */
  } ops[] = {{"vector.load", 0},  {"vector.maskedload", 0},  {"vector.gather", 0},  {"memref.load", 0},
             {"vector.store", 1}, {"vector.maskedstore", 0}, {"vector.scatter", 0}, {"memref.store", 1}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    if (!tc_op_is(op, ops[i].name)) continue;
    for (intptr_t j = 0; j < mlirOperationGetNumOperands(op); j++)
      if (mlirValueEqual(mlirOperationGetOperand(op, j), buf) != (j == ops[i].address)) return false;
    return true;
  }
  return false;
}

/* Adds a use of the buffer by `user` (a loop around it: the whole loop) to l; false where
 * the op is not numbered. */
static bool note_use(buf_life *l, MlirOperation user, const tc_valmap *m) {
  const span *sp = tc_valmap_get(m, user.ptr);
  if (!sp) return false;
  span s = *sp;
  MlirOperation first = user, last = user;
  for (MlirOperation a = mlirOperationGetParentOperation(user); !mlirOperationIsNull(a);
       a = mlirOperationGetParentOperation(a))
    if (tc_op_is(a, "scf.for") || tc_op_is(a, "scf.while")) {
      const span *as = tc_valmap_get(m, a.ptr);
      if (!as) return false;
      s = *as;
      first = last = a;
    }
  if (s.start < l->lo) l->lo = s.start, l->first = first;
  if (s.end > l->hi) l->hi = s.end, l->last = last;
  return true;
}

/* The uses of an address computed from a buffer's aligned pointer (v: the pointer, or a
 * value computed from it): the ops that compute further addresses from it, and the shared
 * accesses through them (ldmatrix, cp.async, loads and stores, the emulator's ldmatrix),
 * added to l; false where the address goes anywhere else (a loop's carried value, a call). */
static bool note_address_uses(buf_life *l, MlirValue v, const tc_valmap *m, int depth) {
  /* besides address_cast's: the offset arithmetic and a memref view's descriptor */
  static const char *const through[] = {"arith.addi", "arith.muli", "llvm.insertvalue",
                                        "builtin.unrealized_conversion_cast"};
  static const char *const access[] = {"nvvm.ldmatrix", "nvvm.cp.async.shared.global",
                                       "llvm.load",     "llvm.store",
                                       "vector.load",   "vector.store",
                                       "memref.load",   "memref.store",
                                       "func.call"};
  if (depth > 12) return false;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    bool ok = address_cast(user);
    for (size_t i = 0; i < sizeof through / sizeof through[0] && !ok; i++) ok = tc_op_is(user, through[i]);
    if (ok) { /* an address computed from v: where it goes */
      ok = note_use(l, user, m);
      for (intptr_t r = 0; ok && r < mlirOperationGetNumResults(user); r++)
        ok = note_address_uses(l, mlirOperationGetResult(user, r), m, depth + 1);
      if (!ok) return false;
      continue;
    }
    for (size_t i = 0; i < sizeof access / sizeof access[0] && !ok; i++)
      if (tc_op_is(user, access[i])) ok = true;
    if (ok && tc_op_is(user, "func.call")) /* the emulator's ldmatrix and cp.async; nothing else may */
      ok = calls(user, "tilec_rt_emu_ldmatrix_x4") || calls(user, "tilec_rt_emu_cp_async");
    if (!ok || !note_use(l, user, m)) return false;
  }
  return true;
}

static buf_life life_of(MlirValue buf, const tc_valmap *m) {
  buf_life l = {false, INT64_MAX, INT64_MIN, {NULL}, {NULL}, 0};
  for (MlirOpOperand u = mlirValueGetFirstUse(buf); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    /* an address taken (ldmatrix's, cp.async's): live where the addresses are used */
    bool ok = loads_or_stores(user, buf) ? note_use(&l, user, m)
              : tc_op_is(user, "memref.extract_aligned_pointer_as_index")
                  ? note_use(&l, user, m) && note_address_uses(&l, mlirOperationGetResult(user, 0), m, 0)
                  : false;
    if (!ok) {
      l.pinned = true;
      return l;
    }
  }
  return l;
}

/* Does every run of `later` come after a barrier that follows every run of `earlier` (a
 * barrier between their ancestors at the top level of the innermost block holding both), or
 * can the two never both run (two branches of one scf.if)? */
static bool separated(MlirOperation earlier, MlirOperation later) {
  for (MlirOperation b = later; !mlirOperationIsNull(b); b = mlirOperationGetParentOperation(b)) {
    MlirBlock blk = mlirOperationGetBlock(b);
    if (mlirBlockIsNull(blk)) return false;
    for (MlirOperation a = earlier; !mlirOperationIsNull(a); a = mlirOperationGetParentOperation(a)) {
      if (!mlirBlockEqual(mlirOperationGetBlock(a), blk)) continue;
      if (mlirOperationEqual(a, b)) { /* one op holds both: two branches of an scf.if? */
        if (!tc_op_is(a, "scf.if") || mlirOperationEqual(a, earlier) || mlirOperationEqual(b, later)) return false;
        MlirOperation x = earlier, y = later;
        while (!mlirOperationEqual(mlirOperationGetParentOperation(x), a)) x = mlirOperationGetParentOperation(x);
        while (!mlirOperationEqual(mlirOperationGetParentOperation(y), a)) y = mlirOperationGetParentOperation(y);
        MlirRegion rx = mlirBlockGetParentRegion(mlirOperationGetBlock(x));
        MlirRegion ry = mlirBlockGetParentRegion(mlirOperationGetBlock(y));
        return !mlirRegionEqual(rx, ry);
      }
      for (MlirOperation o = mlirOperationGetNextInBlock(a); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o)) {
        if (mlirOperationEqual(o, b)) return false;
        if (is_barrier(o)) return true;
      }
      return false;
    }
  }
  return false;
}

/* May buffers x and y (of xb, yb bytes) take the same bytes? Small ones (a reduction's
 * values per warp) keep their own: sharing would save little and cost the barrier between
 * one's last read and the other's first write that distinct bytes spare. */
#define PACK_MIN_BYTES 1024
static bool may_share(const buf_life *x, int64_t xb, const buf_life *y, int64_t yb) {
  if (x->pinned || y->pinned || xb < PACK_MIN_BYTES || yb < PACK_MIN_BYTES) return false;
  if (x->lo > x->hi || y->lo > y->hi) return true; /* one is never used */
  if (x->hi < y->lo) return separated(x->last, y->first);
  if (y->hi < x->lo) return separated(y->last, x->first);
  return false;
}

static const void *buffer_key(MlirValue v) {
  MlirAttribute g =
      mlirOperationGetAttributeByName(mlirOpResultGetOwner(v), mlirStringRefCreateFromCString(SHARED_GROUP_MARK));
  if (mlirAttributeIsNull(g)) return v.ptr;
  int64_t i = mlirIntegerAttrGetValueInt(g);
  return i >= 0 && i < MAX_PACKED ? (const void *)&shared_group_keys[i] : v.ptr;
}

static void record_shared_bytes(tc_lower *L);

/* Packs the kernel's shared buffers (see above), marks the groups that share bytes. */
static void pack_shared(tc_lower *L) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  int n = k->nbufs;
  if (n < 2 || n > MAX_PACKED) return;
  tc_valmap m;
  tc_valmap_init(&m, sizeof(span));
  number_ops(L->new_func, &m, 0);
  buf_life life[MAX_PACKED];
  for (int i = 0; i < n; i++) {
    const span *ls = mlirOperationIsNull(k->bufs[i].loop) ? NULL : tc_valmap_get(&m, k->bufs[i].loop.ptr);
    life[i] =
        ls ? (buf_life){false, ls->start, ls->end, k->bufs[i].loop, k->bufs[i].loop, 0} : life_of(k->bufs[i].view, &m);
  }
  tc_valmap_free(&m);
  int64_t total = 0;
  for (int i = 0; i < n; i++) { /* first fit, in the order the lowering asked */
    int64_t at = 0, al = k->bufs[i].align;
    for (bool moved = true; moved;) {
      moved = false;
      for (int j = 0; j < i; j++)
        if (life[j].offset < at + k->bufs[i].bytes && at < life[j].offset + k->bufs[j].bytes &&
            !may_share(&life[i], k->bufs[i].bytes, &life[j], k->bufs[j].bytes)) {
          at = (life[j].offset + k->bufs[j].bytes + al - 1) & ~(al - 1);
          moved = true;
        }
    }
    life[i].offset = at;
    if (at + k->bufs[i].bytes > total) total = at + k->bufs[i].bytes;
  }
  if (total >= k->shared_bytes) return; /* nothing gained: the offsets stay */
  int group[MAX_PACKED];
  for (int i = 0; i < n; i++) group[i] = i;
  for (int i = 0; i < n; i++) /* buffers that share bytes (transitively): one group */
    for (int j = 0; j < i; j++)
      if (life[j].offset < life[i].offset + k->bufs[i].bytes && life[i].offset < life[j].offset + k->bufs[j].bytes) {
        int gi = group[i], gj = group[j];
        for (int q = 0; q < n; q++)
          if (group[q] == gi) group[q] = gj;
      }
  MlirType i64 = tcb_int_type(L->ctx, 64);
  for (int i = 0; i < n; i++) {
    mlirOperationSetAttributeByName(k->bufs[i].offset, mlirStringRefCreateFromCString("value"),
                                    mlirIntegerAttrGet(i64, life[i].offset));
    mlirOperationSetAttributeByName(mlirOpResultGetOwner(k->bufs[i].view),
                                    mlirStringRefCreateFromCString(SHARED_GROUP_MARK),
                                    mlirIntegerAttrGet(i64, group[i]));
  }
  k->shared_bytes = total;
  record_shared_bytes(L);
}

static int64_t shared_limit(const char *arch);

/* Packs the shared buffers and refuses a kernel still over the chip's shared memory, drops
 * the barriers that order nothing (see drop_barriers), frees the kernel's state. */
static void end_kernel(tc_lower *L) {
  tc_nvptx_kernel *k = L->backend_state;
  int64_t threads = tc_target_threads(L->target);
  if (!L->status) {
    pack_shared(L);
    if (k->over_limit && k->shared_bytes > shared_limit(L->target->cpu)) {
      /* lowered again (conversion/lower.c): first as deep, the pipelines' room counting every
       * byte (tc_nvptx_shared_live's estimate of what packing frees was too hopeful) and each
       * dot's operands in groups of their own (nvptx_pipeline.c), then with fewer stages */
      if (k->stages > 1) L->retry_stages = L->retries ? k->stages - 1 : k->stages;
      L->b.loc = mlirLocationIsNull(k->over_limit_loc) ? mlirOperationGetLocation(L->old_func) : k->over_limit_loc;
      tc_fail_here(L, TILEC_ERROR_UNSUPPORTED,
                   "this kernel keeps %lld bytes of tiles in shared memory; a CTA on %s has at most %lld "
                   "(smaller blocks, or another --arch)",
                   (long long)k->shared_bytes, L->target->cpu, (long long)shared_limit(L->target->cpu));
    }
  }
  if (!L->status) {
    mlirOperationWalk(L->new_func, mark_owned, &threads, MlirWalkPreOrder);
    drop_barriers(mlirRegionGetFirstBlock(mlirOperationGetRegion(L->new_func, 0)), NONE, &NONE, threads);
    mlirOperationWalk(L->new_func, unmark, NULL, MlirWalkPreOrder);
  }
  if (k) free(k->carries);
  if (k) free(k->frags);
  if (k) free(k->pipes);
  if (k) free(k->bufs);
  free(k);
}

/* A redundant root's buffers are its thread's own (the stack, conversion/memory.c). */
static MlirValue alloc_shared(tc_lower *L, MlirType memref_type, int64_t bytes) {
  if (tc_nvptx_kernel_of(L)->redundant) return (MlirValue){NULL};
  return tc_nvptx_alloc_shared(L, memref_type, bytes);
}

/* Every thread computes the nest being emitted whole (conversion/dot.c asks). */
static bool redundant(tc_lower *L) { return tc_nvptx_kernel_of(L)->redundant; }

/* ---- nests: chunks dealt to the CTA's threads ------------------------------------------ */

#define UNROLL_MAX TC_NVPTX_UNROLL_MAX

/* The chunks of a nest over shape (rows of the last dim, chunks of w lanes). */
static int64_t nest_chunks(tc_lower *L, int rank, const int64_t *shape, int64_t *w, int64_t *per_row) {
  int64_t n = rank ? shape[rank - 1] : 1;
  *w = tc_nest_width(L, n);
  *per_row = n / *w;
  int64_t total = *per_row;
  for (int d = 0; d + 1 < rank; d++) total *= shape[d];
  return total;
}

/* How many chunks of a nest over shape each thread runs, when that is few enough for the
 * nest to be unrolled (chunk tid + k * nthreads is the thread's k-th); 0: a loop. */
static int64_t unrolled_chunks(tc_lower *L, int rank, const int64_t *shape) {
  int64_t w, per_row, total = nest_chunks(L, rank, shape, &w, &per_row), nthreads = tc_target_threads(L->target);
  int64_t k = (total + nthreads - 1) / nthreads;
  return k <= UNROLL_MAX ? k : 0;
}

/* One chunk's body at builder *at (which it advances). */
static void run_chunk(tc_lower *L, tc_builder *at, const tc_pos *pos, int64_t w, tc_chunk_mode mode,
                      MlirValue bound_mask, MlirValue tail_mask, int slot, tc_nest_body body, void *user) {
  tc_chunk ch;
  tc_chunk_init(&ch, L, at->block, w);
  ch.b = *at;
  ch.mode = mode;
  ch.bound_mask = bound_mask;
  ch.tail_mask = tail_mask;
  ch.root = *pos;
  ch.slot = slot;
  ch.dealt = true; /* chunk c on thread c mod T (emit_nest): its accesses may be marked owned */
  body(&ch, pos, user);
  *at = ch.b;
  tc_chunk_free(&ch);
}

/* The position of chunk c (an index) of a nest over shape, at ib. */
static tc_pos chunk_pos(tc_builder *ib, MlirValue c, int rank, const int64_t *shape, int64_t w, int64_t per_row) {
  tc_pos pos = {.rank = rank, .chunked = true};
  if (rank == 1) { /* c < per_row wherever the chunk runs */
    pos.idx[0] = tcb_binary(ib, "arith.muli", c, tcb_const_index(ib, w));
    return pos;
  }
  MlirValue rest = tcb_binary(ib, "arith.divui", c, tcb_const_index(ib, per_row));
  if (rank)
    pos.idx[rank - 1] = tcb_binary(ib, "arith.muli", tcb_binary(ib, "arith.remui", c, tcb_const_index(ib, per_row)),
                                   tcb_const_index(ib, w));
  for (int d = rank - 2; d >= 0; d--) {
    pos.idx[d] = tcb_binary(ib, "arith.remui", rest, tcb_const_index(ib, shape[d]));
    rest = tcb_binary(ib, "arith.divui", rest, tcb_const_index(ib, shape[d]));
  }
  return pos;
}

/* The bound of bound_mask in pos's row (an index), or null. */
static MlirValue chunk_bound(tc_lower *L, tc_builder *ib, const tc_pos *pos, int64_t w, int64_t n,
                             MlirValue bound_mask) {
  if (mlirValueIsNull(bound_mask) || !pos->rank) return (MlirValue){NULL};
  tc_chunk pre;
  tc_chunk_init(&pre, L, ib->block, w);
  pre.b = *ib;
  tc_pos row = *pos;
  row.chunked = false;
  row.idx[pos->rank - 1] = tcb_const_index(&pre.b, 0);
  /* Rows the mask is constant over (the axis info's constancy: `rows < M` with M and the
   * rows' start multiples of the block) share one bound, evaluated at the run's first row:
   * the chunks of a thread's rows then share one predicate, as in Triton's SASS (distinct
   * ones outnumbered the SM's predicate registers and ptxas delayed a load for them). */
  tc_axis ax = tc_axis_of(&L->axis, bound_mask);
  int64_t shape[TC_RANK];
  if (ax.rank == pos->rank && tc_shape_of(mlirValueGetType(bound_mask), shape) == pos->rank)
    for (int d = 0; d < pos->rank - 1; d++) {
      int64_t c = ax.constancy[d];
      if (c >= shape[d]) row.idx[d] = tcb_const_index(&pre.b, 0);
      else if (c > 1)
        row.idx[d] =
            tcb_binary(&pre.b, "arith.muli", tcb_binary(&pre.b, "arith.divui", row.idx[d], tcb_const_index(&pre.b, c)),
                       tcb_const_index(&pre.b, c));
    }
  MlirValue bound = tc_mask_bound(&pre, bound_mask, &row, n);
  *ib = pre.b;
  tc_chunk_free(&pre);
  return bound;
}

/* Chunk c (an index) of a nest over shape at ib: with a bound (`offs < n`), a chunk wholly
 * inside it runs unmasked (its loads and stores become single vector accesses); the others
 * compute their masks lane by lane. */
static void deal_chunk(tc_lower *L, tc_builder *ib, MlirValue c, int rank, const int64_t *shape, MlirValue bound_mask,
                       int slot, tc_nest_body body, void *user) {
  int64_t w, per_row;
  nest_chunks(L, rank, shape, &w, &per_row);
  tc_pos pos = chunk_pos(ib, c, rank, shape, w, per_row);
  MlirValue bound = chunk_bound(L, ib, &pos, w, rank ? shape[rank - 1] : 1, bound_mask);
  if (mlirValueIsNull(bound)) {
    run_chunk(L, ib, &pos, w, TC_CHUNK_GENERIC, (MlirValue){NULL}, (MlirValue){NULL}, slot, body, user);
    return;
  }
  MlirValue end = tcb_binary(ib, "arith.addi", pos.idx[rank - 1], tcb_const_index(ib, w));
  MlirValue in = tcb_cmpi(ib, "ule", end, bound);
  if (tc_mask_bound_chunk_uniform(&L->axis, bound_mask, rank ? shape[rank - 1] : 1, w)) {
    /* never split by the bound: one body, its bound mask the chunk's one predicate */
    run_chunk(L, ib, &pos, w, TC_CHUNK_TAIL, bound_mask, tc_splat_vec(ib, in, w), slot, body, user);
    return;
  }
  tc_builder fb, gb;
  tcb_if(ib, in, 0, NULL, &fb, &gb);
  run_chunk(L, &fb, &pos, w, TC_CHUNK_FULL, bound_mask, (MlirValue){NULL}, slot, body, user);
  tcb_op(&fb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  run_chunk(L, &gb, &pos, w, TC_CHUNK_GENERIC, (MlirValue){NULL}, (MlirValue){NULL}, slot, body, user);
  tcb_op(&gb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

static bool is_store(MlirOperation op) {
  return tc_op_is(op, "vector.store") || tc_op_is(op, "vector.maskedstore") || tc_op_is(op, "vector.scatter") ||
         tc_op_is(op, "memref.store") || tc_op_is(op, "llvm.store");
}

/* The stores to shared or global memory among the ops after `from` up to b's insertion
 * point move, in their order, after everything else there: a thread's loads of all its
 * chunks are then issued before its first store (as Triton's whole-tile load precedes
 * its store). The lowering buffers a load its own nest's stores may overwrite
 * (lower.c), so a nest's loads never read what its stores write; nothing moves when an
 * op other than those stores writes such memory (or calls out). */
static void sink_stores(MlirOperation from, const tc_builder *b) {
  int n = 0;
  for (MlirOperation o = mlirOperationGetNextInBlock(from);
       !mlirOperationIsNull(o) && !mlirOperationEqual(o, b->before); o = mlirOperationGetNextInBlock(o)) {
    mem_access a = access_of(o);
    if (is_store(o) && touches(&a)) n++;
    else if (writes(&a)) return;
  }
  if (!n) return;
  MlirOperation *st = malloc(sizeof *st * (size_t)n);
  if (!st) return;
  n = 0;
  for (MlirOperation o = mlirOperationGetNextInBlock(from);
       !mlirOperationIsNull(o) && !mlirOperationEqual(o, b->before); o = mlirOperationGetNextInBlock(o))
    if (is_store(o)) {
      mem_access x = access_of(o);
      if (touches(&x)) st[n++] = o;
    }
  MlirOperation last = just_emitted(b);
  for (int i = 0; i < n; i++) {
    if (mlirOperationEqual(st[i], last)) continue; /* already last */
    mlirOperationMoveAfter(st[i], last);
    last = st[i];
  }
  free(st);
}

/* The thread's k chunks at *b, each run in `mode` (TC_CHUNK_TAIL: its bound mask the splat of
 * inside[i]; TC_CHUNK_FULL: unmasked inside bound_mask; TC_CHUNK_GENERIC: lane by lane),
 * chunk i under `if has[i]` where some thread lacks it. */
static void run_chunks(tc_lower *L, tc_builder *b, int64_t k, const MlirValue *has, const tc_pos *pos, int64_t w,
                       tc_chunk_mode mode, MlirValue bound_mask, const MlirValue *inside, tc_nest_body body,
                       void *user) {
  for (int64_t i = 0; i < k && !L->status; i++) {
    tc_builder at = *b, g;
    if (!mlirValueIsNull(has[i])) {
      tcb_if(b, has[i], 0, NULL, &g, NULL);
      at = g;
    }
    MlirValue mask = mode == TC_CHUNK_TAIL ? tc_splat_vec(&at, inside[i], w) : (MlirValue){NULL};
    run_chunk(L, &at, &pos[i], w, mode, mode == TC_CHUNK_GENERIC ? (MlirValue){NULL} : bound_mask, mask, (int)i + 1,
              body, user);
    if (!mlirValueIsNull(has[i])) tcb_op(&at, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    else *b = at;
  }
}

/* Is blk inside a loop of the kernel (an scf.for or scf.while around it)? */
static bool in_loop(MlirBlock blk) {
  for (MlirOperation p = mlirBlockGetParentOperation(blk); !mlirOperationIsNull(p);) {
    if (tc_op_is(p, "scf.for") || tc_op_is(p, "scf.while")) return true;
    MlirBlock up = mlirOperationGetBlock(p);
    if (mlirBlockIsNull(up)) return false;
    p = mlirBlockGetParentOperation(up);
  }
  return false;
}

/* A nest's chunks, k per thread, in straight-line code at b. In a loop, with a bound that
 * never splits a chunk, each chunk is one predicated access; otherwise, with a bound, the
 * thread runs all its chunks unmasked when each is inside it (one branch), else masks each
 * chunk (the threads at the bound: one predicate a chunk, or lane by lane). */
static void emit_unrolled(tc_lower *L, tc_builder *b, MlirValue tid, int64_t k, int rank, const int64_t *shape,
                          MlirValue bound_mask, tc_nest_body body, void *user) {
  int64_t w, per_row, total = nest_chunks(L, rank, shape, &w, &per_row), nthreads = tc_target_threads(L->target);
  int64_t n = rank ? shape[rank - 1] : 1;
  MlirValue c[TC_NVPTX_UNROLL_MAX], has[TC_NVPTX_UNROLL_MAX];
  for (int64_t i = 0; i < k; i++) {
    c[i] = tcb_binary(b, "arith.addi", tid, tcb_const_index(b, i * nthreads));
    has[i] = (i + 1) * nthreads <= total ? (MlirValue){NULL} : tcb_cmpi(b, "ult", c[i], tcb_const_index(b, total));
  }
  tc_builder fb = *b, gb;
  if (!mlirValueIsNull(bound_mask) && rank) {
    tc_pos pos[TC_NVPTX_UNROLL_MAX];
    MlirValue all = tcb_const_int(b, tcb_int_type(L->ctx, 1), 1), inside[TC_NVPTX_UNROLL_MAX];
    bool uniform = tc_mask_bound_chunk_uniform(&L->axis, bound_mask, n, w);
    for (int64_t i = 0; i < k && !L->status; i++) {
      pos[i] = chunk_pos(b, c[i], rank, shape, w, per_row);
      MlirValue bound = chunk_bound(L, b, &pos[i], w, n, bound_mask);
      if (mlirValueIsNull(bound)) { /* no bound after all: chunk by chunk */
        all = (MlirValue){NULL};
        break;
      }
      MlirValue end = tcb_binary(b, "arith.addi", pos[i].idx[rank - 1], tcb_const_index(b, w));
      MlirValue in = inside[i] = tcb_cmpi(b, "ule", end, bound);
      if (!mlirValueIsNull(has[i]))
        in = tcb_binary(b, "arith.ori", in,
                        tcb_binary(b, "arith.xori", has[i], tcb_const_int(b, tcb_int_type(L->ctx, 1), 1)));
      all = tcb_binary(b, "arith.andi", all, in);
    }
    if (!mlirValueIsNull(all) && !L->status && uniform && in_loop(b->block)) {
      /* never split by the bound, in a loop: straight-line code, each chunk one predicated
       * access (as Triton's). The branch below would put each nest of the body in its own
       * diamond, which ptxas does not schedule across: RMSNorm's backward issued its row
       * loop's loads in three batches, one DRAM latency each (1.20x Triton's time on an
       * H200, 0.97x straight-line). Outside loops the branch stays: ptxas issues a thread's
       * unpredicated loads together there, where it spreads predicated ones out (the same
       * H200 run: softmax_rows 1.01x with the branch, 1.08x straight-line; SwiGLU's backward
       * 1.00x and 1.03x). */
      MlirOperation mark = just_emitted(b);
      run_chunks(L, b, k, has, pos, w, TC_CHUNK_TAIL, bound_mask, inside, body, user);
      if (!mlirOperationIsNull(mark)) sink_stores(mark, b);
      return;
    }
    if (!mlirValueIsNull(all) && !L->status) {
      tcb_if(b, all, 0, NULL, &fb, &gb);
      MlirOperation mark =
          tcb_op(&fb, "arith.constant", 1, (MlirType[]){tcb_index(L->ctx)}, 0, NULL, 1,
                 (MlirNamedAttribute[]){tcb_named(L->ctx, "value", mlirIntegerAttrGet(tcb_index(L->ctx), 0))});
      run_chunks(L, &fb, k, has, pos, w, TC_CHUNK_FULL, bound_mask, inside, body, user);
      sink_stores(mark, &fb);
      tcb_op(&fb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
      fb = gb; /* the threads at the bound: masks lane by lane, or one predicate per chunk when
                * the bound never splits a chunk (each is then one predicated vector access) */
      run_chunks(L, &fb, k, has, pos, w, uniform ? TC_CHUNK_TAIL : TC_CHUNK_GENERIC, bound_mask, inside, body, user);
      tcb_op(&fb, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
      return;
    }
  }
  MlirOperation mark = just_emitted(b);
  for (int64_t i = 0; i < k && !L->status; i++) {
    tc_builder at = *b, g;
    if (!mlirValueIsNull(has[i])) {
      tcb_if(b, has[i], 0, NULL, &g, NULL);
      at = g;
    }
    deal_chunk(L, &at, c[i], rank, shape, bound_mask, (int)i + 1, body, user);
    if (!mlirValueIsNull(has[i])) tcb_op(&at, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    else *b = at;
  }
  if (!mlirOperationIsNull(mark)) sink_stores(mark, b);
}

/* A nest over shape: thread t runs chunks t, t + T, ... (T threads) — unrolled when there
 * are few, so a thread's loads are all in flight together and a tile it keeps in registers
 * is indexed by constants — fenced by barriers where they order something (see above). */
static void emit_nest(tc_lower *L, int rank, const int64_t *shape, MlirValue bound_mask, bool complete,
                      tc_nest_body body, void *user) {
  if (tc_nvptx_alone(L)) { /* this thread does all of the nest */
    tc_emit_chunked_nest(L, rank, shape, bound_mask, complete, body, user);
    return;
  }
  (void)complete; /* every chunk runs */
  if (L->status) return;
  int64_t w, per_row, total = nest_chunks(L, rank, shape, &w, &per_row), nthreads = tc_target_threads(L->target);
  int64_t k = unrolled_chunks(L, rank, shape);
  tc_builder b = L->b;
  MlirOperation before = (tc_nvptx_barrier(L, &b), just_emitted(&b));
  MlirValue tid = tc_nvptx_thread_id(L, &b);
  if (k) {
    emit_unrolled(L, &b, tid, k, rank, shape, bound_mask, body, user);
  } else {
    MlirBlock blk = tc_build_for(L, &b, tid, tcb_const_index(&b, total), tcb_const_index(&b, nthreads), 0, NULL, NULL);
    tc_builder ib;
    tcb_init(&ib, L->ctx);
    ib.loc = b.loc;
    tcb_set_end(&ib, blk);
    deal_chunk(L, &ib, mlirBlockGetArgument(blk, 0), rank, shape, bound_mask, 0, body, user);
    tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  }
  mem_access a = access_since(before, &b);
  if (writes(&a)) tc_nvptx_barrier(L, &b);
  if (!touches(&a)) mlirOperationDestroy(before);
}

int64_t tc_nvptx_unrolled_chunks(tc_lower *L, int rank, const int64_t *shape) {
  return tc_nvptx_alone(L) ? 0 : unrolled_chunks(L, rank, shape);
}

void tc_nvptx_deal_unrolled(tc_lower *L, tc_builder *b, int rank, const int64_t *shape, MlirValue bound_mask,
                            tc_nest_body body, void *user) {
  int64_t k = tc_nvptx_unrolled_chunks(L, rank, shape);
  if (k) emit_unrolled(L, b, tc_nvptx_thread_id(L, b), k, rank, shape, bound_mask, body, user);
}

/* ---- tiles in registers ------------------------------------------------------------------
 * Every nest over one shape deals the same chunks to the same thread, so a tile that one
 * nest computes and others read at the same positions (softmax's row: loaded once, read by
 * the max, by exp(x - max), by the store) can stay in the thread that computed it: an array
 * of its k chunks at the kernel's entry, indexed by the unrolled nest's constant slot, which
 * LLVM promotes to registers. No shared memory, no barrier. */

#define THREAD_TILE_MARK "tilec.thread_tile"
#define THREAD_TILE_BYTES 256 /* of one tile, per thread (64 fp32 registers) */

/* Is `inner` blk or a block nested in it through loops and ifs only (whose nests deal a
 * shape's chunks to the threads as blk's do)? */
static bool in_control_flow_of(MlirBlock blk, MlirBlock inner) {
  for (MlirBlock b = inner; !mlirBlockEqual(b, blk);) {
    MlirOperation parent = mlirBlockGetParentOperation(b);
    if (mlirOperationIsNull(parent) ||
        !(tc_op_is(parent, "scf.for") || tc_op_is(parent, "scf.if") || tc_op_is(parent, "scf.while")))
      return false;
    b = mlirOperationGetBlock(parent);
    if (mlirBlockIsNull(b)) return false;
  }
  return true;
}

/* Does tile v come, through elementwise ops, from a tl.dot or a loop-carried accumulator the
 * warps' MMA fragments may hold (conservatively yes past 32 levels)? */
static bool cone_reaches_fragments(tc_lower *L, MlirValue v, int depth) {
  if (depth > 32) return true;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v))) return false;
  if (!mlirValueIsAOpResult(v)) {
    MlirOperation loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
    intptr_t n = mlirBlockArgumentGetArgNumber(v);
    return !mlirOperationIsNull(loop) && tc_op_is(loop, "scf.for") && n >= 1 &&
           tc_nvptx_mma_carries.count(L, loop, (int)n - 1) > 0;
  }
  MlirOperation d = mlirOpResultGetOwner(v);
  if (tile_op_of(d) == TILE_DOT) return true;
  if (tc_op_is(d, "scf.for")) return tc_nvptx_mma_carries.count(L, d, (int)mlirOpResultGetResultNumber(v)) > 0;
  if (tile_op_of(d) || !(tc_op_in_dialect(d, "arith") || tc_op_in_dialect(d, "math"))) return false;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(d); i++)
    if (cone_reaches_fragments(L, mlirOperationGetOperand(d, i), depth + 1)) return true;
  return false;
}

/* May op (a reduction) be taken at the fragments' positions (nvptx_frags.c, tried first)? */
static bool reads_fragments(tc_lower *L, MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    if (cone_reaches_fragments(L, mlirOperationGetOperand(op, i), 0)) return true;
  return false;
}

/* Do the ops reading v (through elementwise ops, in v's block or the loops and ifs in it:
 * every nest over one shape deals the same chunks to the same thread, so a loop's body reads
 * a tile computed before it in place) read it only at the positions of nests over v's shape:
 * same-shaped stores, a reduction that deals the rows or columns as nests do (nvptx_reduce.c,
 * not one the warps' MMA fragments take), and where `loop` is not null its body's yield into
 * a carried value in a buffer (written by nests over the shape), not into one the warps' MMA
 * fragments carry (read at theirs)? */
static bool read_in_place_or_yield(tc_lower *L, MlirValue v, MlirBlock blk, const int64_t *shape, int rank,
                                   MlirOperation loop, int depth) {
  if (depth > 32) return false;
  MlirOperation yield = mlirOperationIsNull(loop)
                            ? (MlirOperation){NULL}
                            : mlirBlockGetTerminator(mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)));
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (!in_control_flow_of(blk, mlirOperationGetBlock(user))) return false;
    if (!mlirOperationIsNull(yield) && mlirOperationEqual(user, yield)) {
      if (tc_nvptx_mma_carries.count(L, loop, (int)mlirOpOperandGetOperandNumber(u))) return false;
      continue;
    }
    tile_op_id k = tile_op_of(user);
    if (k == TILE_STORE) {
      int64_t s[TC_RANK];
      if (tc_shape_of(mlirValueGetType(mlirOperationGetOperand(user, 0)), s) != rank ||
          memcmp(s, shape, sizeof(int64_t) * (size_t)rank))
        return false;
      continue;
    }
    if (k == TILE_REDUCE) { /* nvptx_reduce.c deals a row's chunks as nests deal the shape */
      int axis = (int)tile_int_attr(user, "axis", 0);
      if (rank == 1 ? axis != 0 : !tc_nvptx_reduce_deals(L, rank, shape, axis) || reads_fragments(L, user))
        return false;
      continue;
    }
    bool elementwise =
        k == TILE_LOAD || k == TILE_ADDPTR || k == TILE_HINT ||
        ((tc_op_in_dialect(user, "arith") || tc_op_in_dialect(user, "math")) && !tc_op_is(user, "arith.constant"));
    if (!elementwise || mlirOperationGetNumResults(user) != 1) return false;
    MlirValue r = mlirOperationGetResult(user, 0);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(r)) || !tc_same_shape(mlirValueGetType(r), mlirValueGetType(v)))
      return false;
    if (!read_in_place_or_yield(L, r, blk, shape, rank, loop, depth + 1)) return false;
  }
  return true;
}

static bool read_in_place(tc_lower *L, MlirValue v, MlirBlock blk, const int64_t *shape, int rank) {
  return read_in_place_or_yield(L, v, blk, shape, rank, (MlirOperation){NULL}, 0);
}

/* Can a tile of type t stay in each thread's registers (an unrolled nest's chunks, at most
 * THREAD_TILE_BYTES a thread)? Its shape in shape, rank returned (0: no). */
static int thread_tile_shape(tc_lower *L, MlirType t, int64_t *shape) {
  if (tc_nvptx_alone(L) || !mlirTypeIsARankedTensor(t)) return 0;
  MlirType elem = mlirShapedTypeGetElementType(t);
  if (tile_type_is_ptr(elem)) return 0;
  int rank = tc_shape_of(t, shape);
  int64_t k = rank ? unrolled_chunks(L, rank, shape) : 0, w, per_row;
  nest_chunks(L, rank, shape, &w, &per_row);
  int64_t bytes = k * w * (int64_t)((tcb_bitwidth(tc_memory_type(L->ctx, elem)) + 7) / 8);
  return k && bytes <= THREAD_TILE_BYTES ? rank : 0;
}

/* A tile computed in a loop's body may also be yielded there (a carried tile's next value:
 * `dw += dy * xn`), which the carried buffer's nests write in place. */
static bool thread_tile(tc_lower *L, MlirValue old) {
  int64_t shape[TC_RANK];
  int rank = mlirValueIsAOpResult(old) ? thread_tile_shape(L, mlirValueGetType(old), shape) : 0;
  if (!rank) return false;
  MlirBlock blk = mlirOperationGetBlock(mlirOpResultGetOwner(old));
  MlirOperation parent = mlirBlockGetParentOperation(blk);
  MlirOperation loop = !mlirOperationIsNull(parent) && tc_op_is(parent, "scf.for") ? parent : (MlirOperation){NULL};
  return read_in_place_or_yield(L, old, blk, shape, rank, loop, 0);
}

/* An array of n elements of type elem (kept in memory as tc_memory_type) of the thread's
 * own, at the kernel's entry; `mark`: a thread tile's (thread_tile_index reads it). */
static MlirValue entry_array(tc_lower *L, MlirType elem, int64_t n, bool mark) {
  MlirType mt = mlirMemRefTypeContiguousGet(tc_memory_type(L->ctx, elem), 1, &n, mlirAttributeGetNull());
  tc_builder eb = tc_entry_builder(L);
  int32_t seg[2] = {0, 0};
  MlirNamedAttribute attrs[3] = {tcb_named(L->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(L->ctx, 2, seg)),
                                 tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 16)),
                                 tcb_named(L->ctx, THREAD_TILE_MARK, mlirUnitAttrGet(L->ctx))};
  return tcb_op1(&eb, "memref.alloca", mt, 0, NULL, mark ? 3 : 2, attrs);
}

MlirValue tc_nvptx_private_array(tc_lower *L, MlirType elem, int64_t n) { return entry_array(L, elem, n, false); }

/* The thread's own array for a tile of type t, at the kernel's entry (LLVM promotes it to
 * registers: every access has a constant index). */
static MlirValue thread_tile_buffer(tc_lower *L, MlirType t) {
  int64_t shape[TC_RANK], w, per_row;
  int rank = tc_shape_of(t, shape);
  nest_chunks(L, rank, shape, &w, &per_row);
  return entry_array(L, mlirShapedTypeGetElementType(t), unrolled_chunks(L, rank, shape) * w, true);
}

static MlirValue alloc_thread_tile(tc_lower *L, MlirValue old) {
  return thread_tile(L, old) ? thread_tile_buffer(L, mlirValueGetType(old)) : (MlirValue){NULL};
}

bool tc_nvptx_thread_tile_ok(tc_lower *L, MlirValue old) { return thread_tile(L, old); }

MlirValue tc_nvptx_thread_tile(tc_lower *L, MlirValue old) { return alloc_thread_tile(L, old); }

/* Tile i carried by scf.for `loop`: in the thread's registers when its value in the body is
 * read there only in place or yielded (the yields are written to the carried buffers by nests
 * over the shape, which read in place too), and the loop's result only in place after it. */
static MlirValue alloc_carried_tile(tc_lower *L, MlirOperation loop, int i) {
  int64_t shape[TC_RANK];
  MlirValue res = mlirOperationGetResult(loop, i);
  int rank = thread_tile_shape(L, mlirValueGetType(res), shape);
  if (!rank) return (MlirValue){NULL};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  /* a dot's result may be written into the carried buffer in place (conversion/dot.c),
   * by the warps' fragments rather than by nests */
  MlirValue y = mlirOperationGetOperand(mlirBlockGetTerminator(body), i);
  if (mlirValueIsAOpResult(y) && tile_op_of(mlirOpResultGetOwner(y)) == TILE_DOT) return (MlirValue){NULL};
  if (!read_in_place_or_yield(L, mlirBlockGetArgument(body, 1 + i), body, shape, rank, loop, 0) ||
      !read_in_place(L, res, mlirOperationGetBlock(loop), shape, rank))
    return (MlirValue){NULL};
  return thread_tile_buffer(L, mlirValueGetType(res));
}

static MlirValue thread_tile_index(tc_chunk *c, MlirValue buf, const tc_pos *pos) {
  if (!mlirValueIsAOpResult(buf)) return (MlirValue){NULL};
  MlirOperation d = mlirOpResultGetOwner(buf);
  if (mlirAttributeIsNull(mlirOperationGetAttributeByName(d, mlirStringRefCreateFromCString(THREAD_TILE_MARK))))
    return (MlirValue){NULL};
  if (!c->slot || !pos->chunked || !tc_pos_equal(pos, &c->root))
    tc_fail_here(c->L, TILEC_ERROR_INTERNAL,
                 "a tile kept in each thread's registers is read where the thread does not own it");
  return tcb_const_index(&c->b, c->slot ? (int64_t)(c->slot - 1) * c->width : 0);
}

/* Iterations dealt round-robin (iteration i on thread i mod nthreads), between barriers;
 * a plain loop where one thread runs the code (thread 0's atomics, redundant roots). */
static MlirBlock shared_loop(tc_lower *L, tc_builder *b, int64_t count, MlirValue *index) {
  bool alone = tc_nvptx_alone(L);
  if (!alone) tc_nvptx_barrier(L, b);
  MlirValue lb = alone ? tcb_const_index(b, 0) : tc_nvptx_thread_id(L, b);
  MlirValue step = tcb_const_index(b, alone ? 1 : (int64_t)tc_target_threads(L->target));
  MlirBlock blk = tc_build_for(L, b, lb, tcb_const_index(b, count), step, 0, NULL, NULL);
  if (!alone) tc_nvptx_barrier(L, b);
  *index = mlirBlockGetArgument(blk, 0);
  return blk;
}

/* A scalar store is made once, by thread 0, after every thread has read what it may
 * overwrite and before any reads it again (Triton also stores a scalar from one thread). */
static void scalar_store(tc_lower *L, MlirOperation op) {
  if (mlirTypeIsARankedTensor(mlirValueGetType(mlirOperationGetOperand(op, 0)))) {
    tc_lower_grouped(L, op);
    return;
  }
  tc_flush(L);
  tc_nvptx_barrier(L, &L->b);
  MlirValue first = tcb_cmpi(&L->b, "eq", tc_nvptx_thread_id(L, &L->b), tcb_const_index(&L->b, 0));
  tc_builder then_b, outer = L->b;
  tcb_if(&L->b, first, 0, NULL, &then_b, NULL);
  L->b = then_b;
  tc_lower_scalar_store(L, op);
  tcb_op(&L->b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  L->b = outer;
  tc_nvptx_barrier(L, &L->b);
}

/* ---- op rows: the CPU's, without the ops that need threads to cooperate ---------------- */

/* Atomics (and, emulated, device_print/device_assert) happen once per program: thread 0
 * runs them between barriers, its results reach the other threads through shared memory
 * (tile results are a shared buffer already; a scalar result goes through a slot). */
static void run_on_thread0(tc_lower *L, MlirOperation op, void (*lower)(tc_lower *L, MlirOperation op)) {
  tc_nvptx_barrier(L, &L->b);
  intptr_t nres = mlirOperationGetNumResults(op);
  MlirValue slots[4] = {{NULL}};
  for (intptr_t i = 0; i < nres && i < 4; i++) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, i));
    if (mlirTypeIsARankedTensor(t)) continue;
    MlirType mem = tc_memory_type(L->ctx, t);
    int64_t one = 1;
    slots[i] = tc_nvptx_alloc_shared(L, mlirMemRefTypeContiguousGet(mem, 1, &one, mlirAttributeGetNull()),
                                     (tcb_bitwidth(mem) + 7) / 8);
  }
  MlirValue first = tcb_cmpi(&L->b, "eq", tc_nvptx_thread_id(L, &L->b), tcb_const_index(&L->b, 0));
  tc_builder then_b, outer = L->b;
  tcb_if(&L->b, first, 0, NULL, &then_b, NULL);
  L->b = then_b;
  tc_nvptx_kernel_of(L)->single_thread = true;
  lower(L, op);
  for (intptr_t i = 0; i < nres && i < 4 && !L->status; i++) {
    if (mlirValueIsNull(slots[i])) continue;
    MlirValue v = tc_scalar(L, mlirOperationGetResult(op, i));
    MlirType mem = tcb_element_type(mlirValueGetType(slots[i]));
    if (!mlirTypeEqual(mem, mlirValueGetType(v))) v = tcb_cast(&L->b, "arith.extui", v, mem); /* i1 as i8 */
    MlirValue ops[3] = {v, slots[i], tcb_const_index(&L->b, 0)};
    tcb_op(&L->b, "memref.store", 0, NULL, 3, ops, 0, NULL);
  }
  tcb_op(&L->b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  tc_nvptx_kernel_of(L)->single_thread = false;
  L->b = outer;
  tc_nvptx_barrier(L, &L->b);
  for (intptr_t i = 0; i < nres && i < 4 && !L->status; i++) {
    if (mlirValueIsNull(slots[i])) continue;
    MlirValue res = mlirOperationGetResult(op, i);
    MlirType mem = tcb_element_type(mlirValueGetType(slots[i]));
    MlirValue ops[2] = {slots[i], tcb_const_index(&L->b, 0)};
    MlirValue v = tcb_op1(&L->b, "memref.load", mem, 2, ops, 0, NULL);
    if (!mlirTypeEqual(mem, mlirValueGetType(res))) v = tcb_cast(&L->b, "arith.trunci", v, mlirValueGetType(res));
    tc_map_scalar(L, res, v);
  }
  /* the next reads of what thread 0 wrote come after this barrier; a later store nest
   * starts with one */
}

/* ---- device_print / device_assert on the GPU: CUDA's vprintf and __assertfail --------- */

MlirValue tc_nvptx_scratch(tc_lower *L, int n) {
  char t[64];
  snprintf(t, sizeof t, "!llvm.array<%d x f32>", n);
  return tc_entry_alloca(L, tcb_type(L->ctx, t));
}

static void append(char *buf, size_t n, const char *s) { snprintf(buf + strlen(buf), n - strlen(buf), "%s", s); }

/* One vprintf of a line: fmt and the values after it, each at its natural alignment in the
 * argument buffer, as vprintf reads it. */
static void gpu_vprintf(tc_lower *L, tc_builder *b, const char *fmt, const MlirValue *vals, const MlirType *types,
                        int n) {
  MlirType i32 = tcb_int_type(L->ctx, 32), f64 = mlirF64TypeGet(L->ctx);
  char st[512] = "!llvm.struct<(";
  for (int i = 0; i < n; i++)
    append(st, sizeof st,
           mlirTypeEqual(types[i], f64)   ? (i ? ", f64" : "f64")
           : mlirTypeEqual(types[i], i32) ? (i ? ", i32" : "i32")
                                          : (i ? ", i64" : "i64"));
  append(st, sizeof st, ")>");
  MlirType stype = tcb_type(L->ctx, st);
  MlirValue buf = tc_entry_alloca(L, stype);
  tc_store_fields(L, b, buf, stype, vals, n);
  MlirValue args[2] = {tc_string_constant(L, b, fmt), buf};
  tc_call_runtime_value(L, b, "vprintf", i32, 2, args);
}

/* One element of a device_print: a line per operand, each in one vprintf call (so lines of
 * different programs never mix), in Triton's format (the CPU runtime's, runtime/debug.h):
 * "pid (x, y, z) idx (  i,  j)PREFIX(operand n) v\n". */
static void gpu_print_element(tc_lower *L, tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_builder *b = &c->b;
  MlirType i32 = tcb_int_type(L->ctx, 32), i64 = tcb_int_type(L->ctx, 64), f64 = mlirF64TypeGet(L->ctx);
  bool hex = tc_print_hex(op);
  MlirAttribute pa = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("prefix"));
  MlirStringRef prefix = mlirAttributeIsNull(pa) ? mlirStringRefCreateFromCString("") : mlirStringAttrGetValue(pa);
  intptr_t nops = mlirOperationGetNumOperands(op);
  uint64_t widths = (uint64_t)tc_print_index_widths(op);
  char head[1024] = "pid (%u, %u, %u)";
  MlirValue vals[3 + TC_RANK + 1];
  MlirType types[3 + TC_RANK + 1];
  int n = 0;
  for (int i = 0; i < 3; i++) vals[n] = L->pid[i], types[n++] = i32;
  if (nops > 0) {
    append(head, sizeof head, " idx (");
    for (int d = 0; d < pos->rank; d++) {
      char spec[16];
      snprintf(spec, sizeof spec, "%s%%%ulld", d ? ", " : "", (unsigned)(widths >> (4 * d) & 15));
      append(head, sizeof head, spec);
      vals[n] = tcb_cast(b, "arith.index_cast", pos->idx[d], i64), types[n++] = i64;
    }
    append(head, sizeof head, ")");
  }
  for (size_t i = 0; i < prefix.length && strlen(head) + 2 < sizeof head; i++) { /* '%' is literal text */
    char ch[3] = {prefix.data[i], prefix.data[i] == '%' ? '%' : 0, 0};
    append(head, sizeof head, ch);
  }
  if (!nops) {
    append(head, sizeof head, "\n");
    gpu_vprintf(L, b, head, vals, types, n);
    return;
  }
  int nhead = n;
  for (intptr_t i = 0; i < nops && !L->status; i++) {
    MlirValue old = mlirOperationGetOperand(op, i);
    int64_t s[TC_RANK];
    tc_pos p = *pos;
    p.rank = tc_shape_of(mlirValueGetType(old), s);
    tc_cval v = tc_eval(c, old, &p);
    if (L->status) return;
    char fmt[1100];
    snprintf(fmt, sizeof fmt, "%s", head);
    if (nops > 1) {
      char tag[32];
      snprintf(tag, sizeof tag, "(operand %d) ", (int)i);
      append(fmt, sizeof fmt, tag);
    }
    n = nhead;
    MlirType t = tcb_element_type(mlirValueGetType(old));
    if (v.is_ptr) {
      append(fmt, sizeof fmt, "0x%llx");
      vals[n] = tc_debug_address(c, v, t), types[n++] = i64;
    } else if (tcb_is_float(t) && !hex) {
      append(fmt, sizeof fmt, "%f");
      vals[n] = tcb_bitwidth(t) < 64 ? tcb_cast(b, "arith.extf", v.vec, f64) : v.vec, types[n++] = f64;
    } else {
      unsigned w = tcb_bitwidth(t);
      MlirValue x = v.vec;
      if (tcb_is_float(t)) x = tcb_cast(b, "arith.bitcast", x, tcb_int_type(L->ctx, w)); /* hex: the code */
      bool uns = tcb_is_float(t) || w == 1 || tc_print_operand_unsigned(op, i);
      if (w < 64) x = tcb_cast(b, uns || hex ? "arith.extui" : "arith.extsi", x, i64);
      char spec[32];
      if (hex) snprintf(spec, sizeof spec, "0x%%0%ullx", (w + 3) / 4);
      else snprintf(spec, sizeof spec, "%s", uns ? "%llu" : "%lld");
      append(fmt, sizeof fmt, spec);
      vals[n] = x, types[n++] = i64;
    }
    append(fmt, sizeof fmt, "\n");
    gpu_vprintf(L, b, fmt, vals, types, n);
  }
}

/* A failing element calls __assertfail (the kernel stops with cudaErrorAssert), with the
 * message, the kernel's file and line, and the kernel's name. */
static void gpu_assert_element(tc_lower *L, tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_builder *b = &c->b;
  MlirValue cond = tc_eval(c, mlirOperationGetOperand(op, 0), pos).vec;
  if (L->status) return;
  MlirValue failed = tcb_binary(b, "arith.xori", cond, tcb_const_int(b, mlirValueGetType(cond), 1));
  tc_builder ib;
  tcb_if(b, failed, 0, NULL, &ib, NULL);
  char file[512] = "?";
  int line = 0;
  MlirLocation loc = mlirOperationGetLocation(op);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    snprintf(file, sizeof file, "%.*s", (int)f.length, f.data);
    line = mlirLocationFileLineColRangeGetStartLine(loc);
  }
  MlirAttribute fname = mlirOperationGetAttributeByName(L->new_func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef fn = mlirStringAttrGetValue(fname);
  char func[256];
  snprintf(func, sizeof func, "%.*s", (int)(fn.length > strlen(KERNEL_PREFIX) ? fn.length - strlen(KERNEL_PREFIX) : 0),
           fn.data + strlen(KERNEL_PREFIX));
  MlirValue args[5] = {tc_string_attr_constant(L, &ib, op, "message"), tc_string_constant(L, &ib, file),
                       tcb_const_int(&ib, tcb_int_type(L->ctx, 32), line), tc_string_constant(L, &ib, func),
                       tcb_const_int(&ib, tcb_int_type(L->ctx, 64), 1)};
  tc_call_runtime(L, &ib, "__assertfail", 5, args);
  tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

static void gpu_debug_op(tc_lower *L, MlirOperation op) {
  tc_lower_debug_op_with(L, op, gpu_print_element, gpu_assert_element);
}

static void on_thread0(tc_lower *L, MlirOperation op) { run_on_thread0(L, op, tc_op_rows()[tile_op_of(op)].lower); }

static void gpu_debug_on_thread0(tc_lower *L, MlirOperation op) { run_on_thread0(L, op, gpu_debug_op); }

/* Sort, first correct: every thread computes the whole root from the operands
 * (loaded, or read from shared memory after the nests that wrote them) into buffers of its
 * own, so what follows finds the results in every thread. */
static int emit_redundant(tc_lower *L, MlirOperation *roots, int n) {
  const tc_op_lowering *cpu = &tc_op_rows()[tile_op_of(roots[0])];
  tc_nvptx_kernel *state = tc_nvptx_kernel_of(L);
  bool outer = state->redundant;
  state->redundant = true;
  int k = cpu->emit(L, roots, n);
  state->redundant = outer;
  return k;
}

static tc_op_lowering rows[TILE_OP_COUNT], emu_rows[TILE_OP_COUNT];
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

static void init_rows(void) {
  const tc_op_lowering *cpu = tc_op_rows();
  for (int k = 0; k < TILE_OP_COUNT; k++) rows[k] = cpu[k];
  static const tile_op_id redundant[] = {TILE_SORT};
  for (size_t i = 0; i < sizeof redundant / sizeof redundant[0]; i++) rows[redundant[i]].emit = emit_redundant;
  rows[TILE_REDUCE].emit = tc_nvptx_emit_reduce;
  rows[TILE_SCAN].emit = tc_nvptx_emit_scan;
  rows[TILE_DOT].emit = tc_nvptx_emit_dot;
  rows[TILE_TRANS].emit = tc_nvptx_emit_trans;
  rows[TILE_STORE].lower = scalar_store;
  rows[TILE_ATOMIC_RMW].lower = rows[TILE_ATOMIC_CAS].lower = on_thread0;
  for (int k = 0; k < TILE_OP_COUNT; k++) emu_rows[k] = rows[k];
  /* the emulator runs the CPU's print/assert runtime calls from thread 0 */
  emu_rows[TILE_PRINT].lower = emu_rows[TILE_ASSERT].lower = on_thread0;
  rows[TILE_PRINT].lower = rows[TILE_ASSERT].lower = gpu_debug_on_thread0;
}

static const tc_op_lowering *op_rows(void) {
  pthread_once(&rows_once, init_rows);
  return rows;
}

static const tc_op_lowering *emu_op_rows(void) {
  pthread_once(&rows_once, init_rows);
  return emu_rows;
}

/* ---- shared memory ---------------------------------------------------------------------- */

#define SHARED_SYMBOL "__tilec_shared"
#define SHARED_BYTES_PREFIX "__tilec_shared_bytes_" /* + kernel: i64, what the program needs */

static MlirOperation module_global(tc_lower *L, const char *name) {
  MlirOperation mod = mlirOperationGetParentOperation(L->new_func);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(mod, 0));
  for (MlirOperation o = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    MlirAttribute a = mlirOperationGetAttributeByName(o, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(a) && mlirStringRefEqual(mlirStringAttrGetValue(a), mlirStringRefCreateFromCString(name)))
      return o;
  }
  return (MlirOperation){NULL};
}

static MlirOperation add_global(tc_lower *L, const char *name, intptr_t nattrs, const MlirNamedAttribute *attrs) {
  tc_builder g;
  tcb_init(&g, L->ctx);
  g.loc = mlirLocationUnknownGet(L->ctx);
  tcb_set_before(&g, L->new_func);
  MlirRegion r = mlirRegionCreate();
  MlirNamedAttribute all[8];
  all[0] = tcb_named(L->ctx, "sym_name", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString(name)));
  for (intptr_t i = 0; i < nattrs && i < 7; i++) all[1 + i] = attrs[i];
  return tcb_op_regions(&g, "llvm.mlir.global", 0, NULL, 0, NULL, 1 + nattrs, all, 1, &r);
}

/* The kernel's record of its shared memory size (read by the emulator and, later, the
 * launcher): a constant i64 global beside the kernel. */
static void record_shared_bytes(tc_lower *L) {
  MlirAttribute fname = mlirOperationGetAttributeByName(L->new_func, mlirStringRefCreateFromCString("sym_name"));
  MlirStringRef fn = mlirStringAttrGetValue(fname);
  char name[300];
  snprintf(name, sizeof name, "%s%.*s", SHARED_BYTES_PREFIX,
           (int)(fn.length > strlen(KERNEL_PREFIX) ? fn.length - strlen(KERNEL_PREFIX) : 0),
           fn.data + strlen(KERNEL_PREFIX));
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirAttribute value = mlirIntegerAttrGet(i64, tc_nvptx_kernel_of(L)->shared_bytes);
  MlirOperation g = module_global(L, name);
  if (!mlirOperationIsNull(g)) {
    mlirOperationSetAttributeByName(g, mlirStringRefCreateFromCString("value"), value);
    return;
  }
  MlirNamedAttribute attrs[4] = {tcb_named(L->ctx, "global_type", mlirTypeAttrGet(i64)),
                                 tcb_named(L->ctx, "linkage", tcb_attr(L->ctx, "#llvm.linkage<internal>")),
                                 tcb_named(L->ctx, "constant", mlirUnitAttrGet(L->ctx)),
                                 tcb_named(L->ctx, "value", value)};
  add_global(L, name, 4, attrs);
}

/* The program's shared memory, as a generic pointer made at the kernel's entry: the
 * dynamic .shared array on the GPU, the emulated CTA's block on the CPU. */
static MlirValue shared_base(tc_lower *L) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  if (!mlirValueIsNull(k->shared_base)) return k->shared_base;
  tc_builder eb = tc_entry_builder(L);
  MlirType ptr = tcb_type(L->ctx, "!llvm.ptr");
  if (L->target->gpu_emulation) {
    k->shared_base = tc_call_runtime_value(L, &eb, "tilec_rt_emu_shared", ptr, 0, NULL);
    return k->shared_base;
  }
  if (mlirOperationIsNull(module_global(L, SHARED_SYMBOL))) {
    MlirNamedAttribute attrs[4] = {
        tcb_named(L->ctx, "global_type", mlirTypeAttrGet(tcb_type(L->ctx, "!llvm.array<0 x i8>"))),
        tcb_named(L->ctx, "linkage", tcb_attr(L->ctx, "#llvm.linkage<external>")),
        tcb_named(L->ctx, "addr_space", mlirIntegerAttrGet(tcb_int_type(L->ctx, 32), 3)),
        tcb_named(L->ctx, "alignment", mlirIntegerAttrGet(tcb_int_type(L->ctx, 64), 1024))};
    add_global(L, SHARED_SYMBOL, 4, attrs); /* 1024: wgmma's 128-byte swizzle repeats every 1024 bytes */
  }
  MlirNamedAttribute sym =
      tcb_named(L->ctx, "global_name", mlirFlatSymbolRefAttrGet(L->ctx, mlirStringRefCreateFromCString(SHARED_SYMBOL)));
  MlirValue a = tcb_op1(&eb, "llvm.mlir.addressof", tcb_type(L->ctx, "!llvm.ptr<3>"), 0, NULL, 1, &sym);
  k->shared_base = tcb_cast(&eb, "llvm.addrspacecast", a, ptr);
  return k->shared_base;
}

/* The most shared memory one CTA may have (opted in above 48 KB by the launcher), by chip. */
static int64_t shared_limit(const char *arch);
int64_t tc_nvptx_shared_limit(tc_lower *L) { return shared_limit(L->target->cpu); }

static int64_t shared_limit(const char *arch) {
  static const struct {
    const char *arch;
    int64_t kb;
  } limits[] = {{"sm_70", 96},  {"sm_72", 96}, {"sm_75", 64},  {"sm_80", 163}, {"sm_86", 99},
                {"sm_87", 163}, {"sm_89", 99}, {"sm_120", 99}, {"sm_120a", 99}};
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    if (!strcmp(arch, limits[i].arch)) return limits[i].kb * 1024;
  return 227 * 1024; /* sm_90, sm_100 and their variants */
}

MlirValue tc_nvptx_alloc_shared(tc_lower *L, MlirType memref_type, int64_t bytes) {
  MlirValue base = shared_base(L);
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  int64_t align = k->next_align ? k->next_align : 64;
  int64_t offset = (k->shared_bytes + align - 1) & ~(align - 1);
  k->shared_bytes = offset + bytes;
  if (L->target->is_nvptx && k->shared_bytes > shared_limit(L->target->cpu)) {
    /* end_kernel refuses the kernel if packing does not bring it under, at the first of
     * these allocations with a source line */
    if (!k->over_limit || (mlirLocationIsNull(k->over_limit_loc) && mlirLocationIsAFileLineColRange(L->b.loc)))
      k->over_limit_loc = mlirLocationIsAFileLineColRange(L->b.loc) ? L->b.loc : (MlirLocation){NULL};
    k->over_limit = true;
  }
  record_shared_bytes(L);
  /* right after the base: before every use */
  tc_builder eb;
  tcb_init(&eb, L->ctx);
  eb.loc = mlirOperationGetLocation(L->new_func);
  MlirOperation def = mlirOpResultGetOwner(base), next = mlirOperationGetNextInBlock(def);
  if (!mlirOperationIsNull(next)) tcb_set_before(&eb, next);
  else tcb_set_end(&eb, mlirOperationGetBlock(def));
  MlirType i8 = tcb_int_type(L->ctx, 8);
  MlirValue off = tcb_const_int(&eb, tcb_int_type(L->ctx, 64), offset);
  MlirValue ops[2] = {base, off};
  int32_t raw = INT32_MIN; /* llvm.getelementptr's marker for a dynamic index */
  MlirNamedAttribute ga[2] = {tcb_named(L->ctx, "rawConstantIndices", mlirDenseI32ArrayGet(L->ctx, 1, &raw)),
                              tcb_named(L->ctx, "elem_type", mlirTypeAttrGet(i8))};
  MlirValue p = tcb_op1(&eb, "llvm.getelementptr", tcb_type(L->ctx, "!llvm.ptr"), 2, ops, 2, ga);
  MlirValue dyn = tc_memref_from_ptr(L, &eb, p, mlirShapedTypeGetElementType(memref_type));
  MlirValue view = tcb_op1(&eb, "memref.cast", memref_type, 1, &dyn, 0, NULL);
  if (k->nbufs == k->capbufs) {
    int cap = k->capbufs ? 2 * k->capbufs : 8;
    struct tc_nvptx_shared_buf *bufs = realloc(k->bufs, sizeof *bufs * (size_t)cap);
    if (!bufs) {
      tc_fail_here(L, TILEC_ERROR_INTERNAL, "out of memory");
      return view;
    }
    k->bufs = bufs;
    k->capbufs = cap;
  }
  k->bufs[k->nbufs++] = (struct tc_nvptx_shared_buf){view, mlirOpResultGetOwner(off), bytes, {NULL}, align};
  return view;
}

MlirValue tc_nvptx_alloc_aligned(tc_lower *L, MlirType elem, int64_t n, int64_t align) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  k->next_align = align;
  MlirValue v = tc_alloc_buffer(L, elem, n);
  k->next_align = 0;
  return v;
}

int64_t tc_nvptx_shared_live(tc_lower *L) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  if (L->retries) return k->shared_bytes; /* end_kernel found the estimate too hopeful */
  int64_t dead = 0;
  for (int i = 0; i < k->nbufs; i++) {
    MlirOperation loop = k->bufs[i].loop;
    if (!mlirOperationIsNull(loop) &&
        !tc_block_encloses(mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0)), L->b.block))
      dead += k->bufs[i].bytes;
  }
  return k->shared_bytes - dead;
}

void tc_nvptx_shared_in_loop(tc_lower *L, MlirValue view, MlirOperation loop) {
  tc_nvptx_kernel *k = tc_nvptx_kernel_of(L);
  for (int i = 0; i < k->nbufs; i++)
    if (mlirValueEqual(k->bufs[i].view, view)) k->bufs[i].loop = loop;
}

/* ---- math: Triton's instructions, libdevice -------------------------------------------- */

/* math ops NVPTX has no instruction for, and their libdevice names (f32 adds 'f'). */
static const struct {
  const char *op, *fn;
} libdevice_fns[] = {
    {"math.exp", "exp"},     {"math.exp2", "exp2"},   {"math.expm1", "expm1"}, {"math.log", "log"},
    {"math.log2", "log2"},   {"math.log10", "log10"}, {"math.log1p", "log1p"}, {"math.sin", "sin"},
    {"math.cos", "cos"},     {"math.tan", "tan"},     {"math.tanh", "tanh"},   {"math.sinh", "sinh"},
    {"math.cosh", "cosh"},   {"math.asin", "asin"},   {"math.acos", "acos"},   {"math.atan", "atan"},
    {"math.atan2", "atan2"}, {"math.asinh", "asinh"}, {"math.acosh", "acosh"}, {"math.atanh", "atanh"},
    {"math.erf", "erf"},     {"math.erfc", "erfc"},   {"math.powf", "pow"},    {"math.cbrt", "cbrt"},
    {"math.rsqrt", "rsqrt"}, {"math.round", "round"},
};

static const char *libdevice_fn(MlirOperation op) {
  for (size_t i = 0; i < sizeof libdevice_fns / sizeof libdevice_fns[0]; i++)
    if (tc_op_is(op, libdevice_fns[i].op)) return libdevice_fns[i].fn;
  return NULL;
}

/* How one math op is computed on NVIDIA (docs/NVPTX.md, "Math accuracy"). Triton's
 * instructions (its NVIDIA ElementwiseOpToLLVM.cpp; exp2, sqrt and rsqrt are what its
 * libdevice calls become with __CUDA_FTZ=1), for fp32 and for fp16/bf16 computed in fp32:
 * `/` is div.full.f32 (2 ulp), tl.exp ex2.approx.f32 of x * log2(e), tl.exp2
 * ex2.approx.ftz.f32, tl.sqrt sqrt.approx.ftz.f32, tl.rsqrt rsqrt.approx.ftz.f32. The
 * accurate forms (TC_ATTR_PRECISE: div_rn, fdiv(ieee_rounding=True), sqrt_rn, libdevice.exp,
 * libdevice.exp2) and fp64 keep IEEE division and square root (LLVM's div.rn, sqrt.rn) and
 * libdevice; the other functions are libdevice's without __CUDA_FTZ (subnormals kept: the
 * prelude's ldexp/ilogb rely on them). */
typedef struct {
  char fn[32];  /* the callee: an NVVM intrinsic or __nv_NAME[f]; "" leaves the op to LLVM */
  double scale; /* the argument is multiplied by this first (0: not) */
} nv_math;

static bool nvptx_math_of(MlirOperation op, nv_math *m) {
  if (mlirOperationGetNumResults(op) != 1) return false;
  MlirType elem = tcb_element_type(mlirValueGetType(mlirOperationGetResult(op, 0)));
  bool fp32 = tcb_is_float(elem) && (tcb_bitwidth(elem) == 16 || tcb_bitwidth(elem) == 32) && !tc_op_is_precise(op);
  m->fn[0] = 0;
  m->scale = 0;
  if (tc_op_is(op, "arith.divf") && fp32) snprintf(m->fn, sizeof m->fn, "llvm.nvvm.div.full");
  else if (tc_op_is(op, "math.sqrt") && fp32) snprintf(m->fn, sizeof m->fn, "llvm.nvvm.sqrt.approx.ftz.f");
  else if (tc_op_is(op, "math.rsqrt") && fp32) snprintf(m->fn, sizeof m->fn, "llvm.nvvm.rsqrt.approx.ftz.f");
  else if (tc_op_is(op, "math.exp2") && fp32) snprintf(m->fn, sizeof m->fn, "llvm.nvvm.ex2.approx.ftz.f32");
  else if (tc_op_is(op, "math.exp") && fp32) {
    snprintf(m->fn, sizeof m->fn, "llvm.nvvm.ex2.approx.f32");
    m->scale = 1.4426950408889634; /* log2(e), rounded to fp32 as Triton's constant */
  } else if (libdevice_fn(op)) {
    snprintf(m->fn, sizeof m->fn, "__nv_%s%s", libdevice_fn(op), tcb_bitwidth(elem) != 64 ? "f" : "");
  }
  return m->fn[0] != 0;
}

static bool has_nvptx_math(MlirOperation op, void *user) {
  (void)user;
  nv_math m;
  return nvptx_math_of(op, &m);
}

static MlirOperation find_func(MlirModule m, const char *name) {
  for (MlirOperation o = mlirBlockGetFirstOperation(mlirModuleGetBody(m)); !mlirOperationIsNull(o);
       o = mlirOperationGetNextInBlock(o)) {
    MlirAttribute a = mlirOperationGetAttributeByName(o, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(a) && mlirStringRefEqual(mlirStringAttrGetValue(a), mlirStringRefCreateFromCString(name)))
      return o;
  }
  return (MlirOperation){NULL};
}

static void declare_fn(MlirModule m, const char *name, int nargs, MlirType t) {
  if (!mlirOperationIsNull(find_func(m, name))) return;
  MlirContext ctx = mlirModuleGetContext(m);
  MlirType ins[2] = {t, t};
  MlirType ftype = mlirFunctionTypeGet(ctx, nargs, ins, 1, &t);
  MlirNamedAttribute attrs[3] = {
      tcb_named(ctx, "sym_name", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(name))),
      tcb_named(ctx, "function_type", mlirTypeAttrGet(ftype)),
      tcb_named(ctx, "sym_visibility", mlirStringAttrGet(ctx, mlirStringRefCreateFromCString("private")))};
  tc_builder b;
  tcb_init(&b, ctx);
  b.loc = mlirLocationUnknownGet(ctx);
  tcb_set_end(&b, mlirModuleGetBody(m));
  MlirRegion r = mlirRegionCreate();
  tcb_op_regions(&b, "func.func", 0, NULL, 0, NULL, 3, attrs, 1, &r);
}

/* One lane: the call on its operands (fp16/bf16 widened to fp32 and the result rounded once). */
static MlirValue call_lane(tc_builder *b, const nv_math *nm, MlirNamedAttribute callee, int nargs, MlirValue *args,
                           MlirType elem, MlirType calc) {
  bool widen = tcb_bitwidth(elem) == 16;
  for (int i = 0; i < nargs; i++) {
    if (widen) args[i] = tcb_cast(b, "arith.extf", args[i], calc);
    if (nm->scale) args[i] = tcb_binary(b, "arith.mulf", args[i], tcb_const_float(b, calc, nm->scale));
  }
  MlirValue out = tcb_op1(b, "func.call", calc, nargs, args, 1, &callee);
  return widen ? tcb_cast(b, "arith.truncf", out, elem) : out;
}

/* One math op as calls of nm->fn, lane by lane for vectors. */
static tilec_status *call_nvptx_math(MlirModule m, MlirOperation op, const nv_math *nm) {
  MlirContext ctx = mlirModuleGetContext(m);
  MlirValue res = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(res), elem = tcb_element_type(t);
  unsigned bits = tcb_bitwidth(elem);
  MlirStringRef opname = mlirIdentifierStr(mlirOperationGetName(op));
  if (!tcb_is_float(elem) || (bits != 16 && bits != 32 && bits != 64))
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "'%.*s' on %u-bit floats is not supported on nvptx yet",
                               (int)opname.length, opname.data, bits);
  /* fp16 and bf16: computed in fp32 and rounded once (libdevice has no half functions) */
  MlirType calc = bits == 16 ? mlirF32TypeGet(ctx) : elem;
  int nargs = (int)mlirOperationGetNumOperands(op);
  if (nargs < 1 || nargs > 2)
    return tilec_status_create(TILEC_ERROR_INTERNAL, "'%.*s' with %d operands", (int)opname.length, opname.data, nargs);
  declare_fn(m, nm->fn, nargs, calc);
  tc_builder b;
  tcb_init(&b, ctx);
  b.loc = mlirOperationGetLocation(op);
  tcb_set_before(&b, op);
  MlirNamedAttribute callee =
      tcb_named(ctx, "callee", mlirFlatSymbolRefAttrGet(ctx, mlirStringRefCreateFromCString(nm->fn)));
  int64_t lanes = mlirTypeIsAVector(t) ? mlirShapedTypeGetDimSize(t, 0) : 0;
  if (mlirTypeIsAVector(t) && mlirShapedTypeGetRank(t) != 1)
    return tilec_status_create(TILEC_ERROR_INTERNAL, "%s call on a %d-d vector", nm->fn, (int)mlirShapedTypeGetRank(t));
  MlirValue out;
  if (!lanes) {
    MlirValue args[2];
    for (int i = 0; i < nargs; i++) args[i] = mlirOperationGetOperand(op, i);
    out = call_lane(&b, nm, callee, nargs, args, elem, calc);
  } else {
    MlirValue *vals = malloc(sizeof *vals * (size_t)lanes);
    if (!vals) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
    for (int64_t l = 0; l < lanes; l++) {
      MlirValue args[2];
      MlirNamedAttribute at = tcb_named(ctx, "static_position", mlirDenseI64ArrayGet(ctx, 1, &l));
      for (int i = 0; i < nargs; i++) {
        MlirValue v = mlirOperationGetOperand(op, i);
        args[i] = tcb_op1(&b, "vector.extract", elem, 1, &v, 1, &at);
      }
      vals[l] = call_lane(&b, nm, callee, nargs, args, elem, calc);
    }
    out = tcb_op1(&b, "vector.from_elements", t, lanes, vals, 0, NULL);
    free(vals);
  }
  mlirValueReplaceAllUsesOfWith(res, out);
  mlirOperationDestroy(op);
  return NULL;
}

static tilec_status *lower_math(MlirModule module, const tc_target *t, bool fast_math) {
  (void)t;
  (void)fast_math; /* Triton's instructions are already its fast forms; libdevice has one accuracy */
  MlirOperation *ops;
  int n;
  if (!tcb_collect(mlirModuleGetOperation(module), has_nvptx_math, NULL, &ops, &n))
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  tilec_status *st = NULL;
  for (int i = 0; i < n && !st; i++) {
    nv_math nm;
    if (nvptx_math_of(ops[i], &nm)) st = call_nvptx_math(module, ops[i], &nm);
  }
  free(ops);
  return st;
}

/* ---- LLVM: kernel entries, libdevice --------------------------------------------------- */

static const char *find_libdevice(void) {
  static char found[4096];
  const char *env = getenv("TILEC_LIBDEVICE");
  if (env && *env) return env;
  static const char *const dirs[] = {"/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                                     "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
                                     "/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (access(dirs[i], R_OK) == 0) return dirs[i];
  const char *cuda = getenv("CUDA_HOME");
  if (cuda && *cuda) {
    snprintf(found, sizeof found, "%s/nvvm/libdevice/libdevice.10.bc", cuda);
    if (access(found, R_OK) == 0) return found;
  }
  return NULL;
}

static tilec_status *link_libdevice(LLVMModuleRef m, const char *need) {
  const char *path = find_libdevice();
  if (!path)
    return tilec_status_create(
        TILEC_ERROR_UNSUPPORTED,
        "the kernel calls %s, which comes from NVIDIA's libdevice, and no libdevice.10.bc was found "
        "(set TILEC_LIBDEVICE to its path; it ships with the CUDA toolkit in nvvm/libdevice/ and "
        "with the PyPI package nvidia-cuda-nvcc-cu12)",
        need);
  LLVMMemoryBufferRef buf = NULL;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
    tilec_status *st = tilec_status_create(TILEC_ERROR_IO, "cannot read libdevice %s: %s", path, msg ? msg : "");
    LLVMDisposeMessage(msg);
    return st;
  }
  LLVMModuleRef lib = NULL;
  bool bad = LLVMParseBitcodeInContext2(LLVMGetModuleContext(m), buf, &lib);
  LLVMDisposeMemoryBuffer(buf);
  if (bad) return tilec_status_create(TILEC_ERROR_IO, "%s is not an LLVM bitcode module", path);
  LLVMSetTarget(lib, LLVMGetTarget(m));
  LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
  if (LLVMLinkModules2(m, lib)) return tilec_status_create(TILEC_ERROR_INTERNAL, "linking libdevice %s failed", path);
  return NULL;
}

static LLVMValueRef sreg(LLVMModuleRef m, LLVMBuilderRef b, const char *name) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
  LLVMTypeRef ty = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, NULL, 0);
  return LLVMBuildCall2(b, ty, fn, NULL, 0, "");
}

/* The PTX entry of kernel `inner` (parameters, then pid x/y/z and grid x/y/z): the
 * kernel's own name, its parameters, the program id from %ctaid and the grid from
 * %nctaid; the body is inlined into it. */
static tilec_status *make_entry(LLVMModuleRef m, LLVMValueRef inner, const tc_target *t) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  size_t len = 0;
  const char *iname = LLVMGetValueName2(inner, &len);
  LLVMTypeRef ity = LLVMGlobalGetValueType(inner);
  unsigned n = LLVMCountParamTypes(ity);
  if (n < 6) return tilec_status_create(TILEC_ERROR_INTERNAL, "kernel %s has no program-id parameters", iname);
  LLVMTypeRef *types = malloc(sizeof *types * n);
  LLVMValueRef *args = malloc(sizeof *args * n);
  if (!types || !args) {
    free(types);
    free(args);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
  LLVMGetParamTypes(ity, types);
  unsigned np = n - 6;
  char name[256];
  snprintf(name, sizeof name, "%s", iname + strlen(KERNEL_PREFIX));
  LLVMValueRef entry = LLVMAddFunction(m, name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), types, np, 0));
  LLVMSetFunctionCallConv(entry, LLVMPTXKernelCallConv);
  char ntid[16];
  snprintf(ntid, sizeof ntid, "%d", tc_target_threads(t));
  LLVMAddTargetDependentFunctionAttr(entry, "nvvm.maxntid", ntid);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, entry, "entry"));
  /* A byval parameter (a tensor descriptor, conversion/lower.c) is the entry's: the
   * driver copies its bytes into the parameter space, the body reads them with ld.param. */
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), align = LLVMGetEnumAttributeKindForName("align", 5);
  for (unsigned i = 0; i < np; i++) {
    args[i] = LLVMGetParam(entry, i);
    LLVMAttributeRef bv = LLVMGetEnumAttributeAtIndex(inner, i + 1, byval);
    if (!bv) continue;
    LLVMAddAttributeAtIndex(entry, i + 1, bv);
    LLVMAttributeRef al = LLVMGetEnumAttributeAtIndex(inner, i + 1, align);
    if (al) LLVMAddAttributeAtIndex(entry, i + 1, al);
    LLVMRemoveEnumAttributeAtIndex(inner, i + 1, byval); /* the inlined body reads the entry's copy */
  }
  static const char *const regs[6] = {"llvm.nvvm.read.ptx.sreg.ctaid.x",  "llvm.nvvm.read.ptx.sreg.ctaid.y",
                                      "llvm.nvvm.read.ptx.sreg.ctaid.z",  "llvm.nvvm.read.ptx.sreg.nctaid.x",
                                      "llvm.nvvm.read.ptx.sreg.nctaid.y", "llvm.nvvm.read.ptx.sreg.nctaid.z"};
  for (int i = 0; i < 6; i++) args[np + i] = sreg(m, b, regs[i]);
  LLVMBuildCall2(b, ity, inner, args, n, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(types);
  free(args);
  LLVMSetLinkage(inner, LLVMInternalLinkage);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", strlen("alwaysinline"));
  LLVMAddAttributeAtIndex(inner, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, always, 0));
  return NULL;
}

static tilec_status *prepare(LLVMModuleRef m, const tc_target *t) {
  LLVMValueRef kernels[64];
  int nk = 0;
  const char *need = NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) && !strncmp(name, KERNEL_PREFIX, strlen(KERNEL_PREFIX)) && nk < 64) kernels[nk++] = f;
    if (LLVMIsDeclaration(f) && !strncmp(name, "__nv_", 5) && !need) need = name;
  }
  tilec_status *st = NULL;
  for (int i = 0; i < nk && !st; i++) st = make_entry(m, kernels[i], t);
  if (!st && need) {
    char fn[128];
    snprintf(fn, sizeof fn, "%s", need);
    st = link_libdevice(m, fn);
  }
  if (st) return st;
  /* Only the entries stay visible: libdevice's unused functions and the inlined kernel
   * bodies are dropped by the optimizer. */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != LLVMPTXKernelCallConv)
      LLVMSetLinkage(f, LLVMInternalLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(g, &len);
    if (!strncmp(name, SHARED_BYTES_PREFIX, strlen(SHARED_BYTES_PREFIX))) {
      LLVMSetLinkage(g, LLVMExternalLinkage); /* the library's launcher reads it from the PTX */
      continue;
    }
    if (!LLVMIsDeclaration(g)) LLVMSetLinkage(g, LLVMInternalLinkage);
  }
  return NULL;
}

/* ---- after the optimizer: what NVPTX's code generators get wrong ------------------------ */

/* ptxas (CUDA 13.0, sm_80 and sm_90) miscompiles a 16-bit negation whose result is
 * widened: for neg.s16 (or sub.s16 d, 0, a) followed by cvt.s32/s64.s16 it negates the
 * sign-extended 32-bit register and takes the result as still sign-extended (SASS: PRMT
 * 0x9910, IMAD.MOV -R, SHF.R.S32.HI), so -(-32768) widens to +32768 instead of -32768
 * (an H200 showed it: intops divmod_int16_int8). An i16 negation is therefore not + add in
 * inline assembly, which neither LLVM's DAG combiner (it folds (x ^ -1) + 1 into 0 - x)
 * nor ptxas turns back into a negation; ptxas then sign-extends the sum itself. */
static LLVMValueRef neg16(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef x) {
  LLVMTypeRef i16 = LLVMInt16TypeInContext(LLVMGetModuleContext(m)), fty = LLVMFunctionType(i16, &i16, 1, 0);
  static const char text[] = "{ not.b16 $0, $1; add.s16 $0, $0, 1; }", cons[] = "=h,h";
  LLVMValueRef neg = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 0, 0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(b, fty, neg, &x, 1, "");
}

/* PTX's shl/shr take a 32-bit amount and give 0 (the sign, for shr.s) from the width up.
 * The lowering guards a shift (conversion/int_semantics.c: select(y <u 64, x << y, 0));
 * LLVM's NVPTX instruction selection drops that select, relying on the clamp, but
 * truncates a 64-bit amount to 32 bits first, so x << (2^63 + 3) became x << 3 (an H200:
 * intops arith_*_int64). Each i64 shl/lshr by a variable amount gets umin(y, 64) as its
 * amount: what the truncation keeps is then at most 64 and the clamp gives 0. */
static LLVMValueRef clamp64(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef y) {
  LLVMTypeRef ty = LLVMTypeOf(y);
  unsigned id = LLVMLookupIntrinsicID("llvm.umin", 9);
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &ty, 1);
  LLVMValueRef c = LLVMConstInt(LLVMInt64TypeInContext(LLVMGetModuleContext(m)), 64, 0);
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind) {
    unsigned n = LLVMGetVectorSize(ty);
    LLVMValueRef cs[64];
    for (unsigned k = 0; k < n && k < 64; k++) cs[k] = c;
    c = LLVMConstVector(cs, n);
  }
  LLVMValueRef args[2] = {y, c};
  return LLVMBuildCall2(b, LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, &ty, 1), fn, args, 2, "");
}

static unsigned elem_int_width(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind) ty = LLVMGetElementType(ty);
  return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty) : 0;
}

/* A masked load or store whose mask is one value for the whole vector (a chunk that a bound
 * never splits: conversion/mask.c) is one predicated ld/st.global.v4 in straight-line code,
 * as Triton's. LLVM's NVPTX code generation instead scalarizes llvm.masked.load/store with a
 * splat mask into a branch around a vector access: each access its own basic block, which
 * ptxas will not schedule across, so a thread's loads of several tiles were issued one
 * after another's use (swiglu's backward: three batches of four LDG.128 with the sigmoid
 * between them; RMSNorm's backward: one DRAM latency per tile each trip of its row loop).
 * The rewrite keeps the access's meaning: the predicated-off lanes keep the pass-through
 * value (tied inputs), and the asm has side effects, so nothing moves across it. Only
 * accesses of 4, 8 or 16 bytes at their own alignment through a pointer that comes from a
 * kernel argument (global memory) are rewritten; the rest stay LLVM's. */

/* The i1 that a splat mask repeats (shufflevector of lane 0 of an insertelement), or NULL. */
static LLVMValueRef splat_condition(LLVMValueRef mask) {
  if (!LLVMIsAShuffleVectorInst(mask)) return NULL;
  for (unsigned k = 0; k < LLVMGetNumMaskElements(mask); k++)
    if (LLVMGetMaskValue(mask, k) != 0) return NULL;
  LLVMValueRef ins = LLVMGetOperand(mask, 0);
  if (!LLVMIsAInsertElementInst(ins)) return NULL;
  LLVMValueRef idx = LLVMGetOperand(ins, 2);
  if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != 0) return NULL;
  return LLVMGetOperand(ins, 1);
}

/* Does pointer p come from a kernel argument (through GEPs, casts and phis), so that it
 * points to global memory? */
static bool from_argument(LLVMValueRef p, int depth) {
  if (depth > 8) return false;
  if (LLVMIsAArgument(p)) return LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind;
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p)) return from_argument(LLVMGetOperand(p, 0), depth + 1);
  if (LLVMIsAPHINode(p)) {
    for (unsigned k = 0; k < LLVMCountIncoming(p); k++) {
      LLVMValueRef in = LLVMGetIncomingValue(p, k);
      if (in != p && !from_argument(in, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

/* The alignment the call's argument `arg` (0-based) carries, 0 when none. */
static unsigned arg_alignment(LLVMValueRef call, unsigned arg) {
  unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
  LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, arg + 1, kind);
  return a ? (unsigned)LLVMGetEnumAttributeValue(a) : 0;
}

/* 32-bit words of a vector type that is 4, 8 or 16 bytes (0 otherwise). */
static unsigned vector_words(LLVMTargetDataRef dl, LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) != LLVMVectorTypeKind) return 0;
  unsigned long long bytes = LLVMStoreSizeOfType(dl, ty);
  return bytes == 4 || bytes == 8 || bytes == 16 ? (unsigned)(bytes / 4) : 0;
}

static const char *const PRED_LD[] = {"", "@$2 ld.global.b32 $0, [$1];", "@$3 ld.global.v2.b32 {$0, $1}, [$2];", "",
                                      "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];"};
static const char *const PRED_LD_CONS[] = {"", "=r,l,b,0", "=r,=r,l,b,0,1", "", "=r,=r,=r,=r,l,b,0,1,2,3"};
static const char *const PRED_ST[] = {"", "@$0 st.global.b32 [$1], $2;", "@$0 st.global.v2.b32 [$1], {$2, $3};", "",
                                      "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};"};
static const char *const PRED_ST_CONS[] = {"", "b,l,r", "b,l,r,r", "", "b,l,r,r,r,r"};

/* Rewrites `call` (an llvm.masked.load/store) as above; false when it does not qualify. */
static bool predicate_masked_access(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  size_t len = 0;
  const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";
  bool load = !strncmp(name, "llvm.masked.load.", 17), store = !strncmp(name, "llvm.masked.store.", 18);
  if (!load && !store) return false;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  LLVMValueRef ptr = LLVMGetOperand(call, load ? 0 : 1), mask = LLVMGetOperand(call, load ? 1 : 2);
  LLVMValueRef data = load ? call : LLVMGetOperand(call, 0);
  LLVMTypeRef vty = LLVMTypeOf(data);
  unsigned n = vector_words(dl, vty);
  LLVMValueRef pred = splat_condition(mask);
  if (!n || !pred || arg_alignment(call, load ? 0 : 1) < 4 * n || !from_argument(ptr, 0)) return false;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), wty = LLVMVectorType(i32, n);
  LLVMValueRef ops[10];
  LLVMTypeRef tys[10];
  LLVMPositionBuilderBefore(b, call);
  /* ld/st.global take a global address: the kernel argument's, cast back from generic */
  ptr = LLVMBuildAddrSpaceCast(b, ptr, LLVMPointerTypeInContext(ctx, 1), "");
  if (store) {
    LLVMValueRef words = LLVMBuildBitCast(b, data, wty, "");
    ops[0] = pred, ops[1] = ptr;
    for (unsigned k = 0; k < n; k++) ops[2 + k] = LLVMBuildExtractElement(b, words, LLVMConstInt(i32, k, 0), "");
    for (unsigned k = 0; k < n + 2; k++) tys[k] = LLVMTypeOf(ops[k]);
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), tys, n + 2, 0);
    LLVMValueRef asm_ = LLVMGetInlineAsm(fty, PRED_ST[n], strlen(PRED_ST[n]), PRED_ST_CONS[n], strlen(PRED_ST_CONS[n]),
                                         1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(b, fty, asm_, ops, n + 2, "");
    LLVMInstructionEraseFromParent(call);
    return true;
  }
  LLVMValueRef pass = LLVMBuildBitCast(b, LLVMGetOperand(call, 2), wty, "");
  ops[0] = ptr, ops[1] = pred;
  for (unsigned k = 0; k < n; k++) ops[2 + k] = LLVMBuildExtractElement(b, pass, LLVMConstInt(i32, k, 0), "");
  for (unsigned k = 0; k < n + 2; k++) tys[k] = LLVMTypeOf(ops[k]);
  LLVMTypeRef outs[4] = {i32, i32, i32, i32};
  LLVMTypeRef rty = n == 1 ? i32 : LLVMStructTypeInContext(ctx, outs, n, 0);
  LLVMTypeRef fty = LLVMFunctionType(rty, tys, n + 2, 0);
  LLVMValueRef asm_ = LLVMGetInlineAsm(fty, PRED_LD[n], strlen(PRED_LD[n]), PRED_LD_CONS[n], strlen(PRED_LD_CONS[n]), 1,
                                       0, LLVMInlineAsmDialectATT, 0);
  LLVMValueRef r = LLVMBuildCall2(b, fty, asm_, ops, n + 2, ""), words = LLVMGetPoison(wty);
  for (unsigned k = 0; k < n; k++)
    words =
        LLVMBuildInsertElement(b, words, n == 1 ? r : LLVMBuildExtractValue(b, r, k, ""), LLVMConstInt(i32, k, 0), "");
  LLVMReplaceAllUsesWith(call, LLVMBuildBitCast(b, words, vty, ""));
  LLVMInstructionEraseFromParent(call);
  return true;
}

static tilec_status *finish(LLVMModuleRef m, const tc_target *t) {
  (void)t;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb), next; in; in = next) {
        next = LLVMGetNextInstruction(in);
        LLVMOpcode op = LLVMGetInstructionOpcode(in);
        if (op == LLVMCall && predicate_masked_access(m, b, in)) continue;
        LLVMTypeRef ty = LLVMTypeOf(in);
        unsigned w = elem_int_width(ty);
        if ((op == LLVMShl || op == LLVMLShr) && w == 64 && !LLVMIsAConstant(LLVMGetOperand(in, 1))) {
          LLVMPositionBuilderBefore(b, in);
          LLVMSetOperand(in, 1, clamp64(m, b, LLVMGetOperand(in, 1)));
          continue;
        }
        if (op != LLVMSub || w != 16 || !LLVMIsNull(LLVMGetOperand(in, 0))) continue;
        LLVMPositionBuilderBefore(b, in);
        LLVMValueRef x = LLVMGetOperand(in, 1), r;
        if (LLVMGetTypeKind(ty) != LLVMVectorTypeKind) {
          r = neg16(m, b, x);
        } else {
          r = LLVMGetPoison(ty);
          for (unsigned k = 0; k < LLVMGetVectorSize(ty); k++) {
            LLVMValueRef idx = LLVMConstInt(i32, k, 0);
            r = LLVMBuildInsertElement(b, r, neg16(m, b, LLVMBuildExtractElement(b, x, idx, "")), idx, "");
          }
        }
        LLVMReplaceAllUsesWith(in, r);
        LLVMInstructionEraseFromParent(in);
      }
  LLVMDisposeBuilder(b);
  return NULL;
}

/* Triton compiles for NVIDIA GPUs with floating-point contraction on (its enable_fp_fusion
 * option, default true: LLVM's AllowFPOpFusion=Fast, ptxas --fmad=true), so a * b + c is one
 * fma.rn. Every llvm.fmul/fadd/fsub gets the contract flag, which LLVM's instruction
 * selection fuses by; the emulator's too, so that on a host with FMA it rounds as the GPU
 * does. */
static MlirWalkResult set_contract(MlirOperation op, void *user) {
  if (tc_op_is(op, "llvm.fmul") || tc_op_is(op, "llvm.fadd") || tc_op_is(op, "llvm.fsub"))
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("fastmathFlags"), *(MlirAttribute *)user);
  return MlirWalkResultAdvance;
}

static void allow_contraction(MlirModule module) {
  MlirAttribute flags =
      mlirAttributeParseGet(mlirModuleGetContext(module), mlirStringRefCreateFromCString("#llvm.fastmath<contract>"));
  mlirOperationWalk(mlirModuleGetOperation(module), set_contract, &flags, MlirWalkPreOrder);
}

static tilec_status *emit(MlirModule module, tc_stage stage, const tc_target *t, const tc_codegen_options *opts,
                          char **out, size_t *len) {
  if (opts->fp_fusion) allow_contraction(module);
  if (stage == TC_STAGE_OBJECT)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                               "nvptx has no object files: build a library of one signature with -o (it embeds the "
                               "PTX), or print it with --emit ptx; the JIT and libraries of several signatures do "
                               "not support nvptx yet (--target nvptx-emu runs the GPU lowering on this CPU)");
  return tc_llvm_emit(module, stage, t, opts, prepare, finish, out, len);
}

const tc_backend tc_backend_nvptx = {
    .name = "nvptx",
    .chunk_bits = chunk_bits,
    .kernel_chunk_bits = kernel_chunk_bits,
    .vector_registers = vector_registers,
    .select_minmax = select_minmax,
    .emit_nest = emit_nest,
    .op_rows = op_rows,
    .alloc_shared = alloc_shared,
    .shared_loop = shared_loop,
    .loop_carries = &tc_nvptx_mma_carries,
    .materialize_fragments = tc_nvptx_materialize_fragments,
    .thread_tile = thread_tile,
    .alloc_thread_tile = alloc_thread_tile,
    .alloc_carried_tile = alloc_carried_tile,
    .thread_tile_index = thread_tile_index,
    .begin_kernel = begin_kernel,
    .end_kernel = end_kernel,
    .redundant = redundant,
    .aligned_vectors = true,
    .descriptors_by_value = true,
    .lower_math = lower_math,
    .emit = emit,
};

/* ---- nvptx-emu: the same lowering, run on this CPU -------------------------------------- */

/* Every kernel __tilec_kernel_K(params, pid, grid) becomes a CTA: its body moves to an
 * internal __tilec_cta_K, a __tilec_cta_body_K(ctx) unpacks the arguments from a struct,
 * and __tilec_kernel_K packs them and runs the body on the CTA's threads
 * (tilec_rt_emu_cta). What the trampoline calls is __tilec_emu_launch_K(args, pid, grid),
 * which takes its parameters from args[] the way cuLaunchKernel does: each parameter is
 * the bytes args[i] points at, as many as the kernel declares — a byval parameter (a
 * tensor descriptor) a copy of its whole struct, anything else a value of its type — so
 * a kernel that would read a parameter wrongly on a GPU reads it wrongly here. */
static tilec_status *make_driver_entry(LLVMModuleRef m, LLVMValueRef outer, const char *name, LLVMTypeRef fty,
                                       const LLVMTypeRef *byval_of) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned n = LLVMCountParamTypes(fty), np = n - 6;
  LLVMTypeRef *types = malloc(sizeof *types * n);
  LLVMValueRef *vals = malloc(sizeof *vals * n);
  if (!types || !vals) {
    free(types);
    free(vals);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
  LLVMGetParamTypes(fty, types);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0), i32 = LLVMInt32TypeInContext(ctx),
              i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef params[7] = {ptr, i32, i32, i32, i32, i32, i32};
  char ename[300];
  snprintf(ename, sizeof ename, "__tilec_emu_launch_%s", name);
  LLVMValueRef entry = LLVMAddFunction(m, ename, LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 7, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, entry, "entry"));
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef idx = LLVMConstInt(i64, i, 0);
    LLVMValueRef src = LLVMBuildLoad2(b, ptr, LLVMBuildGEP2(b, ptr, LLVMGetParam(entry, 0), &idx, 1, ""), "");
    if (byval_of[i]) {
      LLVMValueRef copy = LLVMBuildAlloca(b, byval_of[i], "param");
      LLVMBuildMemCpy(b, copy, 8, src, 1, LLVMSizeOf(byval_of[i]));
      vals[i] = copy;
    } else {
      vals[i] = LLVMBuildLoad2(b, types[i], src, "");
    }
  }
  for (unsigned i = 0; i < 6; i++) vals[np + i] = LLVMGetParam(entry, i + 1);
  LLVMBuildCall2(b, fty, outer, vals, n, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(types);
  free(vals);
  return NULL;
}

static tilec_status *make_cta(LLVMModuleRef m, LLVMValueRef kernel, const tc_target *t) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  size_t len = 0;
  const char *kname = LLVMGetValueName2(kernel, &len);
  char name[256], inner_name[300], body_name[300];
  snprintf(name, sizeof name, "%s", kname + strlen(KERNEL_PREFIX));
  snprintf(inner_name, sizeof inner_name, "__tilec_cta_%s", name);
  snprintf(body_name, sizeof body_name, "__tilec_cta_body_%s", name);
  LLVMTypeRef fty = LLVMGlobalGetValueType(kernel);
  unsigned n = LLVMCountParamTypes(fty);
  LLVMTypeRef *types = malloc(sizeof *types * (n ? n : 1));
  LLVMValueRef *args = malloc(sizeof *args * (n ? n : 1));
  if (!types || !args) {
    free(types);
    free(args);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
  LLVMGetParamTypes(fty, types);
  /* byval parameters: the launch entry makes the copy, the CTA's threads share it */
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMTypeRef *byval_of = calloc(n ? n : 1, sizeof *byval_of);
  if (!byval_of) {
    free(types);
    free(args);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
  for (unsigned i = 0; i < n; i++) {
    LLVMAttributeRef bv = LLVMGetEnumAttributeAtIndex(kernel, i + 1, byval);
    if (!bv) continue;
    byval_of[i] = LLVMGetTypeAttributeValue(bv);
    LLVMRemoveEnumAttributeAtIndex(kernel, i + 1, byval);
  }
  LLVMSetValueName2(kernel, inner_name, strlen(inner_name));
  LLVMSetLinkage(kernel, LLVMInternalLinkage);
  LLVMTypeRef st = LLVMStructTypeInContext(ctx, types, n, 0);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  /* the body: unpack, call */
  LLVMValueRef body = LLVMAddFunction(m, body_name, LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 0));
  LLVMSetLinkage(body, LLVMInternalLinkage);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, body, "entry"));
  for (unsigned i = 0; i < n; i++)
    args[i] = LLVMBuildLoad2(b, types[i], LLVMBuildStructGEP2(b, st, LLVMGetParam(body, 0), i, ""), "");
  LLVMBuildCall2(b, fty, kernel, args, n, "");
  LLVMBuildRetVoid(b);
  /* the kernel: pack, run the CTA */
  char outer_name[300];
  snprintf(outer_name, sizeof outer_name, "%s%s", KERNEL_PREFIX, name);
  LLVMValueRef outer = LLVMAddFunction(m, outer_name, fty);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, outer, "entry"));
  LLVMValueRef frame = LLVMBuildAlloca(b, st, "args");
  for (unsigned i = 0; i < n; i++) LLVMBuildStore(b, LLVMGetParam(outer, i), LLVMBuildStructGEP2(b, st, frame, i, ""));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx), i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef cta_params[4] = {i32, i64, ptr, ptr};
  LLVMTypeRef cta_ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), cta_params, 4, 0);
  LLVMValueRef cta = LLVMGetNamedFunction(m, "tilec_rt_emu_cta");
  if (!cta) cta = LLVMAddFunction(m, "tilec_rt_emu_cta", cta_ty);
  char bytes_name[300];
  snprintf(bytes_name, sizeof bytes_name, "%s%s", SHARED_BYTES_PREFIX, name);
  LLVMValueRef bytes_global = LLVMGetNamedGlobal(m, bytes_name);
  unsigned long long shared = 0;
  if (bytes_global && LLVMGetInitializer(bytes_global))
    shared = LLVMConstIntGetZExtValue(LLVMGetInitializer(bytes_global));
  LLVMValueRef cargs[4] = {LLVMConstInt(i32, (unsigned)tc_target_threads(t), 0), LLVMConstInt(i64, shared, 0), body,
                           frame};
  LLVMBuildCall2(b, cta_ty, cta, cargs, 4, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  tilec_status *err = make_driver_entry(m, outer, name, fty, byval_of);
  free(byval_of);
  free(types);
  free(args);
  return err;
}

static tilec_status *prepare_emu(LLVMModuleRef m, const tc_target *t) {
  LLVMValueRef kernels[64];
  int nk = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) && !strncmp(name, KERNEL_PREFIX, strlen(KERNEL_PREFIX)) && nk < 64) kernels[nk++] = f;
  }
  tilec_status *st = NULL;
  for (int i = 0; i < nk && !st; i++) st = make_cta(m, kernels[i], t);
  if (!st) st = tc_backend_cpu_prepare(m, t); /* the host CPU's features on every function */
  return st;
}

static tilec_status *emit_emu(MlirModule module, tc_stage stage, const tc_target *t, const tc_codegen_options *opts,
                              char **out, size_t *len) {
  if (opts->fp_fusion) allow_contraction(module);
  return tc_llvm_emit(module, stage, t, opts, prepare_emu, NULL, out, len);
}

/* tl.exp on fp32 (fp16/bf16 computed in fp32) in Triton's form, not the accurate one. */
static bool is_fast_exp(MlirOperation op, void *user) {
  (void)user;
  if (!tc_op_is(op, "math.exp") || tc_op_is_precise(op)) return false;
  MlirType elem = tcb_element_type(mlirValueGetType(mlirOperationGetResult(op, 0)));
  return tcb_is_float(elem) && (tcb_bitwidth(elem) == 16 || tcb_bitwidth(elem) == 32);
}

/* t with fp32 elements (a vector's shape kept). */
static MlirType as_f32(MlirType t) {
  MlirType f32 = mlirF32TypeGet(mlirTypeGetContext(t));
  if (!mlirTypeIsAVector(t)) return f32;
  int64_t shape[TC_RANK];
  intptr_t r = mlirShapedTypeGetRank(t);
  for (intptr_t i = 0; i < r && i < TC_RANK; i++) shape[i] = mlirShapedTypeGetDimSize(t, i);
  return mlirVectorTypeGet(r, shape, f32);
}

/* nvptx-emu computes math on this CPU (SLEEF, docs/NVPTX.md "Math accuracy"): division and
 * square root exactly, the functions to SLEEF's bounds, except tl.exp, computed as the GPU
 * does, 2^(x * log2(e)) with the product rounded to fp32 (exp2 to 1 ulp here where the GPU's
 * ex2.approx has 2^-22): the emulator shows the error that product has for large |x|. */
static tilec_status *lower_math_emu(MlirModule module, const tc_target *t, bool fast_math) {
  MlirOperation *ops;
  int n;
  if (!tcb_collect(mlirModuleGetOperation(module), is_fast_exp, NULL, &ops, &n))
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  for (int i = 0; i < n; i++) {
    tc_builder b;
    tcb_init(&b, mlirModuleGetContext(module));
    b.loc = mlirOperationGetLocation(ops[i]);
    tcb_set_before(&b, ops[i]);
    MlirValue res = mlirOperationGetResult(ops[i], 0), x = mlirOperationGetOperand(ops[i], 0);
    MlirType t0 = mlirValueGetType(res), calc = as_f32(t0);
    bool widen = tcb_bitwidth(tcb_element_type(t0)) == 16;
    if (widen) x = tcb_cast(&b, "arith.extf", x, calc);
    MlirValue p = tcb_binary(&b, "arith.mulf", x, tcb_const_float(&b, calc, 1.4426950408889634));
    MlirValue e = tcb_cast(&b, "math.exp2", p, calc);
    if (widen) e = tcb_cast(&b, "arith.truncf", e, t0);
    mlirValueReplaceAllUsesOfWith(res, e);
    mlirOperationDestroy(ops[i]);
  }
  free(ops);
  return tc_backend_cpu.lower_math(module, t, fast_math);
}

const tc_backend tc_backend_nvptx_emu = {
    .name = "nvptx-emu",
    .chunk_bits = chunk_bits,
    .kernel_chunk_bits = kernel_chunk_bits,
    .vector_registers = vector_registers,
    .select_minmax = select_minmax,
    .emit_nest = emit_nest,
    .op_rows = emu_op_rows,
    .alloc_shared = alloc_shared,
    .shared_loop = shared_loop,
    .loop_carries = &tc_nvptx_mma_carries,
    .materialize_fragments = tc_nvptx_materialize_fragments,
    .thread_tile = thread_tile,
    .alloc_thread_tile = alloc_thread_tile,
    .alloc_carried_tile = alloc_carried_tile,
    .thread_tile_index = thread_tile_index,
    .begin_kernel = begin_kernel,
    .end_kernel = end_kernel,
    .redundant = redundant,
    .heap_buffers = true,
    .aligned_vectors = true,
    .descriptors_by_value = true,
    .lower_math = lower_math_emu,
    .emit = emit_emu,
};
