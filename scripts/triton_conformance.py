#!/usr/bin/env python3
"""Run Triton's own unit tests under tilec's drop-in and under Triton's interpreter; compare.

Triton's test files are not part of this repository: fetch python/test/unit/language/*.py
(and python/test/conftest.py, which defines the --device option and the with_allocator /
fresh_knobs fixtures) from triton-lang/triton at a commit matching the installed Triton,
then run

    nice -n 19 python scripts/triton_conformance.py TESTDIR [FILE ...] [options]

TESTDIR holds the test files (e.g. .../python/test/unit/language); FILE names some of them
(default: every test_*.py there). Each file is run by pytest twice, one file at a time:

  tilec   TILEC_TRITON=1 (tilec's drop-in), TRITON_INTERPRET unset, --device cpu
  interp  TRITON_INTERPRET=1 with the real triton, TILEC_TRITON unset, --device cpu

with a per-test timeout (pytest-timeout, --timeout). Results come from pytest's junit XML
(--junitxml). A test that kills its pytest process (a crash: segfault, abort) or that the
timeout cannot interrupt (stuck in C code; the watchdog kills the process at timeout + 30 s)
is recorded as `crash` / `timeout` from a progress log that this file, loaded as a pytest
plugin, writes as each test starts and ends; the run then resumes after that test.

Printed per file: the number of items, passed / failed / skipped / error (+ timeout, crash)
for each mode; then the items that pass under the interpreter but not under tilec, grouped
by the first line of tilec's error (digits folded to N, most common group first), the
reverse, and the items that fail in both modes (by tilec's error: a test of GPU-only
behaviour, or a tilec cause hidden behind an interpreter failure). --json FILE writes it
all. Files and tests run one at a time, on purpose (the machine is shared): nice it.

Options:
  --python PY         the interpreter with torch, pytest, pytest-timeout, tilec and triton
                      (default: this one)
  --modes tilec,interp
  --timeout S         per-test timeout in seconds (default 60)
  -k FILE=EXPR        pytest -k expression for one file (repeatable), e.g.
                      -k "test_core.py=not test_dot and not test_reduce_layouts"
  --deselect NODEID   passed to pytest (repeatable; NODEID relative to TESTDIR, e.g.
                      test_conversions.py::test_typeconvert_downcast)
  --max-per-function [FILE=]N  keep at most N parametrizations of each test function,
                      evenly spaced in collection order (the same items in both modes); for
                      every file, or for FILE (repeatable)
  --extra-path DIR    prepended to PYTHONPATH (e.g. a `pip install --target` dir holding
                      scipy, which test_random.py imports)
  --shim-internal-testing NAMES  interpreter run only: add these names to the real
                      triton._internal_testing where it lacks them (supported: get_arch, which
                      test_core.py imports and Triton 3.9 no longer has; used only on HIP)
  --shim-dropin NAMES  tilec run only: supply Triton 3.9 API the drop-in lacks and that stands
                      in front of what a test measures (supported: dtype = tl.dtype.SINT_TYPES,
                      ..., and tl.dtype(name), without which test_core.py fails to be collected;
                      unsafe_update_src = JITFunction._unsafe_update_src as the drop-in's
                      `src =`, which test_core.py's patch_kernel calls; mxfp = an empty
                      triton.tools.mxfp, imported by test_tensor_descriptor.py for one test).
                      Report the unshimmed run beside it.
  --out DIR           junit XML and progress logs (default /tmp/triton-conformance)
  --report-only       do not run; report from the XML / logs already in --out
  --json FILE         also write the summary as JSON

Example (docs/CONFORMANCE.md lists the runs behind its tables, under "Rerun"):
  nice -n 19 python scripts/triton_conformance.py \\
      /tmp/triton-tests/<commit>/python/test/unit/language test_core.py test_standard.py \\
      --timeout 60 --max-per-function 8 --shim-dropin dtype,unsafe_update_src \\
      --shim-internal-testing get_arch --json /tmp/conformance.json
"""

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

MODES = {
    "tilec": {"TILEC_TRITON": "1"},
    "interp": {"TRITON_INTERPRET": "1"},
}
CLEARED = ("TILEC_TRITON", "TRITON_INTERPRET")
WATCHDOG_GRACE_S = 30

# ---------------------------------------------------------------------------------------
# pytest plugin half: loaded in the pytest process with `-p triton_conformance`. It is
# inert unless TRITON_CONFORMANCE_LOG is set.


