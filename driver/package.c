/* driver/package.c — writes the generated C stub and header for a kernel and links
 * the stub with the kernel object into a shared library (cc -shared, -lsleef, runtime).
 * In: metadata + object bytes. Out: files; temporary files are always removed. */
#include "driver/package.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/files.h"
#include "tilec/runtime.h"

extern const char tilec_embedded_abi_h[];

static const char *dtype_enum(tilec_dtype t) {
  static const char *names[] = {"TILEC_DTYPE_INVALID", "TILEC_DTYPE_I1",   "TILEC_DTYPE_I8",    "TILEC_DTYPE_I16",
                                "TILEC_DTYPE_I32",     "TILEC_DTYPE_I64",  "TILEC_DTYPE_U8",    "TILEC_DTYPE_U16",
                                "TILEC_DTYPE_U32",     "TILEC_DTYPE_U64",  "TILEC_DTYPE_F16",   "TILEC_DTYPE_BF16",
                                "TILEC_DTYPE_F32",     "TILEC_DTYPE_F64",  "TILEC_DTYPE_FP8E5", "TILEC_DTYPE_FP8E4NV",
                                "TILEC_DTYPE_FP8E4B15", "TILEC_DTYPE_FP8E4B8", "TILEC_DTYPE_FP8E5B16"};
  return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : names[0];
}

/* C string literal of s (escapes quotes, backslashes and control bytes). */
static void c_string(FILE *f, const char *s) {
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
static void write_tensordesc_type(FILE *f, const tc_kernel_info *info) {
  bool any = false;
  for (int i = 0; i < info->nparams; i++) any |= info->params[i].kind == TILEC_PARAM_TENSORDESC;
  if (!any) return;
  fprintf(f, "/* A tensor descriptor argument (tilec/abi.h): base address, shape and strides (in elements;\n"
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
    c_string(f, p->name);
    fprintf(f, ", %d, %s, %d, %d, ", (int)p->kind, dtype_enum(p->dtype), p->pointer_depth, p->divisibility);
    if (p->kind == TILEC_PARAM_CONSTEXPR || p->kind == TILEC_PARAM_TENSORDESC) c_string(f, p->value);
    else fprintf(f, "0");
    fprintf(f, "},\n");
  }
  if (!info->nparams) fprintf(f, "  {0, 0, 0, 0, 0, 0}\n");
}

static void write_params_proto(FILE *f, const tc_kernel_info *info) {
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    char ct[64];
    tc_param_c_type(p, ct, sizeof ct);
    size_t n = strlen(ct);
    fprintf(f, ", %s%s%s", ct, n && ct[n - 1] == '*' ? "" : " ", p->name);
  }
}

/* The trampoline's call of the compiled kernel: its arguments unpacked from args[] on a
 * CPU; under nvptx-emu args[] itself, to the CTA entry backend/nvptx.c makes, which reads
 * each parameter from args[i] as cuLaunchKernel does (the bytes the kernel's parameter
 * declares: a tensor descriptor's 80, a pointer's 8), so a parameter the GPU would read
 * wrongly reads wrongly there too. */
static void write_kernel_call(FILE *f, const char *symbol, const tc_kernel_info *info, bool emu, const char *extents) {
  if (emu) {
    fprintf(f, "  __tilec_emu_launch_%s(args, ", symbol);
  } else {
    fprintf(f, "  __tilec_kernel_%s(", symbol);
    emit_arg_unpack(f, info);
  }
  fprintf(f, "pid[0], pid[1], pid[2], grid[0], grid[1], grid[2]%s);\n", extents);
}

/* `  void *args[] = {&p0, &p1, ...};` over the runtime parameters of a typed launcher. */
static void write_args_array(FILE *f, const tc_kernel_info *info) {
  fprintf(f, "  void *args[] = {");
  int a = 0;
  for (int i = 0; i < info->nparams; i++) {
    const tc_kernel_param *p = &info->params[i];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    fprintf(f, "%s(void *)&%s", a++ ? ", " : "", p->name);
  }
  fprintf(f, "%s};\n", a ? "" : "0");
}

/* `extern void __tilec_kernel_SYMBOL(<runtime params>, pid x3, grid x3[, extents]);`: the
 * compiled kernel's prototype. Returns the number of runtime parameters. */
