/* driver/dispatch.c — several specializations of one kernel in one library: checks that
 * they differ only in hints, writes a dispatcher whose KERNEL_launch runs the most
 * specialized variant the arguments satisfy, links it and writes the header.
 * In: the variants' metadata and objects. Out: the library and header. */
#include "driver/package.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/link.h"
#include "driver/stub.h"
#include "runtime/files.h"

/* What the dispatcher knows about one parameter of the typed launch function. */
typedef struct dispatch_param {
  int index;                      /* parameter index in the kernel source */
  tc_kernel_param ty;             /* its runtime type (from a variant where it is a runtime value) */
  char ident[TC_PARAM_IDENT_MAX]; /* its C identifier (tc_stub_param_ident) */
} dispatch_param;

typedef struct dispatch_plan {
  int nlaunch; /* parameters of KERNEL_launch */
  dispatch_param launch[TC_MAX_PARAMS];
  size_t order[TC_MAX_VARIANTS];                  /* variants, most hints first */
  char names[TC_MAX_VARIANTS][160];               /* descriptor names, by input index */
  char hints[TC_MAX_VARIANTS][TC_MAX_PARAMS + 1]; /* 'd' / 'c' / 'a' per launch parameter */
} dispatch_plan;

static bool is_integer_dtype(tilec_dtype t) { return t >= TILEC_DTYPE_I8 && t <= TILEC_DTYPE_U64; }

static bool same_runtime_type(const tc_kernel_param *a, const tc_kernel_param *b) {
  return a->kind == b->kind && a->dtype == b->dtype && a->pointer_depth == b->pointer_depth;
}

/* Checks that the variants differ only in hints and builds the dispatch order. */
static tilec_status *plan_dispatch(const tc_variant *v, size_t n, dispatch_plan *plan) {
  const tc_kernel_info *first = v[0].info;
  const char *k = first->name;
  if (n > TC_MAX_VARIANTS)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "kernel '%s': more than %d specializations in one library", k,
                               TC_MAX_VARIANTS);
  for (size_t i = 1; i < n; i++) {
    const tc_kernel_info *vi = v[i].info;
    if (strcmp(vi->name, k) != 0)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "specializations of one library must be of one kernel: '%s' and '%s'", k, vi->name);
    bool same = vi->nparams == first->nparams;
    for (int j = 0; same && j < first->nparams; j++) same = !strcmp(vi->params[j].name, first->params[j].name);
    if (!same)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "specializations of kernel '%s' come from kernels with different parameters", k);
  }
  plan->nlaunch = 0;
  for (int j = 0; j < first->nparams; j++) {
    const tc_kernel_param *rt = NULL;
    size_t rt_variant = 0;
    for (size_t i = 0; i < n && !rt; i++)
      if (v[i].info->params[j].kind != TILEC_PARAM_CONSTEXPR) rt = &v[i].info->params[j], rt_variant = i;
    if (!rt) {
      /* A compile-time value in every variant: not an argument, so the dispatcher cannot
       * choose by it and the caller's grid fits one value only; they must all agree. */
      for (size_t i = 1; i < n; i++)
        if (strcmp(v[i].info->params[j].value, first->params[j].value) != 0)
          return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                     "specializations 1 (\"%s\") and %zu (\"%s\") of kernel '%s' fix "
                                     "constexpr '%s' to different values (%s and %s); specializations may "
                                     "differ only in :16 hints and integers fixed to 1 (build one library per "
                                     "value)",
                                     first->signature, i + 1, v[i].info->signature, k, first->params[j].name,
                                     first->params[j].value, v[i].info->params[j].value);
      continue;
    }
    for (size_t i = 0; i < n; i++) {
      const tc_kernel_param *p = &v[i].info->params[j];
      if (p->kind == TILEC_PARAM_CONSTEXPR) {
        /* Only "equal to 1" can be checked at run time, and only on an integer. */
        if (strcmp(p->value, "1") != 0 || rt->kind != TILEC_PARAM_SCALAR || !is_integer_dtype(rt->dtype))
          return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                     "specialization %zu of kernel '%s' (\"%s\") fixes parameter '%s' to %s, but "
                                     "specialization %zu (\"%s\") takes it at run time; specializations may differ "
                                     "only in :16 hints and integers fixed to 1",
                                     i + 1, k, v[i].info->signature, p->name, p->value, rt_variant + 1,
                                     v[rt_variant].info->signature);
      } else if (!same_runtime_type(p, rt)) {
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "parameter '%s' of kernel '%s' has different types in specialization %zu "
                                   "(\"%s\") and %zu (\"%s\")",
                                   p->name, k, rt_variant + 1, v[rt_variant].info->signature, i + 1,
                                   v[i].info->signature);
      } else if (p->divisibility > 1 && p->kind == TILEC_PARAM_SCALAR && !is_integer_dtype(p->dtype)) {
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "specialization %zu of kernel '%s': the :%d hint on '%s' cannot be checked at run "
                                   "time (not an integer or pointer)",
                                   i + 1, k, p->divisibility, p->name);
      }
    }
    plan->launch[plan->nlaunch].index = j;
    plan->launch[plan->nlaunch].ty = *rt;
    tc_stub_param_ident(rt->name, plan->launch[plan->nlaunch].ident, sizeof plan->launch[plan->nlaunch].ident);
    plan->nlaunch++;
  }
  int score[TC_MAX_VARIANTS];
  for (size_t i = 0; i < n; i++) {
    score[i] = 0;
    for (int a = 0; a < plan->nlaunch; a++) {
      const tc_kernel_param *p = &v[i].info->params[plan->launch[a].index];
      char h = p->kind == TILEC_PARAM_CONSTEXPR ? 'c' : p->divisibility > 1 ? 'd' : 'a';
      plan->hints[i][a] = h;
      score[i] += h != 'a';
    }
    plan->hints[i][plan->nlaunch] = 0;
    snprintf(plan->names[i], sizeof plan->names[i], "%s__%s", k, plan->hints[i]);
    for (size_t e = 0; e < i; e++)
      if (!strcmp(plan->hints[e], plan->hints[i]))
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "specializations %zu (\"%s\") and %zu (\"%s\") of kernel '%s' have the same hints; "
                                   "the dispatcher could never pick the second",
                                   e + 1, v[e].info->signature, i + 1, v[i].info->signature, k);
  }
  /* Most hints first; ties keep the order given. Insertion sort: n is small. */
  for (size_t i = 0; i < n; i++) {
    size_t j = i;
    while (j > 0 && score[plan->order[j - 1]] < score[i]) {
      plan->order[j] = plan->order[j - 1];
      j--;
    }
    plan->order[j] = i;
  }
  return NULL;
}

