/* tools/tilec.c — the `tilec` command: compile a kernel into a .so + header, run a kernel
 * on .npy files, print the IR of any stage (`compile --emit`, `opt --stage`).
 * In: argv. Out: files, IR on stdout, diagnostics as file:line:col: error: ... on stderr. */
#include "tilec/tilec.h"
#include "runtime/files.h"
#include "tilec/runtime.h"
#include "tools/npy.h"
#include "tools/options.h"
#include "tools/run.h"

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

static int usage_error(const char *fmt, const char *arg) { return cli_usage(fmt, arg); }

typedef struct common_opts {
  const char *file, *kernel, *signature, *output, *header;
  cli_compile_flags flags; /* the compile flags (tools/options.c) */
  tilec_define defines[MAX_DEFINES];
  int ndefines;
  const char *signatures[MAX_SIGNATURES]; /* every -s, in order (compile: one variant each) */
  int nsignatures;
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

/* ---- the options of `compile` (beside the compile flags) ---- */

static int set_kernel(void *d, const char *v) { return ((common_opts *)d)->kernel = v, 0; }
static int set_output(void *d, const char *v) { return ((common_opts *)d)->output = v, 0; }
static int set_header(void *d, const char *v) { return ((common_opts *)d)->header = v, 0; }

static int set_signature(void *d, const char *v) {
  common_opts *o = d;
  if (o->nsignatures == MAX_SIGNATURES) return usage_error("too many -s options%s", "");
  o->signatures[o->nsignatures++] = v;
  if (!o->signature) o->signature = v;
  return 0;
}

static int set_define(void *d, const char *v) {
  common_opts *o = d;
  if (o->ndefines == MAX_DEFINES) return usage_error("too many -D options%s", "");
  if (split_define(v, &o->defines[o->ndefines])) return usage_error("-D expects NAME=VALUE, got '%s'", v);
  o->ndefines++;
  return 0;
}

static const cli_option compile_rows[] = {
    {"--kernel", "-k", "KERNEL", false, CLI_COMPILE, "the @triton.jit function to compile", set_kernel},
    {"--signature", "-s", "SIGNATURE", false, CLI_COMPILE,
     "the parameters' types and constants (several: one library dispatching among them)", set_signature},
    {"-D", NULL, "NAME=VALUE", true, CLI_COMPILE, "a parameter's value or type by name (beside or instead of -s)",
     set_define},
    {"-o", NULL, "OUT.so", false, CLI_COMPILE, "the kernel library to write", set_output},
    {"--header", NULL, "OUT.h", false, CLI_COMPILE, "also a C header declaring KERNEL_launch", set_header},
};

/* The tables of a command: its own rows and the compile flags. */
static void tables_of(common_opts *o, cli_table t[2]) {
  t[0] = (cli_table){compile_rows, (int)(sizeof compile_rows / sizeof compile_rows[0]), o};
  t[1] = (cli_table){cli_compile_flag_rows, cli_compile_flag_count, &o->flags};
}

static void print_help(void) {
  printf("tilec %s — compile and run Triton-style tile kernels on CPUs\n\n"
         "usage:\n"
         "  tilec compile FILE.py -k KERNEL -s SIGNATURE [-s SIGNATURE]... [-D NAME=VALUE]... -o OUT.so [--header "
         "OUT.h] [OPTIONS]\n"
         "  tilec compile FILE.py -k KERNEL -s SIGNATURE --emit STAGE [-o FILE] [OPTIONS]\n"
         "  tilec run FILE.py -k KERNEL --grid X[,Y[,Z]] NAME=VALUE... [--out NAME=FILE.npy]... [OPTIONS]\n"
         "  tilec opt FILE.mlir [--stage STAGE] [OPTIONS]\n\n"
         "compile flags (compile, run and opt):\n",
         tilec_version());
  common_opts dummy;
  cli_table t[3];
  tables_of(&dummy, t);
  t[2] = t[1]; /* each command's own options before the shared ones */
  t[1] = (cli_table){run_option_rows, run_option_count, NULL};
  const unsigned all = CLI_COMPILE | CLI_RUN | CLI_OPT;
  cli_print_options(stdout, all, 0, t, 3);
  printf("compile:\n");
  cli_print_options(stdout, CLI_COMPILE, all, t, 3);
  printf("run:\n");
  cli_print_options(stdout, CLI_RUN, all, t, 3);
  printf("opt:\n");
  cli_print_options(stdout, CLI_OPT, all, t, 3);
  printf("\n"
         "SIGNATURE is Triton's AOT format, one entry per parameter: \"*fp32:16, *fp32, i32, 1024\".\n"
         "Several -s build one library whose KERNEL_launch picks the most specialized variant the\n"
         "arguments satisfy (pointer aligned to 16, integer multiple of 16, integer equal to 1).\n"
         "In `run`, a value ending in .npy binds a pointer parameter to that array (empty:DTYPE:SHAPE,\n"
         "e.g. empty:fp32:64x128, to one tilec makes, not yet written for --check init); an integer\n"
         "binds i32 (i64 if it does not fit), a float fp32, True/False a bool, anything else a string;\n"
         "a tuple holding an array, NAME=(x.npy, (y.npy, 7), 2.5), is a runtime tuple (Triton flattens it:\n"
         "its elements are NAME_0, NAME_1_0, ..., the names --out takes); other tuples are constexprs.\n"
         "With --exec, `run` compiles here and CMD (split at spaces) gets LIB.so -k KERNEL --grid ...\n"
         "NAME=VALUE... --out NAME=FILE...: what tilec-exec, the launch half without the compiler,\n"
         "takes (for --target aarch64 under qemu-aarch64).\n"
         "`run` compiles through the JIT cache (TILEC_CACHE_DIR, else $XDG_CACHE_HOME/tilec, else\n"
         "~/.cache/tilec): an equal run loads the cached library; --no-cache compiles without it,\n"
         "-v says on stderr whether the kernel was compiled or loaded from the cache.\n"
         "TILEC_NUM_THREADS sets the default thread count.\n");
}

static int read_file(const char *path, char **out, size_t *len) {
  char why[4608];
  if (tilec_file_read(path, TILEC_MAX_SOURCE_BYTES, false, out, len, why, sizeof why)) {
    fprintf(stderr, "tilec: error: %s\n", why);
    return 1;
  }
  return 0;
}

/* `--emit STAGE -o FILE`: the text into FILE (written beside it, then renamed), never over the
 * kernel source. */
static tilec_status *write_text(const char *path, const char *source, const char *text) {
  if (tilec_same_file(path, source))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "output '%s' is the kernel source '%s'; refusing to overwrite an input", path, source);
  int err = tilec_outfile_write(path, text, strlen(text));
  return err ? tilec_status_create(TILEC_ERROR_IO, "cannot write '%s': %s", path, strerror(err)) : NULL;
}

