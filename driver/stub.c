/* driver/stub.c — the C text of kernel libraries: the stub (parameter table, descriptor,
 * trampoline, typed launch function) of a one-kernel library and the header users include;
 * the pieces the dispatcher and the GPU library reuse. In: kernel metadata. Out: C files. */
#include "driver/stub.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/package.h"
#include "runtime/files.h"
#include "tilec/runtime.h"

static const char *dtype_enum(tilec_dtype t) {
  static const char *names[] = {
      "TILEC_DTYPE_INVALID", "TILEC_DTYPE_I1",       "TILEC_DTYPE_I8",      "TILEC_DTYPE_I16",     "TILEC_DTYPE_I32",
      "TILEC_DTYPE_I64",     "TILEC_DTYPE_U8",       "TILEC_DTYPE_U16",     "TILEC_DTYPE_U32",     "TILEC_DTYPE_U64",
      "TILEC_DTYPE_F16",     "TILEC_DTYPE_BF16",     "TILEC_DTYPE_F32",     "TILEC_DTYPE_F64",     "TILEC_DTYPE_FP8E5",
      "TILEC_DTYPE_FP8E4NV", "TILEC_DTYPE_FP8E4B15", "TILEC_DTYPE_FP8E4B8", "TILEC_DTYPE_FP8E5B16"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : names[0];
}

/* Names a parameter cannot have in the generated C: C and C++ keywords (headers are included
 * from C++ too), the macros and types stubs use, and the launchers' own names. */
static const char *const c_reserved[] = {"auto",
                                         "break",
                                         "case",
                                         "char",
                                         "const",
                                         "continue",
                                         "default",
                                         "do",
                                         "double",
                                         "else",
                                         "enum",
                                         "extern",
                                         "float",
                                         "for",
                                         "goto",
                                         "if",
                                         "inline",
                                         "int",
                                         "long",
                                         "register",
                                         "restrict",
                                         "return",
                                         "short",
                                         "signed",
                                         "sizeof",
                                         "static",
                                         "struct",
                                         "switch",
                                         "typedef",
                                         "union",
                                         "unsigned",
                                         "void",
                                         "volatile",
                                         "while",
                                         "alignas",
                                         "alignof",
                                         "bool",
                                         "constexpr",
                                         "false",
                                         "nullptr",
                                         "static_assert",
                                         "thread_local",
                                         "true",
                                         "typeof",
                                         "typeof_unqual",
                                         "and",
                                         "and_eq",
                                         "asm",
                                         "bitand",
                                         "bitor",
                                         "catch",
                                         "char8_t",
                                         "char16_t",
                                         "char32_t",
                                         "class",
                                         "compl",
                                         "concept",
                                         "consteval",
                                         "constinit",
                                         "const_cast",
                                         "co_await",
                                         "co_return",
                                         "co_yield",
                                         "decltype",
                                         "delete",
                                         "dynamic_cast",
                                         "explicit",
                                         "export",
                                         "friend",
                                         "mutable",
                                         "namespace",
                                         "new",
                                         "noexcept",
                                         "not",
                                         "not_eq",
                                         "operator",
                                         "or",
                                         "or_eq",
                                         "private",
                                         "protected",
                                         "public",
                                         "reinterpret_cast",
                                         "requires",
                                         "static_cast",
                                         "template",
                                         "this",
                                         "throw",
                                         "try",
                                         "typeid",
                                         "typename",
                                         "using",
                                         "virtual",
                                         "wchar_t",
                                         "xor",
                                         "xor_eq",
                                         "NULL",
                                         "int8_t",
                                         "int16_t",
                                         "int32_t",
                                         "int64_t",
                                         "uint8_t",
                                         "uint16_t",
                                         "uint32_t",
                                         "uint64_t",
                                         "intptr_t",
                                         "uintptr_t",
                                         "size_t",
                                         "grid_x",
                                         "grid_y",
                                         "grid_z",
                                         "args",
                                         "cuda_stream"};

void tc_stub_param_ident(const char *name, char *buf, size_t n) {
  size_t stem = strlen(name);
  while (stem && name[stem - 1] == '_') stem--;
  bool reserved =
      !strncmp(name, "tilec_", 6) || !strncmp(name, "__", 2) || (name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z');
  for (size_t i = 0; !reserved && i < sizeof c_reserved / sizeof c_reserved[0]; i++)
    reserved = strlen(c_reserved[i]) == stem && !strncmp(name, c_reserved[i], stem);
  snprintf(buf, n, "%s%s", name, reserved ? "_" : "");
}

/* C string literal of s (escapes quotes, backslashes and control bytes). */
void tc_stub_c_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 32 || ch >= 127) fprintf(f, "\\%03o", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

/* The C type of a parameter of the compiled kernel function: a tensor descriptor is passed
 * as the pointer to the caller's tilec_tensor_descriptor; everything else as declared. */
static void kernel_arg_c_type(const tc_kernel_param *p, char *buf, size_t n) {
  if (p->kind == TILEC_PARAM_TENSORDESC) snprintf(buf, n, "const void *");
  else tc_param_c_type(p, buf, n);
}

/* The runtime arguments of a trampoline's kernel call, each read from the packed args[]. */
static void emit_arg_unpack(FILE *f, const tc_kernel_info *info) {
  for (int i = 0, a = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    if (p->kind == TILEC_PARAM_TENSORDESC) {
      fprintf(f, "(const void *)args[%d], ", a++);
      continue;
    }
    char ct[64];
    tc_param_c_type(p, ct, sizeof ct);
    fprintf(f, "*(%s const *)args[%d], ", ct, a++);
  }
}

/* Generated headers are self-contained: the descriptor struct of tilec/abi.h, guarded. */
void tc_stub_tensordesc_type(FILE *f, const tc_kernel_info *info) {
  bool any = false;
  for (int i = 0; i < info->nparams; i++) any |= info->params[i].kind == TILEC_PARAM_TENSORDESC;
  if (!any) return;
  fprintf(f,
          "/* A tensor descriptor argument (tilec/abi.h): base address, shape and strides (in elements;\n"
          " * the last stride must be 1) per dimension of the block, padding 0 (zeros) or 1 (NaN). */\n"
          "#ifndef TILEC_TENSOR_DESCRIPTOR_DEFINED\n#define TILEC_TENSOR_DESCRIPTOR_DEFINED\n"
          "typedef struct tilec_tensor_descriptor {\n  void *base;\n  int64_t shape[%d];\n  int64_t strides[%d];\n"
          "  int64_t padding;\n} tilec_tensor_descriptor;\n#endif\n\n",
          TILEC_TENSOR_DESC_MAX_RANK, TILEC_TENSOR_DESC_MAX_RANK);
}

/* The rows of a tilec_param_desc table (one placeholder row when there are none). */
static void emit_param_rows(FILE *f, const tc_kernel_info *info) {
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    fprintf(f, "  {");
    tc_stub_c_string(f, p->name);
    fprintf(f, ", %d, %s, %d, %d, ", (int)p->kind, dtype_enum(p->dtype), p->pointer_depth, p->divisibility);
    if (p->kind == TILEC_PARAM_CONSTEXPR || p->kind == TILEC_PARAM_TENSORDESC) tc_stub_c_string(f, p->value);
    else fprintf(f, "0");
    fprintf(f, "},\n");
  }
  if (!info->nparams) fprintf(f, "  {0, 0, 0, 0, 0, 0}\n");
}

void tc_stub_params_proto(FILE *f, const tc_kernel_info *info) {
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    char ct[64];
    tc_param_c_type(p, ct, sizeof ct);
    size_t n = strlen(ct);
    char id[TC_PARAM_IDENT_MAX];
    tc_stub_param_ident(p->name, id, sizeof id);
    fprintf(f, ", %s%s%s", ct, n && ct[n - 1] == '*' ? "" : " ", id);
  }
}

