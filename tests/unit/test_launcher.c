/* tests/unit/test_launcher.c — the grid launcher against a fake kernel that records calls.
 * In: grids, sub-ranges, thread settings, failing programs, concurrent host threads.
 * Out: a Check suite; every program must run exactly once with the right (x, y, z).
 * Run twice by ctest: on libomp's team (unit.test_launcher) and, with TILEC_TEST_GOMP=<path of
 * GNU libgomp.so.1>, in a process that loaded GNU libgomp first, as PyTorch does, where the launcher must use
 * libgomp's team (unit.test_launcher_gomp; launcher/team.c). */
#include <check.h>
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/expect.h"
#include "tilec/runtime.h"

/* What the fake program saw. Calls are counted in a window [base, base + cap) of flattened
 * ids so huge grids can be tested through small sub-ranges. */
typedef struct recorder {
  uint32_t grid[3];
  uint64_t base, cap;
  _Atomic uint32_t *calls;
  _Atomic uint32_t bad;         /* pid outside the grid or the window, wrong grid, ctx != NULL */
  _Atomic uint32_t total;       /* all calls */
  uint64_t fail_at;             /* flattened id whose program returns non-zero */
  _Atomic int max_team;         /* largest omp_get_num_threads() seen in a program */
  _Atomic int max_level;        /* deepest omp_get_level() seen */
  _Atomic uint64_t thread_mask; /* bit omp_get_thread_num() for threads that ran programs */
  pthread_t caller;
  _Atomic uint32_t off_caller; /* programs that ran on a thread other than the caller */
} recorder;

/* The OpenMP runtime whose team the launcher should use: its view of the team. */
static int (*rt_num_threads)(void) = omp_get_num_threads;
static int (*rt_level)(void) = omp_get_level;
static int (*rt_thread_num)(void) = omp_get_thread_num;
static void (*rt_set_num_threads)(int) = omp_set_num_threads;

static void atomic_max(_Atomic int *m, int v) {
  int seen = atomic_load(m);
  while (v > seen && !atomic_compare_exchange_weak(m, &seen, v)) {}
}

static int record_program(void *const *args, const uint32_t pid[3], const uint32_t grid[3], void *ctx) {
  recorder *r = *(recorder *const *)args[0];
  if (ctx || grid[0] != r->grid[0] || grid[1] != r->grid[1] || grid[2] != r->grid[2] || pid[0] >= grid[0] ||
      pid[1] >= grid[1] || pid[2] >= grid[2])
    atomic_fetch_add(&r->bad, 1);
  uint64_t flat = pid[0] + (uint64_t)grid[0] * (pid[1] + (uint64_t)grid[1] * pid[2]);
  if (flat >= r->base && flat - r->base < r->cap) atomic_fetch_add(&r->calls[flat - r->base], 1);
  else atomic_fetch_add(&r->bad, 1);
  atomic_fetch_add(&r->total, 1);
  atomic_max(&r->max_team, rt_num_threads());
  atomic_max(&r->max_level, rt_level());
  int t = rt_thread_num();
  if (t < 64) atomic_fetch_or(&r->thread_mask, (uint64_t)1 << t);
  if (!pthread_equal(pthread_self(), r->caller)) atomic_fetch_add(&r->off_caller, 1);
  return flat == r->fail_at;
}

static const tilec_param_desc record_params[] = {
    {"rec", TILEC_PARAM_POINTER, TILEC_DTYPE_I8, 1, 1, NULL},
    {"BLOCK", TILEC_PARAM_CONSTEXPR, TILEC_DTYPE_I32, 0, 1, "64"},
};
static const tilec_kernel_desc record_kernel = {TILEC_ABI_VERSION,
                                                sizeof(tilec_kernel_desc),
                                                "record",
                                                "*i8, 64",
                                                "host",
                                                "test_launcher.c",
                                                "test",
                                                2,
                                                1,
                                                record_params,
                                                record_program};

