/* tools/options.h — the command-line options of `tilec compile`, `tilec opt` and `tilec run`
 * (and of tilec-exec, which refuses the compile flags): every option is a row of a table
 * (its name, another spelling, its argument, the commands that take it, a help line and a
 * setter), one parser reads argv with the tables, and `tilec --help` prints them. The compile
 * flags the three commands share (target, -O, -g, checks, --emit, ...) are one table here;
 * tools/tilec.c and tools/run.c hold the rows only their commands take.
 * In: argv. Out: the setters' effects on the commands' option structs; usage errors as
 * "tilec: error: ..." on stderr with status 2. */
#ifndef TILEC_TOOLS_OPTIONS_H
#define TILEC_TOOLS_OPTIONS_H

#ifndef TILEC_RUN_EXEC_ONLY
#include "tilec/tilec.h"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The commands an option belongs to (cli_option.commands). */
enum { CLI_COMPILE = 1u, CLI_OPT = 2u, CLI_RUN = 4u };

typedef struct cli_option {
  const char *name;  /* "--num-warps", "-O" */
  const char *alias; /* another spelling ("-k" of "--kernel"), or NULL */
  const char *arg;   /* the value's name in the help ("N"); NULL: a switch without value */
  bool joined;       /* the value may be attached: -O2 / -DNAME=VALUE (one dash), --check=LIST */
  unsigned commands; /* the CLI_* that take it */
  const char *help;  /* one line of `tilec --help` */
  /* Stores the value (NULL for a switch) in dest: 0, or the usage error's status, printed. */
  int (*set)(void *dest, const char *value);
} cli_option;

/* Rows and the struct their setters write. */
typedef struct cli_table {
  const cli_option *rows;
  int count;
  void *dest;
} cli_table;

/* The compile flags of compile, opt and run, as parsed. */
typedef struct cli_compile_flags {
  const char *target, *arch, *ptx_version;
  uint32_t num_warps;  /* 0: the target's default (the rule: target/, tc_target_check_num_warps) */
  uint32_t num_stages; /* 0: the target's default (the rule: target/, tc_target_check_num_stages) */
  int opt_level;       /* -1: the compiler's default */
  bool debug, fast_math, no_fp_fusion;
  uint32_t checks;  /* --check LIST and --check-bounds/--check-nan/--check-races: TILEC_CHECKS_* */
  const char *emit; /* --emit / --stage STAGE as written (NULL: none) */
#ifndef TILEC_RUN_EXEC_ONLY
  tilec_stage stage; /* the parsed stage ("ptx": TILEC_STAGE_ASM) */
#endif
  bool given; /* one of these flags was on the command line (tilec-exec refuses them) */
} cli_compile_flags;

/* The shared table (its dest: a cli_compile_flags). */
extern const cli_option cli_compile_flag_rows[];
extern const int cli_compile_flag_count;

void cli_compile_flags_init(cli_compile_flags *f);

/* argv[*i] against the tables for `command` (one CLI_* bit): 0 when it is one of their
 * options (its value consumed, *i on the last word used), -1 when it is not (a file, a
 * binding, or an unknown option: the caller decides), else the usage error's status. */
int cli_parse(int argc, char **argv, int *i, unsigned command, const cli_table *tables, int ntables);

/* A whole decimal number, or hex after 0x; no sign, no spaces (strtoull alone would take
 * signs, spaces and, base 0, octal). cli_parse_u64: its value (false past 2^64-1);
 * cli_parse_count: one no larger than max. */
bool cli_is_integer(const char *s);
bool cli_parse_u64(const char *s, uint64_t *out);
bool cli_parse_count(const char *s, uint64_t max, uint64_t *out);

/* "tilec: error: " fmt (with arg) and the --help hint on stderr; returns 2. */
int cli_usage(const char *fmt, const char *arg);

/* One line per option of the tables that every command of `command` (a CLI_* mask) takes
 * and not every one of `others` (0: no such condition): "  -k, --kernel KERNEL   help". */
void cli_print_options(FILE *f, unsigned command, unsigned others, const cli_table *tables, int ntables);

#ifndef TILEC_RUN_EXEC_ONLY
/* What the compiler's last front-end run printed: tl.static_print's lines on stdout, its
 * warnings on stderr. */
void cli_print_compiler_output(const tilec_compiler *c);
/* After parsing: what no single option can check (--emit ptx needs --target nvptx). */
int cli_check_compile_flags(const cli_compile_flags *f);
/* The flags into compiler options (on top of tilec_compile_options_init's). */
void cli_apply_compile_flags(const cli_compile_flags *f, tilec_compile_options *co);
#endif

#endif
