/* driver/inspect.c — the public tilec_inspect_kernel: a kernel's parameters (names, which
 * are constexpr, which have defaults) from its source, without specializing or compiling,
 * for tools that bind arguments by name (tilec run). In: source text. Out: the table. */
#include <stdio.h>
#include <string.h>

#include "frontend/diag.h"
#include "frontend/parser.h"
#include "frontend/signature.h"
#include "tilec/tilec.h"

tilec_status *tilec_inspect_kernel(const char *source, size_t len, const char *filename, const char *kernel,
                                   tilec_source_param *params, int max, int *count) {
  tc_module *mod = NULL;
  tilec_status *st = tc_parse_module(filename ? filename : "<string>", source, len ? len : strlen(source), &mod);
  if (st) return st;
  const tc_func *fn = tc_module_find(mod, kernel);
  if (!fn) {
    st = tilec_status_create(TILEC_ERROR_NOT_FOUND, "%s: no @triton.jit function named '%s'",
                             filename ? filename : "<string>", kernel);
    tc_module_destroy(mod);
    return st;
  }
  *count = fn->nparams;
  for (int i = 0; i < fn->nparams && i < max; i++) {
    if (strlen(fn->params[i].name) >= sizeof params[i].name) {
      st = tc_error_at(mod, fn->params[i].loc, TILEC_ERROR_UNSUPPORTED, "parameter name longer than %zu characters",
                       sizeof params[i].name - 1);
      tc_module_destroy(mod);
      return st;
    }
    memset(&params[i], 0, sizeof params[i]);
    snprintf(params[i].name, sizeof params[i].name, "%s", fn->params[i].name);
    params[i].is_constexpr = tc_param_is_constexpr_annotation(fn->params[i].annotation);
    params[i].has_default = fn->params[i].default_value != NULL;
  }
  tc_module_destroy(mod);
  return NULL;
}
