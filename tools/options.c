/* tools/options.c — one parser for the command-line options of `tilec compile`, `tilec opt`
 * and `tilec run` (tilec-exec too), driven by tables of options (options.h), the table of the
 * compile flags the three share, and the help lines printed from the tables.
 * In: argv words. Out: the tables' setters applied; usage errors on stderr (status 2). */
#include "tools/options.h"

#include "tilec/runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int cli_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "tilec: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(run 'tilec --help' for usage)\n");
  return 2;
}

static bool is_hex_prefix(const char *s) { return s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

bool cli_is_integer(const char *s) {
  bool hex = is_hex_prefix(s);
  if (hex) s += 2;
  if (!*s) return false;
  for (; *s; s++) {
    bool ok = (*s >= '0' && *s <= '9') || (hex && ((*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')));
    if (!ok) return false;
  }
  return true;
}

bool cli_parse_u64(const char *s, uint64_t *out) {
  if (!cli_is_integer(s)) return false;
  int base = is_hex_prefix(s) ? 16 : 10;
  if (base == 16) s += 2;
  errno = 0;
  unsigned long long v = strtoull(s, NULL, base);
  if (errno == ERANGE) return false;
  *out = v;
  return true;
}

bool cli_parse_count(const char *s, uint64_t max, uint64_t *out) {
  uint64_t v;
  if (!cli_parse_u64(s, &v) || v > max) return false;
  *out = v;
  return true;
}

/* ---- the compile flags ------------------------------------------------------------------ */

void cli_compile_flags_init(cli_compile_flags *f) {
  memset(f, 0, sizeof *f);
  f->opt_level = -1;
}

static cli_compile_flags *flags(void *dest) {
  cli_compile_flags *f = dest;
  f->given = true;
  return f;
}

static int set_target(void *d, const char *v) { return flags(d)->target = v, 0; }
static int set_arch(void *d, const char *v) { return flags(d)->arch = v, 0; }
static int set_ptx_version(void *d, const char *v) { return flags(d)->ptx_version = v, 0; }
static int set_debug(void *d, const char *v) { return (void)v, flags(d)->debug = true, 0; }
static int set_fast_math(void *d, const char *v) { return (void)v, flags(d)->fast_math = true, 0; }
static int set_no_fp_fusion(void *d, const char *v) { return (void)v, flags(d)->no_fp_fusion = true, 0; }
static int set_check_bounds(void *d, const char *v) { return (void)v, flags(d)->checks |= TILEC_CHECKS_BOUNDS, 0; }
static int set_check_nan(void *d, const char *v) { return (void)v, flags(d)->checks |= TILEC_CHECKS_NAN, 0; }
static int set_check_races(void *d, const char *v) { return (void)v, flags(d)->checks |= TILEC_CHECKS_RACES, 0; }

/* A positive count; which counts a target takes is target/'s rule (tc_target_check_num_warps:
 * a power of 2 up to 32 on nvptx and nvptx-emu, none on a CPU), applied by the compiler. */
static int set_num_warps(void *d, const char *v) {
  uint64_t n;
  if (!cli_parse_count(v, INT_MAX, &n) || n == 0)
    return cli_usage("--num-warps expects a number of warps, got '%s'", v);
  flags(d)->num_warps = (uint32_t)n;
  return 0;
}

/* A positive count, as --num-warps; the range is target/'s rule (tc_target_check_num_stages:
 * 1 to 8 on nvptx and nvptx-emu, none on a CPU), applied by the compiler. */
static int set_num_stages(void *d, const char *v) {
  uint64_t n;
  if (!cli_parse_count(v, INT_MAX, &n) || n == 0)
    return cli_usage("--num-stages expects a number of stages (1: no pipelining), got '%s'", v);
  flags(d)->num_stages = (uint32_t)n;
  return 0;
}

static int set_opt_level(void *d, const char *v) {
  if (v[0] < '0' || v[0] > '3' || v[1]) return cli_usage("-O expects 0, 1, 2 or 3, got '%s'", v);
  flags(d)->opt_level = v[0] - '0';
  return 0;
}

static int set_checks(void *d, const char *v) {
  cli_compile_flags *f = flags(d);
#ifndef TILEC_RUN_EXEC_ONLY
  uint32_t bits;
  tilec_status *st = tilec_checks_parse(v, &bits);
  if (st) {
    int rc = cli_usage("--check: %s", tilec_status_message(st));
    tilec_status_destroy(st);
    return rc;
  }
  f->checks |= bits;
#else
  (void)f, (void)v; /* tilec-exec refuses every compile flag, whatever its value */
#endif
  return 0;
}

/* The stages `--emit` and `opt --stage` take: tilec_stage_from_name's, and ptx (the nvptx
 * target's assembly). */
#define CLI_STAGES "tile, dot-combine, single-trip-loops, analysis, vector, llvm-dialect, llvm, asm or ptx"

static int set_emit(void *d, const char *v) {
  cli_compile_flags *f = flags(d);
  f->emit = v;
#ifndef TILEC_RUN_EXEC_ONLY
  if (!strcmp(v, "ptx")) f->stage = TILEC_STAGE_ASM;
  else if (!tilec_stage_from_name(v, &f->stage)) return cli_usage("unknown stage '%s' (expected " CLI_STAGES ")", v);
#endif
  return 0;
}

const cli_option cli_compile_flag_rows[] = {
    {"--emit", NULL, "STAGE", false, CLI_COMPILE | CLI_RUN, "print the IR of a stage (" CLI_STAGES ") and stop",
     set_emit},
    {"--stage", NULL, "STAGE", false, CLI_OPT, "the stage to run the tile IR to (default vector; as --emit)", set_emit},
    {"--target", NULL, "T", false, CLI_COMPILE | CLI_RUN | CLI_OPT,
     "host (default), x86-64-v2, x86-64-v3, x86-64-v4, aarch64, nvptx or nvptx-emu", set_target},
    {"--arch", NULL, "A", false, CLI_COMPILE | CLI_RUN | CLI_OPT, "nvptx: the GPU (sm_80 default, sm_90, ...)",
     set_arch},
    {"--num-warps", NULL, "N", false, CLI_COMPILE | CLI_RUN | CLI_OPT,
     "nvptx, nvptx-emu: warps per program, a power of 2 up to 32 (default 4)", set_num_warps},
    {"--num-stages", NULL, "N", false, CLI_COMPILE | CLI_RUN | CLI_OPT,
     "nvptx, nvptx-emu: pipeline stages of a K loop's tl.dot operand loads, 1 (none) to 8 (default 3)", set_num_stages},
    {"--ptx-version", NULL, "V", false, CLI_COMPILE | CLI_RUN | CLI_OPT,
     "nvptx: the PTX ISA to emit (e.g. 8.0; default the chip's lowest)", set_ptx_version},
    {"-O", NULL, "N", true, CLI_COMPILE | CLI_RUN | CLI_OPT, "optimization level 0, 1, 2 or 3 (default 3)",
     set_opt_level},
    {"-g", NULL, NULL, false, CLI_COMPILE | CLI_RUN | CLI_OPT, "DWARF line tables pointing at the kernel source",
     set_debug},
    {"--fast-math", NULL, NULL, false, CLI_COMPILE | CLI_RUN | CLI_OPT, "faster, less exact math (SLEEF _u35)",
     set_fast_math},
    {"--no-fp-fusion", NULL, NULL, false, CLI_COMPILE | CLI_RUN | CLI_OPT,
     "nvptx, nvptx-emu: no fma from a * b + c (Triton's enable_fp_fusion=False)", set_no_fp_fusion},
    {"--check", NULL, "LIST", true, CLI_COMPILE | CLI_RUN | CLI_OPT,
     "debug checks: all, none, or some of bounds,nan,races,init", set_checks},
    {"--check-bounds", NULL, NULL, false, CLI_COMPILE | CLI_RUN | CLI_OPT, "the same as --check bounds",
     set_check_bounds},
    {"--check-nan", NULL, NULL, false, CLI_COMPILE | CLI_RUN | CLI_OPT, "the same as --check nan", set_check_nan},
    {"--check-races", NULL, NULL, false, CLI_COMPILE | CLI_RUN | CLI_OPT, "the same as --check races", set_check_races},
};
const int cli_compile_flag_count = (int)(sizeof cli_compile_flag_rows / sizeof cli_compile_flag_rows[0]);

#ifndef TILEC_RUN_EXEC_ONLY
void cli_print_compiler_output(const tilec_compiler *c) {
  if (!c) return;
  fputs(tilec_compiler_notes(c), stdout);
  fputs(tilec_compiler_warnings(c), stderr);
}

int cli_check_compile_flags(const cli_compile_flags *f) {
  if (f->emit && !strcmp(f->emit, "ptx") && (!f->target || strcmp(f->target, "nvptx")))
    return cli_usage("--emit ptx needs --target nvptx%s", "");
  return 0;
}

void cli_apply_compile_flags(const cli_compile_flags *f, tilec_compile_options *co) {
  if (f->target) co->target = f->target;
  co->arch = f->arch;
  co->num_warps = f->num_warps;
  co->num_stages = f->num_stages;
  co->ptx_version = f->ptx_version;
  if (f->opt_level >= 0) co->opt_level = f->opt_level;
  co->debug_info = f->debug;
  co->fast_math = f->fast_math;
  co->no_fp_fusion = f->no_fp_fusion;
  co->checks |= f->checks;
}
#endif

/* ---- the parser ------------------------------------------------------------------------- */

int cli_parse(int argc, char **argv, int *i, unsigned command, const cli_table *tables, int ntables) {
  const char *a = argv[*i];
  for (int t = 0; t < ntables; t++)
    for (int r = 0; r < tables[t].count; r++) {
      const cli_option *o = &tables[t].rows[r];
      if (!(o->commands & command)) continue;
      const char *value = NULL;
      if (!strcmp(a, o->name) || (o->alias && !strcmp(a, o->alias))) {
        if (o->arg) {
          if (*i + 1 >= argc) return cli_usage("option '%s' needs a value", a);
          value = argv[++*i];
        }
      } else if (o->joined && !strncmp(a, o->name, strlen(o->name))) {
        /* -O2, -DNAME=VALUE; --check=LIST (a long option's value follows '=') */
        const char *rest = a + strlen(o->name);
        bool long_opt = o->name[1] == '-';
        if (long_opt && rest[0] != '=') continue;
        value = long_opt ? rest + 1 : rest;
      } else {
        continue;
      }
      return o->set(tables[t].dest, value);
    }
  return -1;
}

void cli_print_options(FILE *f, unsigned command, unsigned others, const cli_table *tables, int ntables) {
  for (int t = 0; t < ntables; t++)
    for (int r = 0; r < tables[t].count; r++) {
      const cli_option *o = &tables[t].rows[r];
      if ((o->commands & command) != command || (others && (o->commands & others) == others)) continue;
      char head[64];
      snprintf(head, sizeof head, "%s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
               o->arg ? " " : "", o->arg ? o->arg : "");
      fprintf(f, "  %-26s %s\n", head, o->help);
    }
}