def _plugin_log(record):
    path = os.environ.get("TRITON_CONFORMANCE_LOG")
    if not path:
        return
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")
        f.flush()
        os.fsync(f.fileno())


def pytest_configure(config):
    # Names a test file imports from triton._internal_testing that the installed Triton lacks
    # (--shim-internal-testing); set only in the interpreter run, so the file can be collected.
    dropin_shims = os.environ.get("TRITON_CONFORMANCE_DROPIN_SHIM", "").split(",")
    if "dtype" in dropin_shims:
        _shim_dropin_dtype()
    if "unsafe_update_src" in dropin_shims:
        _shim_dropin_unsafe_update_src()
    if "mxfp" in dropin_shims:
        _shim_dropin_mxfp()
    names = [n for n in os.environ.get("TRITON_CONFORMANCE_SHIM", "").split(",") if n]
    if not names:
        return
    import triton._internal_testing as it
    for name in names:
        if name == "get_arch" and not hasattr(it, "get_arch"):
            it.get_arch = lambda: getattr(it.get_current_target(), "arch", "") if it.get_current_target() else ""


def _shim_dropin_dtype():
    """tilec run only (--shim-dropin dtype): Triton 3.9's tl.dtype name lists and one-argument
    constructor, which test_core.py uses while collecting (parametrize over
    map(tl.dtype, tl.dtype.SINT_TYPES + ...)). Without them the whole module fails to import;
    with them its items are measured. Values as in Triton 3.9's language/core.py."""
    import triton.language as tl
    d = tl.dtype
    if hasattr(d, "SINT_TYPES"):
        return
    d.SINT_TYPES = ["int8", "int16", "int32", "int64"]
    d.UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    d.FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32", "fp64"]
    d.STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    d.OTHER_TYPES = ["void"]
    attr_of = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "fp8e5": "float8e5",
               "fp8e4nv": "float8e4nv", "fp8e4b15": "float8e4b15", "fp8e4b8": "float8e4b8",
               "fp8e5b16": "float8e5b16"}
    init = d.__init__

    def __init__(self, name, attr=None):
        init(self, name, attr if attr is not None else attr_of.get(name, name))

    d.__init__ = __init__


def _shim_dropin_unsafe_update_src():
    """tilec run only (--shim-dropin unsafe_update_src): Triton 3.9's
    JITFunction._unsafe_update_src(new_src), which test_core.py's patch_kernel calls, as the
    drop-in's own `kernel.src = new_src` (which it documents and supports)."""
    import triton
    jf = triton.JITFunction
    if hasattr(jf, "_unsafe_update_src"):
        return

    def _unsafe_update_src(self, new_src):
        self.src = new_src

    jf._unsafe_update_src = _unsafe_update_src


def _shim_dropin_mxfp():
    """tilec run only (--shim-dropin mxfp): an empty triton.tools.mxfp, which
    test_tensor_descriptor.py imports at the top for its one microscaling test; its classes
    raise when used, so only that test still fails."""
    import sys
    import types
    try:
        import triton.tools.mxfp  # noqa: F401
        return
    except ImportError:
        pass
    mod = types.ModuleType("triton.tools.mxfp")

    class _Missing:

        def __init__(self, *args, **kwargs):
            raise NotImplementedError("triton.tools.mxfp is not provided by tilec's drop-in "
                                      "(stub from triton_conformance --shim-dropin mxfp)")

    mod.MXFP4Tensor = type("MXFP4Tensor", (_Missing, ), {})
    mod.MXScaleTensor = type("MXScaleTensor", (_Missing, ), {})
    sys.modules["triton.tools.mxfp"] = mod