static tilec_status *make_compiler(const common_opts *o, tilec_compiler **c) {
  tilec_compile_options co;
  tilec_compile_options_init(&co);
  cli_apply_compile_flags(&o->flags, &co);
  return tilec_compiler_create(&co, c);
}

static void free_defines(common_opts *o) {
  for (int i = 0; i < o->ndefines; i++) free((char *)o->defines[i].name);
}

/* argv[2..] of compile or opt into o: options, and the one input file. */
static int parse_args(int argc, char **argv, unsigned command, common_opts *o) {
  memset(o, 0, sizeof *o);
  cli_compile_flags_init(&o->flags);
  cli_table t[2];
  tables_of(o, t);
  for (int i = 2; i < argc; i++) {
    int r = cli_parse(argc, argv, &i, command, t, 2);
    if (r == 0) continue;
    if (r < 0 && argv[i][0] == '-' && argv[i][1]) r = usage_error("unknown option '%s'", argv[i]);
    else if (r < 0 && o->file) r = usage_error("more than one input file ('%s')", argv[i]);
    if (r > 0) return r;
    o->file = argv[i];
  }
  return 0;
}

/* What compile needs beyond each option's own check. */
static int check_compile_args(const common_opts *o) {
  if (!o->file) return usage_error("no input file%s", "");
  if (!o->kernel) return usage_error("no kernel name (-k KERNEL)%s", "");
  if (!o->flags.emit && !o->output) return usage_error("no output (-o OUT.so or --emit STAGE)%s", "");
  if (o->nsignatures > 1 && o->flags.emit) return usage_error("--emit takes one signature, got %s", "several -s");
  if (o->flags.emit && o->header)
    return usage_error("--header goes with a library (-o OUT.so), not %s", "--emit (-o FILE takes the text)");
  return cli_check_compile_flags(&o->flags);
}

