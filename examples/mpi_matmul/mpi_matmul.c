/* examples/mpi_matmul/mpi_matmul.c — one matmul grid split across MPI ranks: every rank
 * JIT-compiles examples/matmul/matmul.py (rank 0 first; the others then load it from the
 * disk cache), gets A and B from rank 0, launches its contiguous share of the flattened
 * grid's program ids (tilec_launch_options.first_program/program_count) with OpenMP threads
 * inside the rank (TILEC_NUM_THREADS), and the disjoint C tiles are summed onto rank 0,
 * which checks them against a plain C loop. A share that overlaps another or misses a
 * program leaves a tile doubled or zero, which the check reports with the program and rank.
 *
 *   mpirun -np R ./mpi_matmul [--kernel FILE] [--repeat N] [--check-every S] [--compile-on-every-rank] [M N K]
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (jit_common.h) under -std=c17 */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tilec/runtime.h>
#include <tilec/tilec.h>

#include "../jit_common.h"

/* The block sizes examples/matmul uses (its reference.h says why). */
enum { BM = 64, BN = 128, BK = 32, GROUP_M = 8 };

/* Rank r of `size` runs programs [*first, *first + *count): the grid cut into `size`
 * contiguous pieces whose lengths differ by at most one (the first `programs % size`
 * ranks take one more). */
static void rank_share(uint64_t programs, int rank, int size, uint64_t *first, uint64_t *count) {
  uint64_t base = programs / (uint64_t)size, extra = programs % (uint64_t)size, r = (uint64_t)rank;
  *first = r * base + (r < extra ? r : extra);
  *count = base + (r < extra ? 1 : 0);
}

/* "rank 2", "ranks 0 1" or "no rank": whose shares hold `program` (for the diagnostic). */
static void owners_of(uint64_t program, uint64_t programs, int size, char *out, size_t cap) {
  int owners[8], found = 0;
  for (int r = 0; r < size; r++) {
    uint64_t first, count;
    rank_share(programs, r, size, &first, &count);
    if (program >= first && program < first + count && found < 8) owners[found++] = r;
  }
  size_t len = (size_t)snprintf(out, cap, found == 0 ? "no rank" : found == 1 ? "rank" : "ranks");
  for (int i = 0; i < found && len < cap; i++) len += (size_t)snprintf(out + len, cap - len, " %d", owners[i]);
}

/* The program that computes C tile (tm, tn): matmul.py's grouped order, run forwards. */
static uint64_t program_of_tile(int32_t m, int32_t n, int32_t tm, int32_t tn) {
  int32_t pm = (m + BM - 1) / BM, pn = (n + BN - 1) / BN;
  for (int32_t pid = 0; pid < pm * pn; pid++) {
    int32_t group = pid / (GROUP_M * pn), first_m = group * GROUP_M;
    int32_t group_m = pm - first_m < GROUP_M ? pm - first_m : GROUP_M;
    int32_t in_group = pid % (GROUP_M * pn);
    if (first_m + in_group % group_m == tm && in_group / group_m == tn) return (uint64_t)pid;
  }
  return UINT64_MAX;
}

/* 64-byte aligned (the signature promises :16 pointers); C11's aligned_alloc wants a size
 * that is a multiple of the alignment. */
static float *alloc_floats(size_t count) { return aligned_alloc(64, (sizeof(float) * count + 63) / 64 * 64); }

static void fill_matrix(float *a, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    a[i] = (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
  }
}

/* Max of |C - A @ B| / sum |A||B| over rows 0, step, 2 step, ... and the last row (double
 * precision). step <= BM puts a checked row in every tile row, so every tile is looked at.
 * The first element past `tol` is reported in *bad_i, *bad_j (else -1). */
static double check_rows(const float *a, const float *b, const float *c, int32_t m, int32_t n, int32_t k, int32_t step,
                         double tol, int32_t *bad_i, int32_t *bad_j) {
  double worst = 0;
  *bad_i = *bad_j = -1;
  double *row = malloc(sizeof(double) * (size_t)n), *mag = malloc(sizeof(double) * (size_t)n);
  if (!row || !mag) {
    free(row);
    free(mag);
    return INFINITY;
  }
  for (int32_t i = 0;; i = i + step < m ? i + step : m - 1) {
    for (int32_t j = 0; j < n; j++) row[j] = mag[j] = 0;
    for (int32_t p = 0; p < k; p++) {
      double av = a[(int64_t)i * k + p];
      const float *br = b + (int64_t)p * n;
      for (int32_t j = 0; j < n; j++) {
        row[j] += av * br[j];
        mag[j] += fabs(av * br[j]);
      }
    }
    for (int32_t j = 0; j < n; j++) {
      double err = fabs(c[(int64_t)i * n + j] - row[j]) / (mag[j] + 1e-30);
      if (!(err <= tol) && *bad_i < 0) *bad_i = i, *bad_j = j;
      if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
    }
    if (i == m - 1) break;
  }
  free(row);
  free(mag);
  return worst;
}

