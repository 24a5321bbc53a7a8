/* tests/fuzz/fuzz_frontend.c — libFuzzer target over the front end: kernel source text +
 * signature -> tile IR (lexer, parser, semantics, constant folding, codegen to the tile
 * dialect; no lowering, no LLVM). Any crash, hang, leak or UB the sanitizers see is a bug;
 * an error status is a correct answer.
 * In: "KERNEL\nSIGNATURE\nSOURCE..." (seeds in tests/fuzz/corpus/frontend, from the tests).
 * Out: nothing; scripts/fuzz.sh runs it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/tile.h"
#include "frontend/frontend.h"
#include "tilec/tilec.h"

/* A context interns every type and attribute it ever saw: start a fresh one now and then
 * so a long run does not grow without bound. */
#define INPUTS_PER_CONTEXT 2000

static MlirContext ctx;
static int ctx_uses;

/* The next line of [*p, end) as a NUL-terminated copy; NULL at the end. */
static char *next_line(const char **p, const char *end) {
  if (*p >= end) return NULL;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  size_t n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
  char *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, *p, n);
  s[n] = 0;
  *p += n + (nl ? 1 : 0);
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *p = (const char *)data, *end = p + size;
  char *kernel = next_line(&p, end);
  char *signature = next_line(&p, end);
  if (!kernel || !signature || !kernel[0]) {
    free(kernel);
    free(signature);
    return 0;
  }
  if (ctx_uses++ == INPUTS_PER_CONTEXT) {
    mlirContextDestroy(ctx);
    ctx.ptr = NULL;
    ctx_uses = 1;
  }
  if (!ctx.ptr && tile_context_create(&ctx)) abort();
  /* source_len 0 means "NUL-terminated" in the API: give it a terminated copy. */
  size_t len = (size_t)(end - p);
  char *source = malloc(len + 1);
  if (!source) abort();
  memcpy(source, p, len);
  source[len] = 0;
  tilec_kernel_spec spec = {
      .source = source, .source_len = len, .filename = "fuzz.py", .kernel = kernel, .signature = signature};
  tc_kernel_info *info = calloc(1, sizeof *info);
  MlirModule m;
  tilec_status *st = tc_frontend_compile(ctx, &spec, &m, info);
  if (!st) mlirModuleDestroy(m);
  else (void)tilec_status_format(st); /* the caret and line window code too */
  tilec_status_destroy(st);
  free(info);
  free(source);
  free(kernel);
  free(signature);
  return 0;
}
