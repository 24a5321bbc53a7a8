"""The Python-side peers of tilec's benchmarks: ``peers.py IMPL KERNEL SHAPE [SHAPE...]``
times IMPL on KERNEL at each SHAPE and prints one JSON line per shape, in the format of
bench/common.h (bench, size, impl, threads, status, median_s, min_s, reps, batch, note) plus
``ms`` and ``max_abs_err``.

IMPL: tilec (the bench kernel through tilec's Triton drop-in: run with TILEC_TRITON=1),
interpreter (the same kernel file run by Triton's interpreter: run with TRITON_INTERPRET=1 and
the real triton), torch (eager), inductor (``torch.compile``, inductor on CPU), numpy.
KERNEL and SHAPE: vector_add N, softmax ROWSxCOLS, layernorm ROWSxCOLS, matmul N — the kernels
of bench/kernels/*.py with their block sizes as scripts/bench.sh compiles them (softmax and,
with BENCH_LN_BLOCK=pow2, layer norm at next_power_of_2(COLS); layer norm otherwise 256).
The LLM kernels (issue 16) take a dtype in the shape: attention DTYPE:ZxHxSEQxD[:causal]
(bench/kernels/attention.py vs torch's scaled_dot_product_attention), rmsnorm_fwd, rmsnorm_bwd,
swiglu_fwd, swiglu_bwd DTYPE:ROWSxCOLS and cross_entropy DTYPE:ROWSxVOCAB (bench/kernels/
{rmsnorm,swiglu,cross_entropy}.py vs the same math in torch eager, autograd for the
backwards); DTYPE fp32 or bf16. Their outputs are checked against a float64 torch reference
on the first call, before the timing (``max_abs_err`` is then relative to the largest
reference value).

Threads: torch.set_num_threads(BENCH_THREADS) for torch and inductor; the interpreter and
numpy run on one thread (their rows say 1). Timing: the protocol of bench/common.h
(bench/peers/numpy_bench.py's ``measure``: warm-up, batches of >= 2 ms, 10-200 samples in a
budget scaled by BENCH_TIME_SCALE); the interpreter, seconds per call, gets one warm-up and
one timed call. Every output is checked against a float64 numpy reference; a wrong result
is reported with status "mismatch"."""

import importlib.util
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS_DIR = os.path.join(HERE, "..", "kernels")
sys.path.insert(0, os.path.join(HERE, "..", "peers"))
from numpy_bench import measure  # noqa: E402  (the shared timing protocol)

EPS = 1e-5
# Largest |result - float64 reference| accepted (inputs as in bench/common.h).
TOLERANCE = {"vector_add": 1e-6, "softmax": 1e-5, "layernorm": 1e-3, "matmul": 1e-2}
NOTES = {
    "torch": {"vector_add": "torch.add(out=)", "softmax": "torch.softmax(out=)",
              "layernorm": "F.layer_norm (allocates y; no mean/rstd outputs)", "matmul": "torch.mm(out=)"},
    "inductor": {"vector_add": "torch.compile: out.copy_(x + y)", "softmax": "torch.compile: out.copy_(torch.softmax(x))",
                 "layernorm": "torch.compile: out.copy_(F.layer_norm(...))", "matmul": "torch.compile: out.copy_(torch.mm(a, b))"},
    "interpreter": dict.fromkeys(["vector_add", "softmax", "layernorm", "matmul"],
                                 "TRITON_INTERPRET=1, bench/kernels source; 1 warm-up + 1 timed call"),
    "tilec": dict.fromkeys(["vector_add", "softmax", "layernorm", "matmul"], "Triton drop-in (TILEC_TRITON=1)"),
    "numpy": dict.fromkeys(["vector_add", "softmax", "layernorm", "matmul"], ""),
}
VADD_BLOCK = 1024                       # as scripts/bench.sh compiles the kernels
MM_BLOCKS = tuple(int(v) for v in os.environ.get("TILEC_BENCH_MATMUL_BLOCKS", "64 128 32 8").split())


def next_pow2(n):
    return 1 << max(0, (n - 1).bit_length())


