/* tilec/tilec.h — the compiler API: Triton-syntax kernel source in, IR text or a kernel
 * library (.so + C header) out. Every call returns a tilec_status (NULL on success);
 * nothing here prints, exits or aborts. */
#ifndef TILEC_TILEC_H
#define TILEC_TILEC_H

#include <stdbool.h>
#include <stddef.h>

#include "tilec/abi.h"
#include "tilec/export.h"
#include "tilec/runtime.h"
#include "tilec/status.h"

#ifdef __cplusplus
extern "C" {
#endif

TILEC_API const char *tilec_version(void);

typedef struct tilec_compile_options {
  const char *target; /* "host" (default), "x86-64-v2", "x86-64-v3", "x86-64-v4", "aarch64",
                        * "nvptx" (PTX for NVIDIA GPUs: --emit ptx, a host library, or the JIT,
                        * whose kernels launch on the GPU through the CUDA driver; see arch,
                        * num_warps), "nvptx-emu" (the GPU lowering run on this CPU) */
  int opt_level;      /* 0..3, default 3 */
  bool fast_math;     /* SLEEF _u35 variants where they exist */
  bool debug_info;    /* DWARF line tables pointing at the kernel source */
  /* Fields below were added after the first release; new fields are only ever appended.
   * Fill the struct with tilec_compile_options_init before setting fields so that fields a
   * program does not know about keep their defaults. */
  bool check_bounds;       /* runtime bounds checks on loads/stores (part of the JIT cache key) */
  const char *cache_dir;   /* JIT disk cache: NULL = $TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec,
                          * else ~/.cache/tilec; "" = no disk cache (memory only). Copied. */
  bool check_nan;          /* report the first NaN/Inf a program stores when it loaded none */
  bool check_races;        /* report two programs of a launch accessing one element, at least one
                          * storing, neither through atomics nor under a lock */
  bool reference;          /* the plain reference build (one element at a time, libm math, -O1)
                          * that `tilec run --reference` compares the optimized build with */
  bool strip_asserts;      /* tl.device_assert and `assert` in kernels compile to nothing, as in
                          * Triton without debug=True (the Python package sets it) */
  const char *arch;        /* target "nvptx": the GPU ("sm_80" default, "sm_90", ...) */
  uint32_t num_warps;      /* target "nvptx": warps per program (CTA), a power of 2 <= 32; 0 = 4 */
  const char *ptx_version; /* target "nvptx": the PTX ISA to emit ("8.0"); NULL = the chip's
                            * lowest (sm_80: 7.0, sm_90: 7.8, ...); lower than that is refused */
  uint32_t checks;         /* TILEC_CHECKS_* classes to instrument, added to the check_* flags
                          * above (tilec_compile_options_init sets it from TILEC_CHECK) */
  bool no_fp_fusion;       /* targets "nvptx", "nvptx-emu": round every product and sum on its
                          * own (Triton's enable_fp_fusion=False); by default a * b + c may be
                          * one fma, as Triton compiles for NVIDIA GPUs. CPU targets never fuse. */
  uint32_t num_stages;     /* targets "nvptx", "nvptx-emu": Triton's num_stages, the buffers a K loop's
                          * tl.dot operand loads cycle through (loads run num_stages - 1 trips
                          * ahead); 1 = no pipelining, at most 8; 0 = 3 (Triton's default on sm_80+).
                          * Another value is TILEC_ERROR_INVALID_ARGUMENT, and so is a nonzero
                          * value on a CPU target (as num_warps). */
} tilec_compile_options;

/* Fills the defaults, then the debug checks the environment asks for (tilec_checks_from_env;
 * a malformed TILEC_CHECK makes tilec_compiler_create fail with its message). */
TILEC_API void tilec_compile_options_init(tilec_compile_options *opts);

/* ---- debug checks (the TILEC_CHECKS_* classes: tilec/runtime.h) -------------------------
 * `--check all` / `--check bounds,races` on the command line, TILEC_CHECK=all in the
 * environment, tilec_compile_options.checks in the API. */

/* "all", "none" (or ""), or a comma-separated list of "bounds", "nan", "races", "init" ->
 * TILEC_CHECKS_* bits. An unknown name is TILEC_ERROR_INVALID_ARGUMENT naming it. */
TILEC_API tilec_status *tilec_checks_parse(const char *text, uint32_t *out);
/* The classes the environment asks for: TILEC_CHECK (as tilec_checks_parse reads it) and the
 * older TILEC_CHECK_BOUNDS / TILEC_CHECK_NAN / TILEC_CHECK_RACES (set and not "0"). Errors
 * name TILEC_CHECK's value. */
TILEC_API tilec_status *tilec_checks_from_env(uint32_t *out);

typedef struct tilec_compiler tilec_compiler;

/* Creates a compiler (one MLIR context; not thread-safe: use one per thread). */
TILEC_API tilec_status *tilec_compiler_create(const tilec_compile_options *opts, tilec_compiler **out);
TILEC_API void tilec_compiler_destroy(tilec_compiler *c);
/* The TILEC_CHECKS_* classes this compiler instruments kernels for: the options' requests,
 * resolved once when it was created. */
TILEC_API uint32_t tilec_compiler_checks(const tilec_compiler *c);

/* A named compile-time value or parameter type: NAME=VALUE, VALUE in signature syntax
 * ("*fp32:16", "i32", "1024", "0.5", "True", "None", "leaky_relu", a dtype "tl.float16",
 * a tuple "(2, 3)"). */
typedef struct tilec_define {
  const char *name;
  const char *value;
} tilec_define;

/* ---- module context: the names a kernel resolves outside its own body ------------------
 * Triton resolves a kernel's free names through its Python module's globals. A caller that
 * has those globals (the Python package) passes them as tilec_global entries; without them
 * (`tilec compile FILE`), the front end derives them from the file's own module-level
 * statements (imports, `X = tl.constexpr(...)`, `DT = tl.float16`, try/except ImportError).
 * Lookup order for a free name: the function's locals, then the globals given here, then
 * the names the file's module-level statements bind, then Python builtins and the default
 * `tl` / `triton` / `libdevice` names. */
typedef enum tilec_global_kind {
  TILEC_GLOBAL_CONSTEXPR = 0,     /* value: a compile-time value in signature/define syntax: "3",
                               * "1e-06", "True", "None", "tl.float16", "(2, 3)", a bare string */
  TILEC_GLOBAL_MODULE = 1,        /* value: the dotted module it names: "triton", "triton.language",
                               * "triton.language.math", "triton.language.extra.libdevice" */
  TILEC_GLOBAL_OBJECT = 2,        /* value: the dotted path of an object imported by name:
                               * "triton.language.extra.libdevice.rsqrt", "triton.language.float16" */
  TILEC_GLOBAL_FUNCTION = 3,      /* a @jit function: value is its name in modules[module] */
  TILEC_GLOBAL_PLAIN = 4,         /* a non-constexpr Python global: value in CONSTEXPR syntax, or
                               * NULL when it has none; Triton's rules apply (usable in parameter
                               * defaults, elsewhere a located "Cannot access global variable"
                               * error unless TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1) */
  TILEC_GLOBAL_SOURCE_MODULE = 5, /* a Python module whose source is modules[module]: attributes
                                   * (`h.my_jit_fn` after `import helpers as h`) resolve in that
                                   * module's globals and functions; value unused */
  TILEC_GLOBAL_NAMEDTUPLE = 6     /* a NamedTuple class (`class T(NamedTuple)`): value lists its
                                   * fields in order, "f0, f1=DEFAULT, ...", a default in
                                   * CONSTEXPR syntax; T(...) in a kernel builds a tuple whose
                                   * fields T.f0 ... read */
} tilec_global_kind;

typedef struct tilec_global {
  const char *name; /* the name as the module binds it */
  tilec_global_kind kind;
  const char *value;
  size_t module; /* TILEC_GLOBAL_FUNCTION: index into the spec's modules */
} tilec_global;

typedef enum tilec_source_kind {
  TILEC_SOURCE_FILE = 0,     /* a whole Python file: @jit-decorated top-level defs are the
                               * kernel functions, other code is host code and is skipped */
  TILEC_SOURCE_FUNCTIONS = 1 /* only function definitions (dedented, decorators removed), as
                               * a caller that holds the function objects passes them: every
                               * top-level def is a kernel function */
} tilec_source_kind;

/* Another unit of source that @jit helpers come from, with its own globals. */
typedef struct tilec_source_module {
  const char *filename; /* diagnostics and debug info; read when source is NULL */
  const char *source;
  size_t source_len;
  tilec_source_kind source_kind;
  int first_line;              /* line of filename that source's first line is (0 means 1) */
  const tilec_global *globals; /* FUNCTION entries index the spec's modules as well */
  size_t num_globals;
} tilec_source_module;

typedef struct tilec_kernel_spec {
  const char *source; /* kernel file contents; NULL: read the file `filename` */
  size_t source_len;
  const char *filename;        /* for diagnostics and debug info */
  const char *kernel;          /* name of the @triton.jit function */
  const char *signature;       /* Triton AOT signature, positional; may be NULL */
  const tilec_define *defines; /* by name; override/complete the signature */
  size_t num_defines;
  /* Module context (appended; zero-initialized = none: a plain file as before). */
  tilec_source_kind source_kind;
  int first_line;              /* line of filename that source's first line is (0 means 1) */
  const tilec_global *globals; /* the kernel module's names */
  size_t num_globals;
  const tilec_source_module *modules; /* where TILEC_GLOBAL_FUNCTION entries point */
  size_t num_modules;
} tilec_kernel_spec;

/* Where the pipeline stops. In pipeline order: TILE, DOT_COMBINE, SINGLE_TRIP_LOOPS,
 * ANALYSIS, VECTOR, LLVM_DIALECT, LLVM, ASM (the numbers are the ABI's, not the order). */
typedef enum tilec_stage {
  TILEC_STAGE_TILE = 0,              /* tile dialect, as the front end emits it */
  TILEC_STAGE_VECTOR,                /* vector/scf/arith/memref after tile lowering and SLEEF glue */
  TILEC_STAGE_LLVM_DIALECT,          /* MLIR LLVM dialect */
  TILEC_STAGE_LLVM,                  /* optimized LLVM IR */
  TILEC_STAGE_ASM,                   /* target assembly */
  TILEC_STAGE_ANALYSIS = 16,         /* not IR: the analyses the lowering decides from, per value of the
                              * tile IR after the tile steps (contiguity, divisibility,
                              * constancy; mask bounds) */
  TILEC_STAGE_DOT_COMBINE = 17,      /* tile IR after `acc += tl.dot(a, b)` became dot(a, b, acc) */
  TILEC_STAGE_SINGLE_TRIP_LOOPS = 18 /* tile IR after accumulation loops got single-trip versions */
} tilec_stage;

/* Parses "tile", "dot-combine", "single-trip-loops", "analysis", "vector", "llvm-dialect",
 * "llvm", "asm". */
TILEC_API bool tilec_stage_from_name(const char *name, tilec_stage *out);

/* Compiles the kernel up to `stage` and returns its text (malloc'ed; free() it). */
TILEC_API tilec_status *tilec_compiler_emit(tilec_compiler *c, const tilec_kernel_spec *spec, tilec_stage stage,
                                            char **text_out);

/* Compiles the kernel into a shared library at so_path (linked against the tilec runtime
 * and SLEEF) and, when header_path is non-NULL, writes a C header declaring
 *   int KERNEL_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, <runtime params>); */
TILEC_API tilec_status *tilec_compiler_build_library(tilec_compiler *c, const tilec_kernel_spec *spec,
                                                     const char *so_path, const char *header_path);

/* Compiles several specializations of ONE kernel (same kernel name; signatures that differ
 * only in :16 hints and in integers specialized to 1 with ":1" or "1") into one library.
 * Each specialization gets its own descriptor ("KERNEL__" + one letter per parameter of the
 * launch function: 'd' divisible by 16, 'c' equal to 1, 'a' anything), and the header
 * declares one dispatcher
 *   int KERNEL_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, <params>);
 * that runs the specialization with the most hints the actual arguments satisfy (pointer
 * address % 16 == 0, integer % 16 == 0, integer == 1), and
 *   const char *KERNEL_launch_variant(<params>);
 * that names the descriptor KERNEL_launch would run (NULL when none fits; the launch then
 * fails with TILEC_ERROR_INVALID_ARGUMENT). <params> is the union of the runtime
 * parameters of all specializations. */
TILEC_API tilec_status *tilec_compiler_build_library_multi(tilec_compiler *c, const tilec_kernel_spec *specs,
                                                           size_t count, const char *so_path, const char *header_path);

/* ---- JIT: compile at run time into a loaded kernel, with a cache ---------------------- */

/* A compiled kernel loaded into this process: its library and descriptor. Reference
 * counted; thread-safe to launch and to release from any thread. */
typedef struct tilec_jit_kernel tilec_jit_kernel;

typedef enum tilec_jit_origin {
  TILEC_JIT_COMPILED = 0,    /* compiled by this call */
  TILEC_JIT_DISK_CACHE = 1,  /* loaded from the disk cache, no compilation */
  TILEC_JIT_MEMORY_CACHE = 2 /* the compiler had already loaded it */
} tilec_jit_origin;

/* Compiles spec into a loaded kernel, or finds it in the compiler's memory cache or in the
 * disk cache. The cache key hashes the source, file name, kernel, signature, defines, the
 * module context (globals, source modules and their sources, source kinds and first lines,
 * sibling .py files a FILE source imports, TRITON_ALLOW_NON_CONSTEXPR_GLOBALS), the
 * compile options, the target (triple, CPU, features), the tilec version and ABI version.
 * Disk entries are written to a temporary file and renamed into place (concurrent
 * processes are safe); an entry whose checksum trailer does not match (truncated, corrupt)
 * is never loaded but rebuilt. When the cache cannot be used (directory not creatable or
 * not writable) the kernel is compiled in a temporary directory instead.
 * warning: may be NULL; otherwise *warning is set to NULL, or on success to a status
 * describing a non-fatal problem (cache unusable, corrupt entry rebuilt) that the caller
 * destroys. On success *out is a new reference: release it with tilec_jit_kernel_release
 * (it stays valid after the compiler is destroyed). */
TILEC_API tilec_status *tilec_jit_compile(tilec_compiler *c, const tilec_kernel_spec *spec, tilec_jit_kernel **out,
                                          tilec_status **warning);

/* The kernel's descriptor (owned by the kernel; valid until its last release). */
TILEC_API const tilec_kernel_desc *tilec_jit_kernel_desc(const tilec_jit_kernel *k);
TILEC_API tilec_jit_origin tilec_jit_kernel_origin(const tilec_jit_kernel *k);
/* The disk cache entry it came from or was stored to, or NULL (owned by the kernel). */
TILEC_API const char *tilec_jit_kernel_cache_path(const tilec_jit_kernel *k);
/* tilec_kernel_launch_checked on the kernel's descriptor. */
TILEC_API tilec_status *tilec_jit_kernel_launch(const tilec_jit_kernel *k, uint32_t grid_x, uint32_t grid_y,
                                                uint32_t grid_z, void *const *args, size_t num_args,
                                                const tilec_launch_options *opts);
/* Drops one reference; the last one unloads the library. NULL is a no-op. */
TILEC_API void tilec_jit_kernel_release(tilec_jit_kernel *k);

/* The disk cache directory this compiler uses (resolved from the options and environment),
 * or NULL when it has none. Owned by the compiler. */
TILEC_API const char *tilec_compiler_cache_dir(const tilec_compiler *c);

/* tl.static_print output of the compiler's last front-end run ("" if none); owned by the
 * compiler, valid until its next call. */
TILEC_API const char *tilec_compiler_notes(const tilec_compiler *c);
/* The warnings of the compiler's last front-end run, Triton's (a deprecated form, a shift
 * past the type's width): one "file:line:col: warning: text" line each, "" if none; owned by
 * the compiler, valid until its next call. A kernel served from a cache has none. */
TILEC_API const char *tilec_compiler_warnings(const tilec_compiler *c);

/* Parses tile-dialect IR text, verifies it and runs the pipeline up to `stage`. */
TILEC_API tilec_status *tilec_compiler_opt(tilec_compiler *c, const char *mlir_text, tilec_stage stage,
                                           char **text_out);

/* The parameters of a kernel as written in the source (before specialization). */
typedef struct tilec_source_param {
  char name[256];    /* longer names are refused with a located error */
  bool is_constexpr; /* annotated `tl.constexpr` */
  bool has_default;
} tilec_source_param;

/* Lists the parameters of `kernel` in `source` (up to max; *count is the total). */
TILEC_API tilec_status *tilec_inspect_kernel(const char *source, size_t len, const char *filename, const char *kernel,
                                             tilec_source_param *params, int max, int *count);

/* ---- the kernel language: the functions the front end knows --------------------------
 * One entry per name a kernel may call as tl.NAME (the front end resolves tl.math.NAME,
 * libdevice.NAME and the method x.NAME(...) to the same names): the rows of its builtin
 * registry and the public functions of its prelude (tl.* functions tilec writes in the
 * kernel language). The Python package builds its host-side stand-ins from this table. */
typedef struct tilec_language_function {
  const char *name;    /* "load", "exp", "softmax", "fast_expf" */
  const char *group;   /* the registry family ("core", "math", "tile", "atomic", "block",
                        * "descriptor", "debug", "api") or "prelude" */
  const char *refusal; /* NULL when a call compiles; else why tilec refuses it (the compile
                        * error says so at the call) */
} tilec_language_function;

/* The table, sorted by name, *count entries (static storage: valid for the life of the
 * process; thread-safe). */
TILEC_API const tilec_language_function *tilec_language_functions(size_t *count);

#ifdef __cplusplus
}
#endif
#endif
