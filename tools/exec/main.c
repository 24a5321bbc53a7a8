/* tools/exec/main.c — `tilec-exec`: runs a kernel library that `tilec run --exec` built, on
 * .npy files, with only the runtime (no compiler, no LLVM): tools/run.c compiled with
 * TILEC_RUN_EXEC_ONLY. Built for aarch64 and run under qemu-aarch64 it runs cross-compiled
 * kernels on an x86-64 machine (tests/cross/aarch64_test.sh). A --target nvptx library runs
 * on device 0 of the CUDA driver (tools/run_gpu.c): the GPU pack's runner (gpu_check.sh --run).
 * In: LIB.so -k KERNEL --grid X[,Y[,Z]] NAME=VALUE... [--out NAME=FILE.npy]...
 * Out: the --out files; diagnostics on stderr; exit 0 ok, 1 failure, 2 usage. */
#include "tilec/status.h"

#include <stdio.h>
#include <string.h>

int tilec_cmd_exec(int argc, char **argv);

/* `tilec run` points diagnostics at kernel source lines; a library's diagnostics already
 * carry file:line:col, and the source may not be on this machine. */
void tilec_cli_add_line_text(tilec_status *st);
void tilec_cli_add_line_text(tilec_status *st) { (void)st; }

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fprintf(argc < 2 ? stderr : stdout,
            "usage: tilec-exec LIB.so -k KERNEL --grid X[,Y[,Z]] NAME=VALUE... [--out NAME=FILE.npy]...\n"
            "       [--threads N] [--repeat N] [--serial] [--program X,Y,Z]\n"
            "Runs a kernel of a library built by `tilec run --exec` (or `tilec compile`) on .npy files\n"
            "(a --target nvptx library on the GPU: arrays to device buffers and back).\n");
    return argc < 2 ? 2 : 0;
  }
  return tilec_cmd_exec(argc, argv);
}
