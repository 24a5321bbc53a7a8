#!/usr/bin/env python3
"""Planted-bug campaign: do the debug checks (`tilec run --check all`) report the bugs people
write into Triton kernels?

Takes the kernels of the lang suite's families (tests/lang/<family>/cases.py: a kernel, its
inputs and grid; the suite's and the tutorials' kernels) and plants one bug at a time in a
copy of the kernel's source:
  mask        a load's or store's mask= (and other=) dropped
  offset      a load's or store's pointer one element off (p + 1)
  stride      two stride parameters swapped everywhere in the kernel
  bound       a loop's bound one step too far (range(a, b, s) -> range(a, b + s, s))
  neighbour   a store's address computed for the next program (pid -> pid + 1)
  atomic      tl.atomic_add(p, v, mask=m) as a plain load and store (tl.store(p, tl.load(p,
              mask=m) + v, mask=m)) where the old value is unused
Each mutant runs twice: unchecked (does the bug change behaviour: other outputs than the
unmutated kernel's, or a crash?) and with --check all (is it reported with a located
`file:line:col: error:` message of a check?). The detection rate is reported over the
mutants that change behaviour; the misses are listed; mutants that do not compile are left
out. The unmutated kernels run with --check all first: they must report nothing.

usage: campaign.py TILEC [--families F,...] [--sample] [--report FILE] [-j N] [-v]
  --sample   a fixed sample of the mutants (a few kernels, every kind of bug, SAMPLE below),
             for ctest: exits non-zero when an unmutated kernel reports something or a sampled
             mutant is reported where the whole campaign did not report it or the reverse (a
             bug detected before and missed now; or a miss fixed: then SAMPLE moves on)
  --report   writes the whole result as Markdown (bench/CAMPAIGN.md)
Needs the standard library and numpy (/usr/bin/python3).
"""
import argparse
import ast
import concurrent.futures
import copy
import importlib.util
import os
import re
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LANG = os.path.join(os.path.dirname(HERE), "lang")
sys.path.insert(0, LANG)
sys.dont_write_bytecode = True
import harness  # noqa: E402

FAMILIES = ["softmax", "layernorm", "matmul", "tutorials", "atomics", "pointers", "loops", "reductions", "llm",
            "attention", "dropout", "dot"]
# The --sample: (kernel, kind of bug, which of that kind in the kernel (in ast.walk order),
# whether --check all reports it in the whole campaign); ctest's campaign.sample fails when
# that changes.
SAMPLE = [
    ("row_softmax_kernel", "mask", 0, True),
    ("row_softmax_kernel", "stride", 0, True),
    ("row_softmax_kernel", "offset", 1, False),  # a store one element on, inside its own row
    ("layernorm_fwd_kernel", "mask", 0, True),
    ("layernorm_fwd_kernel", "neighbour", 0, True),
    ("layernorm_fwd_kernel", "bound", 0, False),  # the extra trip is masked off: no change
    ("gemm_kernel", "mask", 0, True),
    ("gemm_kernel", "neighbour", 0, True),
    ("contended_float_kernel", "atomic", 0, True),
    ("contended_float_kernel", "offset", 0, True),
]
CHECK_RE = re.compile(r"^.+:\d+:\d+: error: (?:(?:load from|store to|atomic on) '.*' at element -?\d+ is out of "
                      r"bounds|(?:write-write|read-write) race on|store to '.*' writes (?:NaN|\+Inf|-Inf)|load from "
                      r"'.*' at element -?\d+ reads memory nothing)")


# ---- subjects ---------------------------------------------------------------------------------