def uniform(shape, seed, lo, hi):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(np.float32)


def inputs(kernel, shape):
    """Inputs (the ranges of bench/common.h) and the float64 reference of the output."""
    if kernel == "vector_add":
        (n,) = shape
        x, y = uniform(n, 1, -1, 1), uniform(n, 2, -1, 1)
        return [x, y], x.astype(np.float64) + y
    if kernel == "softmax":
        x = uniform(shape, 3, -8, 8)
        e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
        return [x], e / e.sum(1, keepdims=True)
    if kernel == "layernorm":
        rows, cols = shape
        x, w, b = uniform(shape, 4, -2, 3), uniform(cols, 5, 0.5, 1.5), uniform(cols, 6, -0.5, 0.5)
        xd = x.astype(np.float64)
        mean = xd.mean(1, keepdims=True)
        ref = (xd - mean) / np.sqrt(((xd - mean) ** 2).mean(1, keepdims=True) + EPS) * w + b
        return [x, w, b], ref
    if kernel == "matmul":
        (n,) = shape
        a, b = uniform((n, n), 7, -1, 1), uniform((n, n), 8, -1, 1)
        return [a, b], a.astype(np.float64) @ b
    raise SystemExit(f"unknown kernel {kernel}")


def load_kernel(kernel):
    """bench/kernels/<kernel>.py, imported afresh (its `import triton` is tilec's drop-in or
    the real triton, whichever the environment selects)."""
    spec = importlib.util.spec_from_file_location(f"bench_{kernel}", os.path.join(KERNELS_DIR, f"{kernel}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def triton_fn(kernel, shape, xs, out):
    """A launch of the bench kernel for tilec (drop-in) or Triton's interpreter."""
    import torch  # the interpreter wants torch tensors; tilec takes them too
    mod = load_kernel(kernel)
    t = [torch.from_numpy(x) for x in xs]
    if kernel == "vector_add":
        n = shape[0]
        return lambda: mod.vadd_kernel[((n + VADD_BLOCK - 1) // VADD_BLOCK,)](  # noqa: E731
            t[0], t[1], out, n, BLOCK_SIZE=VADD_BLOCK)
    if kernel == "softmax":
        rows, cols = shape
        return lambda: mod.softmax_kernel[(rows,)](out, t[0], cols, cols, rows, cols,  # noqa: E731
                                                   BLOCK_SIZE=next_pow2(cols))
    if kernel == "layernorm":
        rows, cols = shape
        block = next_pow2(cols) if os.environ.get("BENCH_LN_BLOCK") == "pow2" else 256
        mean, rstd = torch.empty(rows), torch.empty(rows)
        return lambda: mod.layernorm_fwd_kernel[(rows,)](t[0], out, t[1], t[2], mean, rstd, cols, cols,  # noqa: E731
                                                         EPS, BLOCK_SIZE=block)
    n = shape[0]
    bm, bn, bk, gm = MM_BLOCKS
    grid = (((n + bm - 1) // bm) * ((n + bn - 1) // bn),)
    return lambda: mod.matmul_kernel[grid](t[0], t[1], out, n, n, n, n, 1, n, 1, n, 1,  # noqa: E731
                                           BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_SIZE_M=gm)


def torch_fn(kernel, xs, out, compiled):
    """torch eager (into `out` where torch has an out= form) or torch.compile (inductor).
    The compiled functions copy into a preallocated `out` (inductor stores the result there):
    returning a fresh tensor would time the allocator too — a new 64 MiB tensor costs as much
    as the vector add itself, page faults included."""
    import torch
    import torch.nn.functional as F
    t = [torch.from_numpy(x) for x in xs]
    holder = {}
    if compiled:
        f = {"vector_add": lambda x, y, o: o.copy_(x + y), "softmax": lambda x, o: o.copy_(torch.softmax(x, -1)),
             "layernorm": lambda x, w, b, o: o.copy_(F.layer_norm(x, (x.shape[-1],), w, b, EPS)),
             "matmul": lambda a, b, o: o.copy_(torch.mm(a, b))}[kernel]
        f = torch.compile(f, dynamic=False)
        return (lambda: f(*t, out)), None  # noqa: E731
    if kernel == "vector_add":
        return (lambda: torch.add(t[0], t[1], out=out)), None  # noqa: E731
    if kernel == "softmax":
        return (lambda: torch.softmax(t[0], dim=1, out=out)), None  # noqa: E731
    if kernel == "layernorm":
        def run():
            holder["y"] = F.layer_norm(t[0], (t[0].shape[1],), t[1], t[2], EPS)
        return run, holder
    return (lambda: torch.mm(t[0], t[1], out=out)), None  # noqa: E731


def numpy_fn(kernel, xs, out):
    if kernel == "vector_add":
        return lambda: np.add(xs[0], xs[1], out=out)  # noqa: E731
    if kernel == "softmax":
        def run():
            np.subtract(xs[0], xs[0].max(axis=1, keepdims=True), out=out)
            np.exp(out, out=out)
            np.divide(out, out.sum(axis=1, keepdims=True), out=out)
        return run
    if kernel == "layernorm":
        x, w, b = xs

        def run():
            np.subtract(x, x.mean(axis=1, keepdims=True), out=out)
            rstd = 1.0 / np.sqrt((out * out).mean(axis=1, keepdims=True) + np.float32(EPS))
            np.multiply(out, rstd, out=out)
            np.multiply(out, w, out=out)
            np.add(out, b, out=out)
        return run
    return lambda: np.matmul(xs[0], xs[1], out=out)  # noqa: E731


def once_timed(fn):
    """Warm-up and one timed call: the interpreter takes seconds per call."""
    fn()
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    return {"median_s": t, "min_s": t, "reps": 1, "batch": 1}


def bench_one(impl, kernel, size, threads):
    shape = tuple(int(s) for s in size.split("x"))
    xs, ref = inputs(kernel, shape)
    out_shape = ref.shape
    line = {"bench": kernel, "size": size, "impl": impl, "threads": threads}
    note = NOTES[impl][kernel]
    if impl in ("tilec", "interpreter", "torch", "inductor"):
        import torch
        out = torch.empty(out_shape)
        holder = None
        if impl in ("tilec", "interpreter"):
            fn = triton_fn(kernel, shape, xs, out)
        else:
            fn, holder = torch_fn(kernel, xs, out, impl == "inductor")
        res = once_timed(fn) if impl == "interpreter" else measure(fn, 2.0 if kernel == "matmul" else 1.0)
        result = (holder["y"] if holder else out).numpy()
    else:
        out = np.empty(out_shape, np.float32)
        fn = numpy_fn(kernel, xs, out)
        res = measure(fn, 2.0 if kernel == "matmul" else 1.0)
        result = out
    err = float(np.max(np.abs(result.astype(np.float64) - ref)))
    line["status"] = "ok" if err <= TOLERANCE[kernel] else "mismatch"
    line.update(res)
    if line["status"] == "mismatch":
        note = f"max abs error {err:.3g} (tolerance {TOLERANCE[kernel]:g})" + (f"; {note}" if note else "")
    if note:
        line["note"] = note
    line.update({"kernel": kernel, "ms": res["median_s"] * 1e3, "max_abs_err": err})
    return line


# ---- LLM kernels (issue 16): attention, RMSNorm, SwiGLU, cross entropy ----------------------
LLM_KERNELS = ("attention", "rmsnorm_fwd", "rmsnorm_bwd", "swiglu_fwd", "swiglu_bwd", "cross_entropy")
LLM_TOLERANCE = {"fp32": 1e-4, "bf16": 3e-2}   # max |got - ref| / max |ref|
# BLOCK_M, BLOCK_N: the best of 32..128 on this machine's AVX-512 (Zen 4), 1 thread, SEQ 2048
ATTN_BLOCKS = {"fp32": (128, 64), "bf16": (128, 128)}
RMS_EPS = 1e-6
IGNORE_INDEX = -100
for _impl, _notes in (("torch", {"attention": "F.scaled_dot_product_attention",
                                 "rmsnorm_fwd": "eager Llama RMSNorm: x.float(), pow(2).mean, rsqrt, .to(dtype) * w",
                                 "rmsnorm_bwd": "autograd.grad of the eager forward (dx, dw)",
                                 "swiglu_fwd": "F.silu(a) * b", "swiglu_bwd": "autograd.grad of F.silu(a) * b (da, db)",
                                 "cross_entropy": "F.cross_entropy + autograd.grad (loss and dlogits)"}),
                      ("tilec", dict.fromkeys(LLM_KERNELS, "Triton drop-in (TILEC_TRITON=1)"))):
    NOTES[_impl].update(_notes)
for _impl in ("inductor", "interpreter", "numpy"):
    NOTES[_impl].update(dict.fromkeys(LLM_KERNELS, ""))


def llm_setup(impl, kernel, size, threads):
    """(fn, result(), reference, dtype) for an LLM kernel: fn runs one call; result() gives the
    outputs (a tuple of tensors) after the first call; reference is their float64 values."""
    import torch
    import torch.nn.functional as F
    parts = size.split(":")
    dt = {"fp32": torch.float32, "bf16": torch.bfloat16}[parts[0]]
    dims = tuple(int(s) for s in parts[1].split("x"))
    g = torch.Generator().manual_seed(11)
    rnd = lambda *shape, scale=1.0: (torch.randn(*shape, generator=g) * scale).to(dt)  # noqa: E731
    d64 = lambda t: t.detach().double()  # noqa: E731
    mod = load_kernel(kernel.split("_")[0] if kernel != "cross_entropy" else kernel) if impl == "tilec" else None
    if kernel == "attention":
        Z, H, L, D = dims
        causal = len(parts) > 2 and parts[2] == "causal"
        q, k, v = rnd(Z, H, L, D), rnd(Z, H, L, D), rnd(Z, H, L, D)
        s = torch.einsum("zhmd,zhnd->zhmn", d64(q), d64(k)) / D ** 0.5
        if causal:
            s = s.masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), float("-inf"))
        ref = (torch.softmax(s, -1) @ d64(v),)
        if impl == "torch":
            out = {}

            def fn():
                out["o"] = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            return fn, lambda: (out["o"],), ref
        bm, bn = ATTN_BLOCKS[parts[0]]
        o, lse = torch.empty_like(q), torch.empty(Z * H, L)
        return (lambda: mod.attn_fwd_kernel[(L // bm, Z * H)](  # noqa: E731
            q, k, v, o, lse, D ** -0.5, q.stride(0), q.stride(1), q.stride(2), H, L,
            HEAD_DIM=D, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal)), lambda: (o,), ref
    if kernel.startswith("rmsnorm"):
        R, N = dims
        x, w = rnd(R, N), (1 + 0.1 * torch.randn(N, generator=g)).to(dt)
        x.requires_grad_(kernel == "rmsnorm_bwd")
        w.requires_grad_(kernel == "rmsnorm_bwd")
        xd, wd = d64(x).requires_grad_(), d64(w).requires_grad_()
        rstd_ref = torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + RMS_EPS)
        y_ref = xd * rstd_ref * wd

        def eager(x, w):
            xf = x.float()
            return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + RMS_EPS)).to(x.dtype)
        block = next_pow2(N)
        if kernel == "rmsnorm_fwd":
            ref = (y_ref.detach(),)
            if impl == "torch":
                out = {}

                def fn():
                    out["y"] = eager(x, w)
                return fn, lambda: (out["y"],), ref
            y, rstd = torch.empty_like(x), torch.empty(R)
            return (lambda: mod.rmsnorm_fwd_kernel[(R,)](y, x, w, rstd, N, N, RMS_EPS,  # noqa: E731
                                                         BLOCK_SIZE=block)), lambda: (y,), ref
        dy = rnd(R, N)
        ref = torch.autograd.grad(y_ref, (xd, wd), d64(dy))
        if impl == "torch":
            y = eager(x, w)
            out = {}

            def fn():
                out["g"] = torch.autograd.grad(y, (x, w), dy, retain_graph=True)
            return fn, lambda: out["g"], ref
        with torch.no_grad():
            xf = x.float()
            rstd = torch.rsqrt(xf.pow(2).mean(-1) + RMS_EPS)   # what the forward kernel saved
        progs = min(R, 4 * threads)
        per = (R + progs - 1) // progs
        dx, part = torch.empty_like(x), torch.empty(progs, N)
        out = {}

        def fn():
            mod.rmsnorm_bwd_kernel[(progs,)](dx, dy, x, w, rstd, part, N, R, N, per, BLOCK_SIZE=block)
            out["dw"] = part.sum(0)
        return fn, lambda: (dx, out["dw"]), ref
    if kernel.startswith("swiglu"):
        R, N = dims
        a, b = rnd(R, N, scale=2.0), rnd(R, N)
        ad, bd = d64(a).requires_grad_(), d64(b).requires_grad_()
        c_ref = F.silu(ad) * bd
        block = next_pow2(N)
        if kernel == "swiglu_fwd":
            ref = (c_ref.detach(),)
            if impl == "torch":
                out = {}

                def fn():
                    out["c"] = F.silu(a) * b
                return fn, lambda: (out["c"],), ref
            c = torch.empty_like(a)
            return (lambda: mod.swiglu_fwd_kernel[(R,)](c, a, b, N, N, BLOCK_SIZE=block)), lambda: (c,), ref  # noqa: E731
        dc = rnd(R, N)
        ref = torch.autograd.grad(c_ref, (ad, bd), d64(dc))
        if impl == "torch":
            a.requires_grad_()
            b.requires_grad_()
            c = F.silu(a) * b
            out = {}

            def fn():
                out["g"] = torch.autograd.grad(c, (a, b), dc, retain_graph=True)
            return fn, lambda: out["g"], ref
        da, db = torch.empty_like(a), torch.empty_like(b)
        return (lambda: mod.swiglu_bwd_kernel[(R,)](da, db, dc, a, b, N, N, BLOCK_SIZE=block)), \
            lambda: (da, db), ref  # noqa: E731
    R, V = dims   # cross_entropy
    x = rnd(R, V, scale=2.0)
    y = torch.randint(0, V, (R,), generator=g)
    y[::7] = IGNORE_INDEX                         # some ignored rows, as padding gives
    xd = d64(x).requires_grad_()
    loss_ref = F.cross_entropy(xd, y, ignore_index=IGNORE_INDEX)
    ref = (loss_ref.detach().reshape(1), torch.autograd.grad(loss_ref, xd)[0])
    if impl == "torch":
        xt = x.clone().requires_grad_()
        out = {}

        def fn():
            loss = F.cross_entropy(xt, y, ignore_index=IGNORE_INDEX)
            out["r"] = (loss.detach().reshape(1), torch.autograd.grad(loss, xt)[0])
        return fn, lambda: out["r"], ref
    n_valid = int((y != IGNORE_INDEX).sum())
    xl = x.clone()   # the gradient overwrites the logits (in place, as Liger does)
    loss_rows = torch.empty(R)
    out = {}

    def fn():
        mod.cross_entropy_kernel[(R,)](xl, xl, y, loss_rows, V, V, n_valid, IGNORE_INDEX, BLOCK_SIZE=CE_BLOCK)
        out["loss"] = loss_rows.sum().reshape(1)
    return fn, lambda: (out["loss"], xl), ref


CE_BLOCK = 4096


def bench_llm(impl, kernel, size, threads):
    """One LLM-kernel row: first call checked against the float64 reference, then timed."""
    line = {"bench": kernel, "size": size, "impl": impl, "threads": threads, "kernel": kernel}
    if impl not in ("tilec", "torch"):
        line.update(status="skipped", note="only tilec and torch eager run the LLM kernels")
        return line
    fn, result, ref = llm_setup(impl, kernel, size, threads)
    fn()
    err = max(float((r.double() - e).abs().max() / e.abs().max().clamp_min(1e-30)) for r, e in zip(result(), ref))
    tol = LLM_TOLERANCE[size.split(":")[0]]
    if not err <= tol:   # a wrong result is not timed
        line.update(status="mismatch", note=f"relative max error {err:.3g} (tolerance {tol:g}); {NOTES[impl][kernel]}",
                    max_abs_err=err)
        return line
    res = measure(fn, 2.0 if kernel == "attention" else 1.0)
    line.update(res)
    line.update({"status": "ok", "note": NOTES[impl][kernel], "ms": res["median_s"] * 1e3, "max_abs_err": err})
    return line


def bench_pair(kernel, size, threads, rounds):
    """tilec and torch eager on one LLM-kernel shape in this process (run with TILEC_TRITON=1):
    both checked, then timed alternately `rounds` times; medians over the rounds."""
    import torch
    torch.set_num_threads(threads)
    line = {"bench": kernel, "size": size, "impl": "pair", "threads": threads, "kernel": kernel, "rounds": rounds}
    tol = LLM_TOLERANCE[size.split(":")[0]]
    fns = {}
    for impl in ("tilec", "torch"):
        fn, result, ref = llm_setup(impl, kernel, size, threads)
        fn()
        err = max(float((r.double() - e).abs().max() / e.abs().max().clamp_min(1e-30)) for r, e in zip(result(), ref))
        line[f"{impl}_err"] = err
        if not err <= tol:
            line.update(status="mismatch", note=f"{impl}: relative max error {err:.3g} (tolerance {tol:g})")
            return line
        fns[impl] = fn
    ms = {"tilec": [], "torch": []}
    for _ in range(rounds):
        for impl in ("tilec", "torch"):
            ms[impl].append(measure(fns[impl], 1.0)["median_s"] * 1e3)
    med = lambda xs: sorted(xs)[len(xs) // 2] if len(xs) % 2 else 0.5 * sum(sorted(xs)[len(xs) // 2 - 1:len(xs) // 2 + 1])  # noqa: E731
    line.update(status="ok", tilec_ms=med(ms["tilec"]), torch_ms=med(ms["torch"]), tilec_runs=ms["tilec"],
                torch_runs=ms["torch"], note=NOTES["torch"][kernel])
    line["ratio"] = line["torch_ms"] / line["tilec_ms"]
    return line


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "pair":
        # peers.py pair KERNEL SHAPE...: tilec vs torch eager, alternating, in one process
        threads = int(os.environ.get("BENCH_THREADS") or os.environ.get("TILEC_NUM_THREADS") or os.cpu_count())
        for size in sys.argv[3:]:
            try:
                line = bench_pair(sys.argv[2], size, threads, int(os.environ.get("BENCH_ROUNDS", "3")))
            except Exception as e:  # noqa: BLE001
                line = {"bench": sys.argv[2], "size": size, "impl": "pair", "status": "error",
                        "note": f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:300]}
            print(json.dumps(line), flush=True)
        return
    if len(sys.argv) < 4:
        raise SystemExit("usage: peers.py tilec|interpreter|torch|inductor|numpy "
                         "vector_add|softmax|layernorm|matmul|" + "|".join(LLM_KERNELS) + " SHAPE [SHAPE...]")
    impl, kernel, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
    if impl not in NOTES:
        raise SystemExit(f"unknown implementation {impl}")
    threads = 1
    if impl in ("torch", "inductor", "tilec"):
        threads = int(os.environ.get("BENCH_THREADS") or os.environ.get("TILEC_NUM_THREADS") or os.cpu_count())
        if impl != "tilec":
            import torch
            torch.set_num_threads(threads)
    for size in sizes:
        try:
            line = (bench_llm if kernel in LLM_KERNELS else bench_one)(impl, kernel, size, threads)
        except Exception as e:  # noqa: BLE001 — a peer that cannot run becomes its row's note
            why = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:300]
            line = {"bench": kernel, "size": size, "impl": impl, "threads": threads, "status": "error",
                    "note": why, "kernel": kernel}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
