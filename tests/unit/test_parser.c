/* tests/unit/test_parser.c — unit tests of the front end's lexer and parser.
 * In: Python kernel sources written inline. Out: a Check suite run by main(); exit
 * status non-zero when any test fails. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"
#include "frontend/parser.h"

/* ---- helpers --------------------------------------------------------------------- */

static tc_module *parse_ok(const char *src) {
  tc_module *m = NULL;
  tilec_status *st = tc_parse_module("test.py", src, strlen(src), &m);
  if (st) {
    fprintf(stderr, "unexpected error: %s\n", tilec_status_format(st));
    tilec_status_destroy(st);
  }
  ck_assert_ptr_null(st);
  ck_assert_ptr_nonnull(m);
  return m;
}

/* Parses src, expecting a syntax error with exactly this message and location. */
static void expect_error(const char *src, const char *msg, int line, int col) {
  tc_module *m = (tc_module *)1;
  tilec_status *st = tc_parse_module("test.py", src, strlen(src), &m);
  ck_assert_ptr_null(m);
  ck_assert_msg(st != NULL, "no error for: %s", src);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_SYNTAX);
  ck_assert_msg(strcmp(tilec_status_message(st), msg) == 0, "message '%s', wanted '%s'", tilec_status_message(st), msg);
  ck_assert_msg(tilec_status_line(st) == line && tilec_status_column(st) == col, "'%s' at %d:%d, wanted %d:%d", msg,
                tilec_status_line(st), tilec_status_column(st), line, col);
  ck_assert_str_eq(tilec_status_file(st), "test.py");
  tilec_status_destroy(st);
}

typedef struct dumpbuf {
  char s[8192];
  size_t n;
} dumpbuf;

__attribute__((format(printf, 2, 3))) static void put(dumpbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
  va_end(ap);
  if (k > 0) b->n += (size_t)k;
  if (b->n >= sizeof b->s) b->n = sizeof b->s - 1;
}

static const char *binop_str(tc_binop op) {
  static const char *const s[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};
  return s[op];
}

static const char *cmp_str(tc_cmpop op) {
  static const char *const s[] = {"<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"};
  return s[op];
}

/* A fully parenthesized rendering, so tests can state the tree shape as text. */
static void dump(dumpbuf *b, const tc_expr *e) {
  if (!e) return;
  switch (e->kind) {
    case TC_EXPR_NAME: put(b, "%s", e->u.name); break;
    case TC_EXPR_INT: put(b, "%lld", (long long)e->u.int_value); break;
    case TC_EXPR_FLOAT: put(b, "%g", e->u.float_value); break;
    case TC_EXPR_STRING: put(b, "'%.*s'", (int)e->u.str.len, e->u.str.data); break;
    case TC_EXPR_FSTRING:
      put(b, "f(");
      for (int i = 0; i < e->u.fstr.nitems; i++) {
        if (i) put(b, " ");
        if (!e->u.fstr.convs[i]) {
          dump(b, e->u.fstr.items[i]);
          continue;
        }
        put(b, "{");
        dump(b, e->u.fstr.items[i]);
        put(b, "!%c}", e->u.fstr.convs[i]);
      }
      put(b, ")");
      break;
    case TC_EXPR_BOOL: put(b, "%s", e->u.int_value ? "True" : "False"); break;
    case TC_EXPR_NONE: put(b, "None"); break;
    case TC_EXPR_ELLIPSIS: put(b, "..."); break;
    case TC_EXPR_ATTRIBUTE:
      dump(b, e->u.attr.value);
      put(b, ".%s", e->u.attr.name);
      break;
    case TC_EXPR_CALL:
      dump(b, e->u.call.func);
      put(b, "(");
      for (int i = 0; i < e->u.call.nargs; i++) {
        if (i) put(b, ", ");
        dump(b, e->u.call.args[i]);
      }
      for (int i = 0; i < e->u.call.nkwargs; i++) {
        if (i || e->u.call.nargs) put(b, ", ");
        if (e->u.call.kwargs[i].name) put(b, "%s=", e->u.call.kwargs[i].name);
        else put(b, "**");
        dump(b, e->u.call.kwargs[i].value);
      }
      put(b, ")");
      break;
    case TC_EXPR_SUBSCRIPT:
      dump(b, e->u.subscript.value);
      put(b, "[");
      for (int i = 0; i < e->u.subscript.nitems; i++) {
        if (i) put(b, ", ");
        dump(b, e->u.subscript.items[i]);
      }
      put(b, "]");
      break;
    case TC_EXPR_SLICE:
      dump(b, e->u.slice.lower);
      put(b, ":");
      dump(b, e->u.slice.upper);
      if (e->u.slice.step) {
        put(b, ":");
        dump(b, e->u.slice.step);
      }
      break;
    case TC_EXPR_BINOP:
      put(b, "(");
      dump(b, e->u.binop.lhs);
      put(b, " %s ", binop_str(e->u.binop.op));
      dump(b, e->u.binop.rhs);
      put(b, ")");
      break;
    case TC_EXPR_UNARY: {
      static const char *const s[] = {"-", "+", "not ", "~"};
      put(b, "(%s", s[e->u.unary.op]);
      dump(b, e->u.unary.operand);
      put(b, ")");
      break;
    }
    case TC_EXPR_BOOLOP:
      put(b, "(");
      dump(b, e->u.boolop.lhs);
      put(b, e->u.boolop.op == TC_BOOL_AND ? " and " : " or ");
      dump(b, e->u.boolop.rhs);
      put(b, ")");
      break;
    case TC_EXPR_COMPARE:
      put(b, "(");
      dump(b, e->u.compare.operands[0]);
      for (int i = 0; i < e->u.compare.nops; i++) {
        put(b, " %s ", cmp_str(e->u.compare.ops[i]));
        dump(b, e->u.compare.operands[i + 1]);
      }
      put(b, ")");
      break;
    case TC_EXPR_IFEXP:
      put(b, "(");
      dump(b, e->u.ifexp.body);
      put(b, " if ");
      dump(b, e->u.ifexp.test);
      put(b, " else ");
      dump(b, e->u.ifexp.orelse);
      put(b, ")");
      break;
    case TC_EXPR_TUPLE:
    case TC_EXPR_LIST:
      put(b, e->kind == TC_EXPR_TUPLE ? "tuple(" : "[");
      for (int i = 0; i < e->u.seq.nitems; i++) {
        if (i) put(b, ", ");
        dump(b, e->u.seq.items[i]);
      }
      put(b, e->kind == TC_EXPR_TUPLE ? ")" : "]");
      break;
    case TC_EXPR_STARRED:
      put(b, "*");
      dump(b, e->u.starred.value);
      break;
    case TC_EXPR_LAMBDA:
      put(b, "lambda: ");
      dump(b, e->u.lambda.body);
      break;
    case TC_EXPR_LISTCOMP:
      put(b, "[");
      dump(b, e->u.comp.elt);
      put(b, " for ");
      dump(b, e->u.comp.target);
      put(b, " in ");
      dump(b, e->u.comp.iter);
      for (int i = 0; i < e->u.comp.nconds; i++) {
        put(b, " if ");
        dump(b, e->u.comp.conds[i]);
      }
      put(b, "]");
      break;
  }
}

static const char *dump_expr(const tc_expr *e) {
  static dumpbuf b;
  b.n = 0;
  b.s[0] = 0;
  dump(&b, e);
  return b.s;
}