def load_family(fam):
    spec = importlib.util.spec_from_file_location("campaign_cases_" + fam, os.path.join(LANG, fam, "cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    first = len(harness.CASES)
    mod.cases()
    return harness.CASES[first:]


def subjects(families):
    """One run case per (file, kernel): the kernels to plant bugs in, with inputs and grid."""
    seen, out = set(), []
    for fam in families:
        for c in load_family(fam):
            if not isinstance(c, harness.Case) or c.xfail or (c.file, c.kernel) in seen:
                continue
            seen.add((c.file, c.kernel))
            out.append(c)
    return out


# ---- mutations ----------------------------------------------------------------------------------

def is_tl_call(node, names):
    """A call of tl.NAME (or triton.language.NAME) for NAME in names."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names
            and isinstance(node.func.value, ast.Name) and node.func.value.id in ("tl", "language"))


def kernel_def(tree, name):
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == name:
            return n
    return None


def nodes(fn, pred):
    return [n for n in ast.walk(fn) if pred(n)]


def add_one(e):
    return ast.BinOp(left=e, op=ast.Add(), right=ast.Constant(1))


def program_vars(fn):
    """Names assigned straight from tl.program_id(...)."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                is_tl_call(n.value, ("program_id",)):
            out.add(n.targets[0].id)
    return out


def single_defs(fn):
    """Name -> its expression, for names assigned exactly once (a plain `x = e`) in the kernel."""
    count, expr = {}, {}
    for n in ast.walk(fn):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, (ast.AugAssign,
                                                                                          ast.AnnAssign, ast.For)) else []
        for t in targets:
            for name in (x.id for x in ast.walk(t) if isinstance(x, ast.Name)):
                count[name] = count.get(name, 0) + (1 if not isinstance(n, (ast.AugAssign, ast.For)) else 2)
                if isinstance(n, ast.Assign) and isinstance(t, ast.Name):
                    expr[name] = n.value
    return {k: v for k, v in expr.items() if count.get(k) == 1}


class Inline(ast.NodeTransformer):
    """Inlines single-assignment names that depend on a program id variable, with that
    variable replaced by (var + 1): the address the next program computes."""

    def __init__(self, defs, pids):
        self.defs, self.pids, self.changed, self.depth = defs, pids, False, 0

    def visit_Name(self, node):
        if node.id in self.pids:
            self.changed = True
            return add_one(ast.Name(id=node.id, ctx=ast.Load()))
        if node.id in self.defs and self.depth < 8:
            self.depth += 1
            sub = Inline(self.defs, self.pids)
            sub.depth = self.depth
            e = sub.visit(copy.deepcopy(self.defs[node.id]))
            self.depth -= 1
            if sub.changed:
                self.changed = True
                return e
        return node


def mutants(tree, kernel):
    """(kind, description, line, mutated module tree) for every bug planted in `kernel`."""
    fn = kernel_def(tree, kernel)
    if fn is None:
        return []
    out = []

    def plant(kind, what, line, edit):
        t = copy.deepcopy(tree)
        f = kernel_def(t, kernel)
        if edit(f) is not False:
            out.append((kind, what, line, t))

    def nth(f, pred, i):
        return nodes(f, pred)[i]

    mem = lambda n: is_tl_call(n, ("load", "store"))  # noqa: E731
    for i, call in enumerate(nodes(fn, mem)):
        op = call.func.attr
        if any(k.arg == "mask" for k in call.keywords) or (op == "load" and len(call.args) > 1) or \
                (op == "store" and len(call.args) > 2):
            def drop(f, i=i):
                c = nth(f, mem, i)
                c.keywords = [k for k in c.keywords if k.arg not in ("mask", "other")]
                del c.args[1 if c.func.attr == "load" else 2:]
            plant("mask", "tl.%s without its mask" % op, call.lineno, drop)
        if call.args and not any(isinstance(x, ast.Call) and is_tl_call(x, ("make_block_ptr", "advance"))
                                 for x in ast.walk(call.args[0])):
            def shift(f, i=i):
                c = nth(f, mem, i)
                c.args[0] = add_one(c.args[0])
            plant("offset", "tl.%s one element off" % op, call.lineno, shift)

    params = [a.arg for a in fn.args.args]
    used = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    strides = [p for p in params if "stride" in p and p in used]
    for a in range(len(strides)):
        for b in range(a + 1, len(strides)):
            def swap(f, x=strides[a], y=strides[b]):
                for n in ast.walk(f):
                    if isinstance(n, ast.Name) and n.id in (x, y):
                        n.id = y if n.id == x else x
            plant("stride", "%s and %s swapped" % (strides[a], strides[b]), fn.lineno, swap)

    loops = lambda n: isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and (  # noqa: E731
        (isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range") or is_tl_call(n.iter, ("range",
                                                                                                "static_range")))
    for i, loop in enumerate(nodes(fn, loops)):
        if not loop.iter.args:
            continue

        def further(f, i=i):
            it = nth(f, loops, i).iter
            a = it.args
            if len(a) == 1:
                a[0] = add_one(a[0])
            else:
                step = a[2] if len(a) > 2 else ast.Constant(1)
                a[1] = ast.BinOp(left=a[1], op=ast.Add(), right=copy.deepcopy(step))
        plant("bound", "loop bound one step too far", loop.lineno, further)

    pids = program_vars(fn)
    defs = single_defs(fn)
    for i, call in enumerate(nodes(fn, lambda n: is_tl_call(n, ("store",)))):
        probe = Inline(defs, pids)
        probe.visit(copy.deepcopy(call.args[0]) if call.args else ast.Constant(0))
        if not probe.changed:
            continue

        def neighbour(f, i=i):
            c = nth(f, lambda n: is_tl_call(n, ("store",)), i)
            c.args[0] = Inline(defs, pids).visit(c.args[0])
        plant("neighbour", "tl.store at the next program's address", call.lineno, neighbour)

    stmts = lambda n: isinstance(n, ast.Expr) and is_tl_call(n.value, ("atomic_add",))  # noqa: E731
    for i, st in enumerate(nodes(fn, stmts)):
        def plain(f, i=i):
            c = nth(f, stmts, i).value
            ptr = c.args[0] if c.args else next((k.value for k in c.keywords if k.arg == "pointer"), None)
            val = c.args[1] if len(c.args) > 1 else next((k.value for k in c.keywords if k.arg == "val"), None)
            mask = next((k for k in c.keywords if k.arg == "mask"), None)
            if ptr is None or val is None:
                return False
            kw = [copy.deepcopy(mask)] if mask else []
            load = ast.Call(func=ast.Attribute(value=ast.Name(id="tl", ctx=ast.Load()), attr="load", ctx=ast.Load()),
                            args=[copy.deepcopy(ptr)], keywords=copy.deepcopy(kw))
            c.func.attr = "store"
            c.args = [ptr, ast.BinOp(left=load, op=ast.Add(), right=val)]
            c.keywords = kw
        plant("atomic", "tl.atomic_add as a plain load and store", st.lineno, plain)
    return out


