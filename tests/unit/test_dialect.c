/* tests/unit/test_dialect.c — the tile dialect's op table (dialects/tile_ops.def) against its
 * IRDL definition (dialects/tile.irdl.mlir): every op the IRDL file defines has exactly one
 * row and every row is an op the loaded dialect registers, tile_op_of finds each op (and
 * nothing of other dialects), and the traits' implications hold.
 * In: the source tree's IRDL file, a context from tile_context_create. Out: a Check suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mlir-c/IR.h>

#include "dialects/tile.h"

/* The names after `irdl.operation @` in the IRDL file, in order. */
static int irdl_ops(char names[][64], int cap) {
  const char *root = getenv("TILEC_TEST_DATA");
  ck_assert_msg(root != NULL, "TILEC_TEST_DATA is not set");
  char path[4096];
  snprintf(path, sizeof path, "%s/../dialects/tile.irdl.mlir", root);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    const char *p = strstr(line, "irdl.operation @");
    if (!p || (strstr(line, "//") && strstr(line, "//") < p)) continue;
    p += strlen("irdl.operation @");
    size_t len = strcspn(p, " {\t\n");
    ck_assert_int_lt(n, cap);
    ck_assert_uint_lt(len, 64);
    memcpy(names[n], p, len);
    names[n][len] = 0;
    n++;
  }
  fclose(f);
  return n;
}

START_TEST(test_irdl_ops_have_rows) {
  char names[128][64];
  int n = irdl_ops(names, 128);
  ck_assert_int_eq(n, TILE_OP_COUNT - 1); /* one row per op, no more, no fewer */
  for (int i = 0; i < n; i++) {
    tile_op_id id = tile_op_id_of_name(names[i], strlen(names[i]));
    ck_assert_msg(id != TILE_NOT_TILE, "tile.%s is defined in the IRDL file but has no row in tile_ops.def", names[i]);
    char full[80];
    snprintf(full, sizeof full, "tile.%s", names[i]);
    ck_assert_str_eq(tile_op_name(id), full);
  }
}
END_TEST

START_TEST(test_rows_are_registered_ops) {
  MlirContext ctx;
  tilec_status *st = tile_context_create(&ctx);
  ck_assert_msg(st == NULL, "tile_context_create failed");
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  for (int id = 1; id < TILE_OP_COUNT; id++) {
    const char *name = tile_op_name((tile_op_id)id);
    ck_assert_msg(mlirContextIsRegisteredOperation(ctx, mlirStringRefCreateFromCString(name)),
                  "%s has a row in tile_ops.def but the IRDL dialect does not define it", name);
    /* tile_op_of on an op of that name (unverified: only its name matters here) */
    MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(name), loc);
    MlirOperation op = mlirOperationCreate(&state);
    ck_assert_int_eq(tile_op_of(op), id);
    mlirOperationDestroy(op);
  }
  const char *others[] = {"arith.addi", "scf.for", "func.func",  "tile",
                          "tiles.load", "tile.",   "tile.loads", "tile.loa"};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    MlirOperationState state = mlirOperationStateGet(mlirStringRefCreateFromCString(others[i]), loc);
    mlirContextSetAllowUnregisteredDialects(ctx, true);
    MlirOperation op = mlirOperationCreate(&state);
    ck_assert_msg(tile_op_of(op) == TILE_NOT_TILE, "%s taken for a tile op", others[i]);
    mlirOperationDestroy(op);
  }
  mlirContextDestroy(ctx);
}
END_TEST

START_TEST(test_trait_implications) {
  for (int id = 1; id < TILE_OP_COUNT; id++) {
    unsigned t = tile_op_traits((tile_op_id)id);
    const char *name = tile_op_name((tile_op_id)id);
    /* a lazy op is pure: it never writes */
    ck_assert_msg(!((t & TILE_TRAIT_LAZY) && (t & TILE_TRAIT_WRITES)), "%s: lazy and writes", name);
    /* a lazy op is pure (PURE: no memory read, no nest); a pure op writes nothing and is no
     * root unless it is lazy when it can be (reshape, trans) */
    ck_assert_msg(!(t & TILE_TRAIT_LAZY) || (t & TILE_TRAIT_PURE), "%s: lazy but not pure", name);
    ck_assert_msg(!((t & TILE_TRAIT_PURE) && (t & TILE_TRAIT_WRITES)), "%s: pure and writes", name);
    ck_assert_msg(!((t & TILE_TRAIT_PURE) && (t & TILE_TRAIT_ROOT)) || (t & TILE_TRAIT_LAZY), "%s: pure root", name);
    /* keeping operand 0's values is lazy evaluation of a lane of operand 0 */
    ck_assert_msg(!(t & TILE_TRAIT_KEEPS_VALUES) || (t & TILE_TRAIT_LAZY), "%s: keeps values, not lazy", name);
  }
  /* the ops the lowering's facts were once hand lists of (lower.c, memory.c) */
  const tile_op_id keeps[] = {TILE_SPLAT, TILE_BROADCAST, TILE_EXPAND_DIMS, TILE_RESHAPE, TILE_TRANS, TILE_HINT};
  int nkeeps = 0;
  for (int id = 1; id < TILE_OP_COUNT; id++) nkeeps += (tile_op_traits((tile_op_id)id) & TILE_TRAIT_KEEPS_VALUES) != 0;
  ck_assert_int_eq(nkeeps, (int)(sizeof keeps / sizeof keeps[0]));
  for (size_t i = 0; i < sizeof keeps / sizeof keeps[0]; i++)
    ck_assert(tile_op_traits(keeps[i]) & TILE_TRAIT_KEEPS_VALUES);
  ck_assert(tile_op_traits(TILE_PROGRAM_ID) & TILE_TRAIT_PURE);
  ck_assert(!(tile_op_traits(TILE_LOAD) & TILE_TRAIT_PURE));
  ck_assert(!(tile_op_traits(TILE_REDUCE) & TILE_TRAIT_PURE));
  ck_assert_uint_eq(tile_op_traits(TILE_NOT_TILE), 0);
  ck_assert_ptr_null(tile_op_name(TILE_NOT_TILE));
}
END_TEST

int main(void) {
  Suite *s = suite_create("dialect");
  TCase *tc = tcase_create("op table");
  tcase_add_test(tc, test_irdl_ops_have_rows);
  tcase_add_test(tc, test_rows_are_registered_ops);
  tcase_add_test(tc, test_trait_implications);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