static int declare_kernel(FILE *f, const char *symbol, const tc_kernel_info *info, bool extents, bool emu) {
  if (emu)
    fprintf(f, "extern void __tilec_emu_launch_%s(void *const *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, "
               "uint32_t);\n", symbol);
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
static void write_desc(FILE *f, const char *suffix, const char *name, const tc_kernel_info *info, const char *tdesc,
                       const char *source_file, int nargs, bool program) {
  fprintf(f, "static const tilec_param_desc tilec_params_%s[] = {\n", suffix);
  emit_param_rows(f, info);
  fprintf(f, "};\nstatic const tilec_kernel_desc tilec_desc_%s = {\n  TILEC_ABI_VERSION, sizeof(tilec_kernel_desc), ",
          suffix);
  c_string(f, name);
  fprintf(f, ", ");
  c_string(f, info->signature);
  fprintf(f, ", ");
  c_string(f, tdesc);
  fprintf(f, ", ");
  c_string(f, source_file ? source_file : "");
  fprintf(f, ", \"%s\", %d, %d, tilec_params_%s, ", TILEC_VERSION_STRING, info->nparams, nargs, suffix);
  if (program) fprintf(f, "tilec_program_%s};\n", suffix);
  else fprintf(f, "0};\n");
}

/* A one-kernel library's tables (tilec/abi.h): the parameter rows, the descriptor (with
 * tilec_program_<K> as its program, or none for a GPU kernel), the ABI version and the
 * kernel table. */
static void write_library_tables(FILE *f, const tc_kernel_info *info, const tc_target *target, const char *source_file,
                                 int nargs, bool program) {
  char tdesc[256];
  tc_target_describe(target, tdesc, sizeof tdesc);
  write_desc(f, info->name, info->name, info, tdesc, source_file, nargs, program);
  fprintf(f, "__attribute__((visibility(\"default\"))) const uint32_t tilec_library_abi_version = TILEC_ABI_VERSION;\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) const tilec_kernel_desc *const tilec_kernels[] = "
             "{&tilec_desc_%s, 0};\n",
          info->name);
}

static tilec_status *write_stub(const char *path, const tc_kernel_info *info, const tc_target *target,
                                const char *source_file) {
  FILE *f = fopen(path, "w");
  if (!f) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", path, strerror(errno));
  const char *n = info->name;
  fprintf(f, "/* generated by tilec %s: kernel %s */\n#include <stdbool.h>\n%s\n", TILEC_VERSION_STRING, n,
          tilec_embedded_abi_h);
  fprintf(f, "extern int tilec_kernel_launch_simple(const tilec_kernel_desc *, uint32_t, uint32_t, uint32_t, "
             "void *const *);\n");
  int nargs = declare_kernel(f, n, info, info->check_bounds, target->gpu_emulation);
  bool unwinds = info->uses_assert || info->check_bounds || info->check_nan;
  if (unwinds)
    fprintf(f, "#include <setjmp.h>\nextern void tilec_rt_set_jmp(jmp_buf *);\nextern void tilec_rt_set_kernel(const void *);\n"
               "static const tilec_kernel_desc tilec_desc_%s;\n", n);
  if (info->check_bounds) {
    /* -1: extent unknown, nothing checked for that argument */
    fprintf(f, "static const int64_t tilec_no_extents_%s[%d] = {", n, nargs ? nargs : 1);
    for (int i = 0; i < (nargs ? nargs : 1); i++) fprintf(f, "%s-1", i ? ", " : "");
    fprintf(f, "};\n");
  }
  fprintf(f, "static int tilec_program_%s(void *const *args, const uint32_t pid[3], const uint32_t grid[3], "
             "void *ctx) {\n  (void)ctx; (void)args;\n", n);
  if (info->check_bounds)
    fprintf(f, "  const int64_t *ext = ctx && ((const tilec_program_ctx *)ctx)->extents ? "
               "((const tilec_program_ctx *)ctx)->extents : tilec_no_extents_%s;\n", n);
  /* A failed device_assert or bounds check unwinds the program back here (runtime/debug.c). */
  if (unwinds)
    fprintf(f, "  jmp_buf jb;\n  tilec_rt_set_kernel(&tilec_desc_%s);\n  tilec_rt_set_jmp(&jb);\n"
               "  if (setjmp(jb)) { tilec_rt_set_jmp(0); return 1; }\n", n);
  write_kernel_call(f, n, info, target->gpu_emulation, info->check_bounds ? ", ext" : "");
  if (unwinds) fprintf(f, "  tilec_rt_set_jmp(0);\n");
  fprintf(f, "  return 0;\n}\n");
  write_library_tables(f, info, target, source_file, nargs, true);
  fprintf(f, "__attribute__((visibility(\"default\"))) int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", n);
  write_params_proto(f, info);
  fprintf(f, ") {\n");
  write_args_array(f, info);
  fprintf(f, "  return tilec_kernel_launch_simple(&tilec_desc_%s, grid_x, grid_y, grid_z, args);\n}\n", n);
  bool bad = ferror(f) != 0;
  if (fclose(f) != 0 || bad) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s", path);
  return NULL;
}

/* Headers are written to a temporary file beside the path and renamed into place. */
static FILE *out_open(tilec_outfile *o, const char *path, tilec_status **st) {
  int err = tilec_outfile_begin(o, path);
  FILE *f = err ? NULL : fopen(o->tmp, "w");
  if (!err && !f) err = errno;
  if (err) {
    tilec_outfile_end(o);
    *st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", path, strerror(err));
  }
  return f;
}

static tilec_status *out_close(tilec_outfile *o, FILE *f, const char *path) {
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
  FILE *f = out_open(&o, header_path, &st);
  if (!f) return st;
  fprintf(f, "/* generated by tilec %s — kernel %s, signature \"%s\" */\n", TILEC_VERSION_STRING, info->name,
          info->signature);
  fprintf(f, "#ifndef TILEC_KERNEL_%s_H\n#define TILEC_KERNEL_%s_H\n\n#include <stdbool.h>\n#include <stdint.h>\n\n",
          info->name, info->name);
  fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  write_tensordesc_type(f, info);
  fprintf(f, "/* Runs the grid (grid_x, grid_y, grid_z) of programs on all cores. Returns 0 on success,\n"
             " * else a tilec_status_code; tilec_last_error() (tilec/runtime.h) has the message. */\n");
  fprintf(f, "int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", info->name);
  write_params_proto(f, info);
  fprintf(f, ");\n");
  if (gpu) {
    fprintf(f, "/* On an NVIDIA GPU (pointer parameters are device pointers): _launch waits for the kernel,\n"
               " * _launch_async queues it on cuda_stream (a CUstream; NULL is the default stream). Without a\n"
               " * CUDA driver or GPU they return TILEC_ERROR_RUNTIME and tilec_last_error() says why. */\n");
    fprintf(f, "int %s_launch_async(void *cuda_stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", info->name);
    write_params_proto(f, info);
    fprintf(f, ");\n");
  }
  fprintf(f, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return out_close(&o, f, header_path);
}

/* Directory of libtilec-runtime.so, so kernel libraries link against the same runtime. */
static void runtime_dir(char *buf, size_t n) {
  Dl_info di;
  buf[0] = 0;
  if (dladdr((void *)&tilec_kernel_launch, &di) && di.dli_fname) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", di.dli_fname);
    char *real = realpath(tmp, NULL);
    snprintf(buf, n, "%s", dirname(real ? real : tmp));
    free(real);
  }
}

/* A C compiler or linker run in the background; its output goes to a temporary file that
 * becomes the error message when it fails. */
typedef struct cc_job {
  pid_t pid;
  int efd;
  char errpath[4200];
  const char *what;
} cc_job;

/* dir: the build's temporary directory, which holds the output file. */
static tilec_status *cc_spawn(char *const argv[], const char *dir, cc_job *j) {
  snprintf(j->errpath, sizeof j->errpath, "%s/cc-XXXXXX", dir);
  j->efd = mkstemp(j->errpath);
  j->what = argv[0];
  j->pid = fork();
  if (j->pid < 0) {
    if (j->efd >= 0) close(j->efd), unlink(j->errpath);
    return tilec_status_create(TILEC_ERROR_IO, "cannot start the C compiler: %s", strerror(errno));
  }
  if (j->pid == 0) {
    if (j->efd >= 0) {
      dup2(j->efd, 1);
      dup2(j->efd, 2);
    }
    execvp(argv[0], argv);
    static const char msg[] = "cannot execute the program (not installed? set TILEC_CC to a C compiler)\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
  }
  return NULL;
}

static tilec_status *cc_wait(cc_job *j, const char *doing) {
  int status = 0;
  while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR) {
  }
  tilec_status *st = NULL;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char msg[2048] = "";
    if (j->efd >= 0) {
      lseek(j->efd, 0, SEEK_SET);
      ssize_t k = read(j->efd, msg, sizeof msg - 1);
      msg[k > 0 ? k : 0] = 0;
    }
    st = tilec_status_create(TILEC_ERROR_IO, "%s with '%s' failed (exit %d): %s", doing, j->what,
                             WIFEXITED(status) ? WEXITSTATUS(status) : -1, msg);
  }
  if (j->efd >= 0) {
    close(j->efd);
    unlink(j->errpath);
  }
  return st;
}