static char *kernel_with(const char *body_line) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "import triton\n@triton.jit\ndef k(x, y, c, a, b):\n    %s\n", body_line);
  return buf;
}

/* Parses one statement inside a kernel and renders its expression (value of an
 * expression statement / assignment / return). */
static void check_expr(const char *stmt, const char *want) {
  tc_module *m = parse_ok(kernel_with(stmt));
  ck_assert_int_eq(m->nfuncs, 1);
  const tc_stmt *s = m->funcs[0]->body.stmts[0];
  const tc_expr *e = s->kind == TC_STMT_EXPR     ? s->u.expr.value
                     : s->kind == TC_STMT_ASSIGN ? s->u.assign.value
                     : s->kind == TC_STMT_RETURN ? s->u.ret.value
                                                 : NULL;
  ck_assert_ptr_nonnull(e);
  ck_assert_msg(strcmp(dump_expr(e), want) == 0, "%s -> %s, wanted %s", stmt, dump_expr(e), want);
  tc_module_destroy(m);
}

/* ---- a realistic file ------------------------------------------------------------ */

static const char *const realistic =
    "\"\"\"Fused kernels.\"\"\"\n"
    "import math\n"
    "import torch\n"
    "import triton\n"
    "import triton.language as tl\n"
    "from typing import Optional\n"
    "\n"
    "DEVICE = torch.device(\"cuda\")\n"
    "CONFIGS = {\"a\": 1, **{\"b\": 2}}\n"
    "squares = [i * i for i in range(10) if i % 2]\n"
    "big = 0xFFFFFFFFFFFFFFFFFFFF  # host ints may be huge\n"
    "\n"
    "class Helper:\n"
    "    @triton.jit\n"
    "    def method(x):\n"
    "        return x\n"
    "    def __init__(self, n: int) -> None:\n"
    "        self.n = n\n"
    "\n"
    "@triton.autotune(\n"
    "    configs=[triton.Config({'BLOCK_SIZE': b}, num_warps=w) for b in (128, 256) for w in (4, "
    "8)],\n"
    "    key=['n_elements'],\n"
    ")\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    block_start = pid * BLOCK_SIZE\n"
    "    offsets = block_start + tl.arange(0, BLOCK_SIZE)\n"
    "    mask = offsets < n_elements\n"
    "    x = tl.load(x_ptr + offsets, mask=mask)\n"
    "    y = tl.load(y_ptr + offsets, mask=mask)\n"
    "    output = add_helper(x, y)\n"
    "    tl.store(out_ptr + offsets, output, mask=mask)\n"
    "\n"
    "\n"
    "@triton.heuristics({\"EVEN\": lambda args: args[\"n\"] % 128 == 0})\n"
    "@triton.jit(do_not_specialize=[\"n\"])\n"
    "def softmax_kernel(out_ptr, in_ptr, stride, n,\n"
    "                   BLOCK: tl.constexpr = 1024, EVEN: tl.constexpr = False, eps=1e-5):\n"
    "    \"\"\"Row-wise softmax.\"\"\"\n"
    "    LN2: tl.constexpr = 0.6931471805599453\n"
    "    row = tl.program_id(0)\n"
    "    cols = tl.arange(0, BLOCK)\n"
    "    x = tl.load(in_ptr + row * stride + cols, mask=cols < n, other=-float('inf'))\n"
    "    x = x - tl.max(x, axis=0)\n"
    "    num = tl.exp(x)\n"
    "    out = num / tl.sum(num, axis=0)\n"
    "    tl.store(out_ptr + row * stride + cols, out, mask=cols < n)\n"
    "\n"
    "@torch.compile\n"
    "def host_fn(x: torch.Tensor, *, scale: float = 1.0) -> torch.Tensor:\n"
    "    async def inner():\n"
    "        await something()\n"
    "    try:\n"
    "        y = {k: v for k, v in x.items()}\n"
    "    except (KeyError, ValueError) as e:\n"
    "        raise RuntimeError(f\"bad {e!r:>10} {x['a']} {x[\"b\"]}\") from e\n"
    "    finally:\n"
    "        pass\n"
    "    with open(\"f\") as f, open(\"g\") as g:\n"
    "        data = f.read()\n"
    "    return lambda t: t * scale\n"
    "\n"
    "@triton.jit\n"
    "def add_helper(a, b):\n"
    "    return a + b\n"
    "\n"
    "def add(x: torch.Tensor, y: torch.Tensor):\n"
    "    output = torch.empty_like(x)\n"
    "    n_elements = output.numel()\n"
    "    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )\n"
    "    add_kernel[grid](x, y, output, n_elements)\n"
    "    return output\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    torch.manual_seed(0)\n"
    "    print(f\"{add(torch.rand(3), torch.rand(3))}\")\n";

static int is_constexpr(const tc_expr *e) {
  return e && e->kind == TC_EXPR_ATTRIBUTE && strcmp(e->u.attr.name, "constexpr") == 0 &&
         e->u.attr.value->kind == TC_EXPR_NAME && strcmp(e->u.attr.value->u.name, "tl") == 0;
}