static void rec_init_window(recorder *r, uint32_t gx, uint32_t gy, uint32_t gz, uint64_t base, uint64_t cap) {
  memset(r, 0, sizeof *r);
  r->grid[0] = gx;
  r->grid[1] = gy;
  r->grid[2] = gz;
  r->base = base;
  r->cap = cap;
  r->calls = calloc(cap ? cap : 1, sizeof *r->calls);
  ck_assert_ptr_nonnull(r->calls);
  r->fail_at = UINT64_MAX;
  r->caller = pthread_self();
}

static void rec_init(recorder *r, uint32_t gx, uint32_t gy, uint32_t gz) {
  rec_init_window(r, gx, gy, gz, 0, (uint64_t)gx * gy * gz);
}

static void rec_free(recorder *r) { free((void *)r->calls); }

static tilec_status *launch(recorder *r, const tilec_launch_options *opts) {
  void *args[1] = {&r};
  return tilec_kernel_launch(&record_kernel, r->grid[0], r->grid[1], r->grid[2], args, opts);
}

/* Every id in [first, first + count) of the window ran once, every other id never. */
static void check_ran(const recorder *r, uint64_t first, uint64_t count) {
  ck_assert_uint_eq(atomic_load(&r->bad), 0);
  for (uint64_t i = 0; i < r->cap; i++) {
    uint64_t flat = r->base + i;
    uint32_t want = flat >= first && flat - first < count;
    ck_assert_msg(atomic_load(&r->calls[i]) == want, "program %llu ran %u times, expected %u", (unsigned long long)flat,
                  (unsigned)atomic_load(&r->calls[i]), (unsigned)want);
  }
  ck_assert_uint_eq(atomic_load(&r->total), count);
}

static const uint32_t grids[][3] = {{1, 1, 1}, {7, 1, 1},  {5, 3, 2},  {1000, 1, 1},
                                    {1, 9, 1}, {1, 1, 11}, {3, 1, 17}, {33, 31, 3}};

START_TEST(test_options_init) {
  tilec_launch_options o;
  memset(&o, 0xab, sizeof o);
  tilec_launch_options_init(&o);
  ck_assert_uint_eq(o.num_threads, 0);
  ck_assert_uint_eq(o.schedule, TILEC_SCHEDULE_STATIC);
  ck_assert_uint_eq(o.first_program, 0);
  ck_assert_uint_eq(o.program_count, UINT64_MAX);
}
END_TEST

/* Loop over grids x schedules x thread counts (0 = default, 1, 2, 3). */
START_TEST(test_every_program_once) {
  for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
    for (uint32_t sched = 0; sched < 2; sched++) {
      for (uint32_t threads = 0; threads < 4; threads++) {
        recorder r;
        rec_init(&r, grids[g][0], grids[g][1], grids[g][2]);
        tilec_launch_options o;
        tilec_launch_options_init(&o);
        o.schedule = sched;
        o.num_threads = threads;
        tilec_status *st = launch(&r, &o);
        ck_assert_msg(st == NULL, "grid %zu: %s", g, tilec_status_message(st));
        check_ran(&r, 0, r.cap);
        if (threads) ck_assert_int_le(atomic_load(&r.max_team), (int)threads);
        rec_free(&r);
      }
    }
  }
}
END_TEST

START_TEST(test_null_options_run_everything) {
  recorder r;
  rec_init(&r, 5, 3, 2);
  ck_assert_ptr_null(launch(&r, NULL));
  check_ran(&r, 0, 30);
  rec_free(&r);
}
END_TEST

START_TEST(test_empty_grids) {
  static const uint32_t empty[][3] = {
      {0, 1, 1}, {4, 0, 3}, {1, 1, 0}, {0, 0, 0}, {TILEC_MAX_GRID_X, TILEC_MAX_GRID_YZ, 0}};
  for (size_t g = 0; g < sizeof empty / sizeof empty[0]; g++) {
    recorder r;
    rec_init_window(&r, empty[g][0], empty[g][1], empty[g][2], 0, 1);
    ck_assert_ptr_null(launch(&r, NULL));
    ck_assert_uint_eq(atomic_load(&r.total), 0);
    rec_free(&r);
  }
}
END_TEST

START_TEST(test_empty_subranges) {
  recorder r;
  rec_init(&r, 5, 3, 2);
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.first_program = 30; /* the end of the grid, to the end: nothing */
  ck_assert_ptr_null(launch(&r, &o));
  o.first_program = 3;
  o.program_count = 0;
  ck_assert_ptr_null(launch(&r, &o));
  ck_assert_uint_eq(atomic_load(&r.total), 0);
  rec_free(&r);
}
END_TEST

