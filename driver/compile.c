/* driver/compile.c — the compiler API (include/tilec/tilec.h): runs the front end,
 * the lowering pipeline and the back end, and packages kernel libraries.
 * In: kernel source + spec, or tile IR text. Out: IR text of a stage or a .so + header. */
#include "tilec/tilec.h"

#include "conversion/pipeline.h"
#include "dialects/tile.h"
#include "driver/checks.h"
#include "driver/compiler.h"
#include "driver/package.h"
#include "frontend/frontend.h"
#include "runtime/files.h"
#include <mlir-c/BuiltinAttributes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tilec_version(void) { return TILEC_VERSION_STRING; }

void tilec_compile_options_init(tilec_compile_options *o) {
  memset(o, 0, sizeof *o);
  o->target = "host";
  o->opt_level = 3;
  /* TILEC_CHECK=all turns the checks on for every compile (JIT users); a malformed value
   * is reported by tilec_compiler_create, which reads it again. */
  tilec_status *st = tilec_checks_from_env(&o->checks);
  if (st) {
    o->checks = TC_CHECKS_FROM_BAD_ENV;
    tilec_status_destroy(st);
  }
}

bool tilec_stage_from_name(const char *name, tilec_stage *out) {
  tc_stage s;
  if (!name || !tc_stage_from_name(name, &s)) return false;
  *out = tc_stage_api(s);
  return true;
}

tilec_status *tilec_compiler_create(const tilec_compile_options *opts, tilec_compiler **out) {
  tilec_compiler *c = calloc(1, sizeof *c);
  if (!c) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  if (opts) c->opts = *opts;
  else tilec_compile_options_init(&c->opts);
  tilec_status *st = NULL;
  if (c->opts.checks & TC_CHECKS_FROM_BAD_ENV) { /* tilec_compile_options_init could not say why */
    uint32_t ignored;
    st = tilec_checks_from_env(&ignored);
    if (!st) c->opts.checks &= ~TC_CHECKS_FROM_BAD_ENV; /* the environment changed since */
  }
  c->checks = tc_checks_resolve(&c->opts);
  snprintf(c->target_name, sizeof c->target_name, "%s", c->opts.target ? c->opts.target : "host");
  c->opts.target = c->target_name;
  if (!st && c->opts.cache_dir) {
    c->cache_dir_option = strdup(c->opts.cache_dir);
    if (!c->cache_dir_option) st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
  c->opts.cache_dir = c->cache_dir_option;
  if (!st) st = tc_target_init(&c->target, c->target_name);
  if (!st)
    st = tc_target_set_gpu(&c->target, c->opts.arch, (int)c->opts.num_warps, (int)c->opts.num_stages,
                           c->opts.ptx_version);
  c->opts.arch = !st && c->target.is_nvptx ? c->target.cpu : NULL; /* the caller's strings are borrowed */
  c->opts.ptx_version = NULL;                                      /* (kept as the target's features) */
  if (!st && (c->target.is_nvptx || c->target.gpu_emulation) && (c->checks || c->opts.reference))
    st = tilec_status_create(
        TILEC_ERROR_UNSUPPORTED,
        "--check-bounds, --check-nan, --check-races and --reference are not supported on nvptx yet");
  /* The reference build processes one element per chunk: no vectors, no SLEEF (scalar
   * libm), a different path through the lowering than the optimized build. */
  if (!st && c->opts.reference) c->target.vector_bits = 32;
  if (!st) st = tc_jit_cache_create(c, &c->jit);
  if (st) {
    tc_jit_cache_destroy(c->jit);
    free(c->cache_dir_option);
    free(c);
    return st;
  }
  *out = c;
  return NULL;
}

void tilec_compiler_destroy(tilec_compiler *c) {
  if (!c) return;
  tc_jit_cache_destroy(c->jit);
  if (!mlirContextIsNull(c->ctx)) mlirContextDestroy(c->ctx);
  free(c->cache_dir_option);
  free(c);
}

uint32_t tilec_compiler_checks(const tilec_compiler *c) { return c ? c->checks : 0; }

static tc_codegen_options codegen_options(const tilec_compiler *c) {
  tc_codegen_options o = {c->opts.opt_level, c->opts.fast_math, c->opts.debug_info, c->checks, !c->opts.no_fp_fusion};
  if (c->opts.reference && o.opt_level > 1) o.opt_level = 1; /* no vectorizer on the reference */
  return o;
}

/* Runs module (tile stage) to `stage`; text for IR stages and the analyses, bytes for
 * objects. Takes the module. */
static tilec_status *advance(tilec_compiler *c, MlirModule m, tc_stage stage, char **out, size_t *len) {
  tc_codegen_options o = codegen_options(c);
  tilec_status *st = tc_pipeline_output(&m, stage, &c->target, &o, out, len);
  mlirModuleDestroy(m);
  return st;
}

/* The API's stage as the pipeline's, or why not. */
static tilec_status *pipeline_stage(tilec_stage stage, tc_stage *out) {
  if (tc_stage_from_api(stage, out)) return NULL;
  return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "unknown stage %d", (int)stage);
}