START_TEST(test_realistic_file) {
  tc_module *m = parse_ok(realistic);
  ck_assert_int_eq(m->nfuncs, 3);
  ck_assert_str_eq(m->funcs[0]->name, "add_kernel");
  ck_assert_str_eq(m->funcs[1]->name, "softmax_kernel");
  ck_assert_str_eq(m->funcs[2]->name, "add_helper");
  ck_assert_ptr_null(tc_module_find(m, "host_fn"));
  ck_assert_ptr_null(tc_module_find(m, "method"));
  ck_assert_ptr_null(tc_module_find(m, "add"));

  const tc_func *f = tc_module_find(m, "add_kernel");
  ck_assert_ptr_eq(f, m->funcs[0]);
  ck_assert(f->is_jit);
  ck_assert_int_eq(f->loc.line, 25);
  ck_assert_int_eq(f->loc.col, 1);
  ck_assert_int_eq(f->nparams, 5);
  const char *names[] = {"x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"};
  for (int i = 0; i < 5; i++) {
    ck_assert_str_eq(f->params[i].name, names[i]);
    ck_assert_ptr_null(f->params[i].default_value);
    ck_assert_int_eq(f->params[i].is_star, 0);
    ck_assert_int_eq(is_constexpr(f->params[i].annotation), i == 4);
  }
  ck_assert_int_eq(f->params[4].loc.line, 25);
  ck_assert_int_eq(f->params[4].loc.col, 51);
  /* the autotune decorator uses a comprehension: only its dotted name is kept */
  ck_assert_int_eq(f->ndecorators, 2);
  ck_assert_str_eq(dump_expr(f->decorators[0]), "triton.autotune");
  ck_assert_str_eq(dump_expr(f->decorators[1]), "triton.jit");
  ck_assert_int_eq(f->decorators[0]->loc.line, 20);
  ck_assert_int_eq(f->decorators[0]->loc.col, 2);
  ck_assert_int_eq(f->body.nstmts, 8);
  ck_assert_str_eq(dump_expr(f->body.stmts[3]->u.assign.value), "(offsets < n_elements)");
  ck_assert_str_eq(dump_expr(f->body.stmts[7]->u.expr.value), "tl.store((out_ptr + offsets), output, mask=mask)");

  f = tc_module_find(m, "softmax_kernel");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(f->nparams, 7);
  ck_assert_str_eq(f->params[4].name, "BLOCK");
  ck_assert(is_constexpr(f->params[4].annotation));
  ck_assert_str_eq(dump_expr(f->params[4].default_value), "1024");
  ck_assert_str_eq(f->params[5].name, "EVEN");
  ck_assert(is_constexpr(f->params[5].annotation));
  ck_assert_int_eq(f->params[5].default_value->kind, TC_EXPR_BOOL);
  ck_assert_int_eq(f->params[5].default_value->u.int_value, 0);
  ck_assert_str_eq(f->params[6].name, "eps");
  ck_assert_ptr_null(f->params[6].annotation);
  ck_assert_int_eq(f->params[6].default_value->kind, TC_EXPR_FLOAT);
  ck_assert(f->params[6].default_value->u.float_value == 1e-5);
  ck_assert_int_eq(f->params[6].loc.line, 39);
  ck_assert_int_eq(f->ndecorators, 2);
  /* a heuristics dict with a lambda is representable only by its callee */
  ck_assert_str_eq(dump_expr(f->decorators[0]), "triton.heuristics");
  ck_assert_str_eq(dump_expr(f->decorators[1]), "triton.jit(do_not_specialize=['n'])");
  ck_assert_int_eq(f->body.stmts[0]->kind, TC_STMT_EXPR);
  ck_assert_int_eq(f->body.stmts[0]->u.expr.value->kind, TC_EXPR_STRING);
  ck_assert_str_eq(f->body.stmts[0]->u.expr.value->u.str.data, "Row-wise softmax.");
  const tc_stmt *ln2 = f->body.stmts[1];
  ck_assert_int_eq(ln2->kind, TC_STMT_ANNASSIGN);
  ck_assert_str_eq(dump_expr(ln2->u.annassign.target), "LN2");
  ck_assert(is_constexpr(ln2->u.annassign.annotation));
  ck_assert(ln2->u.annassign.value->u.float_value == 0.6931471805599453);
  ck_assert_str_eq(dump_expr(f->body.stmts[4]->u.assign.value),
                   "tl.load(((in_ptr + (row * stride)) + cols), mask=(cols < n), other=(-float('inf')))");

  f = tc_module_find(m, "add_helper");
  ck_assert_int_eq(f->nparams, 2);
  ck_assert_int_eq(f->ndecorators, 1);
  ck_assert_int_eq(f->body.stmts[0]->kind, TC_STMT_RETURN);
  ck_assert_str_eq(dump_expr(f->body.stmts[0]->u.ret.value), "(a + b)");
  ck_assert_str_eq(m->filename, "test.py");
  tc_module_destroy(m);
}
END_TEST

START_TEST(test_decorator_forms) {
  const char *src = "import triton\n"
                    "@jit\n"
                    "def a(x): return x\n"
                    "@tl.core.jit\n"
                    "def b(x): pass\n"
                    "@triton.jit(debug=True)\n"
                    "@other.deco(1, k=[2])\n"
                    "def c(x): pass\n"
                    "@triton.njit\n"
                    "def not_jit(x): pass\n"
                    "@triton.jit\n"
                    "class NotAFunction:\n"
                    "    pass\n"
                    "def plain(x): pass\n"
                    "@triton.jit\n"
                    "def a(x, y): return y\n";
  tc_module *m = parse_ok(src);
  ck_assert_int_eq(m->nfuncs, 4);
  ck_assert_str_eq(m->funcs[1]->name, "b");
  ck_assert_str_eq(dump_expr(m->funcs[1]->decorators[0]), "tl.core.jit");
  ck_assert_int_eq(m->funcs[2]->ndecorators, 2);
  ck_assert_str_eq(dump_expr(m->funcs[2]->decorators[0]), "triton.jit(debug=True)");
  ck_assert_str_eq(dump_expr(m->funcs[2]->decorators[1]), "other.deco(1, k=[2])");
  /* a redefinition wins, as it does in Python */
  ck_assert_int_eq(tc_module_find(m, "a")->nparams, 2);
  ck_assert_ptr_null(tc_module_find(m, "not_jit"));
  ck_assert_ptr_null(tc_module_find(m, "plain"));
  tc_module_destroy(m);
}
END_TEST

/* ---- expressions ----------------------------------------------------------------- */

START_TEST(test_precedence) {
  check_expr("-x**2", "(-(x ** 2))");
  check_expr("a + b * c", "(a + (b * c))");
  check_expr("a * b + c", "((a * b) + c)");
  check_expr("a - b - c", "((a - b) - c)");
  check_expr("a ** b ** c", "(a ** (b ** c))");
  check_expr("2 ** -x", "(2 ** (-x))");
  check_expr("a < b <= c", "(a < b <= c)");
  check_expr("a is not b in c not in d", "(a is not b in c not in d)");
  check_expr("x if c else y", "(x if c else y)");
  check_expr("x if c else y if d else z", "(x if c else (y if d else z))");
  check_expr("not a and b", "((not a) and b)");
  check_expr("a or b and c", "(a or (b and c))");
  check_expr("a or b or c", "((a or b) or c)");
  check_expr("not a == b", "(not (a == b))");
  check_expr("a | b ^ c & d << 1 + 2", "(a | (b ^ (c & (d << (1 + 2)))))");
  check_expr("a // b % c @ d / e", "((((a // b) % c) @ d) / e)");
  check_expr("~a + -b", "((~a) + (-b))");
  check_expr("a + b < c and d", "(((a + b) < c) and d)");
  check_expr("(a + b) * c", "((a + b) * c)");
  check_expr("lambda q, r=1: q + r", "lambda: (q + r)");
  check_expr("[v + 1 for v in t]", "[(v + 1) for v in t]");
  check_expr("[a for a, b in t if a if b > 1]", "[a for tuple(a, b) in t if a if (b > 1)]");
  check_expr("f(a, *b, axis=1, **kw,)", "f(a, *b, axis=1, **kw)");
  check_expr("x.y.z(1)(2)", "x.y.z(1)(2)");
  check_expr("'a' \"b\" '''c'''", "'abc'");
  check_expr("r'\\n' '\\t\\x41\\u00e9\\101'", "'\\n\tA\xc3\xa9"
                                              "A'");
  check_expr("1_000 + 0x_ff + 0o17 + 0b101", "(((1000 + 255) + 15) + 5)");
  check_expr("1e-5 + .5 + 2. + 1_0.2_5e1_0", "(((1e-05 + 0.5) + 2) + 1.025e+11)");
  check_expr("9223372036854775807", "9223372036854775807");
  check_expr("True, False, None, ...", "tuple(True, False, None, ...)");
  check_expr("(), (a,), [a, b], []", "tuple(tuple(), tuple(a), [a, b], [])");
  check_expr("1if x else 2", "(1 if x else 2)");
  /* f-strings: literal runs and fields (conversion kept, format spec dropped as Triton drops it) */
  check_expr("f'uint{n}'", "f('uint' {n!s})");
  check_expr("f'{a + b!r:>{w}} {{x}}\\n' 'c' rf'\\d{d[0]}'", "f({(a + b)!r} ' {x}\n' 'c' '\\d' {d[0]!s})");
  check_expr("f\"{ ( x ,\n y ) }{'}'}\"", "f({tuple(x, y)!s} {'}'!s})");
  check_expr("f'{x!=y}'", "f({(x != y)!s})");
  check_expr("f'{N=} {a + 1 = !s}{b=:4}'", "f('N=' {N!r} ' ' 'a + 1 = ' {(a + 1)!s} 'b=' {b!s})");
}
END_TEST

