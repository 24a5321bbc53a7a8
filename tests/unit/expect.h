/* tests/unit/expect.h — the error expectation the unit tests share: a call failed with
 * exactly this status code and message (the status is consumed). */
#ifndef TILEC_TESTS_UNIT_EXPECT_H
#define TILEC_TESTS_UNIT_EXPECT_H

#include "tilec/status.h"
#include <check.h>

static inline void expect_status(tilec_status *st, tilec_status_code code, const char *msg) {
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_message(st), msg);
  ck_assert_int_eq(tilec_status_code_of(st), code);
  tilec_status_destroy(st);
}

#endif