START_TEST(test_subranges) {
  static const uint64_t ranges[][2] = {{7, 11}, {25, UINT64_MAX}, {0, 30}, {29, 1}, {0, 1}, {14, 2}, {1, 28}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    for (uint32_t sched = 0; sched < 2; sched++) {
      recorder r;
      rec_init(&r, 5, 3, 2);
      tilec_launch_options o;
      tilec_launch_options_init(&o);
      o.first_program = ranges[i][0];
      o.program_count = ranges[i][1];
      o.schedule = sched;
      o.num_threads = 3;
      ck_assert_ptr_null(launch(&r, &o));
      uint64_t count = ranges[i][1] == UINT64_MAX ? 30 - ranges[i][0] : ranges[i][1];
      check_ran(&r, ranges[i][0], count);
      rec_free(&r);
    }
  }
}
END_TEST

/* Sub-ranges of the largest grid (far too large to run), checking the 64-bit decomposition. */
START_TEST(test_huge_grid_subranges) {
  const uint64_t gx = TILEC_MAX_GRID_X, total = gx * TILEC_MAX_GRID_YZ * TILEC_MAX_GRID_YZ;
  const uint64_t firsts[] = {gx * 5 + 7, gx - 3, total - 5, total - 1};
  for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; i++) {
    recorder r;
    uint64_t count = total - firsts[i] < 6 ? total - firsts[i] : 6;
    rec_init_window(&r, TILEC_MAX_GRID_X, TILEC_MAX_GRID_YZ, TILEC_MAX_GRID_YZ, firsts[i], count);
    tilec_launch_options o;
    tilec_launch_options_init(&o);
    o.first_program = firsts[i];
    o.program_count = count;
    o.num_threads = 2;
    ck_assert_ptr_null(launch(&r, &o));
    check_ran(&r, firsts[i], count);
    rec_free(&r);
  }
}
END_TEST