START_TEST(test_subscripts) {
  check_expr("x[:, None]", "x[:, None]");
  check_expr("x[None, :]", "x[None, :]");
  check_expr("x[1:2:3]", "x[1:2:3]");
  check_expr("x[i]", "x[i]");
  check_expr("x[a, b]", "x[a, b]");
  check_expr("x[::2]", "x[::2]");
  check_expr("x[a:]", "x[a:]");
  check_expr("x[:b, ...]", "x[:b, ...]");
  check_expr("x[i + 1][j]", "x[(i + 1)][j]");
  tc_module *m = parse_ok(kernel_with("y = x[:, None]"));
  const tc_expr *e = m->funcs[0]->body.stmts[0]->u.assign.value;
  ck_assert_int_eq(e->kind, TC_EXPR_SUBSCRIPT);
  ck_assert_int_eq(e->u.subscript.nitems, 2);
  const tc_expr *sl = e->u.subscript.items[0];
  ck_assert_int_eq(sl->kind, TC_EXPR_SLICE);
  ck_assert_ptr_null(sl->u.slice.lower);
  ck_assert_ptr_null(sl->u.slice.upper);
  ck_assert_ptr_null(sl->u.slice.step);
  ck_assert_int_eq(sl->loc.col, 11);
  ck_assert_int_eq(e->u.subscript.items[1]->kind, TC_EXPR_NONE);
  ck_assert_int_eq(e->u.subscript.items[1]->loc.col, 14);
  tc_module_destroy(m);
}
END_TEST

START_TEST(test_tuples_and_augassign) {
  tc_module *m = parse_ok("@triton.jit\n"
                          "def k(p, q):\n"
                          "    a, b = f()\n"
                          "    (c, d) = b, a\n"
                          "    e = g = h = 0\n"
                          "    p += 4\n"
                          "    q.x -= 1\n"
                          "    p[0] **= 2\n"
                          "    a //= 2; a %= 3; a <<= 1; a >>= 1; a &= 1; a |= 1; a ^= 1; a @= b; a *= 1; a /= 2\n"
                          "    return a, b\n");
  const tc_block *b = &m->funcs[0]->body;
  ck_assert_int_eq(b->nstmts, 17);
  const tc_stmt *s = b->stmts[0];
  ck_assert_int_eq(s->kind, TC_STMT_ASSIGN);
  ck_assert_int_eq(s->u.assign.ntargets, 1);
  ck_assert_str_eq(dump_expr(s->u.assign.targets[0]), "tuple(a, b)");
  ck_assert_int_eq(s->u.assign.targets[0]->loc.col, 5);
  s = b->stmts[1];
  ck_assert_str_eq(dump_expr(s->u.assign.targets[0]), "tuple(c, d)");
  ck_assert_str_eq(dump_expr(s->u.assign.value), "tuple(b, a)");
  s = b->stmts[2];
  ck_assert_int_eq(s->u.assign.ntargets, 3);
  ck_assert_str_eq(dump_expr(s->u.assign.targets[2]), "h");
  ck_assert_str_eq(dump_expr(s->u.assign.value), "0");
  s = b->stmts[3];
  ck_assert_int_eq(s->kind, TC_STMT_AUGASSIGN);
  ck_assert_int_eq(s->u.augassign.op, TC_OP_ADD);
  ck_assert_str_eq(dump_expr(s->u.augassign.target), "p");
  ck_assert_int_eq(b->stmts[4]->u.augassign.op, TC_OP_SUB);
  ck_assert_str_eq(dump_expr(b->stmts[4]->u.augassign.target), "q.x");
  ck_assert_int_eq(b->stmts[5]->u.augassign.op, TC_OP_POW);
  ck_assert_str_eq(dump_expr(b->stmts[5]->u.augassign.target), "p[0]");
  const tc_binop ops[] = {TC_OP_FLOORDIV, TC_OP_MOD,    TC_OP_LSHIFT, TC_OP_RSHIFT, TC_OP_BITAND,
                          TC_OP_BITOR,    TC_OP_BITXOR, TC_OP_MATMUL, TC_OP_MUL,    TC_OP_TRUEDIV};
  for (int i = 0; i < 10; i++) {
    ck_assert_int_eq(b->stmts[6 + i]->kind, TC_STMT_AUGASSIGN);
    ck_assert_int_eq(b->stmts[6 + i]->u.augassign.op, ops[i]);
  }
  s = b->stmts[16];
  ck_assert_int_eq(s->kind, TC_STMT_RETURN);
  ck_assert_int_eq(s->u.ret.value->kind, TC_EXPR_TUPLE);
  ck_assert_str_eq(dump_expr(s->u.ret.value), "tuple(a, b)");
  tc_module_destroy(m);
}
END_TEST

/* ---- statements ------------------------------------------------------------------ */