static tilec_status *run_cc(char *const argv[], const char *dir) {
  cc_job j;
  tilec_status *st = cc_spawn(argv, dir, &j);
  return st ? st : cc_wait(&j, "linking the kernel library");
}

static const char *c_compiler(void) {
  const char *cc = getenv("TILEC_CC");
  if (cc && *cc) return cc;
  if (access(TILEC_LLVM_ROOT "/bin/clang", X_OK) == 0) return TILEC_LLVM_ROOT "/bin/clang";
  return "cc";
}

/* The linker command the C compiler's driver would run, recorded at configure time
 * (cmake/link_template.cmake): running it directly saves the driver's start-up. */
extern const char *const tilec_link_template[];

static char *subst(const char *arg, const char *key, const char *value) {
  const char *at = strstr(arg, key);
  if (!at) return NULL;
  size_t n = strlen(arg) - strlen(key) + strlen(value) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%.*s%s%s", (int)(at - arg), arg, value, at + strlen(key));
  return s;
}

/* ld ... with @OUT@, @OBJS@ and @RTDIR@ filled in; false when there is no template, the
 * user chose another compiler (TILEC_CC), or the link fails (then the driver retries). */
static bool link_direct(char *const *objs, size_t n, const char *rt, const char *so_path, const char *dir) {
  const char *cc = getenv("TILEC_CC");
  if (!tilec_link_template[0] || (cc && *cc)) return false;
  size_t nt = 0;
  while (tilec_link_template[nt]) nt++;
  char **argv = calloc(nt + n + 1, sizeof *argv);
  char **owned = calloc(nt + 1, sizeof *owned);
  bool ok = argv && owned;
  size_t k = 0, no = 0;
  for (size_t i = 0; ok && i < nt; i++) {
    const char *a = tilec_link_template[i];
    if (!strcmp(a, "@OBJS@")) {
      for (size_t j = 0; j < n; j++) argv[k++] = objs[j];
    } else if (!strcmp(a, "@OUT@")) {
      argv[k++] = (char *)so_path;
    } else if (strstr(a, "@RTDIR@")) {
      char *s = subst(a, "@RTDIR@", rt[0] ? rt : ".");
      ok = s != NULL;
      argv[k++] = owned[no++] = s;
    } else {
      argv[k++] = (char *)a;
    }
  }
  tilec_status *st = NULL;
  if (ok) {
    argv[k] = NULL;
    st = run_cc(argv, dir);
  }
  ok = ok && !st;
  tilec_status_destroy(st);
  for (size_t i = 0; i < no; i++) free(owned[i]);
  free(owned);
  free(argv);
  return ok;
}

