/* tools/tilec.c — the `tilec` command: compile a kernel into a .so + header, run a kernel
 * on .npy files, print the IR of any stage (`compile --emit`, `opt --stage`).
 * In: argv. Out: files, IR on stdout, diagnostics as file:line:col: error: ... on stderr. */
#include "tilec/runtime.h"
#include "tilec/tilec.h"
#include "runtime/files.h"
#include "tools/npy.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEFINES 256
#define MAX_SIGNATURES 64

/* Located errors raised after the front end (the lowering) carry no source line: the
 * tool has the file, so it adds the line for the caret. */
void tilec_cli_add_line_text(tilec_status *st) {
  if (!tilec_status_needs_line_text(st)) return;
  FILE *f = fopen(tilec_status_file(st), "rb");
  if (!f) return;
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, f))
    if (++n == tilec_status_line(st)) {
      tilec_status_set_line_text(st, line);
      break;
    }
  fclose(f);
}

static int report(tilec_status *st) {
  tilec_cli_add_line_text(st);
  fprintf(stderr, "%s\n", tilec_status_format(st));
  int code = tilec_status_code_of(st);
  tilec_status_destroy(st);
  return code ? 1 : 0;
}

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "tilec: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'tilec --help' for usage)\n");
  return 2;
}

static void print_help(void) {
  printf("tilec %s — compile and run Triton-style tile kernels on CPUs\n\n"
         "usage:\n"
         "  tilec compile FILE.py -k KERNEL -s SIGNATURE [-s SIGNATURE]... [-D NAME=VALUE]... -o OUT.so [--header OUT.h]\n"
         "                [--emit tile|analysis|vector|llvm-dialect|llvm|asm|ptx] [--target T [--arch A] [--num-warps N] [--ptx-version V]] [-O N] [-g] [--fast-math] [--check all|LIST]\n"
         "  tilec run FILE.py -k KERNEL --grid X[,Y[,Z]] NAME=VALUE... [--out NAME=FILE.npy]...\n"
         "                [--threads N] [--repeat N] [--target T [--arch A] [--num-warps N] [--ptx-version V]] [--emit STAGE] [--check all|LIST] [--program X,Y,Z] [--serial] [--reference]\n"
         "                [--no-cache] [-v] [--exec CMD]   (run the library with CMD, e.g. \"qemu-aarch64 rt64/tilec-exec\")\n"
         "  tilec opt FILE.mlir --stage tile|vector|llvm-dialect|llvm|asm [--target T]\n\n"
         "SIGNATURE is Triton's AOT format, one entry per parameter: \"*fp32:16, *fp32, i32, 1024\".\n"
         "Several -s build one library whose KERNEL_launch picks the most specialized variant the\n"
         "arguments satisfy (pointer aligned to 16, integer multiple of 16, integer equal to 1).\n"
         "In `run`, a value ending in .npy binds a pointer parameter to that array (empty:DTYPE:SHAPE,\n"
         "e.g. empty:fp32:64x128, to one tilec makes, not yet written for --check init); an integer\n"
         "binds i32 (i64 if it does not fit), a float fp32, True/False a bool, anything else a string.\n"
         "With --exec, `run` compiles here and CMD (split at spaces) gets LIB.so -k KERNEL --grid ...\n"
         "NAME=VALUE... --out NAME=FILE...: what tilec-exec, the launch half without the compiler,\n"
         "takes (for --target aarch64 under qemu-aarch64).\n"
         "`run` compiles through the JIT cache (TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else\n"
         "~/.cache/tilec): an equal run loads the cached library; --no-cache compiles without it,\n"
         "-v says on stderr whether the kernel was compiled or loaded from the cache.\n"
         "TILEC_NUM_THREADS sets the default thread count.\n",
         tilec_version());
}

static int read_file(const char *path, char **out, size_t *len) {
  char why[4608];
  if (tilec_file_read(path, TILEC_MAX_SOURCE_BYTES, false, out, len, why, sizeof why)) {
    fprintf(stderr, "tilec: error: %s\n", why);
    return 1;
  }
  return 0;
}

typedef struct common_opts {
  const char *file, *kernel, *signature, *output, *header, *emit, *target, *stage, *arch, *ptx_version;
  int num_warps;
  tilec_define defines[MAX_DEFINES];
  int ndefines;
  const char *signatures[MAX_SIGNATURES]; /* every -s, in order (compile: one variant each) */
  int nsignatures;
  int opt_level;
  int debug, fast_math;
  uint32_t checks; /* --check LIST and the older --check-bounds/--check-nan/--check-races */
} common_opts;

static int split_define(const char *arg, tilec_define *d) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg) return 1;
  char *name = strndup(arg, (size_t)(eq - arg));
  if (!name) return 1;
  d->name = name;
  d->value = eq + 1;
  return 0;
}