START_TEST(test_statement_kinds) {
  const char *src = "@triton.jit\n"
                    "def k(x, y):\n"
                    "    '''Doc\n"
                    "    string.'''\n"
                    "    x = 1; y = 2;\n"
                    "    z: int\n"
                    "    return\n"
                    "    if x: pass\n"
                    "    elif y:\n"
                    "        pass\n"
                    "    elif x:\n"
                    "        pass\n"
                    "    else: x = 3\n"
                    "    for i, j in zip(a, b):\n"
                    "        continue\n"
                    "    else:\n"
                    "        break\n"
                    "    while x < 3: break\n"
                    "    else: pass\n"
                    "    assert x, \"msg\"\n"
                    "    assert y\n"
                    "    def inner(q, *args, **kw): return q\n"
                    "    import os\n"
                    "    from os import (path,\n"
                    "        sep)\n"
                    "    global g\n"
                    "    nonlocal h\n"
                    "    del x\n"
                    "    raise ValueError(\"x\")\n"
                    "    with open(x) as f:\n"
                    "        pass\n"
                    "    try:\n"
                    "        pass\n"
                    "    except Exception:\n"
                    "        pass\n"
                    "    else:\n"
                    "        pass\n"
                    "    finally:\n"
                    "        pass\n"
                    "    class C:\n"
                    "        def m(self):\n"
                    "            pass\n"
                    "    async def f(): pass\n"
                    "    yield x\n"
                    "    @deco\n"
                    "    def decorated(): pass\n"
                    "    print(\"after\")\n";
  tc_module *m = parse_ok(src);
  const tc_block *b = &m->funcs[0]->body;
  const tc_stmt_kind kinds[] = {TC_STMT_EXPR,  TC_STMT_ASSIGN, TC_STMT_ASSIGN, TC_STMT_ANNASSIGN, TC_STMT_RETURN,
                                TC_STMT_IF,    TC_STMT_FOR,    TC_STMT_WHILE,  TC_STMT_ASSERT,    TC_STMT_ASSERT,
                                TC_STMT_DEF,   TC_STMT_OTHER,  TC_STMT_OTHER,  TC_STMT_OTHER,     TC_STMT_OTHER,
                                TC_STMT_OTHER, TC_STMT_OTHER,  TC_STMT_OTHER,  TC_STMT_OTHER,     TC_STMT_OTHER,
                                TC_STMT_OTHER, TC_STMT_OTHER,  TC_STMT_DEF,    TC_STMT_EXPR};
  const int n = (int)(sizeof kinds / sizeof kinds[0]);
  ck_assert_int_eq(b->nstmts, n);
  for (int i = 0; i < n; i++)
    ck_assert_msg(b->stmts[i]->kind == kinds[i], "statement %d has kind %d", i, b->stmts[i]->kind);
  ck_assert_str_eq(b->stmts[0]->u.expr.value->u.str.data, "Doc\n    string.");
  ck_assert_ptr_null(b->stmts[3]->u.annassign.value);
  ck_assert_ptr_null(b->stmts[4]->u.ret.value);

  const tc_stmt *ifs = b->stmts[5];
  ck_assert_int_eq(ifs->loc.line, 8);
  ck_assert_int_eq(ifs->u.if_.body.stmts[0]->kind, TC_STMT_PASS);
  ck_assert_int_eq(ifs->u.if_.orelse.nstmts, 1);
  const tc_stmt *elif1 = ifs->u.if_.orelse.stmts[0];
  ck_assert_int_eq(elif1->kind, TC_STMT_IF);
  ck_assert_int_eq(elif1->loc.line, 9);
  ck_assert_str_eq(dump_expr(elif1->u.if_.test), "y");
  const tc_stmt *elif2 = elif1->u.if_.orelse.stmts[0];
  ck_assert_int_eq(elif2->kind, TC_STMT_IF);
  ck_assert_int_eq(elif2->u.if_.orelse.nstmts, 1);
  ck_assert_int_eq(elif2->u.if_.orelse.stmts[0]->kind, TC_STMT_ASSIGN);

  const tc_stmt *fs = b->stmts[6];
  ck_assert_str_eq(dump_expr(fs->u.for_.target), "tuple(i, j)");
  ck_assert_str_eq(dump_expr(fs->u.for_.iter), "zip(a, b)");
  ck_assert_int_eq(fs->u.for_.body.stmts[0]->kind, TC_STMT_CONTINUE);
  ck_assert_int_eq(fs->u.for_.orelse.stmts[0]->kind, TC_STMT_BREAK);
  const tc_stmt *ws = b->stmts[7];
  ck_assert_str_eq(dump_expr(ws->u.while_.test), "(x < 3)");
  ck_assert_int_eq(ws->u.while_.orelse.nstmts, 1);
  ck_assert_str_eq(dump_expr(b->stmts[8]->u.assert_.msg), "'msg'");
  ck_assert_ptr_null(b->stmts[9]->u.assert_.msg);

  const tc_func *inner = b->stmts[10]->u.def.func;
  ck_assert_str_eq(inner->name, "inner");
  ck_assert_int_eq(inner->nparams, 3);
  ck_assert_int_eq(inner->params[1].is_star, 1);
  ck_assert_int_eq(inner->params[2].is_star, 2);
  ck_assert_int_eq(inner->is_jit, 0);
  ck_assert_int_eq(b->stmts[10]->loc.line, 22);
  ck_assert_int_eq(b->stmts[10]->loc.col, 5);

  const char *whats[] = {"import statement", "import statement", "global statement", "nonlocal statement",
                         "del statement",    "raise statement",  "with statement",   "try statement",
                         "class definition", "async statement",  "yield expression"};
  for (int i = 0; i < 11; i++) ck_assert_str_eq(b->stmts[11 + i]->u.other.what, whats[i]);
  ck_assert_str_eq(dump_expr(b->stmts[16]->u.other.raised), "ValueError('x')"); /* a constexpr function's error */
  ck_assert_int_eq(b->stmts[17]->loc.line, 30);
  ck_assert_int_eq(b->stmts[22]->u.def.func->ndecorators, 1);
  ck_assert_str_eq(dump_expr(b->stmts[23]->u.expr.value), "print('after')");
  tc_module_destroy(m);
}
END_TEST