/* cc -shared stub.c objs... with SLEEF and the runtime. A cross target (another
 * architecture than the one tilec runs on) links with lld against the target's multiarch
 * libraries and leaves the runtime's symbols to be bound when the library is loaded by a
 * program linked against that target's libtilec-runtime: the host's runtime cannot be
 * linked into it. */
/* The C compiler with the flags the stub compile (-c) and the driver link (-shared) share;
 * returns how many argv entries it wrote. */
static int cc_command(char **argv, const char *mode, bool debug_info, const tc_target *target, char *target_flag) {
  int k = 0;
  argv[k++] = (char *)c_compiler();
  argv[k++] = (char *)mode;
  argv[k++] = "-fPIC";
  argv[k++] = "-O1";
  argv[k++] = debug_info ? "-g" : "-g0";
  if (target->is_cross) argv[k++] = target_flag;
  return k;
}

static bool is_object(const char *path) {
  size_t n = strlen(path);
  return n > 2 && !strcmp(path + n - 2, ".o");
}

static tilec_status *link_into(const char *stub, char **objs, size_t n, const tc_target *target,
                               const char *so_path, bool debug_info, const char *dir) {
  char rt[4096], rtflag[4200], rpath[4200], target_flag[200];
  runtime_dir(rt, sizeof rt);
  snprintf(rtflag, sizeof rtflag, "-L%s", rt[0] ? rt : ".");
  snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", rt[0] ? rt : ".");
  snprintf(target_flag, sizeof target_flag, "--target=%s", target->triple);
  if (!target->is_cross && is_object(stub)) {
    char *all[TC_MAX_VARIANTS + 2];
    size_t na = 0;
    all[na++] = (char *)stub;
    for (size_t i = 0; i < n && na < TC_MAX_VARIANTS + 2; i++) all[na++] = objs[i];
    if (link_direct(all, na, rt, so_path, dir)) return NULL;
  }
  char **argv = calloc(n + 24, sizeof *argv);
  if (!argv) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  int k = cc_command(argv, "-shared", debug_info, target, target_flag);
  if (target->is_cross) argv[k++] = "-fuse-ld=lld";
  argv[k++] = "-o";
  argv[k++] = (char *)so_path;
  argv[k++] = (char *)stub;
  for (size_t i = 0; i < n; i++) argv[k++] = objs[i];
  if (!target->is_cross) {
    argv[k++] = rtflag;
    argv[k++] = rpath;
    argv[k++] = "-ltilec-runtime";
  }
  argv[k++] = "-lsleef";
  argv[k++] = "-lm";
  argv[k] = NULL;
  tilec_status *st = run_cc(argv, dir);
  free(argv);
  return st;
}

