/* frontend/ast.h — the syntax tree of the Python subset inside @triton.jit functions.
 * In: nothing (data only). Out: nodes the parser builds in an arena and the code
 * generator (frontend/codegen*.c) walks. Every node carries its source position. */
#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tc_loc {
  int line; /* 1-based */
  int col;  /* 1-based, in bytes */
} tc_loc;

typedef enum tc_expr_kind {
  TC_EXPR_NAME,   /* name */
  TC_EXPR_INT,    /* int_value (arbitrary Python ints are an error past 64 bits) */
  TC_EXPR_FLOAT,  /* float_value */
  TC_EXPR_STRING, /* str (adjacent literals concatenated; escapes decoded) */
  TC_EXPR_BOOL,   /* int_value 0/1 */
  TC_EXPR_NONE,
  TC_EXPR_ELLIPSIS,
  TC_EXPR_ATTRIBUTE, /* value.name */
  TC_EXPR_CALL,      /* func(args..., kwargs...) */
  TC_EXPR_SUBSCRIPT, /* value[items...]  (items: list of exprs, slices allowed) */
  TC_EXPR_SLICE,     /* lower:upper:step inside a subscript; each may be NULL */
  TC_EXPR_BINOP,     /* lhs op rhs */
  TC_EXPR_UNARY,     /* op operand */
  TC_EXPR_BOOLOP,    /* lhs and/or rhs (a chain is nested left-assoc) */
  TC_EXPR_COMPARE,   /* operands[0] ops[0] operands[1] ops[1] ... (chains kept) */
  TC_EXPR_IFEXP,     /* body if test else orelse */
  TC_EXPR_TUPLE,     /* (a, b) or a, b */
  TC_EXPR_LIST,      /* [a, b] */
  TC_EXPR_STARRED,   /* *value (in calls and tuple targets) */
  TC_EXPR_LAMBDA,    /* parsed so host-style code in kernels errors cleanly */
  TC_EXPR_LISTCOMP,  /* [elt for target in iter if conds...]: one generator (Triton's) */
  TC_EXPR_FSTRING,   /* f"...{x}...": literal STRING items and fields, joined at compile time */
} tc_expr_kind;

typedef enum tc_binop {
  TC_OP_ADD,
  TC_OP_SUB,
  TC_OP_MUL,
  TC_OP_TRUEDIV,
  TC_OP_FLOORDIV,
  TC_OP_MOD,
  TC_OP_POW,
  TC_OP_LSHIFT,
  TC_OP_RSHIFT,
  TC_OP_BITAND,
  TC_OP_BITOR,
  TC_OP_BITXOR,
  TC_OP_MATMUL
} tc_binop;

typedef enum tc_unop { TC_UOP_NEG, TC_UOP_POS, TC_UOP_NOT, TC_UOP_INVERT } tc_unop;

typedef enum tc_boolop { TC_BOOL_AND, TC_BOOL_OR } tc_boolop;

typedef enum tc_cmpop {
  TC_CMP_LT,
  TC_CMP_LE,
  TC_CMP_GT,
  TC_CMP_GE,
  TC_CMP_EQ,
  TC_CMP_NE,
  TC_CMP_IS,
  TC_CMP_IS_NOT,
  TC_CMP_IN,
  TC_CMP_NOT_IN
} tc_cmpop;

typedef struct tc_expr tc_expr;

typedef struct tc_keyword {
  const char *name; /* NULL for **kwargs (an error in kernels) */
  tc_expr *value;
  tc_loc loc;
} tc_keyword;

struct tc_expr {
  tc_expr_kind kind;
  tc_loc loc;
  bool int_u64; /* INT: int_value holds the bits of a literal in [2^63, 2^64) */
  union {
    const char *name;   /* NAME */
    int64_t int_value;  /* INT, BOOL */
    double float_value; /* FLOAT */
    struct {
      const char *data;
      size_t len;
    } str; /* STRING */
    struct {
      tc_expr *value;
      const char *name;
    } attr; /* ATTRIBUTE */
    struct {
      tc_expr *func;
      tc_expr **args;
      int nargs;
      tc_keyword *kwargs;
      int nkwargs;
    } call; /* CALL */
    struct {
      tc_expr *value;
      tc_expr **items;
      int nitems;
    } subscript;
    struct {
      tc_expr *lower, *upper, *step;
    } slice;
    struct {
      tc_binop op;
      tc_expr *lhs, *rhs;
    } binop;
    struct {
      tc_unop op;
      tc_expr *operand;
    } unary;
    struct {
      tc_boolop op;
      tc_expr *lhs, *rhs;
    } boolop;
    struct {
      tc_expr **operands;
      tc_cmpop *ops;
      int nops;
    } compare; /* nops+1 operands */
    struct {
      tc_expr *test, *body, *orelse;
    } ifexp;
    struct {
      tc_expr **items;
      int nitems;
    } seq; /* TUPLE, LIST */
    struct {
      tc_expr *value;
    } starred;
    struct {
      tc_expr *body;
    } lambda;
    struct {
      tc_expr *elt, *target, *iter;
      tc_expr **conds;
      int nconds;
    } comp; /* LISTCOMP */
    struct {
      tc_expr **items;
      char *convs; /* per item: 0 a literal (a STRING), else the field's conversion: 's' (none), 'r', 'a' */
      int nitems;
    } fstr; /* FSTRING (adjacent literals, f-strings or not, are one) */
  } u;
};