/* The trampoline's call of the compiled kernel: its arguments unpacked from args[] on a
 * CPU; under nvptx-emu args[] itself, to the CTA entry backend/nvptx.c makes, which reads
 * each parameter from args[i] as cuLaunchKernel does (the bytes the kernel's parameter
 * declares: a tensor descriptor's 80, a pointer's 8), so a parameter the GPU would read
 * wrongly reads wrongly there too. */
void tc_stub_kernel_call(FILE *f, const char *symbol, const tc_kernel_info *info, bool emu, const char *extents) {
  if (emu) {
    fprintf(f, "  __tilec_emu_launch_%s(args, ", symbol);
  } else {
    fprintf(f, "  __tilec_kernel_%s(", symbol);
    emit_arg_unpack(f, info);
  }
  fprintf(f, "pid[0], pid[1], pid[2], grid[0], grid[1], grid[2]%s);\n", extents);
}

/* `  void *args[] = {&p0, &p1, ...};` over the runtime parameters of a typed launcher. */
void tc_stub_args_array(FILE *f, const tc_kernel_info *info) {
  fprintf(f, "  void *args[] = {");
  int a = 0;
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    char id[TC_PARAM_IDENT_MAX];
    tc_stub_param_ident(p->name, id, sizeof id);
    fprintf(f, "%s(void *)&%s", a++ ? ", " : "", id);
  }
  fprintf(f, "%s};\n", a ? "" : "0");
}