/* Links into a temporary file beside so_path and renames it into place: a failed link
 * leaves an existing library (or anything else at that path) as it was. */
static tilec_status *link_objects(const char *stub, char **objs, size_t n, const tc_target *target,
                                  const char *so_path, bool debug_info, const char *dir) {
  tilec_outfile o;
  int err = tilec_outfile_begin(&o, so_path);
  if (err) return tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", so_path, strerror(err));
  tilec_status *st = link_into(stub, objs, n, target, o.tmp, debug_info, dir);
  if (!st && (err = tilec_outfile_commit(&o)) != 0)
    st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s: %s", so_path, strerror(err));
  tilec_outfile_end(&o);
  return st;
}


/* One library being packaged: the stub is compiled to an object in the background (while
 * the caller's MLIR and LLVM passes produce the kernel object), then both are linked. */
struct tc_package {
  char dir[4096], obj[4200], stub[4200], stub_obj[4200];
  const tc_target *target;
  bool debug_info;
  bool compiling; /* the stub compile is running */
  cc_job job;
};

tilec_status *tc_package_begin(const tc_kernel_info *info, const tc_target *target, const char *source_file,
                               bool debug_info, tc_package **out) {
  *out = NULL;
  tc_package *p = calloc(1, sizeof *p);
  if (!p) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  int err = tilec_temp_dir("tilec-build", p->dir, sizeof p->dir);
  if (err) {
    free(p);
    return tilec_status_create(TILEC_ERROR_IO, "cannot create a temporary directory in %s: %s",
                               getenv("TMPDIR") && getenv("TMPDIR")[0] ? "$TMPDIR" : "/tmp", strerror(err));
  }
  snprintf(p->obj, sizeof p->obj, "%s/kernel.o", p->dir);
  snprintf(p->stub, sizeof p->stub, "%s/stub.c", p->dir);
  snprintf(p->stub_obj, sizeof p->stub_obj, "%s/stub.o", p->dir);
  p->target = target;
  p->debug_info = debug_info;
  *out = p;
  tilec_status *st = write_stub(p->stub, info, target, source_file);
  if (st) return st;
  char target_flag[200];
  snprintf(target_flag, sizeof target_flag, "--target=%s", target->triple);
  char *argv[16];
  int k = cc_command(argv, "-c", debug_info, target, target_flag);
  argv[k++] = "-o";
  argv[k++] = p->stub_obj;
  argv[k++] = p->stub;
  argv[k] = NULL;
  st = cc_spawn(argv, p->dir, &p->job);
  p->compiling = st == NULL;
  return st;
}

void tc_package_free(tc_package *p) {
  if (!p) return;
  if (p->compiling) tilec_status_destroy(cc_wait(&p->job, "compiling the kernel stub"));
  tilec_temp_dir_remove(p->dir);
  free(p);
}

tilec_status *tc_package_finish(tc_package *p, const char *object, size_t object_len, const char *so_path) {
  tilec_status *st = NULL;
  FILE *f = fopen(p->obj, "wb");
  if (!f || fwrite(object, 1, object_len, f) != object_len) st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", p->obj);
  if (f) fclose(f);
  if (p->compiling) {
    p->compiling = false;
    tilec_status *cs = cc_wait(&p->job, "compiling the kernel stub");
    if (!st) st = cs;
    else tilec_status_destroy(cs);
  }
  if (!st) {
    char *objs[] = {p->obj};
    st = link_objects(p->stub_obj, objs, 1, p->target, so_path, p->debug_info, p->dir);
  }
  return st;
}

/* ---- several specializations of one kernel in one library, with a dispatcher ---------- */

/* What the dispatcher knows about one parameter of the typed launch function. */
typedef struct dispatch_param {
  int index;          /* parameter index in the kernel source */
  tc_kernel_param ty; /* its runtime type (from a variant where it is a runtime value) */
} dispatch_param;

typedef struct dispatch_plan {
  int nlaunch;                        /* parameters of KERNEL_launch */
  dispatch_param launch[TC_MAX_PARAMS];
  size_t order[TC_MAX_VARIANTS];      /* variants, most hints first */
  char names[TC_MAX_VARIANTS][160];   /* descriptor names, by input index */
  char hints[TC_MAX_VARIANTS][TC_MAX_PARAMS + 1]; /* 'd' / 'c' / 'a' per launch parameter */
} dispatch_plan;

