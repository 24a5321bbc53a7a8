"""Cases of the lang family 'debug': device_print / print, device_assert / assert, static_assert /
static_print (its kernels are in debug/kernels.py)."""
import re

import numpy as np

from harness import add, diag, func, compare, line_of, run_kernel


PRINT_RE = re.compile(r"^pid \((\d+), (\d+), (\d+)\)(?: idx \(([\d, ]*)\))?(.*?)(?:\(operand (\d+)\) )?(\S+)$")


def _parse_prints(out):
    """stdout of device_print (Triton's format: a line per element and operand,
    "pid (X, Y, Z) idx (I, J) NAME: (operand N) V") -> {(pid, idx, NAME): [values by
    operand]}, or an error string."""
    got = {}
    for line in out.splitlines():
        m = PRINT_RE.match(line)
        if not m:
            return "unexpected stdout line %r" % line
        pid = tuple(int(v) for v in m.group(1, 2, 3))
        idx = tuple(int(v) for v in m.group(4).split(",")) if m.group(4) else ()
        key = (pid, idx, m.group(5).strip().rstrip(":"))
        vals = got.setdefault(key, [])
        operand = int(m.group(6) or 0)
        if operand != len(vals):
            return "line printed twice or out of order: %r" % line
        vals.append(m.group(7))
    return got


def _expect_prints(got, exp):
    """exp: {(pid, idx, prefix): [numbers]}; values compare as floats (ints exactly)."""
    if isinstance(got, str):
        return got
    if set(got) != set(exp):
        miss = sorted(set(exp) - set(got))[:3]
        extra = sorted(set(got) - set(exp))[:3]
        return "printed lines differ: missing %s, unexpected %s" % (miss, extra)
    for k, vals in exp.items():
        g = got[k]
        if len(g) != len(vals):
            return "%s: printed %s, expected %s" % (k, g, vals)
        for s, v in zip(g, vals):
            try:
                ok = (int(s, 0) == v) if isinstance(v, int) else np.isclose(float(s), v, rtol=1e-6)
            except ValueError:
                ok = False
            if not ok:
                return "%s: printed %s, expected %s" % (k, g, vals)
    return None


def _print_case(kernel, args, grid, exp, threads=2, file="debug/kernels.py"):
    rc, out, err, _ = run_kernel(file, kernel, grid, args, [], extra=["--threads", str(threads)])
    if rc != 0:
        return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
    return _expect_prints(_parse_prints(out), exp)


def _assert_case(kernel, args, grid, outs, fail, line_text, pids=None, msg=None, expect=None, file="debug/kernels.py"):
    rc, out, err, res = run_kernel(file, kernel, grid, args, outs)
    if not fail:
        if rc != 0:
            return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
        for o, e in (expect or {}).items():
            m = compare(o, res[o], e, 0, 0)
            if m:
                return m
        return None
    if rc != 1:
        return "exit status %s, expected 1 (stderr %r)" % (rc, err.strip()[:200])
    where = "%s:%d" % (file, line_of(file, line_text))
    if where not in err:
        return "stderr lacks %r: %r" % (where, err.strip()[:300])
    # tilec names the program; on a GPU, CUDA's __assertfail names the CTA, which is the program
    m = re.search(r"program \((\d+), (\d+), (\d+)\)", err) or re.search(r"block: \[(\d+),(\d+),(\d+)\]", err)
    if not m or (pids is not None and tuple(int(v) for v in m.group(1, 2, 3)) not in pids):
        return "stderr does not name a failing program %s: %r" % (pids, err.strip()[:300])
    if msg and msg not in err:
        return "stderr lacks the message %r: %r" % (msg, err.strip()[:300])
    return None