/* `extern void __tilec_kernel_SYMBOL(<runtime params>, pid x3, grid x3[, extents]);`: the
 * compiled kernel's prototype. Returns the number of runtime parameters. */
int tc_stub_declare_kernel(FILE *f, const char *symbol, const tc_kernel_info *info, bool extents, bool emu) {
  if (emu)
    fprintf(f,
            "extern void __tilec_emu_launch_%s(void *const *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, "
            "uint32_t);\n",
            symbol);
  fprintf(f, "extern void __tilec_kernel_%s(", symbol);
  int nargs = 0;
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    char ct[64];
    kernel_arg_c_type(p, ct, sizeof ct);
    fprintf(f, "%s, ", ct);
    nargs++;
  }
  fprintf(f, "uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t%s);\n", extents ? ", const int64_t *" : "");
  return nargs;
}

/* The parameter rows tilec_params_<suffix> and the descriptor tilec_desc_<suffix> of a
 * kernel named `name` (tilec/abi.h), with tilec_program_<suffix> as its program, or none for
 * a GPU kernel. */
void tc_stub_desc(FILE *f, const char *suffix, const char *name, const tc_kernel_info *info, const char *tdesc,
                  const char *source_file, int nargs, bool program) {
  fprintf(f, "static const tilec_param_desc tilec_params_%s[] = {\n", suffix);
  emit_param_rows(f, info);
  fprintf(f, "};\nstatic const tilec_kernel_desc tilec_desc_%s = {\n  TILEC_ABI_VERSION, sizeof(tilec_kernel_desc), ",
          suffix);
  tc_stub_c_string(f, name);
  fprintf(f, ", ");
  tc_stub_c_string(f, info->signature);
  fprintf(f, ", ");
  tc_stub_c_string(f, tdesc);
  fprintf(f, ", ");
  tc_stub_c_string(f, source_file ? source_file : "");
  fprintf(f, ", \"%s\", %d, %d, tilec_params_%s, ", TILEC_VERSION_STRING, info->nparams, nargs, suffix);
  if (program) fprintf(f, "__tilec_program_%s};\n", suffix);
  else fprintf(f, "0};\n");
}

/* A one-kernel library's tables (tilec/abi.h): the parameter rows, the descriptor (with
 * tilec_program_<K> as its program, or none for a GPU kernel), the ABI version and the
 * kernel table. */
void tc_stub_library_tables(FILE *f, const tc_kernel_info *info, const tc_target *target, const char *source_file,
                            int nargs, bool program) {
  char tdesc[256];
  tc_target_describe(target, tdesc, sizeof tdesc);
  tc_stub_desc(f, info->name, info->name, info, tdesc, source_file, nargs, program);
  fprintf(f,
          "__attribute__((visibility(\"default\"))) const uint32_t tilec_library_abi_version = TILEC_ABI_VERSION;\n");
  fprintf(f,
          "__attribute__((visibility(\"default\"))) const tilec_kernel_desc *const tilec_kernels[] = "
          "{&tilec_desc_%s, 0};\n",
          info->name);
}