START_TEST(test_range_errors) {
  recorder r;
  rec_init(&r, 5, 3, 2);
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.first_program = 31;
  expect_status(launch(&r, &o), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record': first program 31 is outside the grid (5, 3, 2) of 30 programs");
  o.first_program = 20;
  o.program_count = 11;
  expect_status(launch(&r, &o), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record': programs [20, 20 + 11) exceed the grid (5, 3, 2) of 30 programs");
  o.first_program = 1;
  o.program_count = UINT64_MAX - 1; /* first + count would wrap */
  expect_status(launch(&r, &o), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record': programs [1, 1 + 18446744073709551614) exceed the grid "
                "(5, 3, 2) of 30 programs");
  ck_assert_uint_eq(atomic_load(&r.total), 0);
  rec_free(&r);
}
END_TEST

/* Program ids are i32 in Triton: program 3,000,000,000 would see a negative id. Triton's
 * (CUDA's) limits are refused before anything runs, empty grids included. */
START_TEST(test_grid_limits) {
  static const uint32_t bad[][3] = {{TILEC_MAX_GRID_X + 1u, 1, 1}, {3000000000u, 1, 1},
                                    {UINT32_MAX, UINT32_MAX, 2},   {1, TILEC_MAX_GRID_YZ + 1, 1},
                                    {1, 1, TILEC_MAX_GRID_YZ + 1}, {UINT32_MAX, 1, 0}};
  for (size_t g = 0; g < sizeof bad / sizeof bad[0]; g++) {
    recorder r;
    rec_init_window(&r, bad[g][0], bad[g][1], bad[g][2], 0, 1);
    char msg[256];
    snprintf(msg, sizeof msg,
             "kernel 'record': grid (%u, %u, %u) exceeds Triton's limits of 2147483647 programs on axis 0 "
             "and 65535 on axes 1 and 2 (program ids are 32-bit)",
             bad[g][0], bad[g][1], bad[g][2]);
    expect_status(launch(&r, NULL), TILEC_ERROR_INVALID_ARGUMENT, msg);
    ck_assert_uint_eq(atomic_load(&r.total), 0);
    rec_free(&r);
  }
}
END_TEST

START_TEST(test_bad_arguments) {
  recorder r;
  rec_init(&r, 4, 1, 1);
  recorder *rp = &r; /* args[0] points at the pointer parameter */
  void *args[1] = {&rp};
  expect_status(tilec_kernel_launch(NULL, 1, 1, 1, args, NULL), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_kernel_launch: kernel is NULL");
  expect_status(tilec_kernel_launch(&record_kernel, 4, 1, 1, NULL, NULL), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record' takes 1 argument but args is NULL");
  void *null_args[1] = {NULL};
  expect_status(tilec_kernel_launch(&record_kernel, 4, 1, 1, null_args, NULL), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record': argument 0 ('rec') is NULL");
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.schedule = 7;
  expect_status(tilec_kernel_launch(&record_kernel, 4, 1, 1, args, &o), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record': unknown schedule 7 (expected 0 = static or 1 = dynamic)");
  tilec_launch_options_init(&o);
  o.num_threads = 5000;
  expect_status(tilec_kernel_launch(&record_kernel, 4, 1, 1, args, &o), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record': num_threads 5000 exceeds the limit of 4096");
  tilec_kernel_desc old = record_kernel;
  old.abi_version = 2;
  char want[160];
  snprintf(want, sizeof want, "kernel descriptor was built for tilec ABI 2 (%zu bytes), this runtime is 1 (%zu bytes)",
           sizeof old, sizeof old);
  expect_status(tilec_kernel_launch(&old, 4, 1, 1, args, NULL), TILEC_ERROR_ABI, want);
  old.abi_version = TILEC_ABI_VERSION;
  old.struct_size = 64;
  snprintf(want, sizeof want, "kernel descriptor was built for tilec ABI 1 (64 bytes), this runtime is 1 (%zu bytes)",
           sizeof old);
  expect_status(tilec_kernel_launch(&old, 4, 1, 1, args, NULL), TILEC_ERROR_ABI, want);
  tilec_kernel_desc noname = record_kernel;
  noname.name = NULL;
  expect_status(tilec_kernel_launch(&noname, 4, 1, 1, args, NULL), TILEC_ERROR_INVALID_ARGUMENT,
                "tilec_kernel_launch: kernel has no name");
  tilec_kernel_desc noprog = record_kernel;
  noprog.program = NULL;
  expect_status(tilec_kernel_launch(&noprog, 4, 1, 1, args, NULL), TILEC_ERROR_INVALID_ARGUMENT,
                "kernel 'record' has no CPU program (built for host: launch it with tilec_jit_kernel_launch or its "
                "library's record_launch)");
  ck_assert_uint_eq(atomic_load(&r.total), 0);
  rec_free(&r);
}
END_TEST

/* A kernel with no runtime arguments may be launched with args == NULL. */
static _Atomic uint32_t noarg_calls;
static int noarg_program(void *const *args, const uint32_t pid[3], const uint32_t grid[3], void *ctx) {
  (void)args, (void)pid, (void)grid, (void)ctx;
  atomic_fetch_add(&noarg_calls, 1);
  return 0;
}

START_TEST(test_no_arguments) {
  tilec_kernel_desc k = {TILEC_ABI_VERSION, sizeof k, "noarg", "", "host", "t.py", "test", 0, 0, NULL, noarg_program};
  atomic_store(&noarg_calls, 0);
  ck_assert_ptr_null(tilec_kernel_launch(&k, 6, 2, 1, NULL, NULL));
  ck_assert_uint_eq(atomic_load(&noarg_calls), 12);
}
END_TEST

START_TEST(test_env_one_thread) {
  setenv("TILEC_NUM_THREADS", "1", 1);
  recorder r;
  rec_init(&r, 1000, 1, 1);
  ck_assert_ptr_null(launch(&r, NULL));
  unsetenv("TILEC_NUM_THREADS");
  check_ran(&r, 0, 1000);
  /* One thread needs no team: everything on the caller, outside any parallel region. */
  ck_assert_uint_eq(atomic_load(&r.off_caller), 0);
  ck_assert_int_eq(atomic_load(&r.max_level), 0);
  ck_assert_int_eq(atomic_load(&r.max_team), 1);
  rec_free(&r);
}
END_TEST

START_TEST(test_env_two_threads) {
  setenv("TILEC_NUM_THREADS", "2", 1);
  for (uint32_t sched = 0; sched < 2; sched++) {
    recorder r;
    rec_init(&r, 1000, 1, 1);
    tilec_launch_options o;
    tilec_launch_options_init(&o);
    o.schedule = sched;
    ck_assert_ptr_null(launch(&r, &o));
    check_ran(&r, 0, 1000);
    ck_assert_int_eq(atomic_load(&r.max_team), 2);
    ck_assert_int_eq(atomic_load(&r.max_level), 1);
    if (sched == TILEC_SCHEDULE_STATIC) /* each thread gets a chunk of 500 */
      ck_assert_uint_eq(atomic_load(&r.thread_mask), 3);
    else ck_assert_uint_eq(atomic_load(&r.thread_mask) & ~(uint64_t)3, 0);
    rec_free(&r);
  }
  unsetenv("TILEC_NUM_THREADS");
}
END_TEST

/* Without options or TILEC_NUM_THREADS the team is the OpenMP runtime's default: under
 * PyTorch, what torch.set_num_threads set (it calls libgomp's omp_set_num_threads). */
START_TEST(test_default_follows_runtime) {
  rt_set_num_threads(3);
  recorder r;
  rec_init(&r, 100, 1, 1);
  ck_assert_ptr_null(launch(&r, NULL));
  check_ran(&r, 0, 100);
  ck_assert_int_eq(atomic_load(&r.max_team), 3);
  ck_assert_int_eq(atomic_load(&r.max_level), 1);
  rec_free(&r);
}
END_TEST

START_TEST(test_env_invalid) {
  static const char *bad[] = {"abc", "0", "-1", "2x", " 2", "4097", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("TILEC_NUM_THREADS", bad[i], 1);
    recorder r;
    rec_init(&r, 10, 1, 1);
    char want[256];
    snprintf(want, sizeof want, "kernel 'record': TILEC_NUM_THREADS='%s' is not an integer between 1 and 4096", bad[i]);
    expect_status(launch(&r, NULL), TILEC_ERROR_INVALID_ARGUMENT, want);
    ck_assert_uint_eq(atomic_load(&r.total), 0);
    rec_free(&r);
  }
  /* Explicit options win over the environment, which is then not even parsed. */
  setenv("TILEC_NUM_THREADS", "abc", 1);
  recorder r;
  rec_init(&r, 10, 1, 1);
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = 3;
  ck_assert_ptr_null(launch(&r, &o));
  check_ran(&r, 0, 10);
  ck_assert_int_eq(atomic_load(&r.max_team), 3);
  rec_free(&r);
  /* Empty means unset. */
  setenv("TILEC_NUM_THREADS", "", 1);
  rec_init(&r, 10, 1, 1);
  ck_assert_ptr_null(launch(&r, NULL));
  check_ran(&r, 0, 10);
  rec_free(&r);
  unsetenv("TILEC_NUM_THREADS");
}
END_TEST

START_TEST(test_no_more_threads_than_programs) {
  recorder r;
  rec_init(&r, 3, 1, 1);
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = 8;
  ck_assert_ptr_null(launch(&r, &o));
  check_ran(&r, 0, 3);
  ck_assert_int_eq(atomic_load(&r.max_team), 3);
  rec_free(&r);
}
END_TEST

START_TEST(test_single_program_inline) {
  recorder r;
  rec_init(&r, 1, 1, 1);
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = 4;
  ck_assert_ptr_null(launch(&r, &o));
  check_ran(&r, 0, 1);
  ck_assert_uint_eq(atomic_load(&r.off_caller), 0);
  ck_assert_int_eq(atomic_load(&r.max_level), 0);
  rec_free(&r);
  /* A one-program sub-range of a big grid, too; TILEC_NUM_THREADS is not consulted. */
  setenv("TILEC_NUM_THREADS", "junk", 1);
  rec_init(&r, 5, 3, 2);
  o.first_program = 17;
  o.program_count = 1;
  o.num_threads = 0;
  ck_assert_ptr_null(launch(&r, &o));
  unsetenv("TILEC_NUM_THREADS");
  check_ran(&r, 17, 1);
  ck_assert_uint_eq(atomic_load(&r.off_caller), 0);
  ck_assert_int_eq(atomic_load(&r.max_level), 0);
  rec_free(&r);
}
END_TEST

START_TEST(test_failing_program) {
  for (uint32_t sched = 0; sched < 2; sched++) {
    for (uint32_t threads = 0; threads < 4; threads++) {
      recorder r;
      rec_init(&r, 5, 3, 2);
      r.fail_at = 17; /* x = 2, y = 0, z = 1 */
      tilec_launch_options o;
      tilec_launch_options_init(&o);
      o.schedule = sched;
      o.num_threads = threads;
      expect_status(launch(&r, &o), TILEC_ERROR_RUNTIME, "kernel 'record' failed in program (2, 0, 1)");
      ck_assert_uint_eq(atomic_load(&r.calls[17]), 1);
      ck_assert_uint_eq(atomic_load(&r.bad), 0);
      rec_free(&r);
    }
  }
  recorder r;
  rec_init(&r, 1, 1, 1);
  r.fail_at = 0;
  expect_status(launch(&r, NULL), TILEC_ERROR_RUNTIME, "kernel 'record' failed in program (0, 0, 0)");
  rec_free(&r);
}
END_TEST

START_TEST(test_failure_stops_launch) {
  /* One thread: nothing after the failing program runs. */
  recorder r;
  rec_init(&r, 1000, 1, 1);
  r.fail_at = 3;
  tilec_launch_options o;
  tilec_launch_options_init(&o);
  o.num_threads = 1;
  expect_status(launch(&r, &o), TILEC_ERROR_RUNTIME, "kernel 'record' failed in program (3, 0, 0)");
  ck_assert_uint_eq(atomic_load(&r.total), 4);
  rec_free(&r);
  /* Two threads, static: thread 0 fails on its first program and skips the rest of its
   * chunk [0, 500); thread 1 may or may not have started. */
  rec_init(&r, 1000, 1, 1);
  r.fail_at = 0;
  o.num_threads = 2;
  expect_status(launch(&r, &o), TILEC_ERROR_RUNTIME, "kernel 'record' failed in program (0, 0, 0)");
  for (int i = 1; i < 500; i++) ck_assert_uint_eq(atomic_load(&r.calls[i]), 0);
  rec_free(&r);
}
END_TEST

START_TEST(test_launch_simple_and_last_error) {
  recorder r;
  rec_init(&r, 5, 3, 2);
  recorder *rp = &r;
  void *args[1] = {&rp};
  ck_assert_str_eq(tilec_last_error(), "");
  r.fail_at = 29;
  ck_assert_int_eq(tilec_kernel_launch_simple(&record_kernel, 5, 3, 2, args), TILEC_ERROR_RUNTIME);
  ck_assert_str_eq(tilec_last_error(), "kernel 'record' failed in program (4, 2, 1)");
  r.fail_at = UINT64_MAX;
  ck_assert_int_eq(tilec_kernel_launch_simple(&record_kernel, 5, 3, 2, args), 0);
  ck_assert_str_eq(tilec_last_error(), "");
  ck_assert_int_eq(tilec_kernel_launch_simple(NULL, 5, 3, 2, args), TILEC_ERROR_INVALID_ARGUMENT);
  ck_assert_str_eq(tilec_last_error(), "tilec_kernel_launch: kernel is NULL");
  rec_free(&r);
}
END_TEST

typedef struct host_job {
  recorder rec;
  int ok;
  char last_error[64];
} host_job;

static void *host_thread(void *p) {
  host_job *job = p;
  job->ok = 1;
  job->rec.caller = pthread_self();
  for (int i = 0; i < 50 && job->ok; i++) {
    tilec_launch_options o;
    tilec_launch_options_init(&o);
    o.num_threads = 2;
    o.schedule = (uint32_t)(i & 1);
    tilec_status *st = launch(&job->rec, &o);
    if (st) {
      job->ok = 0;
      tilec_status_destroy(st);
    }
  }
  /* The other host thread fails every launch; this one's last error must stay clean. */
  recorder *rp = &job->rec;
  void *args[1] = {&rp};
  job->rec.fail_at = job->rec.grid[0] == 64 ? UINT64_MAX : 0;
  tilec_kernel_launch_simple(&record_kernel, job->rec.grid[0], job->rec.grid[1], 1, args);
  snprintf(job->last_error, sizeof job->last_error, "%s", tilec_last_error());
  return NULL;
}

START_TEST(test_concurrent_host_threads) {
  host_job jobs[2];
  rec_init(&jobs[0].rec, 64, 2, 1);
  rec_init(&jobs[1].rec, 13, 7, 1);
  pthread_t th[2];
  for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, host_thread, &jobs[i]), 0);
  for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < 2; i++) {
    ck_assert(jobs[i].ok);
    ck_assert_uint_eq(atomic_load(&jobs[i].rec.bad), 0);
    /* 50 launches, then the simple one: complete for job 0, stopped early for job 1. */
    for (uint64_t p = 0; p < jobs[i].rec.cap; p++) {
      uint32_t n = atomic_load(&jobs[i].rec.calls[p]);
      if (i == 0 || p == 0) ck_assert_uint_eq(n, 51);
      else ck_assert(n == 50 || n == 51);
    }
  }
  ck_assert_str_eq(jobs[0].last_error, "");
  ck_assert_str_eq(jobs[1].last_error, "kernel 'record' failed in program (0, 0, 0)");
  rec_free(&jobs[0].rec);
  rec_free(&jobs[1].rec);
}
END_TEST

static Suite *launcher_suite(void) {
  Suite *s = suite_create("launcher");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_options_init);
  tcase_add_test(tc, test_every_program_once);
  tcase_add_test(tc, test_null_options_run_everything);
  tcase_add_test(tc, test_empty_grids);
  tcase_add_test(tc, test_empty_subranges);
  tcase_add_test(tc, test_subranges);
  tcase_add_test(tc, test_huge_grid_subranges);
  tcase_add_test(tc, test_range_errors);
  tcase_add_test(tc, test_grid_limits);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_no_arguments);
  tcase_add_test(tc, test_env_one_thread);
  tcase_add_test(tc, test_env_two_threads);
  tcase_add_test(tc, test_default_follows_runtime);
  tcase_add_test(tc, test_env_invalid);
  tcase_add_test(tc, test_no_more_threads_than_programs);
  tcase_add_test(tc, test_single_program_inline);
  tcase_add_test(tc, test_failing_program);
  tcase_add_test(tc, test_failure_stops_launch);
  tcase_add_test(tc, test_launch_simple_and_last_error);
  tcase_add_test(tc, test_concurrent_host_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* A TILEC_NUM_THREADS from the caller's shell must not change what the tests expect. */
  unsetenv("TILEC_NUM_THREADS");
  const char *gomp = getenv("TILEC_TEST_GOMP"); /* the path of GNU libgomp.so.1 */
  if (gomp && *gomp) {
    void *h = dlopen(gomp, RTLD_NOW);
    if (!h) {
      fprintf(stderr, "test_launcher: cannot load %s (Debian package libgomp1): %s\n", gomp, dlerror());
      return EXIT_FAILURE;
    }
    if (dlsym(h, "__kmpc_fork_call")) { /* LLVM's libgomp.so.1 is an alias of libomp */
      fprintf(stderr, "test_launcher: %s is LLVM's libomp, not GNU libgomp\n", gomp);
      return EXIT_FAILURE;
    }
    *(void **)&rt_num_threads = dlsym(h, "omp_get_num_threads");
    *(void **)&rt_level = dlsym(h, "omp_get_level");
    *(void **)&rt_thread_num = dlsym(h, "omp_get_thread_num");
    *(void **)&rt_set_num_threads = dlsym(h, "omp_set_num_threads");
    if (!rt_num_threads || !rt_level || !rt_thread_num || !rt_set_num_threads) {
      fprintf(stderr, "test_launcher: libgomp.so.1 lacks the omp_* functions\n");
      return EXIT_FAILURE;
    }
  }
  SRunner *sr = srunner_create(launcher_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