static bool is_integer_dtype(tilec_dtype t) {
  return t >= TILEC_DTYPE_I8 && t <= TILEC_DTYPE_U64;
}

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
    fprintf(f, "%s%s%s%s", a || leading_comma ? ", " : "", ct, n && ct[n - 1] == '*' ? "" : " ",
            plan->launch[a].ty.name);
  }
  if (!plan->nlaunch && !leading_comma) fprintf(f, "void");
}

/* The trampoline, parameter table and descriptor of one variant, tagged `v<tag>`. */
static void write_variant(FILE *f, const tc_variant *v, const char *desc_name, size_t tag, const char *tdesc,
                          const char *source_file, bool emu) {
  const tc_kernel_info *info = v->info;
  int nargs = declare_kernel(f, v->symbol, info, false, emu);
  fprintf(f, "static int tilec_program_v%zu(void *const *args, const uint32_t pid[3], const uint32_t grid[3], "
             "void *ctx) {\n  (void)ctx; (void)args;\n", tag);
  /* A failed device_assert unwinds the program back here (runtime/debug.c). */
  if (info->uses_assert)
    fprintf(f, "  jmp_buf jb;\n  tilec_rt_set_jmp(&jb);\n  if (setjmp(jb)) { tilec_rt_set_jmp(0); return 1; }\n");
  write_kernel_call(f, v->symbol, info, emu, "");
  if (info->uses_assert) fprintf(f, "  tilec_rt_set_jmp(0);\n");
  fprintf(f, "  return 0;\n}\n");
  char suffix[32];
  snprintf(suffix, sizeof suffix, "v%zu", tag);
  write_desc(f, suffix, desc_name, info, tdesc, source_file, nargs, true);
}