START_TEST(test_lexer_details) {
  /* tabs count to the next multiple of 8, continuation lines and brackets join */
  const char *src = "@triton.jit\n"
                    "def k(x,\n"
                    "      y):\n"
                    "\tif x:\n"
                    "\t\ty = x + \\\n"
                    "            1\n"
                    "\t\tz = [1,\n"
                    "  2]  # comment\n"
                    "\n"
                    "        # indented comment\n"
                    "\treturn y\r\n"
                    "\r\n";
  tc_module *m = parse_ok(src);
  const tc_block *b = &m->funcs[0]->body;
  ck_assert_int_eq(b->nstmts, 2);
  ck_assert_int_eq(b->stmts[0]->u.if_.body.nstmts, 2);
  ck_assert_str_eq(dump_expr(b->stmts[0]->u.if_.body.stmts[0]->u.assign.value), "(x + 1)");
  ck_assert_int_eq(b->stmts[1]->loc.line, 11);
  ck_assert_int_eq(b->stmts[1]->loc.col, 2);
  tc_module_destroy(m);

  tc_token *toks;
  size_t n;
  tc_lex_error err;
  const char *ops = "a **= b //= c -> d := e @ f ... g != h";
  ck_assert_int_eq(tc_lex(ops, strlen(ops), &toks, &n, &err), 0);
  ck_assert_int_eq((int)n, 17); /* 15 + NEWLINE + ENDMARKER */
  ck_assert_int_eq(toks[1].kind, TC_TOK_OP);
  ck_assert_int_eq((int)toks[1].len, 3);
  ck_assert_int_eq(toks[1].col, 3);
  ck_assert_int_eq((int)toks[5].len, 2);  /* -> */
  ck_assert_int_eq((int)toks[11].len, 3); /* ... */
  ck_assert_int_eq(toks[15].kind, TC_TOK_NEWLINE);
  ck_assert_int_eq(toks[16].kind, TC_TOK_ENDMARKER);
  tc_tokens_free(toks);

  const char *strs = "Rb'\\x00' bR\"x\" F'{a[\"k\"]}' fr'{x}' U'x' '''a\n'b'\n''' x";
  ck_assert_int_eq(tc_lex(strs, strlen(strs), &toks, &n, &err), 0);
  ck_assert_int_eq((int)n, 9);
  for (int i = 0; i < 6; i++) ck_assert_int_eq(toks[i].kind, TC_TOK_STRING);
  ck_assert_int_eq(toks[6].kind, TC_TOK_NAME);
  ck_assert_int_eq(toks[6].line, 3);
  ck_assert_int_eq(toks[6].col, 5);
  tc_tokens_free(toks);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------- */

START_TEST(test_errors) {
  const char *hdr = "@triton.jit\ndef k(x):\n";
  char src[8192];
  struct {
    const char *body, *msg;
    int line, col;
  } cases[] = {
      {"    if x\n        pass\n", "expected ':' after 'if' condition", 3, 9},
      {"    y = (x + )\n", "unexpected token ')'", 3, 14},
      {"    s = \"abc\n", "unterminated string literal", 3, 9},
      {"    s = '''abc\n\n", "unterminated triple-quoted string literal", 3, 9},
      {"    if x:\n        y = 1\n      z = 2\n", "unindent does not match any outer indentation level", 5, 7},
      {"    y = $x\n", "invalid character '$'", 3, 9},
      {"    d = {\"a\": 1}\n", "dict literal is not supported in @triton.jit functions", 3, 9},
      {"    d = {}\n", "dict literal is not supported in @triton.jit functions", 3, 9},
      {"    d = {a, b}\n", "set literal is not supported in @triton.jit functions", 3, 9},
      {"    d = {a: b for a in c}\n", "dict comprehension is not supported in @triton.jit functions", 3, 9},
      {"    l = [i for i in x for j in y]\n", "nested comprehensions are not supported (Triton compiles one 'for')", 3,
       23},
      {"    l = sum(i for i in x)\n", "generator expression is not supported in @triton.jit functions", 3, 13},
      {"    s = f\"a}b\"\n", "f-string: single '}' is not allowed", 3, 12},
      {"    s = f\"{}\"\n", "f-string: empty expression not allowed", 3, 12},
      {"    s = f\"{x!z}\"\n", "f-string: invalid conversion character", 3, 14},
      {"    s = f\"{x y}\"\n", "f-string: expected ',' or ')'", 3, 14},
      {"    s = f\"{x)}\"\n", "f-string: unmatched ')'", 3, 14},
      {"    n = 18446744073709551616\n", "integer literal too large (Triton's integers stop at 2**64 - 1)", 3, 9},
      {"    z = 1j\n", "imaginary literals are not supported", 3, 9},
      {"    z = 012\n",
       "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
       "integers",
       3, 9},
      {"    z = 0b102\n", "invalid digit '2' in binary literal", 3, 13},
      {"    z = 1__0\n", "invalid decimal literal", 3, 9},
      {"return x\n", "expected an indented block after function definition on line 2", 3, 1},
      {"    f(x) = 1\n", "cannot assign to function call", 3, 5},
      {"    a, 1 = x\n", "cannot assign to literal", 3, 8},
      {"    a, b += 1\n", "'tuple' is an illegal expression for augmented assignment", 3, 5},
      {"    y = f(x\n", "'(' was never closed", 3, 10},
      {"    y = f(x]\n", "closing parenthesis ']' does not match opening parenthesis '('", 3, 12},
      {"    y = x)\n", "unmatched ')'", 3, 10},
      {"    x = 1\n        y = 2\n", "unexpected indent", 4, 9},
      {"    f(a=1, b)\n", "positional argument follows keyword argument", 3, 12},
      {"    f(a=1, a=2)\n", "keyword argument repeated: a", 3, 12},
      {"    y = x +\n", "unexpected end of line", 3, 12},
      {"    y = x y\n", "unexpected token 'y'", 3, 11},
      {"    for i range(3): pass\n", "expected 'in' after 'for' target", 3, 11},
      {"    while x\n", "expected ':' after 'while' condition", 3, 12},
      {"    y = a if b\n", "expected 'else' after 'if' expression", 3, 15},
      {"    y = x.\n", "expected attribute name after '.'", 3, 11},
      {"    y = x.if\n", "expected attribute name after '.'", 3, 11},
      {"    if (y := x): pass\n", "assignment expression (':=') is not supported in @triton.jit functions", 3, 11},
      {"    y = await x\n", "'await' is not supported in @triton.jit functions", 3, 9},
      {"    y = (yield)\n", "yield expression is not supported in @triton.jit functions", 3, 10},
      {"    y = 1 \\ 2\n", "unexpected character after line continuation character", 3, 11},
      {"    y = b'a' 'b'\n", "cannot mix bytes and nonbytes literals", 3, 14},
      {"    y = '\\x4'\n", "truncated \\xXX escape", 3, 9},
      {"\tif x:\n        pass\n", "inconsistent use of tabs and spaces in indentation", 4, 9},
      {"    else: pass\n", "unexpected token 'else'", 3, 5},
      {"    x = 1\0\n", "source code cannot contain null bytes", 3, 10},
      {"    x = \xe2\x80\x9cx\xe2\x80\x9d\n", "invalid character '\xe2\x80\x9c' (U+201C)", 3, 9},
      {"    x = \xff\n", "invalid UTF-8 byte 0xff", 3, 9},
      {"    *a = b\n", "starred assignment target must be in a list or tuple", 3, 5},
      {"    x[] = 1\n", "expected an index or slice", 3, 7},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(src, sizeof src, "%s%s", hdr, cases[i].body);
    /* NUL bytes are part of the source: pass the real length */
    size_t blen = strlen(cases[i].body);
    if (strstr(cases[i].msg, "null bytes")) blen += 2;
    size_t len = strlen(hdr) + blen;
    memcpy(src + strlen(hdr), cases[i].body, blen);
    tc_module *m = NULL;
    tilec_status *st = tc_parse_module("test.py", src, len, &m);
    ck_assert_msg(st != NULL, "case %zu: no error", i);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_SYNTAX);
    ck_assert_msg(strcmp(tilec_status_message(st), cases[i].msg) == 0, "case %zu: '%s', wanted '%s'", i,
                  tilec_status_message(st), cases[i].msg);
    ck_assert_msg(tilec_status_line(st) == cases[i].line && tilec_status_column(st) == cases[i].col,
                  "case %zu (%s): at %d:%d, wanted %d:%d", i, cases[i].msg, tilec_status_line(st),
                  tilec_status_column(st), cases[i].line, cases[i].col);
    tilec_status_destroy(st);
  }

  /* function signatures */
  expect_error("@triton.jit\ndef k(x)\n    pass\n", "expected ':' after function signature", 2, 9);
  expect_error("@triton.jit\ndef k(x=1, y):\n    pass\n",
               "parameter without a default follows parameter with a default", 2, 12);
  expect_error("@triton.jit\ndef k(x, x):\n    pass\n", "duplicate argument 'x' in function definition", 2, 10);
  expect_error("@triton.jit\ndef (x):\n    pass\n", "expected function name after 'def'", 2, 5);
  expect_error("@triton.jit\ndef k(x:\n    pass\n", "'(' was never closed", 2, 6);
  expect_error("@triton.jit\ndef k(x:):\n    pass\n", "unexpected token ')'", 2, 9);
  expect_error("@triton.jit\ndef k(x):\n", "expected an indented block after function definition on line 2", 3, 1);
  expect_error("@triton.jit\ndef k(x):", "expected an indented block after function definition on line 2", 2, 10);
  /* host code only has to lex, but it does have to lex */
  expect_error("@triton.jit\ndef k(x):\n    pass\nx = 'abc\n", "unterminated string literal", 4, 5);
  expect_error("def host():\n    return {1: [2, (3]}\n",
               "closing parenthesis ']' does not match opening parenthesis '('", 2, 22);
  /* nesting limits */
  char deep[1024];
  strcpy(deep, "@triton.jit\ndef k(x):\n    y = ");
  for (int i = 0; i < 300; i++) strcat(deep, "-");
  strcat(deep, "x\n");
  expect_error(deep, "expression nested too deeply", 3, 209);
  strcpy(deep, "x = ");
  for (int i = 0; i < 201; i++) strcat(deep, "(");
  expect_error(deep, "too many nested parentheses", 1, 205);
  /* Flat chains parse in a loop but make trees as deep as they are long, which the code
   * generator walks recursively: more than 1000 levels is a located error, as CPython's
   * "maximum recursion depth exceeded during compilation". */
  static const char *const chains[][2] = {{" + x", "expression too complex (more than 1000 operations deep)"},
                                          {" and x", "expression too complex (more than 1000 operations deep)"},
                                          {" or x", "expression too complex (more than 1000 operations deep)"},
                                          {".T", "expression too complex (more than 1000 operations deep)"},
                                          {"[None]", "expression too complex (more than 1000 operations deep)"},
                                          {"(1)", "expression too complex (more than 1000 operations deep)"},
                                          {" * x", "expression too complex (more than 1000 operations deep)"}};
  size_t cap = 400000;
  char *flat = malloc(cap);
  ck_assert_ptr_nonnull(flat);
  for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
    const char *unit = chains[c][0];
    size_t ul = strlen(unit);
    for (int terms = 990; terms <= 20000; terms += 19010) {
      int n = snprintf(flat, cap, "@triton.jit\ndef k(x):\n    y = x");
      for (int i = 0; i < terms; i++, n += (int)ul) memcpy(flat + n, unit, ul);
      memcpy(flat + n, "\n", 2);
      if (terms < 1000) {
        tc_module *ok = parse_ok(flat);
        tc_module_destroy(ok);
      } else {
        /* the 1000th link, where the tree gets too deep (the statement is level 1); in a
         * call or subscript, the argument inside the 999th link */
        int col =
            unit[0] == '[' || unit[0] == '(' ? 10 + 998 * (int)ul + 1 : 10 + 999 * (int)ul + (unit[0] == ' ' ? 1 : 0);
        expect_error(flat, chains[c][1], 3, col);
      }
    }
  }
  /* `2 ** 2 ** ...` is right-associative: it recurses in the parser. */
  int n = snprintf(flat, cap, "@triton.jit\ndef k(x):\n    y = ");
  for (int i = 0; i < 20000; i++, n += 5) memcpy(flat + n, "2 ** ", 5);
  memcpy(flat + n, "1\n", 3);
  expect_error(flat, "expression nested too deeply", 3, 1009);
  free(flat);

  /* the formatted error carries the source line and a caret */
  tc_module *m = NULL;
  const char *bad = "@triton.jit\ndef k(x):\n    y = (x + )\n";
  tilec_status *st = tc_parse_module("kern.py", bad, strlen(bad), &m);
  ck_assert_ptr_nonnull(st);
  ck_assert_str_eq(tilec_status_format(st),
                   "kern.py:3:14: error: unexpected token ')'\n    y = (x + )\n             ^");
  tilec_status_destroy(st);
}
END_TEST