/* ", T name" for each launch parameter. */
static void write_dispatch_proto(FILE *f, const dispatch_plan *plan, bool leading_comma) {
  for (int a = 0; a < plan->nlaunch; a++) {
    char ct[64];
    tc_param_c_type(&plan->launch[a].ty, ct, sizeof ct);
    size_t n = strlen(ct);
    fprintf(f, "%s%s%s%s", a || leading_comma ? ", " : "", ct, n && ct[n - 1] == '*' ? "" : " ", plan->launch[a].ident);
  }
  if (!plan->nlaunch && !leading_comma) fprintf(f, "void");
}

/* The trampoline, parameter table and descriptor of one variant, tagged `v<tag>`. */
static void write_variant(FILE *f, const tc_variant *v, const char *desc_name, size_t tag, const char *tdesc,
                          const char *source_file, bool emu) {
  const tc_kernel_info *info = v->info;
  int nargs = tc_stub_declare_kernel(f, v->symbol, info, false, emu);
  fprintf(f,
          "static int __tilec_program_v%zu(void *const *args, const uint32_t pid[3], const uint32_t grid[3], "
          "void *ctx) {\n  (void)ctx; (void)args;\n",
          tag);
  /* A failed device_assert unwinds the program back here (runtime/debug.c). */
  if (info->uses_assert)
    fprintf(f, "  jmp_buf jb;\n  tilec_rt_set_jmp(&jb);\n  if (setjmp(jb)) { tilec_rt_set_jmp(0); return 1; }\n");
  tc_stub_kernel_call(f, v->symbol, info, emu, "");
  if (info->uses_assert) fprintf(f, "  tilec_rt_set_jmp(0);\n");
  fprintf(f, "  return 0;\n}\n");
  char suffix[32];
  snprintf(suffix, sizeof suffix, "v%zu", tag);
  tc_stub_desc(f, suffix, desc_name, info, tdesc, source_file, nargs, true);
}

