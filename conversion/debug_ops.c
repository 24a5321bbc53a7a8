/* conversion/debug_ops.c — tile.print and tile.assert: a scalar loop nest over the tile
 * calls the debug runtime (runtime/debug.h) once per element with the program id and
 * the element's index; strings become private LLVM globals. In: print/assert ops after
 * their group was flushed. Out: func.call ops to tilec_rt_*. */
#include "conversion/lower.h"
#include "conversion/op_rows.h"
#include "dialects/ir_util.h"

#include "dialects/tile.h"
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirOperation module_of(tc_lower *L) { return mlirOperationGetParentOperation(L->new_func); }

static void declare(tc_lower *L, const char *name, intptr_t n, const MlirType *ins, intptr_t nout,
                    const MlirType *outs) {
  MlirOperation mod = module_of(L);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(mod, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute s = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(s) && mlirStringRefEqual(mlirStringAttrGetValue(s), mlirStringRefCreateFromCString(name)))
      return;
  }
  tc_builder b;
  tcb_init(&b, L->ctx);
  tcb_set_before(&b, L->new_func);
  MlirType fty = mlirFunctionTypeGet(L->ctx, n, ins, nout, outs);
  MlirNamedAttribute attrs[3] = {
      tcb_named(L->ctx, "sym_name", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString(name))),
      tcb_named(L->ctx, "function_type", mlirTypeAttrGet(fty)),
      tcb_named(L->ctx, "sym_visibility", mlirStringAttrGet(L->ctx, mlirStringRefCreateFromCString("private")))};
  MlirRegion r = mlirRegionCreate();
  tcb_op_regions(&b, "func.func", 0, NULL, 0, NULL, 3, attrs, 1, &r);
}

void tc_call_runtime(tc_lower *L, tc_builder *b, const char *name, intptr_t n, const MlirValue *args) {
  tc_call_runtime_value(L, b, name, (MlirType){NULL}, n, args);
}

MlirValue tc_call_runtime_value(tc_lower *L, tc_builder *b, const char *name, MlirType result, intptr_t n,
                                const MlirValue *args) {
  MlirType types[16];
  for (intptr_t i = 0; i < n && i < 16; i++) types[i] = mlirValueGetType(args[i]);
  intptr_t nout = mlirTypeIsNull(result) ? 0 : 1;
  declare(L, name, n, types, nout, &result);
  MlirNamedAttribute callee =
      tcb_named(L->ctx, "callee", mlirFlatSymbolRefAttrGet(L->ctx, mlirStringRefCreateFromCString(name)));
  MlirOperation call = tcb_op(b, "func.call", nout, &result, n, args, 1, &callee);
  return nout ? mlirOperationGetResult(call, 0) : (MlirValue){NULL};
}

/* A pointer to a NUL-terminated copy of s in a private global. */
static MlirValue string_ptr(tc_lower *L, tc_builder *b, const char *s, size_t len) {
  char name[64]; /* unique in this module: numbered per lowering, not per process */
  snprintf(name, sizeof name, "__tilec_str_%d", L->nstrings++);
  size_t cap = len * 3 + 256;
  char *text = malloc(cap);
  if (!text) {
    tc_fail(L, (MlirOperation){NULL}, TILEC_ERROR_INTERNAL, "out of memory");
    return (MlirValue){NULL};
  }
  size_t k = (size_t)snprintf(text, cap, "llvm.mlir.global private constant @%s(\"", name);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 32 && c < 127 && c != '"' && c != '\\') text[k++] = (char)c;
    else k += (size_t)snprintf(text + k, cap - k, "\\%02X", c);
  }
  k += (size_t)snprintf(text + k, cap - k, "\\00\") {addr_space = 0 : i32} : !llvm.array<%zu x i8>", len + 1);
  MlirOperation g =
      mlirOperationCreateParse(L->ctx, mlirStringRefCreate(text, k), mlirStringRefCreateFromCString("tilec"));
  free(text);
  if (mlirOperationIsNull(g)) {
    tc_fail(L, (MlirOperation){NULL}, TILEC_ERROR_INTERNAL, "cannot build a string constant");
    return (MlirValue){NULL};
  }
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module_of(L), 0));
  mlirBlockInsertOwnedOperationBefore(body, L->new_func, g);
  MlirNamedAttribute a =
      tcb_named(L->ctx, "global_name", mlirFlatSymbolRefAttrGet(L->ctx, mlirStringRefCreateFromCString(name)));
  return tcb_op1(b, "llvm.mlir.addressof", tcb_type(L->ctx, "!llvm.ptr"), 0, NULL, 1, &a);
}

static MlirValue str_attr_ptr(tc_lower *L, tc_builder *b, MlirOperation op, const char *attr) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString(attr));
  MlirStringRef s = mlirAttributeIsNull(a) ? mlirStringRefCreateFromCString("") : mlirStringAttrGetValue(a);
  return string_ptr(L, b, s.data, s.length);
}