/* strip_asserts: removes the tile.assert ops the front end emitted (they have no results;
 * what only fed them is left to the clean-ups). */
typedef struct assert_list {
  MlirOperation ops[256];
  int n;
  bool more;
} assert_list;

static MlirWalkResult collect_assert(MlirOperation op, void *user) {
  assert_list *l = user;
  if (!(tile_op_of(op) == TILE_ASSERT)) return MlirWalkResultAdvance;
  if (l->n == (int)(sizeof l->ops / sizeof l->ops[0])) {
    l->more = true;
    return MlirWalkResultInterrupt;
  }
  l->ops[l->n++] = op;
  return MlirWalkResultAdvance;
}

static void strip_asserts(MlirModule m, tc_kernel_info *info) {
  assert_list l;
  do {
    l.n = 0;
    l.more = false;
    mlirOperationWalk(mlirModuleGetOperation(m), collect_assert, &l, MlirWalkPostOrder);
    for (int i = 0; i < l.n; i++) {
      mlirOperationRemoveFromParent(l.ops[i]);
      mlirOperationDestroy(l.ops[i]);
    }
  } while (l.more);
  info->uses_assert = false;
}

/* The MLIR context, created on first use: loading every dialect costs ~8 ms, which a
 * compiler that only finds its kernels in the JIT disk cache never pays. */
static tilec_status *context(tilec_compiler *c) {
  return mlirContextIsNull(c->ctx) ? tile_context_create(&c->ctx) : NULL;
}

static tilec_status *front_compile(tilec_compiler *c, const tilec_kernel_spec *spec, MlirModule *m,
                                   tc_kernel_info *info) {
  tilec_status *st = context(c);
  if (st) return st;
  info->cuda_capability = 0;
  if (c->target.is_nvptx || c->target.gpu_emulation) { /* "sm_90a" -> 90; nvptx-emu without --arch: sm_80 */
    const char *chip = c->target.is_nvptx ? c->target.cpu : c->target.emu_arch;
    info->cuda_capability = !strncmp(chip, "sm_", 3) ? atoi(chip + 3) : 80;
  }
  st = tc_frontend_compile(c->ctx, spec, m, info);
  if (!st && c->opts.strip_asserts) strip_asserts(*m, info);
  /* an emulated CTA that cannot start its threads stops the program (runtime/emu.c) */
  if (!st && c->target.gpu_emulation) info->uses_assert = true;
  return st;
}

/* What the packaging needs to know of the checks: the kernel's extra arguments. */
static void set_info_checks(const tilec_compiler *c, tc_kernel_info *info) {
  info->check_bounds = (c->checks & TILEC_CHECKS_BOUNDS) != 0;
  info->check_nan = (c->checks & TILEC_CHECKS_NAN) != 0;
}