/* The signature for these sizes, as Triton's JIT would specialize them (see matmul/jit.c). */
static void make_signature(char *sig, size_t cap, const int32_t ints[9]) {
  snprintf(sig, cap, "*fp32:16, *fp32:16, *fp32:16, ");
  for (int i = 0; i < 9; i++) {
    size_t len = strlen(sig);
    snprintf(sig + len, cap - len, ints[i] == 1 ? "1, " : ints[i] % 16 == 0 ? "i32:16, " : "i32, ");
  }
  size_t len = strlen(sig);
  snprintf(sig + len, cap - len, "%d, %d, %d, %d", BM, BN, BK, GROUP_M);
}

/* CPU time of this process (all its threads): next to the wall time it shows whether a rank
 * had its cores to itself (on a shared or oversubscribed machine it did not). */
static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* True on every rank when any rank passes true. */
static int any_rank(int failed) {
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return any;
}

static int usage(int rank) {
  if (rank == 0)
    fprintf(stderr, "usage: mpirun -np R mpi_matmul [--kernel FILE] [--repeat N] [--check-every S] "
                    "[--compile-on-every-rank] [M N K]\n");
  return 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const char *file = "examples/matmul/matmul.py";
  int repeat = 1, together = 0, step = 0, dims = 0;
  int32_t mnk[3] = {1024, 1024, 1024};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--kernel") && i + 1 < argc) file = argv[++i];
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--check-every") && i + 1 < argc) step = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--compile-on-every-rank")) together = 1;
    else if (argv[i][0] != '-' && dims < 3) mnk[dims++] = atoi(argv[i]);
    else return MPI_Finalize(), usage(rank);
  }
  int32_t m = mnk[0], n = mnk[1], k = mnk[2];
  /* MPI counts are ints: keep every matrix under INT_MAX elements. */
  if (repeat < 1 || (dims != 0 && dims != 3) || m < 1 || n < 1 || k < 1 || (int64_t)m * k > INT_MAX ||
      (int64_t)k * n > INT_MAX || (int64_t)m * n > INT_MAX || step < 0 || step > BM)
    return MPI_Finalize(), usage(rank);
  if (step == 0) step = (double)m * n * k > 3e9 ? 16 : 1; /* full check unless that takes seconds */

  /* Compile: rank 0 first, so ranks sharing a disk cache (one machine, or a shared file
   * system) load its entry instead of compiling the same kernel again. Concurrent compiles
   * (--compile-on-every-rank) are safe too: each writes a temporary file and renames it. */
  int32_t ints[9] = {m, n, k, k, 1, n, 1, n, 1}; /* M N K, then strides of A, B, C */
  char sig[512], how[96] = "";
  make_signature(sig, sizeof sig, ints);
  tilec_jit_kernel *kern = NULL;
  if (rank == 0 || together) kern = example_jit(file, "matmul_kernel", sig, how, sizeof how);
  if (!together && any_rank(rank == 0 && !kern)) return MPI_Finalize(), 1;
  if (rank != 0 && !together) kern = example_jit(file, "matmul_kernel", sig, how, sizeof how);
  if (any_rank(!kern)) return MPI_Finalize(), 1;

  float *a = alloc_floats((size_t)m * k), *b = alloc_floats((size_t)k * n), *c = alloc_floats((size_t)m * n);
  if (any_rank(!a || !b || !c)) return MPI_Finalize(), 1;
  if (rank == 0) {
    fill_matrix(a, (int64_t)m * k, 1);
    fill_matrix(b, (int64_t)k * n, 2);
  }

  uint64_t programs = (uint64_t)((m + BM - 1) / BM) * (uint64_t)((n + BN - 1) / BN);
  tilec_launch_options opts;
  tilec_launch_options_init(&opts);
  rank_share(programs, rank, size, &opts.first_program, &opts.program_count);
  void *args[12] = {&a, &b, &c};
  size_t nargs = 3;
  for (int i = 0; i < 9; i++)
    if (ints[i] != 1) args[nargs++] = &ints[i]; /* the ones the signature fixed to 1 are not passed */

  /* One step = inputs out from rank 0, every rank's share of the grid, tiles back to rank 0.
   * Best of `repeat` steps (by the total on rank 0). */
  double best[5] = {INFINITY, 0, 0, 0, 0}; /* total, broadcast, slowest launch, reduce, its CPU time */
  for (int rep = 0; rep < repeat; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Bcast(a, m * k, MPI_FLOAT, 0, MPI_COMM_WORLD);
    MPI_Bcast(b, k * n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    /* C is summed over ranks: each element comes from one rank, the others add zeros. */
    memset(c, 0, sizeof(float) * (size_t)m * n);
    double l0 = MPI_Wtime(), c0 = cpu_seconds();
    tilec_status *st = tilec_jit_kernel_launch(kern, (uint32_t)programs, 1, 1, args, nargs, &opts);
    double launch[2] = {MPI_Wtime() - l0, cpu_seconds() - c0}, slowest[2] = {0, 0};
    int failed = example_check(st, "mpi_matmul: launch");
    if (any_rank(failed)) return MPI_Finalize(), 1;
    double t2 = MPI_Wtime();
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : c, rank == 0 ? c : NULL, m * n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    double t3 = MPI_Wtime();
    MPI_Reduce(launch, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && t3 - t0 < best[0]) {
      best[0] = t3 - t0;
      best[1] = t1 - t0;
      best[2] = slowest[0];
      best[3] = t3 - t2;
      best[4] = slowest[1];
    }
  }

  /* Each rank says what it ran (in rank order, through rank 0, so lines do not interleave). */
  char line[256];
  snprintf(line, sizeof line, "  rank %d: programs [%llu, %llu) of %llu, kernel %s", rank,
           (unsigned long long)opts.first_program, (unsigned long long)(opts.first_program + opts.program_count),
           (unsigned long long)programs, how);
  if (rank == 0) {
    const char *threads = getenv("TILEC_NUM_THREADS");
    printf("mpi_matmul: %dx%dx%d, %d rank%s x %s thread%s, %llu programs of %dx%d\n", m, n, k, size,
           size == 1 ? "" : "s", threads && *threads ? threads : "default", threads && !strcmp(threads, "1") ? "" : "s",
           (unsigned long long)programs, BM, BN);
    puts(line);
    for (int r = 1; r < size; r++) {
      MPI_Recv(line, sizeof line, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      puts(line);
    }
  } else {
    MPI_Send(line, sizeof line, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
  }

  int ok = 1;
  if (rank == 0) {
    int32_t bi, bj;
    double err = check_rows(a, b, c, m, n, k, step, 1e-5, &bi, &bj);
    ok = err < 1e-5;
    /* The rest of a step is zeroing C. */
    printf("  step (best of %d): %.1f ms, %.1f GFLOP/s; bcast A,B %.1f ms, launch %.1f ms (slowest rank; "
           "most CPU time on a rank %.1f ms), reduce C %.1f ms\n",
           repeat, best[0] * 1e3, 2.0 * m * n * k / best[0] / 1e9, best[1] * 1e3, best[2] * 1e3, best[4] * 1e3,
           best[3] * 1e3);
    char rows[64];
    if (step == 1) snprintf(rows, sizeof rows, "all %d rows", m);
    else snprintf(rows, sizeof rows, "rows 0, %d, %d, ..., %d (every tile)", step, 2 * step, m - 1);
    printf("  check: %s against a C loop: max_rel_err=%.3g %s\n", rows, err, ok ? "OK" : "MISMATCH");
    if (!ok) {
      uint64_t p = program_of_tile(m, n, bi / BM, bj / BN);
      char owners[64];
      owners_of(p, programs, size, owners, sizeof owners);
      printf("  first wrong element C[%d][%d]: tile (%d, %d) of program %llu, which %s ran "
             "(a tile two ranks ran comes out doubled, one no rank ran stays 0)\n",
             bi, bj, bi / BM, bj / BN, (unsigned long long)p, owners);
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  tilec_jit_kernel_release(kern);
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return ok ? 0 : 1;
}
