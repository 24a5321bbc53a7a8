/* tools/run.h — what `tilec run` (tools/run.c) decides from its arguments before any
 * compile: the classification of NAME=VALUE texts, the parsed options, the binding of values
 * to a kernel's parameters, scalar conversion. In: argv texts and a kernel's source
 * parameters. Out: run_opts; usage errors as messages on stderr and a non-zero status.
 * tests/unit/test_run_args.c exercises these functions directly. */
#ifndef TILEC_TOOLS_RUN_H
#define TILEC_TOOLS_RUN_H

#include "tilec/runtime.h"
#ifndef TILEC_RUN_EXEC_ONLY
#include "tilec/tilec.h"
#endif
#include "tools/npy.h"
#include "tools/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The `tilec run` and `tilec-exec` commands (argv[0] is the subcommand). */
int tilec_cmd_run(int argc, char **argv);
int tilec_cmd_exec(int argc, char **argv);

/* Far above any real kernel; only bounds the inspect buffer's growth. */
#define RUN_MAX_PARAMS 4096
/* A timing array of this many doubles is still small; more runs is a typo. */
#define RUN_MAX_REPEAT 10000000L
/* Room for the longest signature entry we build: one from a number or dtype ("*fp8e4nv:16"),
 * or a runtime tuple's ("(*fp32:16, (*i32:16, i32))"). */
#define RUN_ENTRY_CAP 1024

/* What a NAME=VALUE text means, decided from the text alone (Triton's rules for Python
 * values: bool before int, int before float, anything else is a string constexpr). */
typedef enum run_value_kind {
  RUN_VALUE_NPY,
  RUN_VALUE_INT,
  RUN_VALUE_FLOAT,
  RUN_VALUE_BOOL,
  RUN_VALUE_STRING
} run_value_kind;

typedef struct run_value {
  run_value_kind kind;
  tilec_dtype dtype; /* ints: I32, I64 or U64; floats: F32; bools: I1; .npy: the dtype of a
                      * FILE.npy:DTYPE reinterpretation (INVALID: the file's own); else INVALID */
  int64_t i;         /* ints (U64 values are stored as their bit pattern) and bools */
  double f;
  int desc_rank; /* FILE.npy:[B0,B1,...]: bound as a tensor descriptor with this block */
  int64_t desc_block[TILEC_TENSOR_DESC_MAX_RANK];
  bool desc_nan; /* ...:nan: out-of-bounds descriptor loads read NaN */
  bool empty;    /* empty:DTYPE:SHAPE: an array tilec makes, its contents not yet written */
} run_value;

typedef struct run_binding {
  char *name;       /* owned copy of the text before '=' */
  const char *text; /* the value, pointing into argv (or into owned_text) */
  char *owned_text; /* a tuple element's text */
  run_value value;
  int param;  /* index into the source parameters, -1 until resolved */
  int parent; /* a runtime tuple's element (NAME_I, as the front end flattens it): the tuple's
               * binding; -1 for the bindings given */
  bool tuple; /* a runtime tuple (it holds an array): its elements are the bindings after it */
  bool is_constexpr;
  tilec_npy arr;          /* loaded for pointer bindings (dtype: as the kernel sees it) */
  tilec_dtype file_dtype; /* the .npy file's own dtype (written back with it) */
  char entry[RUN_ENTRY_CAP];
} run_binding;

typedef struct run_out {
  char *name;
  const char *path;
  int binding;
} run_out;

typedef struct run_opts {
  const char *file, *kernel, *grid;
  cli_compile_flags flags; /* --target, -O, --check, ...; --emit STAGE: print the IR of the
                            * specialization instead of running (tools/options.c) */
  const char *exec;        /* --exec CMD: run the library with this program */
  bool serial, reference;
  bool no_cache;    /* --no-cache: compile, do not use or fill the JIT disk cache */
  bool verbose;     /* -v: say on stderr whether the kernel was compiled or cached */
  bool one_program; /* --program X,Y,Z */
  uint32_t program_xyz[3];
  uint32_t grid_xyz[3];
  uint32_t threads;
  long repeat; /* 0: a single untimed launch */
  run_binding *bindings;
  int nbindings;
  run_out *outs;
  int nouts;
} run_opts;

/* What a NAME=VALUE text is (true), from the text alone. */
bool run_classify(const char *text, run_value *v);
/* "X[,Y[,Z]]" with each in 0 .. Triton's per-axis limit. */
bool run_parse_grid(const char *s, uint32_t xyz[3]);
/* Median and minimum of n timings (sorts ms). */
void run_summarize(double *ms, long n, double *median, double *min);
/* Converts a scalar value to the parameter's dtype into slot; false with why. */
bool run_store_scalar(const run_value *v, tilec_dtype want, void *slot, char *why, size_t cap);
/* The options only `run` takes (the compile flags are options.h's). */
extern const cli_option run_option_rows[];
extern const int run_option_count;
/* Parses argv[first..] into o (0, or a usage error's status); run_opts_free releases it. */
int run_parse_args(int argc, char **argv, int first, run_opts *o);
void run_opts_free(run_opts *o);
/* Runs a GPU kernel's grid (tools/run_gpu.c, in `tilec run` and `tilec-exec`): the arrays
 * args point at to device buffers (args are rewritten to device addresses), the launch or
 * --repeat timed launches, the --out arrays back into their bindings. 0, or 1 after an error
 * on stderr. */
int run_gpu_launch(const run_opts *o, const tilec_kernel_desc *k, void **args);
#ifndef TILEC_RUN_EXEC_ONLY
/* Binds o's values to the kernel's source parameters by name. */
int run_bind(run_opts *o, const tilec_source_param *params, int nparams);
#endif

#endif