/* ---- robustness ------------------------------------------------------------------ */

static void parse_any(const char *src, size_t len) {
  tc_module *m = NULL;
  tilec_status *st = tc_parse_module("fuzz.py", src, len, &m);
  if (st) {
    ck_assert_ptr_null(m);
    (void)tilec_status_format(st);
    tilec_status_destroy(st);
  } else {
    ck_assert_ptr_nonnull(m);
    for (int i = 0; i < m->nfuncs; i++) (void)tc_module_find(m, m->funcs[i]->name);
    tc_module_destroy(m);
  }
}

START_TEST(test_truncations) {
  size_t len = strlen(realistic);
  for (size_t n = 0; n <= len; n++) {
    /* an exact-size heap copy lets ASan catch any read past the end */
    char *copy = malloc(n ? n : 1);
    memcpy(copy, realistic, n);
    parse_any(copy, n);
    free(copy);
  }
}
END_TEST

START_TEST(test_mangled) {
  static const unsigned char interesting[] = {0,   '\n', '\r', '\t', ' ',  '(',  ')',  '[', ']', '{',
                                              '}', '\'', '"',  '\\', ':',  '#',  '@',  '.', '=', '*',
                                              'f', 'r',  '0',  'x',  0x80, 0xe2, 0xff, ',', 'j', 'e'};
  size_t len = strlen(realistic);
  char *copy = malloc(len);
  uint32_t seed = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(copy, realistic, len);
    int flips = 1 + iter % 4;
    for (int k = 0; k < flips; k++) {
      seed = seed * 1664525u + 1013904223u;
      size_t pos = (seed >> 8) % len;
      seed = seed * 1664525u + 1013904223u;
      copy[pos] = (seed >> 16) % 3 ? (char)interesting[(seed >> 8) % sizeof interesting] : (char)(seed >> 24);
    }
    parse_any(copy, len);
  }
  for (int iter = 0; iter < 300; iter++) {
    size_t n = 1 + iter * 7 % 400;
    char *rnd = malloc(n);
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1664525u + 1013904223u;
      rnd[i] = (char)(iter % 2 ? interesting[(seed >> 8) % sizeof interesting] : (seed >> 24));
    }
    parse_any(rnd, n);
    free(rnd);
  }
  free(copy);
}
END_TEST

START_TEST(test_deep_inputs) {
  size_t cap = 400000;
  char *s = malloc(cap);
  /* very deep unary, not and ternary chains, brackets, indentation, elif chains */
  const char *units[] = {"-", "not ", "~", "(", "[", "x if y else ", "lambda: ", "a.", "f(", "x[", "{"};
  for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
    strcpy(s, "@triton.jit\ndef k(x):\n    y = ");
    size_t n = strlen(s), ul = strlen(units[u]);
    for (int i = 0; i < 20000; i++, n += ul) memcpy(s + n, units[u], ul);
    memcpy(s + n, "x\n", 3);
    parse_any(s, n + 2);
  }
  strcpy(s, "@triton.jit\ndef k(x):\n");
  size_t n = strlen(s);
  for (int d = 1; d < 150; d++) {
    for (int i = 0; i < d; i++) s[n++] = ' ';
    n += (size_t)sprintf(s + n, "if x:\n");
  }
  parse_any(s, n);
  strcpy(s, "@triton.jit\ndef k(x):\n    if x: pass\n");
  n = strlen(s);
  for (int i = 0; i < 998; i++) n += (size_t)sprintf(s + n, "    elif x: pass\n");
  tc_module *m = parse_ok(s);
  tc_module_destroy(m);
  /* The code generator nests an elif chain (scf.if in scf.if): bounded like expressions. */
  for (int i = 0; i < 10000; i++) n += (size_t)sprintf(s + n, "    elif x: pass\n");
  expect_error(s, "'elif' chain too long (more than 1000 branches)", 1003, 5);
  free(s);
  parse_any(NULL, 0);
  parse_any("", 0);
  parse_any("\n\n\n", 3);
  parse_any("\xef\xbb\xbf@triton.jit\ndef k(): pass", 28);
}
END_TEST

/* A megabyte identifier is not echoed whole: messages keep their start and end, and a long
 * source line is shown as a window around the caret. */