typedef struct element_ctx {
  MlirOperation op;
  tc_debug_element fn;
} element_ctx;

static void debug_element(tc_chunk *c, const tc_pos *pos, void *user) {
  element_ctx *e = user;
  e->fn(c->L, c, e->op, pos);
}

void tc_index_words(tc_lower *L, tc_builder *b, const tc_pos *pos, MlirValue lane, MlirValue words[4]) {
  MlirType i64 = tcb_int_type(L->ctx, 64);
  MlirValue idx[TC_RANK];
  for (int d = 0; d < pos->rank; d++) {
    MlirValue x = pos->idx[d];
    if (d == pos->rank - 1 && !mlirValueIsNull(lane)) x = tcb_binary(b, "arith.addi", x, lane);
    idx[d] = tcb_cast(b, "arith.index_cast", x, i64);
  }
  for (int d = 0; d < 4; d++) words[d] = d < pos->rank && pos->rank <= 4 ? idx[d] : tcb_const_int(b, i64, 0);
  if (pos->rank <= 4) return;
  char t[48];
  snprintf(t, sizeof t, "!llvm.array<%d x i64>", TC_RANK);
  MlirType at = tcb_type(L->ctx, t);
  MlirValue buf = tc_entry_alloca(L, at);
  tc_store_fields(L, b, buf, at, idx, pos->rank);
  words[0] = tcb_cast(b, "llvm.ptrtoint", buf, i64);
}

MlirValue tc_debug_address(tc_chunk *c, tc_cval v, MlirType ptr_type) {
  tc_builder *b = &c->b;
  MlirType i64 = tcb_int_type(c->L->ctx, 64);
  MlirValue a = tcb_cast(b, "llvm.ptrtoint", v.base, i64);
  if (mlirValueIsNull(v.vec)) return a;
  MlirValue off = v.vec;
  if (tcb_bitwidth(mlirValueGetType(off)) < 64) off = tcb_cast(b, "arith.extsi", off, i64);
  int64_t sz = (tcb_bitwidth(tc_memory_type(c->L->ctx, tile_ptr_pointee(ptr_type))) + 7) / 8;
  return tcb_binary(b, "arith.addi", a, tcb_binary(b, "arith.muli", off, tcb_const_int(b, i64, sz)));
}

static int op_rank(MlirOperation op, int64_t *shape) {
  int rank = 0;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++) {
    int64_t s[TC_RANK];
    int r = tc_shape_of(mlirValueGetType(mlirOperationGetOperand(op, i)), s);
    if (r > rank) {
      rank = r;
      memcpy(shape, s, sizeof s);
    }
  }
  return rank;
}

/* Triton's printed width of each index: ceil(log10(dim)) digits, 4 bits a dimension. */
int64_t tc_print_index_widths(MlirOperation op) {
  int64_t shape[TC_RANK];
  int rank = op_rank(op, shape);
  uint64_t packed = 0;
  for (int d = 0; d < rank && d < 16; d++) {
    unsigned w = 0;
    for (int64_t p = 1; p < shape[d]; p *= 10) w++;
    packed |= (uint64_t)(w & 15) << (4 * d);
  }
  return (int64_t)packed;
}

bool tc_print_operand_unsigned(MlirOperation op, intptr_t i) {
  MlirAttribute u = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("unsigned"));
  return !mlirAttributeIsNull(u) && mlirAttributeIsAInteger(u) && (mlirIntegerAttrGetValueInt(u) >> i & 1);
}

bool tc_print_hex(MlirOperation op) {
  MlirAttribute h = mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("hex"));
  return !mlirAttributeIsNull(h) && mlirAttributeIsABool(h) && mlirBoolAttrGetValue(h);
}