/* The condition under which variant i's hints hold for the actual arguments. */
static void write_condition(FILE *f, const dispatch_plan *plan, size_t i) {
  int terms = 0;
  for (int a = 0; a < plan->nlaunch; a++) {
    const tc_kernel_param *p = &plan->launch[a].ty;
    char h = plan->hints[i][a];
    if (h == 'a') continue;
    fprintf(f, "%s", terms++ ? " && " : "");
    const char *id = plan->launch[a].ident;
    if (h == 'c') fprintf(f, "%s == 1", id);
    else if (p->kind == TILEC_PARAM_POINTER) fprintf(f, "(uintptr_t)%s %% 16 == 0", id);
    else fprintf(f, "%s %% 16 == 0", id);
  }
  if (!terms) fprintf(f, "1");
}

static tilec_status *write_dispatch_stub(const char *path, const tc_variant *v, size_t n, const dispatch_plan *plan,
                                         const tc_target *target, const char *source_file) {
  FILE *f = fopen(path, "w");
  if (!f) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  const char *k = v[0].info->name;
  fprintf(f, "/* generated by tilec %s: %zu specializations of kernel %s */\n#include <stdbool.h>\n%s\n",
          TILEC_VERSION_STRING, n, k, tilec_embedded_abi_h);
  fprintf(f, "extern int tilec_kernel_launch_simple(const tilec_kernel_desc *, uint32_t, uint32_t, uint32_t, "
             "void *const *);\nextern int tilec_rt_launch_refused(int, const char *);\n");
  bool asserts = false;
  for (size_t i = 0; i < n; i++) asserts |= v[i].info->uses_assert;
  if (asserts) fprintf(f, "#include <setjmp.h>\nextern void tilec_rt_set_jmp(jmp_buf *);\n");
  char tdesc[256];
  tc_target_describe(target, tdesc, sizeof tdesc);
  for (size_t i = 0; i < n; i++) write_variant(f, &v[i], plan->names[i], i, tdesc, source_file, target->gpu_emulation);
  fprintf(f,
          "__attribute__((visibility(\"default\"))) const uint32_t tilec_library_abi_version = TILEC_ABI_VERSION;\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) const tilec_kernel_desc *const tilec_kernels[] = {");
  for (size_t o = 0; o < n; o++) fprintf(f, "&tilec_desc_v%zu, ", plan->order[o]);
  fprintf(f, "0};\n");
  /* Variants in dispatch order: the first whose hints hold wins. */
  fprintf(f, "static int tilec_pick(");
  write_dispatch_proto(f, plan, false);
  fprintf(f, ") {\n");
  for (int a = 0; a < plan->nlaunch; a++) fprintf(f, "  (void)%s;\n", plan->launch[a].ident);
  for (size_t o = 0; o < n; o++) {
    fprintf(f, "  if (");
    write_condition(f, plan, plan->order[o]);
    fprintf(f, ") return %zu;\n", plan->order[o]);
  }
  fprintf(f, "  return -1;\n}\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) const char *%s_launch_variant(", k);
  write_dispatch_proto(f, plan, false);
  fprintf(f, ") {\n  switch (tilec_pick(");
  for (int a = 0; a < plan->nlaunch; a++) fprintf(f, "%s%s", a ? ", " : "", plan->launch[a].ident);
  fprintf(f, ")) {\n");
  for (size_t i = 0; i < n; i++) fprintf(f, "  case %zu: return tilec_desc_v%zu.name;\n", i, i);
  fprintf(f, "  default: return 0;\n  }\n}\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z",
          k);
  write_dispatch_proto(f, plan, true);
  fprintf(f, ") {\n  switch (tilec_pick(");
  for (int a = 0; a < plan->nlaunch; a++) fprintf(f, "%s%s", a ? ", " : "", plan->launch[a].ident);
  fprintf(f, ")) {\n");
  for (size_t i = 0; i < n; i++) {
    /* Parameters a variant fixed to 1 are checked by tilec_pick and not passed on. */
    fprintf(f, "  case %zu: {\n    void *args[] = {", i);
    int na = 0;
    for (int a = 0; a < plan->nlaunch; a++)
      if (plan->hints[i][a] != 'c') fprintf(f, "%s(void *)&%s", na++ ? ", " : "", plan->launch[a].ident);
    if (!na) fprintf(f, "0");
    fprintf(f, "};\n    return tilec_kernel_launch_simple(&tilec_desc_v%zu, grid_x, grid_y, grid_z, args);\n  }\n", i);
  }
  fprintf(f,
          "  default:\n    return tilec_rt_launch_refused(1, \"kernel '%s': no specialization accepts these "
          "arguments (",
          k);
  for (size_t o = 0; o < n; o++) {
    fprintf(f, "%s", o ? "; " : "");
    /* The signature goes inside a C string literal already: escape it by hand. */
    for (const char *s = v[plan->order[o]].info->signature; *s; s++)
      fprintf(f, *s == '"' || *s == '\\' ? "\\%c" : "%c", *s);
  }
  fprintf(f, ")\");\n  }\n}\n");
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s", path);
  return NULL;
}