/* The condition under which variant i's hints hold for the actual arguments. */
static void write_condition(FILE *f, const dispatch_plan *plan, size_t i) {
  int terms = 0;
  for (int a = 0; a < plan->nlaunch; a++) {
    const tc_kernel_param *p = &plan->launch[a].ty;
    char h = plan->hints[i][a];
    if (h == 'a') continue;
    fprintf(f, "%s", terms++ ? " && " : "");
    if (h == 'c') fprintf(f, "%s == 1", p->name);
    else if (p->kind == TILEC_PARAM_POINTER) fprintf(f, "(uintptr_t)%s %% 16 == 0", p->name);
    else fprintf(f, "%s %% 16 == 0", p->name);
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
  fprintf(f, "__attribute__((visibility(\"default\"))) const uint32_t tilec_library_abi_version = TILEC_ABI_VERSION;\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) const tilec_kernel_desc *const tilec_kernels[] = {");
  for (size_t o = 0; o < n; o++) fprintf(f, "&tilec_desc_v%zu, ", plan->order[o]);
  fprintf(f, "0};\n");
  /* Variants in dispatch order: the first whose hints hold wins. */
  fprintf(f, "static int tilec_pick(");
  write_dispatch_proto(f, plan, false);
  fprintf(f, ") {\n");
  for (int a = 0; a < plan->nlaunch; a++) fprintf(f, "  (void)%s;\n", plan->launch[a].ty.name);
  for (size_t o = 0; o < n; o++) {
    fprintf(f, "  if (");
    write_condition(f, plan, plan->order[o]);
    fprintf(f, ") return %zu;\n", plan->order[o]);
  }
  fprintf(f, "  return -1;\n}\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) const char *%s_launch_variant(", k);
  write_dispatch_proto(f, plan, false);
  fprintf(f, ") {\n  switch (tilec_pick(");
  for (int a = 0; a < plan->nlaunch; a++) fprintf(f, "%s%s", a ? ", " : "", plan->launch[a].ty.name);
  fprintf(f, ")) {\n");
  for (size_t i = 0; i < n; i++) fprintf(f, "  case %zu: return tilec_desc_v%zu.name;\n", i, i);
  fprintf(f, "  default: return 0;\n  }\n}\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z",
          k);
  write_dispatch_proto(f, plan, true);
  fprintf(f, ") {\n  switch (tilec_pick(");
  for (int a = 0; a < plan->nlaunch; a++) fprintf(f, "%s%s", a ? ", " : "", plan->launch[a].ty.name);
  fprintf(f, ")) {\n");
  for (size_t i = 0; i < n; i++) {
    /* Parameters a variant fixed to 1 are checked by tilec_pick and not passed on. */
    fprintf(f, "  case %zu: {\n    void *args[] = {", i);
    int na = 0;
    for (int a = 0; a < plan->nlaunch; a++)
      if (plan->hints[i][a] != 'c') fprintf(f, "%s(void *)&%s", na++ ? ", " : "", plan->launch[a].ty.name);
    if (!na) fprintf(f, "0");
    fprintf(f, "};\n    return tilec_kernel_launch_simple(&tilec_desc_v%zu, grid_x, grid_y, grid_z, args);\n  }\n", i);
  }
  fprintf(f, "  default:\n    return tilec_rt_launch_refused(1, \"kernel '%s': no specialization accepts these "
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

static tilec_status *write_dispatch_header(const char *path, const tc_variant *v, size_t n,
                                           const dispatch_plan *plan) {
  tilec_outfile o;
  tilec_status *st = NULL;
  FILE *f = out_open(&o, path, &st);
  if (!f) return st;
  const char *k = v[0].info->name;
  fprintf(f, "/* generated by tilec %s — kernel %s, %zu specializations (most specialized first):\n",
          TILEC_VERSION_STRING, k, n);
  for (size_t o = 0; o < n; o++)
    fprintf(f, " *   %-40s \"%s\"\n", plan->names[plan->order[o]], v[plan->order[o]].info->signature);
  fprintf(f, " */\n#ifndef TILEC_KERNEL_%s_H\n#define TILEC_KERNEL_%s_H\n\n#include <stdbool.h>\n#include <stdint.h>\n\n",
          k, k);
  fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  write_tensordesc_type(f, v[0].info);
  fprintf(f, "/* Runs the grid (grid_x, grid_y, grid_z) of programs on all cores with the most specialized\n"
             " * variant whose hints the arguments satisfy. Returns 0 on success, else a tilec_status_code;\n"
             " * tilec_last_error() (tilec/runtime.h) has the message. */\n");
  fprintf(f, "int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z", k);
  write_dispatch_proto(f, plan, true);
  fprintf(f, ");\n\n/* The descriptor name %s_launch would run for these arguments, or NULL if none fits. */\n", k);
  fprintf(f, "const char *%s_launch_variant(", k);
  write_dispatch_proto(f, plan, false);
  fprintf(f, ");\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return out_close(&o, f, path);
}

tilec_status *tc_package_library_multi(const tc_variant *v, size_t n, const tc_target *target,
                                       const char *source_file, const char *so_path, const char *header_path,
                                       bool debug_info) {
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
  if (!st) st = link_objects(stub, objs, n, target, so_path, debug_info, dir);
  if (!st && header_path) st = write_dispatch_header(header_path, v, n, plan);
  for (size_t i = 0; objs && i < n; i++) free(objs[i]);
  free(objs);
  if (have_dir) tilec_temp_dir_remove(dir);
  free(plan);
  return st;
}

/* ---- --target nvptx: a host library that launches the PTX on a GPU ---------------------- */

/* ptxas for build-time cubins: $TILEC_PTXAS, PATH, /usr/local/cuda/bin; NULL if none. */
static const char *find_ptxas(char *buf, size_t n) {
  const char *env = getenv("TILEC_PTXAS");
  if (env && *env) return access(env, X_OK) == 0 ? env : NULL;
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *e = strchr(p, ':');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    snprintf(buf, n, "%.*s/ptxas", (int)len, p);
    if (len && access(buf, X_OK) == 0) return buf;
    p = e ? e + 1 : NULL;
  }
  snprintf(buf, n, "/usr/local/cuda/bin/ptxas");
  return access(buf, X_OK) == 0 ? buf : NULL;
}

/* The dynamic shared memory the kernel needs: the PTX defines __tilec_shared_bytes_<K>. */
static unsigned long shared_bytes_of(const char *ptx, const char *kernel) {
  char key[300];
  snprintf(key, sizeof key, "__tilec_shared_bytes_%s = ", kernel);
  const char *p = strstr(ptx, key);
  return p ? strtoul(p + strlen(key), NULL, 10) : 0;
}

static void c_bytes(FILE *f, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; i++) fprintf(f, "%s%u", i % 32 ? "," : ",\n", b[i]);
}

tilec_status *tc_package_gpu(const tc_kernel_info *info, const tc_target *target, const char *ptx, const char *so_path) {
  char dir[4096];
  int err = tilec_temp_dir("tilec-build", dir, sizeof dir);
  if (err) return tilec_status_create(TILEC_ERROR_IO, "cannot create a temporary directory: %s", strerror(err));
  char ptx_path[4200], cubin_path[4200], stub[4200], arch[80], ptxas_buf[4200];
  snprintf(ptx_path, sizeof ptx_path, "%s/kernel.ptx", dir);
  snprintf(cubin_path, sizeof cubin_path, "%s/kernel.cubin", dir);
  snprintf(stub, sizeof stub, "%s/stub.c", dir);
  snprintf(arch, sizeof arch, "-arch=%s", target->cpu);
  tilec_status *st = NULL;
  FILE *f = fopen(ptx_path, "w");
  if (!f || fputs(ptx, f) < 0) st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", ptx_path);
  if (f) fclose(f);
  /* A cubin for the chip saves the driver its JIT; the PTX stays for other chips. */
  unsigned char *cubin = NULL;
  size_t cubin_len = 0;
  const char *ptxas = st ? NULL : find_ptxas(ptxas_buf, sizeof ptxas_buf);
  if (ptxas) {
    char *argv[] = {(char *)ptxas, arch, ptx_path, "-o", cubin_path, NULL};
    st = run_cc(argv, dir);
    if (st) st = tilec_status_annotate(st, "ptxas rejected the PTX of kernel %s", info->name);
    FILE *cf = st ? NULL : fopen(cubin_path, "rb");
    if (cf) {
      fseek(cf, 0, SEEK_END);
      long n = ftell(cf);
      fseek(cf, 0, SEEK_SET);
      cubin = n > 0 ? malloc((size_t)n) : NULL;
      if (cubin && fread(cubin, 1, (size_t)n, cf) == (size_t)n) cubin_len = (size_t)n;
      fclose(cf);
    }
  }
  const char *n = info->name;
  f = st ? NULL : fopen(stub, "w");
  if (!st && !f) st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", stub);
  if (f) {
    fprintf(f, "/* generated by tilec %s: kernel %s for %s, launched through the CUDA driver */\n"
               "#include <stdbool.h>\n#include <stddef.h>\n%s\n",
            TILEC_VERSION_STRING, n, target->cpu, tilec_embedded_abi_h);
    fprintf(f, "extern int tilec_rt_cuda_launch(const char *, const char *, const unsigned char *, size_t, uint32_t, "
               "uint32_t, uint32_t, uint32_t, uint32_t, void **, void *);\n");
    fprintf(f, "static const char tilec_ptx[] = ");
    c_string(f, ptx);
    fprintf(f, ";\nstatic const unsigned char tilec_cubin[] = {0");
    c_bytes(f, cubin, cubin_len);
    fprintf(f, "};\n");
    fprintf(f, "__attribute__((visibility(\"default\"))) int %s_launch_async(void *cuda_stream, uint32_t grid_x, "
               "uint32_t grid_y, uint32_t grid_z", n);
    write_params_proto(f, info);
    fprintf(f, ") {\n");
    write_args_array(f, info);
    fprintf(f, "  return tilec_rt_cuda_launch(\"%s\", tilec_ptx, tilec_cubin + 1, %zu, grid_x, grid_y, grid_z, %d, "
               "%lu, args, cuda_stream);\n}\n",
            n, cubin_len, 32 * target->num_warps, shared_bytes_of(ptx, n));
    fprintf(f, "__attribute__((visibility(\"default\"))) int %s_launch(uint32_t grid_x, uint32_t grid_y, uint32_t grid_z",
            n);
    write_params_proto(f, info);
    fprintf(f, ") {\n  return %s_launch_async(0, grid_x, grid_y, grid_z", n);
    for (int i = 0; i < info->nparams; i++)
      if (info->params[i].kind != TILEC_PARAM_CONSTEXPR) fprintf(f, ", %s", info->params[i].name);
    fprintf(f, ");\n}\n");
    /* A kernel library like the CPU's (tilec/abi.h: version, descriptor), whose descriptor
     * has no CPU program; the JIT launches it through tilec_gpu_launch, args as the CPU's
     * (args[i] points at the value), which is what cuLaunchKernel takes. */
    int nargs = 0;
    for (int i = 0; i < info->nparams; i++) nargs += info->params[i].kind != TILEC_PARAM_CONSTEXPR;
    write_library_tables(f, info, target, NULL, nargs, false);
    fprintf(f, "__attribute__((visibility(\"default\"))) int tilec_gpu_launch(void *cuda_stream, uint32_t grid_x, "
               "uint32_t grid_y, uint32_t grid_z, void *const *args) {\n"
               "  return tilec_rt_cuda_launch(\"%s\", tilec_ptx, tilec_cubin + 1, %zu, grid_x, grid_y, grid_z, %d, %lu, "
               "(void **)args, cuda_stream);\n}\n",
            n, cubin_len, 32 * target->num_warps, shared_bytes_of(ptx, n));
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) st = tilec_status_create(TILEC_ERROR_IO, "cannot write %s", stub);
  }
  free(cubin);
  tc_target host;
  if (!st) st = tc_target_init(&host, "host");
  if (!st) st = link_objects(stub, NULL, 0, &host, so_path, false, dir);
  tilec_temp_dir_remove(dir);
  return st;
}