tilec_status *tc_stub_write(const char *path, const tc_kernel_info *info, const tc_target *target,
                            const char *source_file) {
  FILE *f = fopen(path, "w");
  if (!f) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  const char *n = info->name;
  fprintf(f, "/* generated by tilec %s: kernel %s */\n#include <stdbool.h>\n%s\n", TILEC_VERSION_STRING, n,
          tilec_embedded_abi_h);
  fprintf(f, "extern int tilec_kernel_launch_simple(const tilec_kernel_desc *, uint32_t, uint32_t, uint32_t, "
             "void *const *);\n");
  int nargs = tc_stub_declare_kernel(f, n, info, info->check_bounds, target->gpu_emulation);
  bool unwinds = info->uses_assert || info->check_bounds || info->check_nan;
  if (unwinds)
    fprintf(f,
            "#include <setjmp.h>\nextern void tilec_rt_set_jmp(jmp_buf *);\nextern void tilec_rt_set_kernel(const void "
            "*);\n"
            "static const tilec_kernel_desc tilec_desc_%s;\n",
            n);
  if (info->check_bounds) {
    /* -1: extent unknown, nothing checked for that argument */
    fprintf(f, "static const int64_t tilec_no_extents_%s[%d] = {", n, nargs ? nargs : 1);
    for (int i = 0; i < (nargs ? nargs : 1); i++) fprintf(f, "%s-1", i ? ", " : "");
    fprintf(f, "};\n");
  }
  fprintf(f,
          "static int __tilec_program_%s(void *const *args, const uint32_t pid[3], const uint32_t grid[3], "
          "void *ctx) {\n  (void)ctx; (void)args;\n",
          n);
  if (info->check_bounds)
    fprintf(f,
            "  const int64_t *ext = ctx && ((const tilec_program_ctx *)ctx)->extents ? "
            "((const tilec_program_ctx *)ctx)->extents : tilec_no_extents_%s;\n",
            n);
  /* A failed device_assert or bounds check unwinds the program back here (runtime/debug.c). */
  if (unwinds)
    fprintf(f,
            "  jmp_buf jb;\n  tilec_rt_set_kernel(&tilec_desc_%s);\n  tilec_rt_set_jmp(&jb);\n"
            "  if (setjmp(jb)) { tilec_rt_set_jmp(0); return 1; }\n",
            n);
  tc_stub_kernel_call(f, n, info, target->gpu_emulation, info->check_bounds ? ", ext" : "");
  if (unwinds) fprintf(f, "  tilec_rt_set_jmp(0);\n");
  fprintf(f, "  return 0;\n}\n");
  tc_stub_library_tables(f, info, target, source_file, nargs, true);
  fprintf(f, "__attribute__((visibility(\"default\"))) int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z",
          n);
  tc_stub_params_proto(f, info);
  fprintf(f, ") {\n");
  tc_stub_args_array(f, info);
  fprintf(f, "  return tilec_kernel_launch_simple(&tilec_desc_%s, grid_x, grid_y, grid_z, args);\n}\n", n);
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s", path);
  return NULL;
}

/* Headers are written to a temporary file beside the path and renamed into place. */
FILE *tc_out_open(tilec_outfile *o, const char *path, tilec_status **st) {
  int err = tilec_outfile_begin(o, path);
  FILE *f = err ? NULL : fopen(o->tmp, "w");
  if (!err && !f) err = errno;
  if (err) {
    tilec_outfile_end(o);
    *st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", path, strerror(err));
  }
  return f;
}

tilec_status *tc_out_close(tilec_outfile *o, FILE *f, const char *path) {
  bool bad = ferror(f) != 0;
  int err = 0;
  if (fclose(f) != 0 || bad) err = EIO;
  if (!err) err = tilec_outfile_commit(o);
  tilec_outfile_end(o);
  return err ? tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", path, strerror(err)) : NULL;
}

tilec_status *tc_package_header(const tc_kernel_info *info, const char *header_path, bool gpu) {
  tilec_outfile o;
  tilec_status *st = NULL;
  FILE *f = tc_out_open(&o, header_path, &st);
  if (!f) return st;
  fprintf(f, "/* generated by tilec %s — kernel %s, signature \"%s\" */\n", TILEC_VERSION_STRING, info->name,
          info->signature);
  fprintf(f, "#ifndef TILEC_KERNEL_%s_H\n#define TILEC_KERNEL_%s_H\n\n#include <stdbool.h>\n#include <stdint.h>\n\n",
          info->name, info->name);
  fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  tc_stub_tensordesc_type(f, info);
  fprintf(f, "/* Runs the grid (grid_x, grid_y, grid_z) of programs on all cores. Returns 0 on success,\n"
             " * else a tilec_status_code; tilec_last_error() (tilec/runtime.h) has the message. */\n");
  fprintf(f, "int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", info->name);
  tc_stub_params_proto(f, info);
  fprintf(f, ");\n");
  if (gpu) {
    fprintf(f, "/* On an NVIDIA GPU (pointer parameters are device pointers): _launch waits for the kernel,\n"
               " * _launch_async queues it on cuda_stream (a CUstream; NULL is the legacy default stream)\n"
               " * and returns without waiting. Without a CUDA driver or GPU they return\n"
               " * TILEC_ERROR_RUNTIME and tilec_last_error() says why. */\n");
    fprintf(f, "int %s_launch_async(void *cuda_stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", info->name);
    tc_stub_params_proto(f, info);
    fprintf(f, ");\n");
  }
  fprintf(f, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return tc_out_close(&o, f, header_path);
}