def cases():
    F = "debug"
    K = "debug/kernels.py"
    x = np.array([1.5, -2.0, 0.25, 1e10], np.float32)
    k = np.array([0, -1, 255, 7], np.int32)
    exp = {}
    for px in range(3):
        for py in range(2):
            pid = (px, py, 0)
            for i in range(4):
                exp[(pid, (i,), "x")] = [float(x[i])]
                exp[(pid, (i,), "two")] = [float(x[i]), float(k[i])]
            exp[(pid, (), "scalar")] = [py * 10 + px]
    func(F, "device_print_1d_scalar_grid3x2", lambda: _print_case(
        "print_kernel", dict(x_ptr=x, k_ptr=k, N=4), (3, 2), exp))

    # hex=True prints the bits of the value's own width (Triton: 0x%08x for 32-bit ints)
    def hex_case():
        rc, out, err, _ = run_kernel(K, "print_hex_kernel", (1,), dict(k_ptr=k, N=4), [])
        if rc != 0:
            return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
        got = _parse_prints(out)
        if isinstance(got, str):
            return got
        for i in range(4):
            for pre, bits in (("hexk", 32), ("hex16", 16)):
                s = got.get(((0, 0, 0), (i,), pre), ["?"])[0]
                want = int(k[i]) & ((1 << bits) - 1)
                if not re.fullmatch(r"0x[0-9a-f]{1,%d}" % (bits // 4), s) or int(s, 16) != want:
                    return "%s of %d printed %r, expected 0x%0*x" % (pre, k[i], s, bits // 4, want)
        return None
    func(F, "device_print_hex_width", hex_case)
    k2 = np.arange(8, dtype=np.int32).reshape(2, 4) * 3 - 5
    func(F, "device_print_2d_idx", lambda: _print_case(
        "print2d_kernel", dict(k_ptr=k2, M=2, N=4), (1,),
        {((0, 0, 0), (i, j), "grid"): [int(k2[i, j])] for i in range(2) for j in range(4)}))
    func(F, "device_print_mixed_dtypes", lambda: _print_case(
        "print_mixed_kernel", dict(x_ptr=x, k_ptr=k, N=4), (1,),
        {((0, 0, 0), (i,), "xk"): [float(x[i]), int(k[i])] for i in range(4)}))
    xp = np.arange(4, dtype=np.float32)
    func(F, "device_print_assert", lambda: _print_case(
        "device_print_kernel", dict(x_ptr=xp, out_ptr=np.zeros(4, np.float32), N=4), (1,),
        {((0, 0, 0), (i,), "x"): [float(i)] for i in range(4)}))
    a = np.array([1, 2, 3, 4, 5, -6, 7, 8, 9, 10], np.int32)
    func(F, "device_assert_fails_pid_line", lambda: _assert_case(
        "assert_kernel", dict(x_ptr=a, out_ptr=np.zeros(10, np.int32), n=10, BLOCK=4), (3,), [], True,
        "tl.device_assert(x >= 0", pids={(1, 0, 0)}, msg="x must be non-negative"))
    b = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, -10, -3, -5], np.int32)
    func(F, "device_assert_masked_passes", lambda: _assert_case(
        "assert_kernel", dict(x_ptr=b, out_ptr=np.zeros(12, np.int32), n=9, BLOCK=4), (3,), ["out_ptr"], False,
        None, expect={"out_ptr": np.concatenate([b[:9] * 2, np.zeros(3, np.int32)])}))
    func(F, "assert_statement_fails", lambda: _assert_case(
        "assert_stmt_kernel", dict(x_ptr=a, out_ptr=np.zeros(10, np.int32), limit=8), (10,), [], True,
        "assert v < limit", pids={(7, 0, 0), (8, 0, 0), (9, 0, 0)}, msg="value over the limit"))
    func(F, "assert_statement_passes", lambda: _assert_case(
        "assert_stmt_kernel", dict(x_ptr=a, out_ptr=np.zeros(10, np.int32), limit=11), (10,), ["out_ptr"], False,
        None, expect={"out_ptr": a}))
    func(F, "device_assert_false_not_reached", lambda: _assert_case(
        "const_false_assert_kernel", dict(x_ptr=np.zeros(4, np.int32), N=1), (1,), ["x_ptr"], False, None,
        expect={"x_ptr": np.array([1, 0, 0, 0], np.int32)}))
    func(F, "device_assert_false_reached", lambda: _assert_case(
        "const_false_assert_kernel", dict(x_ptr=np.zeros(4, np.int32), N=3), (3,), [], True,
        'tl.device_assert(False, "only the last program', pids={(0, 0, 0), (1, 0, 0)},
        msg="only the last program gets here"))
    xs = np.arange(8, dtype=np.int32) - 3
    add(F, "static_assert_passes", K, "static_kernel", (1,),
        dict(x_ptr=xs, out_ptr=np.zeros(8, np.int32), BLOCK=8, SCALE=3), ["out_ptr"],
        lambda a: {"out_ptr": a["x_ptr"] * 3})
    diag(F, "static_assert_fails", K, "static_kernel", "*i32, *i32, 8, 1", expect=("SCALE must exceed 1",),
         line="tl.static_assert(SCALE > 1")

    def static_print():
        # static_assert_passes runs the same specialization: from the cache it prints nothing
        rc, out, err, _ = run_kernel(K, "static_kernel", (1,), dict(x_ptr=xs, out_ptr=np.zeros(8, np.int32),
                                                                     BLOCK=8, SCALE=3), [], extra=["--no-cache"])
        if rc != 0:
            return "tilec exited with %s" % rc
        if not re.search(r"static_kernel BLOCK =\s*8", out + err):
            return "tl.static_print printed nothing (stdout %r, stderr %r)" % (out[:100], err[:100])
        return None
    func(F, "static_print_output", static_print)

    def format_case():
        kk = (np.arange(32, dtype=np.int32) - 3).reshape(2, 16) * 37
        rc, out, err, _ = run_kernel(K, "print_format_kernel", (1,), dict(k_ptr=kk), [])
        if rc != 0:
            return "tilec exited with %s: %s" % (rc, (err.strip().splitlines() or [""])[0])
        want = []
        for i in range(2):
            for j in range(16):
                v = int(kk[i, j])
                want += ["pid (0, 0, 0) idx (%d, %2d) k: %d" % (i, j, v),
                         "pid (0, 0, 0) idx (%d, %2d): (operand 0) %d" % (i, j, v),
                         "pid (0, 0, 0) idx (%d, %2d): (operand 1) %d" % (i, j, v & 0xFF),
                         "pid (0, 0, 0) idx (%d, %2d) h: 0x%04x" % (i, j, v & 0xFFFF),
                         "pid (0, 0, 0) idx (%d, %2d) f: %f" % (i, j, float(np.float16(v * 0.5)))]
        want.append("pid (0, 0, 0) text only")
        lines = out.splitlines()
        if sorted(lines) != sorted(want):
            miss = sorted(set(want) - set(lines))[:3]
            extra = sorted(set(lines) - set(want))[:3]
            return "printed lines differ: missing %s, unexpected %s" % (miss, extra)
        return None
    func(F, "device_print_tritons_format", format_case)

    # tiles above rank 4: every index printed and reported
    k5 = np.arange(16, dtype=np.int32) * 7 - 3
    func(F, "device_print_5d_idx", lambda: _print_case(
        "print5d_kernel", dict(k_ptr=k5), (1,),
        {((0, 0, 0), tuple(int(v) for v in np.unravel_index(i, (2, 1, 2, 2, 2))), "five"): [int(k5[i])]
         for i in range(16)}))

    def report_case(kernel, args, extra, want):
        rc, out, err, _ = run_kernel(K, kernel, (1,), args, [], extra=extra)
        if rc != 1:
            return "exit status %s, expected 1 (stderr %r)" % (rc, err.strip()[:300])
        missing = [w for w in want if w not in err]
        return "stderr lacks %r: %r" % (missing, err.strip()[:300]) if missing else None
    func(F, "device_assert_6d_index", lambda: report_case(
        "assert6d_kernel", dict(x_ptr=np.arange(64, dtype=np.int32)), [],
        ["x hit 37", "tile index [1, 0, 0, 1, 0, 1]"]))
    func(F, "check_bounds_5d_index", lambda: report_case(
        "oob5d_kernel", dict(x_ptr=np.zeros(50, np.float32), out_ptr=np.zeros(64, np.float32)), ["--check", "bounds"],
        ["load from 'x_ptr' at element 50 is out of bounds (buffer has 50 elements)", "tile index [1, 1, 0, 0, 2]"]))
