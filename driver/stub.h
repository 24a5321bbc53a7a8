/* driver/stub.h — the C text of kernel libraries (driver/stub.c): the pieces of a stub
 * (parameter tables, descriptor, trampoline call, typed launcher) that the one-kernel
 * library, the dispatcher and the GPU library share. In: kernel metadata. Out: C text. */
#ifndef TILEC_DRIVER_STUB_H
#define TILEC_DRIVER_STUB_H

#include <stdbool.h>
#include <stdio.h>

#include "frontend/frontend.h"
#include "runtime/files.h"
#include "target/target.h"
#include "tilec/status.h"

/* include/tilec/abi.h's text (embedded at build time): stubs include it. */
extern const char tilec_embedded_abi_h[];

/* The C identifier of a kernel parameter in generated C (launchers, headers): its name, with
 * '_' appended where the name, less its trailing underscores, is a C or C++ keyword, a name
 * the stubs use (grid_x, args, uint32_t, true, ...), or reserved (tilec_*, __*, _Upper):
 * `do` is `do_`, `do_` is `do__`, so no two parameters meet. */
#define TC_PARAM_IDENT_MAX 260
void tc_stub_param_ident(const char *name, char *buf, size_t n);
/* C string literal of s (escapes quotes, backslashes and control bytes). */
void tc_stub_c_string(FILE *f, const char *s);
/* Generated headers are self-contained: the descriptor struct of tilec/abi.h, guarded. */
void tc_stub_tensordesc_type(FILE *f, const tc_kernel_info *info);
/* ", T name" for each runtime parameter of a typed launcher. */
void tc_stub_params_proto(FILE *f, const tc_kernel_info *info);
/* The trampoline's call of the compiled kernel, its arguments unpacked from args[] (emu:
 * the bytes each parameter declares, as cuLaunchKernel copies them). */
void tc_stub_kernel_call(FILE *f, const char *symbol, const tc_kernel_info *info, bool emu, const char *extents);
/* `  void *args[] = {&p0, &p1, ...};` over the runtime parameters of a typed launcher. */
void tc_stub_args_array(FILE *f, const tc_kernel_info *info);
/* The compiled kernel's prototype; returns the number of runtime parameters. */
int tc_stub_declare_kernel(FILE *f, const char *symbol, const tc_kernel_info *info, bool extents, bool emu);
/* The parameter rows tilec_params_<suffix> and the descriptor tilec_desc_<suffix>, with
 * tilec_program_<suffix> as its program (program) or none (a GPU kernel). */
void tc_stub_desc(FILE *f, const char *suffix, const char *name, const tc_kernel_info *info, const char *tdesc,
                  const char *source_file, int nargs, bool program);
/* A one-kernel library's tables: parameter rows, descriptor, ABI version, kernel table. */
void tc_stub_library_tables(FILE *f, const tc_kernel_info *info, const tc_target *target, const char *source_file,
                            int nargs, bool program);
/* The whole stub of a one-kernel CPU library (descriptor, trampoline, KERNEL_launch) at path. */
tilec_status *tc_stub_write(const char *path, const tc_kernel_info *info, const tc_target *target,
                            const char *source_file);

/* A generated file written to a temporary file beside path and renamed into place by
 * tc_out_close (which reports any write error); NULL and *st set when it cannot be made. */
FILE *tc_out_open(tilec_outfile *o, const char *path, tilec_status **st);
tilec_status *tc_out_close(tilec_outfile *o, FILE *f, const char *path);

#endif