static tilec_status *write_dispatch_header(const char *path, const tc_variant *v, size_t n, const dispatch_plan *plan) {
  tilec_outfile o;
  tilec_status *st = NULL;
  FILE *f = tc_out_open(&o, path, &st);
  if (!f) return st;
  const char *k = v[0].info->name;
  fprintf(f, "/* generated by tilec %s — kernel %s, %zu specializations (most specialized first):\n",
          TILEC_VERSION_STRING, k, n);
  for (size_t o = 0; o < n; o++)
    fprintf(f, " *   %-40s \"%s\"\n", plan->names[plan->order[o]], v[plan->order[o]].info->signature);
  fprintf(f,
          " */\n#ifndef TILEC_KERNEL_%s_H\n#define TILEC_KERNEL_%s_H\n\n#include <stdbool.h>\n#include <stdint.h>\n\n",
          k, k);
  fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  tc_stub_tensordesc_type(f, v[0].info);
  fprintf(f, "/* Runs the grid (grid_x, grid_y, grid_z) of programs on all cores with the most specialized\n"
             " * variant whose hints the arguments satisfy. Returns 0 on success, else a tilec_status_code;\n"
             " * tilec_last_error() (tilec/runtime.h) has the message. */\n");
  fprintf(f, "int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", k);
  write_dispatch_proto(f, plan, true);
  fprintf(f, ");\n\n/* The descriptor name %s_launch would run for these arguments, or NULL if none fits. */\n", k);
  fprintf(f, "const char *%s_launch_variant(", k);
  write_dispatch_proto(f, plan, false);
  fprintf(f, ");\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return tc_out_close(&o, f, path);
}

tilec_status *tc_package_library_multi(const tc_variant *v, size_t n, const tc_target *target, const char *source_file,
                                       const char *so_path, const char *header_path, bool debug_info) {
  if (n == 0) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "no specializations to package");
  dispatch_plan *plan = calloc(1, sizeof *plan);
  if (!plan) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  tilec_status *st = plan_dispatch(v, n, plan);
  char dir[4096] = "";
  bool have_dir = false;
  if (!st) {
    int err = tilec_temp_dir("tilec-build", dir, sizeof dir);
    have_dir = err == 0;
    if (!have_dir) st = tilec_status_create(TILEC_ERROR_IO, "cannot create a temporary directory: %s", strerror(err));
  }
  char **objs = calloc(n, sizeof *objs);
  char stub[4200];
  snprintf(stub, sizeof stub, "%s/dispatch.c", dir);
  if (!st && !objs) st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  for (size_t i = 0; !st && i < n; i++) {
    size_t len = strlen(dir) + 32;
    objs[i] = malloc(len);
    if (!objs[i]) {
      st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
      break;
    }
    snprintf(objs[i], len, "%s/variant%zu.o", dir, i);
    FILE *f = fopen(objs[i], "wb");
    if (!f || fwrite(v[i].object, 1, v[i].object_len, f) != v[i].object_len)
      st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", objs[i]);
    if (f && fclose(f) != 0 && !st) st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", objs[i]);
  }
  if (!st) st = write_dispatch_stub(stub, v, n, plan, target, source_file);
  if (!st) st = tc_link_objects(stub, objs, n, target, so_path, debug_info, dir);
  if (!st && header_path) st = write_dispatch_header(header_path, v, n, plan);
  for (size_t i = 0; objs && i < n; i++) free(objs[i]);
  free(objs);
  if (have_dir) tilec_temp_dir_remove(dir);
  free(plan);
  return st;
}