START_TEST(test_long_messages) {
  size_t big = 1 << 20;
  char *name = malloc(big + 1);
  ck_assert_ptr_nonnull(name);
  memset(name, 'q', big);
  name[big] = 0;
  tilec_status *st = tilec_status_create(TILEC_ERROR_SEMANTIC, "unknown function 'tl.%s' here", name);
  const char *msg = tilec_status_message(st);
  ck_assert_uint_lt(strlen(msg), 2100);
  ck_assert(!strncmp(msg, "unknown function 'tl.qqqq", 25));
  ck_assert_ptr_nonnull(strstr(msg, " bytes ...] qqq"));
  ck_assert_ptr_nonnull(strstr(msg, "qqq' here"));
  tilec_status_destroy(st);
  /* the caret stays under column 500000 of a megabyte line */
  name[500000 - 1] = '!';
  st = tilec_status_create_at(TILEC_ERROR_SYNTAX, "k.py", 3, 500000, name, "unexpected token '!'");
  const char *f = tilec_status_format(st);
  ck_assert_uint_lt(strlen(f), 1000);
  const char *l2 = strchr(f, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
  ck_assert(!strncmp(l2, "...qqq", 6));
  ck_assert_int_eq(l2[strlen(l3) - 1], '!'); /* the caret is the last character of line 3 */
  ck_assert_int_eq(l3[strlen(l3) - 1], '^');
  tilec_status_destroy(st);
  free(name);
}
END_TEST

/* ---- source lines ---------------------------------------------------------------- */

START_TEST(test_module_line) {
  const char *src = "a\nbb\r\nccc\rdddd";
  tc_module *m = parse_ok(src);
  size_t len = 99;
  const char *l = tc_module_line(m, 1, &len);
  ck_assert(l && len == 1 && memcmp(l, "a", 1) == 0);
  l = tc_module_line(m, 2, &len);
  ck_assert(l && len == 2 && memcmp(l, "bb", 2) == 0);
  l = tc_module_line(m, 3, &len);
  ck_assert(l && len == 3 && memcmp(l, "ccc", 3) == 0);
  l = tc_module_line(m, 4, &len);
  ck_assert(l && len == 4 && memcmp(l, "dddd", 4) == 0);
  ck_assert_ptr_null(tc_module_line(m, 5, &len));
  ck_assert_int_eq((int)len, 0);
  ck_assert_ptr_null(tc_module_line(m, 0, &len));
  ck_assert_ptr_null(tc_module_line(m, -3, &len));
  ck_assert_ptr_null(tc_module_line(NULL, 1, &len));
  tc_module_destroy(m);

  m = parse_ok("x = 1\n");
  l = tc_module_line(m, 2, &len);
  ck_assert(l && len == 0);
  ck_assert_ptr_null(tc_module_line(m, 3, &len));
  /* the module owns a copy of the source */
  ck_assert_str_eq(m->source, "x = 1\n");
  ck_assert_int_eq((int)m->source_len, 6);
  ck_assert_int_eq(m->nfuncs, 0);

  tilec_status *st = tc_error_at(m, (tc_loc){1, 5}, TILEC_ERROR_SEMANTIC, "bad %s", "value");
  ck_assert_str_eq(tilec_status_format(st), "test.py:1:5: error: bad value\nx = 1\n    ^");
  tilec_status_destroy(st);
  tc_module_destroy(m);

  tc_module *out = (tc_module *)1;
  st = tc_parse_module(NULL, NULL, 5, &out);
  ck_assert_int_eq(tilec_status_code_of(st), TILEC_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null(out);
  tilec_status_destroy(st);
}
END_TEST

/* Module-level statements: imports, try/except, if, host code kept with the names it binds. */
START_TEST(test_module_statements) {
  const char *src = "import triton.language as tl, math\n"
                    "from ..pkg.ops import (a as b, c,)\n"
                    "from . import helpers\n"
                    "try:\n"
                    "    from triton.language.extra.libdevice import rsqrt\n"
                    "except (ImportError, ModuleNotFoundError) as e:\n"
                    "    from triton.language.math import rsqrt\n"
                    "X = tl.constexpr(3)\n"
                    "y = {i: i for i in range(3)}\n"
                    "def host(a):\n"
                    "    inner = 1\n"
                    "class K:\n"
                    "    z = 2\n"
                    "for q, r in pairs:\n"
                    "    w = q\n"
                    "if cond:\n"
                    "    @triton.jit\n"
                    "    def nested(x):\n"
                    "        return x\n";
  tc_module *m = parse_ok(src);
  const tc_block *t = &m->toplevel;
  ck_assert_int_eq(t->nstmts, 10);
  const tc_stmt *s = t->stmts[0];
  ck_assert_int_eq(s->kind, TC_STMT_IMPORT);
  ck_assert_ptr_null(s->u.import.from);
  ck_assert_int_eq(s->u.import.nnames, 2);
  ck_assert_str_eq(s->u.import.names[0].name, "triton.language");
  ck_assert_str_eq(s->u.import.names[0].asname, "tl");
  ck_assert_ptr_null(s->u.import.names[1].asname);
  s = t->stmts[1];
  ck_assert_str_eq(s->u.import.from, "pkg.ops");
  ck_assert_int_eq(s->u.import.level, 2);
  ck_assert_int_eq(s->u.import.nnames, 2);
  ck_assert_str_eq(s->u.import.names[0].asname, "b");
  ck_assert_str_eq(t->stmts[2]->u.import.from, "");
  ck_assert_int_eq(t->stmts[2]->u.import.level, 1);
  s = t->stmts[3];
  ck_assert_int_eq(s->kind, TC_STMT_TRY);
  ck_assert_int_eq(s->u.try_.nhandlers, 1);
  ck_assert_int_eq(s->u.try_.body.stmts[0]->kind, TC_STMT_IMPORT);
  ck_assert_int_eq(s->u.try_.handlers[0].type->kind, TC_EXPR_TUPLE);
  ck_assert_int_eq(t->stmts[4]->kind, TC_STMT_ASSIGN);
  /* a comprehension does not parse: host code binding y */
  s = t->stmts[5];
  ck_assert_int_eq(s->kind, TC_STMT_OTHER);
  ck_assert_int_eq(s->u.other.nbinds, 1);
  ck_assert_str_eq(s->u.other.binds[0], "y");
  s = t->stmts[6];
  ck_assert_str_eq(s->u.other.what, "function definition");
  ck_assert_int_eq(s->u.other.nbinds, 1); /* not `inner` */
  ck_assert_str_eq(s->u.other.binds[0], "host");
  ck_assert_int_eq(t->stmts[7]->u.other.nbinds, 1);
  ck_assert_str_eq(t->stmts[7]->u.other.binds[0], "K");
  s = t->stmts[8];
  ck_assert_int_eq(s->u.other.nbinds, 3);
  ck_assert_str_eq(s->u.other.binds[2], "w");
  /* a @jit def inside a module-level if is a function too */
  ck_assert_int_eq(t->stmts[9]->kind, TC_STMT_IF);
  ck_assert_int_eq(m->nfuncs, 1);
  ck_assert_str_eq(m->funcs[0]->name, "nested");
  tc_module_destroy(m);
}
END_TEST

/* TILEC_SOURCE_FUNCTIONS: every top-level def is a kernel function; first_line offsets errors. */
START_TEST(test_functions_only_and_first_line) {
  tc_parse_options po = {.functions_only = 1, .first_line = 30};
  tc_module *m = NULL;
  const char *src = "def a(x):\n    return x\n\ndef b(y):\n    return y\n";
  ck_assert_ptr_null(tc_parse_module_opts("f.py", src, strlen(src), &po, &m));
  ck_assert_int_eq(m->nfuncs, 2);
  ck_assert_int_eq(m->line_offset, 29);
  tc_module_destroy(m);
  const char *bad = "def a(x):\n    return x +\n";
  tilec_status *st = tc_parse_module_opts("f.py", bad, strlen(bad), &po, &m);
  ck_assert_ptr_nonnull(st);
  ck_assert_int_eq(tilec_status_line(st), 31);
  tilec_status_destroy(st);
}
END_TEST

static Suite *parser_suite(void) {
  Suite *s = suite_create("parser");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_realistic_file);
  tcase_add_test(tc, test_decorator_forms);
  tcase_add_test(tc, test_precedence);
  tcase_add_test(tc, test_subscripts);
  tcase_add_test(tc, test_tuples_and_augassign);
  tcase_add_test(tc, test_statement_kinds);
  tcase_add_test(tc, test_lexer_details);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_truncations);
  tcase_add_test(tc, test_mangled);
  tcase_add_test(tc, test_deep_inputs);
  tcase_add_test(tc, test_long_messages);
  tcase_add_test(tc, test_module_line);
  tcase_add_test(tc, test_module_statements);
  tcase_add_test(tc, test_functions_only_and_first_line);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(parser_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