static tilec_status *front(tilec_compiler *c, const tilec_kernel_spec *spec, MlirModule *m, tc_kernel_info *info) {
  if (!spec || (!spec->source && !spec->filename) || !spec->kernel)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel spec needs source (or a file name) and kernel name");
  set_info_checks(c, info);
  c->notes[0] = 0;
  c->warnings[0] = 0;
  if (spec->source) {
    tilec_status *st0 = front_compile(c, spec, m, info);
    set_info_checks(c, info);
    snprintf(c->notes, sizeof c->notes, "%s", info->notes);
    snprintf(c->warnings, sizeof c->warnings, "%s", info->warnings);
    return st0;
  }
  tilec_kernel_spec from_file = *spec;
  char *text = NULL;
  tilec_status *st = tilec_file_read_source(spec->filename, &text, &from_file.source_len);
  from_file.source = text;
  if (!st) st = front_compile(c, &from_file, m, info);
  set_info_checks(c, info);
  snprintf(c->notes, sizeof c->notes, "%s", info->notes);
  snprintf(c->warnings, sizeof c->warnings, "%s", info->warnings);
  free(text);
  return st;
}

tilec_status *tilec_compiler_emit(tilec_compiler *c, const tilec_kernel_spec *spec, tilec_stage stage,
                                  char **text_out) {
  MlirModule m;
  tc_kernel_info *info = calloc(1, sizeof *info);
  if (!info) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  tc_stage to;
  tilec_status *st = pipeline_stage(stage, &to);
  if (!st) st = front(c, spec, &m, info);
  if (!st) st = advance(c, m, to, text_out, NULL);
  free(info);
  return st;
}

/* `tilec compile add.py -o add.py` must not replace the kernel source with a library: an
 * output may be neither an input nor the other output (same file: same device and inode,
 * or the same path when neither exists yet). */
static tilec_status *check_outputs(const tilec_kernel_spec *specs, size_t n, const char *so_path,
                                   const char *header_path) {
  for (size_t i = 0; i < n; i++) {
    const char *in = specs[i].filename;
    if (!in) continue;
    const char *outs[2] = {so_path, header_path};
    for (int k = 0; k < 2; k++)
      if (outs[k] && tilec_same_file(outs[k], in))
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "output '%s' is the kernel source '%s'; refusing to overwrite an input", outs[k],
                                   in);
  }
  if (header_path && (tilec_same_file(so_path, header_path) || !strcmp(so_path, header_path)))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "the library '%s' and the header '%s' are the same file",
                               so_path, header_path);
  return NULL;
}

tilec_status *tilec_compiler_build_library(tilec_compiler *c, const tilec_kernel_spec *spec, const char *so_path,
                                           const char *header_path) {
  if (!so_path) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "no output path for the kernel library");
  if (spec) {
    tilec_status *bad = check_outputs(spec, 1, so_path, header_path);
    if (bad) return bad;
  }
  MlirModule m;
  tc_kernel_info *info = calloc(1, sizeof *info);
  if (!info) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  tilec_status *st = front(c, spec, &m, info);
  char *obj = NULL;
  size_t len = 0;
  tc_package *pkg = NULL;
  if (!st && c->target.is_nvptx) { /* the PTX, embedded in a host library that launches it */
    st = advance(c, m, TC_STAGE_ASM, &obj, &len);
    if (!st) st = tc_package_gpu(info, &c->target, obj, so_path);
    if (!st && header_path) st = tc_package_header(info, header_path, true);
    free(obj);
    free(info);
    return st;
  }
  /* The stub compiles in the background while MLIR and LLVM produce the kernel object. */
  if (!st) {
    st = tc_package_begin(info, &c->target, spec->filename, c->opts.debug_info, &pkg);
    if (st) mlirModuleDestroy(m);
    else st = advance(c, m, TC_STAGE_OBJECT, &obj, &len);
  }
  if (!st) st = tc_package_finish(pkg, obj, len, so_path);
  tc_package_free(pkg);
  if (!st && header_path) st = tc_package_header(info, header_path, c->target.is_nvptx);
  free(obj);
  free(info);
  return st;
}

/* Renames the kernel function of a tile module so several specializations of one kernel
 * can be linked into one library (each object then defines __tilec_kernel_<symbol>). */
