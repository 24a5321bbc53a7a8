/* conversion/debug_files.c — -g line tables for kernels whose code comes from several files
 * (a @jit helper of another module is inlined into the kernel). LLVM takes a location's file
 * from its scope, which is the kernel's DISubprogram, so an op located in helpers.py would be
 * reported in the kernel's file. In: an LLVM-dialect module after
 * ensure-debug-info-scope-on-llvm-func. Out: each such op's location wrapped in a
 * DILexicalBlockFile scope that names its own file. */
#include "conversion/pipeline.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Dialect/LLVM.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scope_ctx {
  MlirContext ctx;
  MlirAttribute subprogram, file; /* the function's scope and its DIFile */
} scope_ctx;

static MlirAttribute str_attr(MlirContext ctx, const char *s, size_t n) {
  return mlirStringAttrGet(ctx, mlirStringRefCreate(s, n));
}

/* The DIFile the debug-info pass builds for a path: base name and directory. */
static MlirAttribute di_file(MlirContext ctx, MlirStringRef path) {
  const char *p = path.data;
  size_t n = path.length, slash = n;
  for (size_t i = 0; i < n; i++)
    if (p[i] == '/') slash = i;
  if (slash == n) return mlirLLVMDIFileAttrGet(ctx, str_attr(ctx, p, n), str_attr(ctx, "", 0));
  return mlirLLVMDIFileAttrGet(ctx, str_attr(ctx, p + slash + 1, n - slash - 1), str_attr(ctx, p, slash));
}

/* The file/line location LLVM will take a fused location's line from (its first one). */
static bool first_file_loc(MlirLocation loc, MlirLocation *out) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    *out = loc;
    return true;
  }
  if (mlirLocationIsAFused(loc) && mlirAttributeIsNull(mlirLocationFusedGetMetadata(loc)) &&
      mlirLocationFusedGetNumLocations(loc) > 0) {
    MlirLocation locs[1];
    intptr_t n = mlirLocationFusedGetNumLocations(loc);
    if (n == 1) {
      mlirLocationFusedGetLocations(loc, locs);
      return first_file_loc(locs[0], out);
    }
    MlirLocation *all = malloc(sizeof *all * (size_t)n);
    if (!all) return false;
    mlirLocationFusedGetLocations(loc, all);
    bool ok = first_file_loc(all[0], out);
    free(all);
    return ok;
  }
  return false;
}

static MlirWalkResult rescope(MlirOperation op, void *user) {
  scope_ctx *s = user;
  MlirLocation loc = mlirOperationGetLocation(op), fl;
  if (!first_file_loc(loc, &fl)) return MlirWalkResultAdvance;
  MlirAttribute file = di_file(s->ctx, mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(fl)));
  if (mlirAttributeEqual(file, s->file)) return MlirWalkResultAdvance;
  MlirAttribute block = mlirLLVMDILexicalBlockFileAttrGet(s->ctx, s->subprogram, file, 0);
  mlirOperationSetLocation(op, mlirLocationFusedGet(s->ctx, 1, &loc, block));
  return MlirWalkResultAdvance;
}

void tc_debug_scope_files(MlirModule module) {
  MlirContext ctx = mlirModuleGetContext(module);
  MlirStringRef func = mlirStringRefCreateFromCString("llvm.func");
  for (MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(module)); !mlirOperationIsNull(f);
       f = mlirOperationGetNextInBlock(f)) {
    if (!mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(f)), func)) continue;
    MlirLocation floc = mlirOperationGetLocation(f);
    if (!mlirLocationIsAFused(floc)) continue;
    MlirAttribute sp = mlirLocationFusedGetMetadata(floc);
    if (mlirAttributeIsNull(sp)) continue;
    scope_ctx s = {ctx, sp, mlirLLVMDISubprogramAttrGetFile(sp)};
    for (intptr_t r = 0; r < mlirOperationGetNumRegions(f); r++)
      for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(f, r)); !mlirBlockIsNull(b);
           b = mlirBlockGetNextInRegion(b))
        for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
             op = mlirOperationGetNextInBlock(op))
          mlirOperationWalk(op, rescope, &s, MlirWalkPreOrder);
  }
}