# ---- running ------------------------------------------------------------------------------------

def same_outputs(c, base, res):
    for o in c.outs:
        if o not in res or harness.compare(o, res[o], base[o], max(c.rtol, 1e-5), max(c.atol, 1e-6)):
            return False
    return True


NPY_TO_TILEC = {"float32": "fp32", "float16": "fp16", "float64": "fp64", "int8": "i8", "int16": "i16",
                "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64"}


def run_one(c, path, checked, args=None):
    """(exit status, first stderr line, outputs) of the kernel at `path` with c's inputs."""
    rel = os.path.relpath(path, LANG)
    rc, _, err, res = harness.run_kernel(rel, c.kernel, c.grid, args or c.args, c.outs, c.timeout,
                                         extra=["--check", "all"] if checked else [])
    return rc, (err.strip().splitlines() or [""])[0], res


def with_empty(c, names):
    """c's arguments with the outputs `names` bound as tilec-made arrays (empty:DTYPE:SHAPE):
    not yet written, for --check init."""
    args = dict(c.args)
    for n in names:
        v = c.args[n]
        args[n] = "empty:%s:%s" % (NPY_TO_TILEC[v.dtype.name], "x".join(str(d) for d in v.shape))
    return args


def baseline(c, src_path):
    """The unmutated kernel: its arguments (outputs it only writes bound as empty: arrays, so
    that loads of what it never stored are reported too), unchecked outputs, and what --check
    all said about it (None: nothing, and the same outputs)."""
    def attempt(names):
        args = with_empty(c, names)
        rc, first, base = run_one(c, src_path, False, args)
        if rc != 0:
            return args, None, "does not run unchecked: " + first
        rcc, firstc, based = run_one(c, src_path, True, args)
        ok = rcc == 0 and same_outputs(c, base, based)
        return args, base, None if ok else firstc if rcc else "its outputs differ with the checks"

    cands = [o for o in c.outs if isinstance(c.args.get(o), np.ndarray) and c.args[o].dtype.name in NPY_TO_TILEC
             and c.args[o].size]
    if cands:
        got = attempt(cands)
        if got[1] is not None and got[2] is None:
            return got
        keep = [o for o in cands if len(cands) > 1 and attempt([o])[2] is None]
        if keep:
            got = attempt(keep)
            if got[1] is not None and got[2] is None:
                return got
    return attempt([])