/* One element of a device_print: a line per operand (Triton's format, runtime/debug.h). */
static void print_element(tc_lower *L, tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_builder *b = &c->b;
  MlirValue idx64[4];
  tc_index_words(L, b, pos, (MlirValue){NULL}, idx64);
  MlirType i32 = tcb_int_type(L->ctx, 32), i64 = tcb_int_type(L->ctx, 64), f64 = mlirF64TypeGet(L->ctx);
  bool hex = tc_print_hex(op);
  intptr_t nops = mlirOperationGetNumOperands(op);
  MlirValue prefix = str_attr_ptr(L, b, op, "prefix");
  MlirValue head[11] = {L->pid[0],
                        L->pid[1],
                        L->pid[2],
                        tcb_const_int(b, i32, nops ? pos->rank : -1),
                        idx64[0],
                        idx64[1],
                        idx64[2],
                        idx64[3],
                        tcb_const_int(b, i64, tc_print_index_widths(op)),
                        prefix,
                        tcb_const_int(b, i32, -1)};
  if (!nops) {
    tc_call_runtime(L, b, "tilec_rt_print_head", 11, head);
    tc_call_runtime(L, b, "tilec_rt_print_end", 0, NULL);
    return;
  }
  for (intptr_t i = 0; i < nops && !L->status; i++) {
    MlirValue old = mlirOperationGetOperand(op, i);
    int64_t s[TC_RANK];
    tc_pos p = *pos;
    p.rank = tc_shape_of(mlirValueGetType(old), s);
    tc_cval v = tc_eval(c, old, &p);
    if (L->status) return;
    head[10] = tcb_const_int(b, i32, nops > 1 ? i : -1);
    tc_call_runtime(L, b, "tilec_rt_print_head", 11, head);
    MlirType t = tcb_element_type(mlirValueGetType(old));
    if (v.is_ptr) {
      MlirValue a = tc_debug_address(c, v, t);
      tc_call_runtime(L, b, "tilec_rt_print_ptr", 1, &a);
    } else if (tcb_is_float(t) && !hex) {
      MlirValue f = tcb_bitwidth(t) < 64 ? tcb_cast(b, "arith.extf", v.vec, f64) : v.vec;
      tc_call_runtime(L, b, "tilec_rt_print_float", 1, &f);
    } else {
      unsigned w = tcb_bitwidth(t);
      MlirValue x = v.vec;
      if (tcb_is_float(t)) x = tcb_cast(b, "arith.bitcast", x, tcb_int_type(L->ctx, w)); /* hex: the code */
      bool uns = tcb_is_float(t) || w == 1 || tc_print_operand_unsigned(op, i);
      if (w < 64) x = tcb_cast(b, uns ? "arith.extui" : "arith.extsi", x, i64);
      MlirValue args[4] = {x, tcb_const_int(b, i32, uns), tcb_const_int(b, i32, hex),
                           tcb_const_int(b, i32, (int64_t)w)};
      tc_call_runtime(L, b, "tilec_rt_print_int", 4, args);
    }
    tc_call_runtime(L, b, "tilec_rt_print_end", 0, NULL);
  }
}

static void assert_element(tc_lower *L, tc_chunk *c, MlirOperation op, const tc_pos *pos) {
  tc_builder *b = &c->b;
  MlirValue cond = tc_eval(c, mlirOperationGetOperand(op, 0), pos).vec;
  if (L->status) return;
  MlirValue failed = tcb_binary(b, "arith.xori", cond, tcb_const_int(b, mlirValueGetType(cond), 1));
  tc_builder ib;
  tcb_if(b, failed, 0, NULL, &ib, NULL);
  MlirType i32 = tcb_int_type(L->ctx, 32);
  char file[512] = "?";
  int line = 0;
  MlirLocation loc = mlirOperationGetLocation(op);
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef f = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    snprintf(file, sizeof file, "%.*s", (int)f.length, f.data);
    line = mlirLocationFileLineColRangeGetStartLine(loc);
  }
  int col = mlirLocationIsAFileLineColRange(loc) ? mlirLocationFileLineColRangeGetStartColumn(loc) : 0;
  MlirValue idx64[4];
  tc_index_words(L, &ib, pos, (MlirValue){NULL}, idx64);
  MlirValue args[12] = {str_attr_ptr(L, &ib, op, "message"),
                        string_ptr(L, &ib, file, strlen(file)),
                        tcb_const_int(&ib, i32, line),
                        tcb_const_int(&ib, i32, col),
                        L->pid[0],
                        L->pid[1],
                        L->pid[2],
                        tcb_const_int(&ib, i32, pos->rank),
                        idx64[0],
                        idx64[1],
                        idx64[2],
                        idx64[3]};
  tc_call_runtime(L, &ib, "tilec_rt_assert_fail", 12, args);
  tcb_op(&ib, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
}

void tc_lower_debug_op_with(tc_lower *L, MlirOperation op, tc_debug_element print, tc_debug_element assert_) {
  int64_t shape[TC_RANK] = {0};
  int rank = op_rank(op, shape);
  L->b.loc = mlirOperationGetLocation(op);
  element_ctx e = {op, (tile_op_of(op) == TILE_PRINT) ? print : assert_};
  tc_emit_scalar_nest(L, rank, shape, debug_element, &e);
}

void tc_lower_debug_op(tc_lower *L, MlirOperation op) { tc_lower_debug_op_with(L, op, print_element, assert_element); }

MlirValue tc_string_constant(tc_lower *L, tc_builder *b, const char *s) { return string_ptr(L, b, s, strlen(s)); }

MlirValue tc_string_attr_constant(tc_lower *L, tc_builder *b, MlirOperation op, const char *attr) {
  return str_attr_ptr(L, b, op, attr);
}