typedef enum tc_stmt_kind {
  TC_STMT_EXPR,      /* expression statement (docstrings included) */
  TC_STMT_ASSIGN,    /* targets[0] = targets[1] = ... = value */
  TC_STMT_AUGASSIGN, /* target op= value */
  TC_STMT_ANNASSIGN, /* target: annotation [= value] */
  TC_STMT_RETURN,    /* return [value] */
  TC_STMT_IF,        /* if test: body elif ...: (nested in orelse) else: orelse */
  TC_STMT_FOR,       /* for target in iter: body [else: orelse] */
  TC_STMT_WHILE,     /* while test: body [else: orelse] */
  TC_STMT_PASS,
  TC_STMT_BREAK,
  TC_STMT_CONTINUE,
  TC_STMT_ASSERT, /* assert test[, msg] */
  TC_STMT_DEF,    /* nested def: parsed, rejected by the code generator */
  TC_STMT_OTHER,  /* import/global/nonlocal/del/raise/with/try/class/...: `what` names it */
  TC_STMT_IMPORT, /* module level only: import a.b [as c], ... / from [.]a.b import c [as d], ... */
  TC_STMT_TRY,    /* module level only: try: body except [type]: handler ... [else:] [finally:] */
  TC_STMT_CLASS   /* module level only: class NAME(bases): whose body is only `field: T [= default]`,
                     docstrings and pass (a NamedTuple); any other class is TC_STMT_OTHER */
} tc_stmt_kind;

/* One name of an import statement: `a.b.c as d` (asname NULL when absent; name "*" for
 * `from m import *`). */
typedef struct tc_import_name {
  const char *name;
  const char *asname;
  tc_loc loc;
} tc_import_name;

typedef struct tc_handler tc_handler;

typedef struct tc_stmt tc_stmt;
typedef struct tc_func tc_func;

typedef struct tc_block {
  tc_stmt **stmts;
  int nstmts;
} tc_block;

struct tc_stmt {
  tc_stmt_kind kind;
  tc_loc loc;
  union {
    struct {
      tc_expr *value;
    } expr;
    struct {
      tc_expr **targets;
      int ntargets;
      tc_expr *value;
    } assign;
    struct {
      tc_expr *target;
      tc_binop op;
      tc_expr *value;
    } augassign;
    struct {
      tc_expr *target;
      tc_expr *annotation;
      tc_expr *value;
    } annassign;
    struct {
      tc_expr *value;
    } ret; /* value may be NULL */
    struct {
      tc_expr *test;
      tc_block body;
      tc_block orelse;
    } if_;
    struct {
      tc_expr *target;
      tc_expr *iter;
      tc_block body;
      tc_block orelse;
    } for_;
    struct {
      tc_expr *test;
      tc_block body;
      tc_block orelse;
    } while_;
    struct {
      tc_expr *test;
      tc_expr *msg;
    } assert_;
    struct {
      tc_func *func;
    } def;
    struct {
      const char *what;   /* e.g. "import statement", "with statement" */
      tc_expr *raised;    /* `raise EXPR`: EXPR (a constexpr function raising stops the compile) */
      const char **binds; /* module level: names the skipped code binds (def/class/assignments) */
      int nbinds;
    } other;
    struct {
      const char *from; /* `from X import ...`: X (NULL for a plain `import`) */
      int level;        /* leading dots of a relative `from . import x` */
      tc_import_name *names;
      int nnames;
    } import;
    struct {
      const char *name;
      tc_expr **bases;
      int nbases;
      tc_block body; /* ANNASSIGN with a NAME target, EXPR (docstrings), PASS */
    } class_;
    struct {
      tc_block body;
      tc_handler *handlers;
      int nhandlers;
      tc_block orelse, final;
    } try_;
  } u;
};

struct tc_handler {
  tc_expr *type; /* NULL for a bare `except:` */
  tc_loc loc;
  tc_block body;
};

typedef struct tc_param {
  const char *name;
  tc_expr *annotation;    /* may be NULL; `tl.constexpr` marks a constexpr */
  tc_expr *default_value; /* may be NULL */
  tc_loc loc;
  int is_star; /* *args: rejected by the code generator */
} tc_param;

struct tc_func {
  const char *name;
  tc_loc loc; /* of the `def` keyword */
  tc_param *params;
  int nparams;
  tc_expr **decorators; /* expressions after '@', in source order */
  int ndecorators;
  int is_jit;       /* one decorator's dotted name ends in `jit` */
  int is_pyfn;      /* @triton.constexpr_function / @tl.constexpr: a Python function that
                             Triton calls at compile time; evaluated on compile-time values */
  tc_expr *returns; /* `-> annotation`, may be NULL */
  tc_block body;
};

/* A parsed file: the @triton.jit functions, in source order, and the module-level
 * statements the module context is derived from (imports, assignments, try/if around them;
 * a @jit def appears there as TC_STMT_DEF). Host code that does not parse is kept as
 * TC_STMT_OTHER with the names it binds, found from its tokens. */
typedef struct tc_module {
  const char *filename;
  const char *source; /* the whole text, NUL-terminated (owned by the module) */
  size_t source_len;
  int line_offset;    /* added to every line shown or emitted: source line 1 is file line 1 + offset */
  int functions_only; /* TILEC_SOURCE_FUNCTIONS: every top-level def is a kernel function */
  tc_func **funcs;
  int nfuncs;
  tc_block toplevel;      /* module-level statements in order (see above) */
  struct tc_arena *arena; /* owns every node and string */
} tc_module;

#endif