def campaign_subject(c, work, sample, verbose):
    """The unmutated kernel's verdict and its mutants' rows."""
    src_path = harness.path_of(c.file)
    with open(src_path) as f:
        tree = ast.parse(f.read())
    rows = []
    args, base, clean = baseline(c, src_path)
    if base is None:
        return {"subject": c, "baseline": clean, "rows": rows}
    muts, per = [], {}
    for m in mutants(tree, c.kernel):  # numbered per kind, for the sample
        n = per.get(m[0], 0)
        per[m[0]] = n + 1
        if sample is None or (m[0], n) in sample:
            muts.append(m + ((m[0], n),))
    d = tempfile.mkdtemp(prefix="campaign-", dir=work)
    for k, (kind, what, line, t, key) in enumerate(muts):
        path = os.path.join(d, "m%03d_%s" % (k, os.path.basename(src_path)))
        with open(path, "w") as f:
            f.write(ast.unparse(ast.fix_missing_locations(t)) + "\n")
        rc, first, res = run_one(c, path, False, args)
        if rc == 1 and re.search(r":\d+:\d+: error:", first) and "device assertion failed" not in first:
            rows.append((kind, what, line, "invalid", first, key))  # the front end refuses it
            continue
        changed = rc != 0 or not same_outputs(c, base, res)
        rcc, firstc, _ = run_one(c, path, True, args)
        detected = rcc != 0 and CHECK_RE.match(firstc) is not None
        verdict = ("detected" if detected else "missed") if changed else ("detected (no visible change)" if detected
                                                                           else "no change")
        note = firstc if detected else (first if rc else "outputs differ" if changed else "")
        rows.append((kind, what, line, verdict, note, key))
        if verbose:
            print("%-28s %-9s %-40s line %-4s %s  %s" % (c.kernel, kind, what, line, verdict, note[:140]), flush=True)
    return {"subject": c, "baseline": clean, "rows": rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tilec")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--sample", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    harness.TILEC = os.path.abspath(a.tilec)
    os.environ.pop("TILEC_CHECK", None)
    work = tempfile.mkdtemp(prefix="tilec-campaign-")
    os.environ["TILEC_CACHE_DIR"] = os.path.join(work, "cache")
    subs = subjects(a.families.split(","))
    want = {}
    for kernel, kind, n, reported in SAMPLE if a.sample else ():
        want.setdefault(kernel, {})[(kind, n)] = reported
    if a.sample:
        subs = [s for s in subs if s.kernel in want]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            results = list(ex.map(lambda s: campaign_subject(s, work, want.get(s.kernel) if a.sample else None,
                                                             a.verbose), subs))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    code = summarize(results, a)
    if a.sample:  # each sampled mutant keeps the verdict the whole campaign gave it
        got = {(r["subject"].kernel,) + row[5]: row[3] for r in results for row in r["rows"]}
        for kernel, kind, n, reported in SAMPLE:
            v = got.get((kernel, kind, n), "not run")
            if v == "not run" or v.startswith("detected") != reported:
                print("sample: %s %s #%d: %s, expected %s" % (kernel, kind, n, v,
                                                             "a report" if reported else "none"))
                code = 1
    return code


def summarize(results, a):
    kinds = ["mask", "offset", "stride", "bound", "neighbour", "atomic"]
    table = {k: {"planted": 0, "invalid": 0, "changed": 0, "detected": 0, "quiet_detected": 0, "quiet": 0}
             for k in kinds}
    misses, dirty = [], []
    for r in results:
        c = r["subject"]
        if r["baseline"]:
            dirty.append("%s (%s): %s" % (c.kernel, c.file, r["baseline"]))
        for kind, what, line, verdict, note, _ in r["rows"]:
            t = table[kind]
            t["planted"] += 1
            if verdict == "invalid":
                t["invalid"] += 1
            elif verdict in ("detected", "missed"):
                t["changed"] += 1
                t["detected"] += verdict == "detected"
                if verdict == "missed":
                    misses.append("%s (%s:%s) %s: %s: %s" % (c.kernel, c.file, line, kind, what, note))
            else:
                t["quiet"] += 1
                t["quiet_detected"] += verdict.startswith("detected")
    L = []
    w = L.append
    w("| bug | planted | do not compile | change behaviour | of those reported | rate | no visible change "
      "(reported) |")
    w("|---|---|---|---|---|---|---|")
    tot = {k: 0 for k in table["mask"]}
    for k in kinds:
        t = table[k]
        for f in tot:
            tot[f] += t[f]
        w("| %s | %d | %d | %d | %d | %s | %d (%d) |" % (k, t["planted"], t["invalid"], t["changed"], t["detected"],
                                                       "%.0f%%" % (100.0 * t["detected"] / t["changed"])
                                                       if t["changed"] else "—", t["quiet"], t["quiet_detected"]))
    w("| **all** | %d | %d | %d | %d | **%s** | %d (%d) |" % (
        tot["planted"], tot["invalid"], tot["changed"], tot["detected"],
        "%.1f%%" % (100.0 * tot["detected"] / tot["changed"]) if tot["changed"] else "—", tot["quiet"],
        tot["quiet_detected"]))
    w("")
    w("Kernels: %d (%s). Unmutated kernels reporting with --check all: %d." % (
        len(results), ", ".join(sorted({r["subject"].kernel for r in results})), len(dirty)))
    for d in dirty:
        w("- unmutated: " + d)
    w("")
    w("Misses (the bug changes the outputs or crashes, no check reports it): %d" % len(misses))
    for m in misses:
        w("- " + m)
    text = "\n".join(L) + "\n"
    print(text)
    if a.report:
        with open(a.report, "w") as f:
            f.write(text)
    return 1 if a.sample and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