static tilec_status *make_compiler(const common_opts *o, tilec_compiler **c) {
  tilec_compile_options co;
  tilec_compile_options_init(&co);
  if (o->target) co.target = o->target;
  co.arch = o->arch;
  co.num_warps = (uint32_t)o->num_warps;
  co.ptx_version = o->ptx_version;
  if (o->opt_level >= 0) co.opt_level = o->opt_level;
  co.debug_info = o->debug;
  co.fast_math = o->fast_math;
  co.checks |= o->checks;
  return tilec_compiler_create(&co, c);
}

/* Options shared by compile/run/opt; returns -1 if argv[*i] is not one of them. */
static int parse_common(int argc, char **argv, int *i, common_opts *o) {
  const char *a = argv[*i];
#define NEXT()                                                   \
  do {                                                           \
    if (*i + 1 >= argc) return usage_error("option '%s' needs a value", a); \
  } while (0)
  if (!strcmp(a, "-k") || !strcmp(a, "--kernel")) { NEXT(); o->kernel = argv[++*i]; return 0; }
  if (!strcmp(a, "-s") || !strcmp(a, "--signature")) {
    NEXT();
    if (o->nsignatures == MAX_SIGNATURES) return usage_error("too many -s options%s", "");
    o->signatures[o->nsignatures++] = argv[++*i];
    if (!o->signature) o->signature = argv[*i];
    return 0;
  }
  if (!strcmp(a, "-o")) { NEXT(); o->output = argv[++*i]; return 0; }
  if (!strcmp(a, "--header")) { NEXT(); o->header = argv[++*i]; return 0; }
  if (!strcmp(a, "--emit")) { NEXT(); o->emit = argv[++*i]; return 0; }
  if (!strcmp(a, "--stage")) { NEXT(); o->stage = argv[++*i]; return 0; }
  if (!strcmp(a, "--target")) { NEXT(); o->target = argv[++*i]; return 0; }
  if (!strcmp(a, "--arch")) { NEXT(); o->arch = argv[++*i]; return 0; }
  if (!strcmp(a, "--ptx-version")) { NEXT(); o->ptx_version = argv[++*i]; return 0; }
  if (!strcmp(a, "--num-warps")) {
    NEXT();
    char *end = NULL;
    long n = strtol(argv[++*i], &end, 10);
    if (!*argv[*i] || *end || n < 1 || n > 1024) return usage_error("--num-warps expects a number of warps, got '%s'", argv[*i]);
    o->num_warps = (int)n;
    return 0;
  }
  if (!strcmp(a, "-g")) { o->debug = 1; return 0; }
  if (!strcmp(a, "--fast-math")) { o->fast_math = 1; return 0; }
  if (!strcmp(a, "--check-bounds")) { o->checks |= TILEC_CHECKS_BOUNDS; return 0; }
  if (!strcmp(a, "--check-nan")) { o->checks |= TILEC_CHECKS_NAN; return 0; }
  if (!strcmp(a, "--check-races")) { o->checks |= TILEC_CHECKS_RACES; return 0; }
  if (!strcmp(a, "--check") || !strncmp(a, "--check=", 8)) {
    if (!a[7]) NEXT();
    const char *list = a[7] ? a + 8 : argv[++*i];
    uint32_t bits;
    tilec_status *st = tilec_checks_parse(list, &bits);
    if (st) {
      int rc = usage_error("--check: %s", tilec_status_message(st));
      tilec_status_destroy(st);
      return rc;
    }
    o->checks |= bits;
    return 0;
  }
  if (!strncmp(a, "-O", 2)) { /* -O2 or -O 2 */
    if (!a[2]) NEXT();
    const char *lvl = a[2] ? a + 2 : argv[++*i];
    if (lvl[0] < '0' || lvl[0] > '3' || lvl[1]) return usage_error("-O expects 0, 1, 2 or 3, got '%s'", lvl);
    o->opt_level = lvl[0] - '0';
    return 0;
  }
  if (!strcmp(a, "-D")) {
    NEXT();
    if (o->ndefines == MAX_DEFINES) return usage_error("too many -D options%s", "");
    if (split_define(argv[++*i], &o->defines[o->ndefines])) return usage_error("-D expects NAME=VALUE, got '%s'", argv[*i]);
    o->ndefines++;
    return 0;
  }
  if (!strncmp(a, "-D", 2) && a[2]) {
    if (o->ndefines == MAX_DEFINES) return usage_error("too many -D options%s", "");
    if (split_define(a + 2, &o->defines[o->ndefines])) return usage_error("-D expects NAME=VALUE, got '%s'", a + 2);
    o->ndefines++;
    return 0;
  }
#undef NEXT
  return -1;
}

static void free_defines(common_opts *o) {
  for (int i = 0; i < o->ndefines; i++) free((char *)o->defines[i].name);
}

