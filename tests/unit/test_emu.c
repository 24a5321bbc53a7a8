/* tests/unit/test_emu.c — the CTA emulator's cp.async (runtime/emu.c): a copy lands in its
 * destination at the cp.async.wait_group that covers its group, not before; wait_group N
 * leaves the N newest committed groups in flight; a source size under 16 reads that many
 * bytes and zero-fills the rest (0: reads nothing); a copy never waited for never lands.
 * Each of a CTA's threads keeps its own groups. In: runtime calls made from the emulated
 * CTA's threads. Out: a Check suite. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "runtime/debug.h"

#define THREADS 64

static uint8_t src[THREADS][3][16];
static uint8_t dst[THREADS][4][16];
static int seen[THREADS][6]; /* what each thread observed at each step (1: as expected) */

static bool all(const uint8_t *p, uint8_t v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return false;
  return true;
}

static void body(void *ctx) {
  (void)ctx;
  int t = tilec_rt_emu_thread_id();
  tilec_rt_emu_cp_async(dst[t][0], src[t][0], 16); /* group 0 */
  tilec_rt_emu_cp_async_commit();
  tilec_rt_emu_cp_async(dst[t][1], src[t][1], 8); /* group 1: 8 bytes and 8 zeros */
  tilec_rt_emu_cp_async(dst[t][2], NULL, 0);      /* group 1: nothing read, 16 zeros */
  tilec_rt_emu_cp_async_commit();
  tilec_rt_emu_cp_async(dst[t][3], src[t][2], 16); /* group 2: never waited for */
  tilec_rt_emu_cp_async_commit();
  seen[t][0] = all(dst[t][0], 0xEE, 16) && all(dst[t][1], 0xEE, 16); /* nothing landed at the issue */
  tilec_rt_emu_cp_async_wait(2);                                     /* group 0 only */
  seen[t][1] = !memcmp(dst[t][0], src[t][0], 16) && all(dst[t][1], 0xEE, 16) && all(dst[t][2], 0xEE, 16);
  tilec_rt_emu_cp_async_wait(1); /* group 1 */
  seen[t][2] = !memcmp(dst[t][1], src[t][1], 8) && all(dst[t][1] + 8, 0, 8);
  seen[t][3] = all(dst[t][2], 0, 16);
  seen[t][4] = all(dst[t][3], 0xEE, 16); /* group 2 still in flight */
  tilec_rt_emu_barrier();
  /* another thread's copies are its own: thread t + 1's group 2 has not landed either */
  seen[t][5] = all(dst[(t + 1) % THREADS][3], 0xEE, 16);
}

START_TEST(copies_land_at_their_wait) {
  for (int t = 0; t < THREADS; t++)
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 16; i++) src[t][k][i] = (uint8_t)(t * 7 + k * 31 + i + 1);
  memset(dst, 0xEE, sizeof dst);
  memset(seen, 0, sizeof seen);
  tilec_rt_emu_cta(THREADS, 0, body, NULL);
  for (int t = 0; t < THREADS; t++)
    for (int k = 0; k < 6; k++) ck_assert_msg(seen[t][k], "thread %d, check %d", t, k);
  for (int t = 0; t < THREADS; t++) /* the copy nobody waited for was dropped with the CTA */
    ck_assert(all(dst[t][3], 0xEE, 16));
  /* the next CTA starts with no copies of the last one in flight */
  memset(dst, 0xEE, sizeof dst);
  tilec_rt_emu_cta(THREADS, 0, body, NULL);
  for (int t = 0; t < THREADS; t++)
    for (int k = 0; k < 6; k++) ck_assert_msg(seen[t][k], "second CTA: thread %d, check %d", t, k);
}
END_TEST

int main(void) {
  Suite *s = suite_create("emu");
  TCase *tc = tcase_create("cp_async");
  tcase_add_test(tc, copies_land_at_their_wait);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