static int cmd_compile(int argc, char **argv) {
  common_opts o;
  int rc = parse_args(argc, argv, CLI_COMPILE, &o); /* on error, the -D names parsed so far are freed below */
  if (!rc) rc = check_compile_args(&o);
  char *src = NULL;
  size_t len = 0;
  if (!rc) rc = read_file(o.file, &src, &len);
  if (!rc) {
    tilec_compiler *c = NULL;
    tilec_status *st = make_compiler(&o, &c);
    tilec_kernel_spec spec = {.source = src,
                              .source_len = len,
                              .filename = o.file,
                              .kernel = o.kernel,
                              .signature = o.signature,
                              .defines = o.defines,
                              .num_defines = (size_t)o.ndefines};
    if (!st && o.flags.emit) { /* the text, to stdout or to -o FILE (as `cc -S -o`) */
      char *text = NULL;
      st = tilec_compiler_emit(c, &spec, o.flags.stage, &text);
      if (!st && o.output) st = write_text(o.output, o.file, text);
      else if (!st) fputs(text, stdout);
      free(text);
    } else if (!st && o.output && o.nsignatures > 1) {
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
    cli_print_compiler_output(c);
    tilec_compiler_destroy(c);
    if (st) rc = report(st);
  }
  free(src);
  free_defines(&o);
  return rc;
}

static int cmd_opt(int argc, char **argv) {
  common_opts o;
  int rc = parse_args(argc, argv, CLI_OPT, &o);
  free_defines(&o); /* opt takes no -D */
  if (rc) return rc;
  if (!o.file) return usage_error("no input file%s", "");
  if ((rc = cli_check_compile_flags(&o.flags))) return rc;
  tilec_stage stage = o.flags.emit ? o.flags.stage : TILEC_STAGE_VECTOR;
  char *src = NULL;
  size_t len = 0;
  rc = strcmp(o.file, "-") ? read_file(o.file, &src, &len) : 0;
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

/* Does word take the next argument as its value (in any command)? */
static bool takes_value(const char *word) {
  common_opts dummy;
  cli_table t[3];
  tables_of(&dummy, t);
  t[2] = (cli_table){run_option_rows, run_option_count, NULL};
  for (int k = 0; k < 3; k++)
    for (int r = 0; r < t[k].count; r++) {
      const cli_option *o = &t[k].rows[r];
      if (o->arg && (!strcmp(word, o->name) || (o->alias && !strcmp(word, o->alias)))) return true;
    }
  return false;
}

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
   * "--help", e.g. `-k --help` or `--out --help`, is still read as the value by the commands). */
  for (int i = 2; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (takes_value(argv[i - 1])) continue;
      print_help();
      return 0;
    }
  if (!strcmp(argv[1], "compile")) return cmd_compile(argc, argv);
  if (!strcmp(argv[1], "run")) return tilec_cmd_run(argc, argv);
  if (!strcmp(argv[1], "opt")) return cmd_opt(argc, argv);
  return usage_error("unknown command '%s' (expected compile, run or opt)", argv[1]);
}