static int cmd_compile(int argc, char **argv) {
  common_opts o;
  memset(&o, 0, sizeof o);
  o.opt_level = -1;
  for (int i = 2; i < argc; i++) {
    int r = parse_common(argc, argv, &i, &o);
    if (r == 0) continue;
    if (r < 0 && argv[i][0] == '-' && argv[i][1]) r = usage_error("unknown option '%s'", argv[i]);
    else if (r < 0 && o.file) r = usage_error("more than one input file ('%s')", argv[i]);
    if (r > 0) { /* the -D names parsed so far are heap copies */
      free_defines(&o);
      return r;
    }
    o.file = argv[i];
  }
  int rc = 0;
  if (!o.file) rc = usage_error("no input file%s", "");
  else if (!o.kernel) rc = usage_error("no kernel name (-k KERNEL)%s", "");
  else if (!o.emit && !o.output) rc = usage_error("no output (-o OUT.so or --emit STAGE)%s", "");
  else if (o.nsignatures > 1 && o.emit) rc = usage_error("--emit takes one signature, got %s", "several -s");
  tilec_stage stage = TILEC_STAGE_TILE;
  bool nvptx = o.target && !strcmp(o.target, "nvptx");
  if (!rc && o.emit && !strcmp(o.emit, "ptx")) { /* the nvptx target's assembly */
    if (!nvptx) rc = usage_error("--emit ptx needs --target nvptx%s", "");
    stage = TILEC_STAGE_ASM;
  } else if (!rc && o.emit && !tilec_stage_from_name(o.emit, &stage)) {
    rc = usage_error("unknown stage '%s' (expected tile, analysis, vector, llvm-dialect, llvm, asm or ptx)", o.emit);
  }
  char *src = NULL;
  size_t len = 0;
  if (!rc) rc = read_file(o.file, &src, &len);
  if (!rc) {
    tilec_compiler *c = NULL;
    tilec_status *st = make_compiler(&o, &c);
    tilec_kernel_spec spec = {.source = src, .source_len = len, .filename = o.file, .kernel = o.kernel, .signature = o.signature, .defines = o.defines, .num_defines = (size_t)o.ndefines};
    if (!st && o.emit) {
      char *text = NULL;
      st = tilec_compiler_emit(c, &spec, stage, &text);
      if (!st) fputs(text, stdout);
      free(text);
    }
    if (!st && o.output && o.nsignatures > 1) {
      /* Several -s: one library with every specialization and a dispatching launch. */
      tilec_kernel_spec specs[MAX_SIGNATURES];
      for (int k = 0; k < o.nsignatures; k++) {
        specs[k] = spec;
        specs[k].signature = o.signatures[k];
      }
      st = tilec_compiler_build_library_multi(c, specs, (size_t)o.nsignatures, o.output, o.header);
    } else if (!st && o.output) {
      st = tilec_compiler_build_library(c, &spec, o.output, o.header);
    }
    if (c) fputs(tilec_compiler_notes(c), stdout); /* tl.static_print */
    tilec_compiler_destroy(c);
    if (st) rc = report(st);
  }
  free(src);
  free_defines(&o);
  return rc;
}

static int cmd_opt(int argc, char **argv) {
  common_opts o;
  memset(&o, 0, sizeof o);
  o.opt_level = -1;
  for (int i = 2; i < argc; i++) {
    int r = parse_common(argc, argv, &i, &o);
    if (r == 0) continue;
    if (r < 0 && argv[i][0] == '-' && argv[i][1]) r = usage_error("unknown option '%s'", argv[i]);
    if (r > 0) {
      free_defines(&o);
      return r;
    }
    o.file = argv[i];
  }
  free_defines(&o); /* opt takes no -D */
  if (!o.file) return usage_error("no input file%s", "");
  tilec_stage stage = TILEC_STAGE_VECTOR;
  if (o.stage && !tilec_stage_from_name(o.stage, &stage))
    return usage_error("unknown stage '%s' (expected tile, vector, llvm-dialect, llvm or asm)", o.stage);
  char *src = NULL;
  size_t len = 0;
  int rc = strcmp(o.file, "-") ? read_file(o.file, &src, &len) : 0;
  if (rc) return rc;
  tilec_compiler *c = NULL;
  tilec_status *st = make_compiler(&o, &c);
  char *text = NULL;
  if (!st) st = tilec_compiler_opt(c, src, stage, &text);
  if (!st) fputs(text, stdout);
  free(text);
  tilec_compiler_destroy(c);
  free(src);
  return st ? report(st) : 0;
}

int tilec_cmd_run(int argc, char **argv);

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_help();
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("tilec %s\n", tilec_version());
    return 0;
  }
  /* `tilec run --help` and the like: help, not "unknown option" (a value that happens to be
   * "--help", e.g. `-k --help`, is still read as the value by the commands). */
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (!strcmp(argv[i - 1], "-k") || !strcmp(argv[i - 1], "-s") || !strcmp(argv[i - 1], "-o")) continue;
      print_help();
      return 0;
    }
  if (!strcmp(argv[1], "compile")) return cmd_compile(argc, argv);
  if (!strcmp(argv[1], "run")) return tilec_cmd_run(argc, argv);
  if (!strcmp(argv[1], "opt")) return cmd_opt(argc, argv);
  return usage_error("unknown command '%s' (expected compile, run or opt)", argv[1]);
}