def pytest_collection_modifyitems(session, config, items):
    skip_file = os.environ.get("TRITON_CONFORMANCE_SKIP")
    per_fn = int(os.environ.get("TRITON_CONFORMANCE_PER_FUNCTION", "0") or 0)
    if per_fn > 0:
        groups = collections.OrderedDict()
        for it in items:
            groups.setdefault(it.nodeid.split("[", 1)[0], []).append(it)
        keep = set()
        for group in groups.values():
            n = len(group)
            if n <= per_fn:
                keep.update(id(it) for it in group)
            else:
                keep.update(id(group[(i * n) // per_fn]) for i in range(per_fn))
        dropped = [it for it in items if id(it) not in keep]
        items[:] = [it for it in items if id(it) in keep]
        config.hook.pytest_deselected(items=dropped)
    if skip_file and os.path.exists(skip_file):
        with open(skip_file) as f:
            skip = set(line.rstrip("\n") for line in f if line.strip())
        dropped = [it for it in items if it.nodeid in skip]
        items[:] = [it for it in items if it.nodeid not in skip]
        config.hook.pytest_deselected(items=dropped)
    _plugin_log({"event": "collected", "n": len(items)})


def pytest_runtest_logstart(nodeid, location):
    _plugin_log({"event": "start", "nodeid": nodeid, "t": time.time()})


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and not report.passed):
        msg = ""
        if not report.passed:
            msg = _first_line_of_report(report)
        _plugin_log({"event": "end", "nodeid": report.nodeid, "outcome": report.outcome,
                     "when": report.when, "msg": msg})


def _first_line_of_report(report):
    lr = report.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:  # skip: (path, line, reason)
        return str(lr[2])
    crash = getattr(lr, "reprcrash", None)
    if crash is not None:
        return crash.message.split("\n", 1)[0]
    return str(lr).strip().split("\n")[-1]


# ---------------------------------------------------------------------------------------
# driver half


def norm_cause(msg):
    """The first line of an error, with numbers folded so equal causes group together."""
    line = (msg or "").strip().split("\n", 1)[0].strip()
    line = re.sub(r"(/[\w.+-]+)+\.py", "FILE.py", line)
    line = re.sub(r"0x[0-9a-fA-F]+", "0xX", line)
    line = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", line)
    line = re.sub(r"'/[^']*'", "'PATH'", line)
    return line[:200] or "(no message)"


def find_confcutdir(testdir):
    """The topmost ancestor of testdir that holds a conftest.py (Triton's python/test)."""
    top = testdir
    d = testdir
    while True:
        if os.path.exists(os.path.join(d, "conftest.py")):
            top = d
        parent = os.path.dirname(d)
        if parent == d:
            return top
        d = parent


def _error_line(text):
    """The line of a pytest traceback that names the exception ("E   ValueError: ...")."""
    lines = [l[1:].strip() for l in (text or "").split("\n") if l.startswith("E ")]
    return lines[-1] if lines else ""


def _outcome(outcome, msg):
    if outcome == "failed" and "Timeout" in msg and "pytest-timeout" in msg:
        return "timeout"
    return outcome


def read_junit(path):
    """{key: (outcome, first line)} from a junit XML file; key as key_of() makes it.

    A collection error is one <testcase classname=""> : it comes back as key COLLECTION."""
    out = {}
    if not os.path.exists(path):
        return out
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return out
    for tc in root.iter("testcase"):
        name = tc.get("name", "")
        classname = tc.get("classname", "")
        outcome, msg = "passed", ""
        for child in tc:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                msg = child.get("message") or ""
                if outcome != "skipped" and (not msg or msg == "collection failure" or "\n" in msg):
                    msg = _error_line(child.text) or msg
                break
        if not classname:
            out[COLLECTION] = ("error", "collection: " + msg)
            continue
        out[classname + "::" + name] = (_outcome(outcome, msg), msg.strip().split("\n", 1)[0])
    return out


COLLECTION = "<collection>"


def key_of(nodeid):
    """junit's classname::name for a pytest nodeid (xunit1: path without .py, dots)."""
    parts = nodeid.split("::")
    path = parts[0][:-3] if parts[0].endswith(".py") else parts[0]
    classname = ".".join([path.replace("/", ".")] + parts[1:-1])
    return classname + "::" + parts[-1]


def run_file(args, testdir, fname, mode, outdir):
    """Run one file in one mode until every collected item has a result."""
    base = os.path.join(outdir, f"{fname[:-3]}.{mode}")
    log = base + ".progress.jsonl"
    skip = base + ".skip"
    for p in (log, skip):
        if os.path.exists(p):
            os.remove(p)
    for old in [f for f in os.listdir(outdir) if f.startswith(os.path.basename(base) + ".part")]:
        os.remove(os.path.join(outdir, old))
    env = dict(os.environ)
    for k in CLEARED:
        env.pop(k, None)
    env.update(MODES[mode])
    here = os.path.dirname(os.path.abspath(__file__))
    pp = [here] + list(args.extra_path) + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(pp)
    env["TRITON_CONFORMANCE_LOG"] = log
    env["TRITON_CONFORMANCE_SKIP"] = skip
    env["TRITON_CONFORMANCE_PER_FUNCTION"] = str(args.per_function_by_file.get(fname, args.per_function_default))
    if mode == "tilec" and args.shim_dropin:
        env["TRITON_CONFORMANCE_DROPIN_SHIM"] = args.shim_dropin
    if mode == "interp" and args.shim_internal_testing:
        env["TRITON_CONFORMANCE_SHIM"] = args.shim_internal_testing
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("TILEC_NUM_THREADS", "1")
    extra = {}  # nodeid -> (outcome, msg) for crashes / watchdog kills
    part = 0
    t0 = time.time()
    while True:
        xml = f"{base}.part{part}.xml"
        cmd = [args.python, "-m", "pytest", "-p", "triton_conformance", "-p", "no:cacheprovider",
               "-q", "-rN", "--tb=line", "--device", "cpu", f"--timeout={args.timeout}",
               f"--junitxml={xml}", "-o", "junit_family=xunit1",
               f"--confcutdir={find_confcutdir(testdir)}", fname]
        kexpr = args.k_by_file.get(fname)
        if kexpr:
            cmd += ["-k", kexpr]
        for d in args.deselect:
            if d.split("::", 1)[0] == fname:
                cmd += ["--deselect", d]
        with open(base + ".stdout", "a") as so:
            proc = subprocess.Popen(cmd, cwd=testdir, env=env, stdout=so, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            killed = None
            while proc.poll() is None:
                time.sleep(0.5)
                cur = in_flight(log)
                if cur and time.time() - cur[1] > args.timeout + WATCHDOG_GRACE_S:
                    killed = cur[0]
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        rc = proc.returncode
        cur = in_flight(log)
        if killed:
            extra[killed] = ("timeout", f"killed by the watchdog after {args.timeout + WATCHDOG_GRACE_S} s "
                             "(pytest-timeout could not interrupt it)")
        elif rc not in (0, 1, 2, 3, 4, 5) and cur:
            sig = -rc if rc < 0 else rc
            name = signal.Signals(sig).name if rc < 0 and sig in signal.Signals._value2member_map_ else f"exit {rc}"
            extra[cur[0]] = ("crash", f"pytest process died ({name}) in this test")
        else:
            break
        # resume after the test that took the process down
        done = finished(log) | set(extra)
        with open(skip, "w") as f:
            f.write("\n".join(sorted(done)) + "\n")
        part += 1
        if part > 200:
            break
    return {"extra": extra, "seconds": round(time.time() - t0, 1), "parts": part + 1, "base": base}


def in_flight(log):
    """(nodeid, start time) of the test that started last and has not ended, if any."""
    cur = None
    if not os.path.exists(log):
        return None
    with open(log) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r["event"] == "start":
                cur = (r["nodeid"], r["t"])
            elif r["event"] == "end" and cur and r["nodeid"] == cur[0]:
                cur = None
    return cur


def finished(log):
    done = set()
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r["event"] == "end":
                    done.add(r["nodeid"])
    return done


def collect_results(outdir, fname, mode, extra):
    """{key: (outcome, first line)} for one file and mode: the progress log (every part, also
    those whose process died before writing its XML), overridden by the junit XML parts, then
    the crashes and watchdog kills."""
    base = os.path.join(outdir, f"{fname[:-3]}.{mode}")
    res = {}
    log = base + ".progress.jsonl"
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if r["event"] != "end":
                    continue
                outcome = r["outcome"]
                if r["when"] == "setup" and outcome == "failed":
                    outcome = "error"
                res[key_of(r["nodeid"])] = (_outcome(outcome, r.get("msg", "")), r.get("msg", ""))
    parts = sorted((f for f in os.listdir(outdir) if f.startswith(os.path.basename(base) + ".part")
                    and f.endswith(".xml")), key=lambda s: int(s.rsplit(".part", 1)[1][:-4]))
    for p in parts:
        res.update(read_junit(os.path.join(outdir, p)))
    for nodeid, v in (extra or {}).items():
        res[key_of(nodeid)] = v
    return res


def summarize(res):
    c = collections.Counter(v[0] for v in res.values())
    return {k: c.get(k, 0) for k in ("passed", "failed", "skipped", "error", "timeout", "crash")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("testdir")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--modes", default="tilec,interp")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("-k", dest="kexprs", action="append", default=[])
    ap.add_argument("--deselect", action="append", default=[])
    ap.add_argument("--max-per-function", action="append", default=[])
    ap.add_argument("--extra-path", action="append", default=[])
    ap.add_argument("--shim-internal-testing", default="")
    ap.add_argument("--shim-dropin", default="")
    ap.add_argument("--out", default="/tmp/triton-conformance")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    args.testdir = os.path.abspath(args.testdir)
    args.k_by_file = {}
    args.per_function_default, args.per_function_by_file = 0, {}
    for v in args.max_per_function:
        f, eq, n = v.rpartition("=")
        if eq:
            args.per_function_by_file[f] = int(n)
        else:
            args.per_function_default = int(n)
    for ke in args.kexprs:
        f, _, e = ke.partition("=")
        args.k_by_file[f] = e
    files = args.files or sorted(f for f in os.listdir(args.testdir) if f.startswith("test_") and f.endswith(".py"))
    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            ap.error(f"--modes: unknown mode {m!r} (tilec, interp)")
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "state.json")
    state = json.load(open(state_path)) if os.path.exists(state_path) else {}

    for fname in files:
        for mode in modes:
            if args.report_only:
                continue
            print(f"== {fname} [{mode}] ...", file=sys.stderr, flush=True)
            info = run_file(args, args.testdir, fname, mode, args.out)
            state[f"{fname}:{mode}"] = info
            with open(state_path, "w") as f:
                json.dump(state, f, indent=1)
            print(f"   {fname} [{mode}] {info['seconds']} s, {summarize(collect_results(args.out, fname, mode, info['extra']))}",
                  file=sys.stderr, flush=True)

    table = []
    causes = {"tilec_only_fail": collections.defaultdict(list), "interp_only_fail": collections.defaultdict(list),
              "both_fail": collections.defaultdict(list)}
    ok = ("passed",)
    bad = ("failed", "error", "timeout", "crash")
    for fname in files:
        per = {}
        for mode in modes:
            info = state.get(f"{fname}:{mode}", {})
            per[mode] = collect_results(args.out, fname, mode, info.get("extra"))
        items = set().union(*[set(r) for r in per.values()]) if per else set()
        if len(items) > 1:
            items.discard(COLLECTION)
        for mode in modes:
            # a module that does not import in one mode: each item of the other is an error
            if COLLECTION in per[mode]:
                err = per[mode][COLLECTION]
                per[mode] = {k: per[mode].get(k, err) for k in items}
        row = {"file": fname, "items": len(items)}
        for mode in modes:
            row[mode] = summarize(per[mode])
            row[mode]["seconds"] = state.get(f"{fname}:{mode}", {}).get("seconds")
        table.append(row)
        if "tilec" in per and "interp" in per:
            for k in sorted(items):
                t = per["tilec"].get(k, ("missing", ""))
                i = per["interp"].get(k, ("missing", ""))
                if i[0] in ok and t[0] in bad:
                    causes["tilec_only_fail"][f"[{t[0]}] {norm_cause(t[1])}"].append(k)
                elif t[0] in ok and i[0] in bad:
                    causes["interp_only_fail"][f"[{i[0]}] {norm_cause(i[1])}"].append(k)
                elif t[0] in bad and i[0] in bad:
                    causes["both_fail"][f"[{t[0]}] {norm_cause(t[1])}"].append(k)

    cols = ("passed", "failed", "skipped", "error", "timeout", "crash")
    print()
    print("| file | items | " + " | ".join(f"{m} p/f/s/e/t/c" for m in modes) + " |")
    print("|---|---:|" + "---|" * len(modes))
    tot = {m: collections.Counter() for m in modes}
    nitems = 0
    for row in table:
        nitems += row["items"]
        cells = []
        for m in modes:
            tot[m].update({c: row[m][c] for c in cols})
            cells.append("/".join(str(row[m][c]) for c in cols))
        print(f"| {row['file']} | {row['items']} | " + " | ".join(cells) + " |")
    print(f"| total | {nitems} | " + " | ".join("/".join(str(tot[m][c]) for c in cols) for m in modes) + " |")

    for title, key in (("pass under the interpreter, fail under tilec", "tilec_only_fail"),
                       ("pass under tilec, fail under the interpreter", "interp_only_fail"),
                       ("fail in both modes (tilec's error shown)", "both_fail")):
        groups = sorted(causes[key].items(), key=lambda kv: (-len(kv[1]), kv[0]))
        print(f"\n## {sum(len(v) for v in causes[key].values())} items {title}, by cause")
        for cause, its in groups:
            print(f"{len(its):5d}  {cause}")
            for it in its[:3]:
                print(f"         e.g. {it}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"table": table, "causes": {k: dict(v) for k, v in causes.items()},
                       "args": {k: v for k, v in vars(args).items() if k not in ("k_by_file", "per_function_by_file")}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