static void rename_kernel(MlirModule m, const char *kernel, const char *symbol) {
  MlirContext ctx = mlirModuleGetContext(m);
  MlirStringRef func = mlirStringRefCreateFromCString("func.func");
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(m)); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), func)) continue;
    MlirAttribute name = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name) ||
        !mlirStringRefEqual(mlirStringAttrGetValue(name), mlirStringRefCreateFromCString(kernel)))
      continue;
    mlirOperationSetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"),
                                    mlirStringAttrGet(ctx, mlirStringRefCreateFromCString(symbol)));
  }
}

tilec_status *tilec_compiler_build_library_multi(tilec_compiler *c, const tilec_kernel_spec *specs, size_t count,
                                                 const char *so_path, const char *header_path) {
  if (!so_path) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "no output path for the kernel library");
  if (!specs || count == 0)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "no kernel specializations to build");
  /* The dispatcher's trampolines (package.c, write_variant) neither pass the extents a
   * bounds-checked kernel takes nor catch a failing program; refuse rather than build a
   * library whose checks cannot report. */
  if (c->checks)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED,
                               "debug checks (%s) are not supported yet in libraries with several specializations",
                               tc_checks_name(c->checks));
  tilec_status *bad = check_outputs(specs, count, so_path, header_path);
  if (bad) return bad;
  if (count > TC_MAX_VARIANTS)
    return tilec_status_create(TILEC_ERROR_UNSUPPORTED, "more than %d specializations in one library", TC_MAX_VARIANTS);
  tc_kernel_info *infos = calloc(count, sizeof *infos);
  tc_variant *vars = calloc(count, sizeof *vars);
  char (*symbols)[160] = calloc(count, sizeof *symbols);
  tilec_status *st = infos && vars && symbols ? NULL : tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  for (size_t i = 0; !st && i < count; i++) {
    MlirModule m;
    st = front(c, &specs[i], &m, &infos[i]);
    if (st) {
      st =
          tilec_status_annotate(st, "specialization %zu (\"%s\")", i + 1, specs[i].signature ? specs[i].signature : "");
      break;
    }
    snprintf(symbols[i], sizeof symbols[i], "%s__v%zu", infos[i].name, i);
    rename_kernel(m, infos[i].name, symbols[i]);
    char *obj = NULL;
    size_t len = 0;
    st = advance(c, m, TC_STAGE_OBJECT, &obj, &len);
    vars[i] = (tc_variant){&infos[i], symbols[i], obj, len};
  }
  if (!st)
    st = tc_package_library_multi(vars, count, &c->target, specs[0].filename, so_path, header_path, c->opts.debug_info);
  for (size_t i = 0; vars && i < count; i++) free((char *)vars[i].object);
  free(vars);
  free(symbols);
  free(infos);
  return st;
}

tilec_status *tilec_compiler_opt(tilec_compiler *c, const char *mlir_text, tilec_stage stage, char **text_out) {
  tc_stage to;
  tilec_status *cst = pipeline_stage(stage, &to);
  if (!cst) cst = context(c);
  if (cst) return cst;
  tc_diag_capture cap;
  tc_diag_capture_begin(&cap, c->ctx);
  MlirModule m = mlirModuleCreateParse(c->ctx, mlirStringRefCreateFromCString(mlir_text));
  tc_diag_capture_end(&cap);
  if (mlirModuleIsNull(m)) return tilec_status_create(TILEC_ERROR_SYNTAX, "invalid tile IR: %s", cap.text);
  tc_diag_capture_begin(&cap, c->ctx);
  tilec_status *st = tile_verify(mlirModuleGetOperation(m));
  tc_diag_capture_end(&cap);
  if (st) {
    if (cap.len) st = tilec_status_annotate(st, "%s", cap.text);
    mlirModuleDestroy(m);
    return st;
  }
  return advance(c, m, to, text_out, NULL);
}

const char *tilec_compiler_notes(const tilec_compiler *c) { return c ? c->notes : ""; }
const char *tilec_compiler_warnings(const tilec_compiler *c) { return c ? c->warnings : ""; }
