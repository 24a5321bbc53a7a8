#!/usr/bin/env python3
"""Times each GPU bench kernel through tilec, through Triton (same source) and through torch.

usage: run.py DIR [--out REPORT.md] [--only NAME[,NAME]] [--dry-run] [--timeout S]
       (DIR: the pack bench/gpu/pack.sh built on a machine with tilec; default --out
        bench/gpu/REPORT.md, and REPORT.json beside it)

On a machine with an NVIDIA GPU, Python 3, torch (CUDA) and triton; no LLVM/MLIR, no tilec build.
For every configuration of bench/gpu/configs.py (the pack's manifest.json says which were
packed), one child process (`run.py DIR --one NAME`, LD_LIBRARY_PATH=DIR/lib) does, in this order:
  - allocates the inputs as torch CUDA tensors (fixed seed) and computes a float64 reference
    on the GPU;
  - torch's equivalent, then Triton compiling the same bench/kernels/FILE kernel (same
    constexprs, num_warps and num_stages: configs.py's, 3 = Triton's default), then tilec's library of that
    specialization through ctypes (KERNEL_launch_async on torch's current stream, tensors'
    data_ptr() as device pointers);
  - for each: clears the outputs (NaN or a sentinel), runs once, compares with the reference
    (max |got - ref| / max |ref|, per implementation tolerance), then times it with
    triton.testing.do_bench (median ms; its default warm-up and repetitions, L2 flushed
    between calls); prints one JSON line per implementation as soon as it has it.
For the tl.dot rows (configs.py's uses_dot), a second child times Triton again with
DISABLE_MMA_V3=1 (its own Triton cache): Triton's mma.sync code, the instruction family tilec
emits for sm_80/sm_90 (and on sm_90a for the dots it keeps off wgmma: tf32, int8, attention),
beside Triton's default (wgmma on sm_90), so a report tells the gap the instruction family
explains from the one tilec's code does. Each Triton line records which MMA its PTX
used (wgmma, mma.sync or none).
After its timing, tilec and Triton are each launched 50 times back to back without a wait:
the host's time a launch goes into the notes (a launch that waited for its kernel shows the
kernel's time there).
tilec runs last: a kernel that faults (an illegal address poisons the CUDA context) or hangs
only loses its own line, which the parent reports as "crashed" or "timed out". The parent
writes the markdown report (GPU, driver, CUDA, torch, triton, tilec versions, date, the table)
and the JSON of every line.

--dry-run (no GPU needed, e.g. here with torch CPU and any triton): the same children, with
"meta" tensors: imports torch, triton and every kernel module, loads the pack's libraries with
ctypes, resolves each launch symbol, builds both argument lists, checks every argument against
the packed signature (pointer dtype and 16-byte alignment, ":16" and ":1" integers, constexpr
values) and Triton's parameter list; where no CUDA driver can be loaded, also calls each tilec
launch once and expects the runtime's "no driver" error (the ctypes marshalling runs).
"""
import argparse
import ctypes
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

from configs import BY_NAME, CONFIGS, DEFAULT_STAGES, stages, uses_dot  # noqa: E402

TAG = "@@bench "   # a child's result lines start with this
IMPLS = ("torch", "triton", "tilec")
MMA_SYNC = "triton_mma_sync"   # Triton with DISABLE_MMA_V3=1 (the tl.dot rows' second child)
FAKE_PTR = 1 << 20  # a 16-byte aligned stand-in for a meta tensor's address (dry run)

CTYPES = {"float": ctypes.c_float, "double": ctypes.c_double, "bool": ctypes.c_bool,
          "int8_t": ctypes.c_int8, "int16_t": ctypes.c_int16, "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64,
          "uint8_t": ctypes.c_uint8, "uint16_t": ctypes.c_uint16, "uint32_t": ctypes.c_uint32,
          "uint64_t": ctypes.c_uint64}


def emit(obj):
    print(TAG + json.dumps(obj), flush=True)


# ---- the pack's libraries ------------------------------------------------------------------
def load_pack_libs(pack, man):
    """Loads DIR/lib's libraries globally (dependencies first, as the manifest orders them), so
    the kernel libraries' DT_NEEDED resolve to them; returns libtilec-runtime's handle."""
    rt = None
    for name in man["libs"]:
        h = ctypes.CDLL(os.path.join(pack, "lib", name), mode=ctypes.RTLD_GLOBAL)
        if name.startswith("libtilec-runtime"):
            rt = h
    if rt is None:
        raise RuntimeError("the pack has no libtilec-runtime")
    rt.tilec_last_error.restype = ctypes.c_char_p
    return rt


def launch_function(pack, entry):
    lib = ctypes.CDLL(os.path.join(pack, entry["lib"]), mode=ctypes.RTLD_GLOBAL)
    fn = getattr(lib, entry["symbol"])
    fn.restype = ctypes.c_int
    types = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
    for p in entry["params"]:
        t = ctypes.c_void_p if p["ctype"].endswith("*") else CTYPES.get(p["ctype"])
        if t is None:
            raise RuntimeError("%s: parameter %s has C type %s, which run.py does not map" % (
                entry["symbol"], p["name"], p["ctype"]))
        types.append(t)
    fn.argtypes = types
    return fn


# ---- each configuration: inputs, reference, torch's equivalent -------------------------------
class Case:
    """args: every kernel parameter by name (tensors, Python scalars, constexprs); grid;
    outputs(): the kernels' results to check; clear(): resets them before a run (NaN or a
    sentinel, inputs a kernel overwrites restored); torch_fn() returns torch's results;
    reference() their float64 values; work: bytes (GB/s) or FLOPs (TFLOP/s)."""

    def __init__(self, **kw):
        self.note = ""
        self.tol = {}
        self.__dict__.update(kw)


def fill_bad(*ts):
    for t in ts:
        t.fill_(float("nan") if t.is_floating_point() else -12345)


def setup(cfg, dev):
    import torch
    import torch.nn.functional as F
    name, dims = cfg["name"], cfg["dims"]
    dt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "i8": torch.int8}[cfg["dtype"]]
    g = torch.Generator(device="cpu").manual_seed(31)

    def rnd(*shape, scale=1.0, dtype=dt):
        if dev == "meta":
            return torch.empty(*shape, dtype=dtype, device="meta")
        return (torch.randn(*shape, generator=g) * scale).to(dtype).to(dev)

    def empty(*shape, dtype=dt):
        return torch.empty(*shape, dtype=dtype, device=dev)
    fp32_tol = {"tilec": 1e-4, "triton": 1e-4, "torch": 1e-4}
    low_tol = {"tilec": 2e-2, "triton": 2e-2, "torch": 2e-2}
    tol = low_tol if cfg["dtype"] in ("bf16", "fp16") else fp32_tol
    sig_block = int(cfg["signature"].split(",")[-1]) if cfg["signature"].split(",")[-1].strip().isdigit() else None

    if name == "vector_add":
        n, = dims
        x, y, o, o_t = rnd(n), rnd(n), empty(n), empty(n)
        return Case(args=dict(x_ptr=x, y_ptr=y, out_ptr=o, n=n, BLOCK_SIZE=sig_block), grid=((n + 1023) // 1024,),
                    outputs=lambda: (o,), clear=lambda: fill_bad(o),
                    torch_fn=lambda: (torch.add(x, y, out=o_t),), reference=lambda: (x.double() + y.double(),),
                    work=3 * 4 * n, unit="GB/s", tol={k: 1e-6 for k in IMPLS}, note="bytes: read x, y, write out")
    if name == "softmax_rows":
        R, N = dims
        bm = int(cfg["signature"].split(",")[-2])
        x, o = rnd(R, N), empty(R, N)
        return Case(args=dict(out_ptr=o, in_ptr=x, in_row_stride=N, out_row_stride=N, n_rows=R, n_cols=N,
                              BLOCK_M=bm, BLOCK_SIZE=sig_block), grid=((R + bm - 1) // bm,), outputs=lambda: (o,),
                    clear=lambda: fill_bad(o), torch_fn=lambda: (torch.softmax(x, -1),),
                    reference=lambda: (torch.softmax(x.double(), -1),),
                    work=2 * 4 * R * N, unit="GB/s", tol=tol, note="bytes: read x, write y")
    if name.startswith("softmax"):
        R, N = dims
        x, o = rnd(R, N), empty(R, N)
        return Case(args=dict(out_ptr=o, in_ptr=x, in_row_stride=N, out_row_stride=N, n_rows=R, n_cols=N,
                              BLOCK_SIZE=sig_block), grid=(R,), outputs=lambda: (o,), clear=lambda: fill_bad(o),
                    torch_fn=lambda: (torch.softmax(x, -1),), reference=lambda: (torch.softmax(x.double(), -1),),
                    work=2 * 4 * R * N, unit="GB/s", tol=tol, note="bytes: read x, write y")
    if name == "layernorm":
        R, N = dims
        eps = 1e-5
        x, w, b = rnd(R, N), rnd(N, scale=0.1), rnd(N, scale=0.1)
        if dev != "meta":
            w += 1
        y, mean, rstd = empty(R, N), empty(R, dtype=torch.float32), empty(R, dtype=torch.float32)
        return Case(args=dict(x_ptr=x, y_ptr=y, w_ptr=w, b_ptr=b, mean_ptr=mean, rstd_ptr=rstd, row_stride=N, N=N,
                              eps=eps, BLOCK_SIZE=sig_block), grid=(R,),
                    outputs=lambda: (y,), clear=lambda: fill_bad(y, mean, rstd),
                    torch_fn=lambda: (F.layer_norm(x, (N,), w, b, eps),),
                    reference=lambda: (F.layer_norm(x.double(), (N,), w.double(), b.double(), eps),),
                    work=2 * 4 * R * N, unit="GB/s", tol=tol, note="bytes: read x, write y; torch: F.layer_norm")
    if name == "rmsnorm_fwd":
        R, N = dims
        eps = 1e-6
        x, w, y, rstd = rnd(R, N), rnd(N, scale=0.1), empty(R, N), empty(R, dtype=torch.float32)
        if dev != "meta":
            w += 1

        def eager():   # Llama's RMSNorm in eager torch (what Liger-Kernel compares with)
            xf = x.float()
            return (w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype),)

        def ref():
            xd = x.double()
            return (xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + eps) * w.double(),)
        return Case(args=dict(y_ptr=y, x_ptr=x, w_ptr=w, rstd_ptr=rstd, row_stride=N, n_cols=N, eps=eps,
                              BLOCK_SIZE=sig_block), grid=(R,), outputs=lambda: (y,), clear=lambda: fill_bad(y, rstd),
                    torch_fn=eager, reference=ref, work=2 * 2 * R * N, unit="GB/s", tol=tol,
                    note="bytes: read x, write y; torch: eager Llama RMSNorm")
    if name == "rmsnorm_bwd":
        R, N = dims
        rows_per_program = 32
        progs = (R + rows_per_program - 1) // rows_per_program
        x, dy, w = rnd(R, N), rnd(R, N), rnd(N, scale=0.1)
        dx, dw_partial = empty(R, N), empty(progs, N, dtype=torch.float32)
        if dev != "meta":
            w += 1
        rstd = (torch.empty(R, dtype=torch.float32, device="meta") if dev == "meta" else
                torch.rsqrt(x.float().pow(2).mean(-1) + 1e-6))

        def grads(dtype):  # autograd of Llama's RMSNorm (eager torch in the input's dtype, or float64)
            xt = x.to(dtype).detach().requires_grad_()
            wt = w.to(dtype).detach().requires_grad_()
            xf = xt.float() if dtype != torch.float64 else xt
            y = wt * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(dtype)
            return torch.autograd.grad(y, (xt, wt), dy.to(dtype))
        return Case(args=dict(dx_ptr=dx, dy_ptr=dy, x_ptr=x, w_ptr=w, rstd_ptr=rstd, dw_partial_ptr=dw_partial,
                              row_stride=N, n_rows=R, n_cols=N, rows_per_program=rows_per_program,
                              BLOCK_SIZE=sig_block), grid=(progs,),
                    outputs=lambda: (dx, dw_partial.sum(0)), clear=lambda: fill_bad(dx, dw_partial),
                    torch_fn=lambda: grads(x.dtype), reference=lambda: grads(torch.float64), work=3 * 2 * R * N,
                    unit="GB/s", tol=tol,
                    note="bytes: read x, dy, write dx (dw: the programs' partial sums, added on the host); "
                         "torch: autograd of eager Llama RMSNorm")
    if name == "swiglu_bwd":
        R, N = dims
        a, b, dc = rnd(R, N, scale=2.0), rnd(R, N), rnd(R, N)
        da, db = empty(R, N), empty(R, N)

        def grads(dtype):  # autograd of F.silu(a) * b
            at, bt = a.to(dtype).detach().requires_grad_(), b.to(dtype).detach().requires_grad_()
            return torch.autograd.grad(F.silu(at) * bt, (at, bt), dc.to(dtype))
        return Case(args=dict(da_ptr=da, db_ptr=db, dc_ptr=dc, a_ptr=a, b_ptr=b, row_stride=N, n_cols=N,
                              BLOCK_SIZE=sig_block), grid=(R,), outputs=lambda: (da, db),
                    clear=lambda: fill_bad(da, db), torch_fn=lambda: grads(a.dtype),
                    reference=lambda: grads(torch.float64), work=5 * 2 * R * N, unit="GB/s", tol=tol,
                    note="bytes: read dc, a, b, write da, db; torch: autograd of F.silu(a) * b")
    if name == "swiglu_fwd":
        R, N = dims
        a, b, c = rnd(R, N, scale=2.0), rnd(R, N), empty(R, N)
        return Case(args=dict(c_ptr=c, a_ptr=a, b_ptr=b, row_stride=N, n_cols=N, BLOCK_SIZE=sig_block), grid=(R,),
                    outputs=lambda: (c,), clear=lambda: fill_bad(c), torch_fn=lambda: (F.silu(a) * b,),
                    reference=lambda: (F.silu(a.double()) * b.double(),), work=3 * 2 * R * N, unit="GB/s", tol=tol,
                    note="bytes: read a, b, write c; torch: F.silu(a) * b")
    if name == "cross_entropy":
        R, V = dims
        ignore = -100
        x = rnd(R, V, scale=2.0)
        xl, loss_rows = empty(R, V), empty(R, dtype=torch.float32)
        if dev == "meta":
            y, n_valid = torch.empty(R, dtype=torch.int64, device="meta"), R - (R + 6) // 7
        else:
            y = torch.randint(0, V, (R,), generator=g)
            y[::7] = ignore   # some ignored rows, as padding gives
            n_valid = int((y != ignore).sum())
            y = y.to(dev)
        res = {}

        def clear():
            xl.copy_(x)   # the gradient overwrites the logits (in place, as Liger does)
            fill_bad(loss_rows)

        def torch_fn():
            xt = x.detach().requires_grad_()
            loss = F.cross_entropy(xt, y, ignore_index=ignore)
            return (loss.detach().reshape(1), torch.autograd.grad(loss, xt)[0])

        def ref():
            xd = x.double().requires_grad_()
            loss = F.cross_entropy(xd, y, ignore_index=ignore)
            return (loss.detach().reshape(1), torch.autograd.grad(loss, xd)[0])
        res["outputs"] = lambda: (loss_rows.sum().reshape(1), xl)
        return Case(args=dict(x_ptr=xl, dx_ptr=xl, target_ptr=y, loss_ptr=loss_rows, row_stride=V, n_cols=V,
                              n_valid=n_valid, ignore_index=ignore, BLOCK_SIZE=sig_block), grid=(R,),
                    outputs=res["outputs"], clear=clear, torch_fn=torch_fn, reference=ref, work=3 * 2 * R * V,
                    unit="GB/s", tol=tol,
                    note="bytes: the logits read twice, the gradient written in place; loss = sum of the rows' "
                         "terms (host); torch: F.cross_entropy + autograd.grad")
    if name.startswith("matmul"):
        M, N, K = dims
        if cfg["dtype"] == "i8":
            if dev == "meta":
                a, b = rnd(M, K), rnd(K, N)
            else:
                a = torch.randint(-128, 128, (M, K), generator=g, dtype=torch.int8).to(dev)
                b = torch.randint(-128, 128, (K, N), generator=g, dtype=torch.int8).to(dev)
            c = empty(M, N, dtype=torch.int32)
            bm, bn, bk = (int(v) for v in cfg["signature"].split(",")[-3:])
            return Case(args=dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, BM=bm, BN=bn, BK=bk),
                        grid=((M // bm) * (N // bn),), outputs=lambda: (c,), clear=lambda: fill_bad(c),
                        torch_fn=lambda: (torch._int_mm(a, b),), reference=lambda: (a.double() @ b.double(),),
                        work=2 * M * N * K, unit="TOP/s", tol={k: 0.0 for k in IMPLS},
                        note="exact int32; torch: torch._int_mm")
        a, b, c = rnd(M, K), rnd(K, N), empty(M, N)
        bm, bn, bk, gm = (int(v) for v in cfg["signature"].split(",")[-4:])
        tol = dict(tol)
        note = "torch: torch.matmul"
        if cfg["dtype"] == "fp32":
            tol.update(tilec=1e-2, triton=1e-2, torch=1e-2)   # tf32: 10-bit mantissa products
            note = ("fp32: tl.dot defaults to tf32 (input_precision) in Triton and tilec, torch timed with "
                    "allow_tf32=True likewise (tolerance 1e-2 for all three)")

        def torch_fn():
            if cfg["dtype"] == "fp32":
                old = torch.backends.cuda.matmul.allow_tf32
                torch.backends.cuda.matmul.allow_tf32 = True
                try:
                    return (torch.matmul(a, b),)
                finally:
                    torch.backends.cuda.matmul.allow_tf32 = old
            return (torch.matmul(a, b),)
        return Case(args=dict(a_ptr=a, b_ptr=b, c_ptr=c, M=M, N=N, K=K, stride_am=K, stride_ak=1, stride_bk=N,
                              stride_bn=1, stride_cm=N, stride_cn=1, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                              GROUP_SIZE_M=gm),
                    grid=(((M + bm - 1) // bm) * ((N + bn - 1) // bn),), outputs=lambda: (c,),
                    clear=lambda: fill_bad(c), torch_fn=torch_fn, reference=lambda: (a.double() @ b.double(),),
                    work=2 * M * N * K, unit="TFLOP/s", tol=tol, note=note)
    if name == "attention":
        Z, H, L, D = dims
        hd, bm, bn, causal = (v.strip() for v in cfg["signature"].split(",")[-4:])
        bm, bn, causal = int(bm), int(bn), causal == "True"
        q, k, v = rnd(Z, H, L, D), rnd(Z, H, L, D), rnd(Z, H, L, D)
        o, lse = empty(Z, H, L, D), empty(Z * H, L, dtype=torch.float32)
        scale = D ** -0.5

        def ref():
            out = torch.empty(Z, H, L, D, dtype=torch.float64, device=q.device)
            for z in range(Z):
                for h in range(H):   # one head at a time: L x L float64 scores
                    s = (q[z, h].double() @ k[z, h].double().T) * scale
                    if causal:
                        s = s.masked_fill(~torch.ones(L, L, dtype=torch.bool, device=s.device).tril(), float("-inf"))
                    out[z, h] = torch.softmax(s, -1) @ v[z, h].double()
            return (out,)
        return Case(args=dict(q_ptr=q, k_ptr=k, v_ptr=v, o_ptr=o, lse_ptr=lse, sm_scale=scale,
                              stride_z=H * L * D, stride_h=L * D, stride_n=D, H=H, SEQ=L, HEAD_DIM=int(hd),
                              BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal),
                    grid=(L // bm, Z * H), outputs=lambda: (o,), clear=lambda: fill_bad(o, lse),
                    torch_fn=lambda: (F.scaled_dot_product_attention(q, k, v, is_causal=causal),), reference=ref,
                    work=(2 if causal else 4) * Z * H * L * L * D, unit="TFLOP/s", tol=tol,
                    note="FLOPs 4*Z*H*L^2*D; torch: F.scaled_dot_product_attention")
    raise RuntimeError("no setup for configuration " + name)


# ---- checks of the arguments against the packed specialization --------------------------------
SIG_DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64", "i8": "int8",
              "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8", "i1": "bool"}


def ptr_of(t):
    return FAKE_PTR if t.device.type == "meta" else t.data_ptr()


def check_args(cfg, kernel, case):
    """Every argument fits the packed signature entry of its parameter, and Triton's kernel has
    the same parameters (constexprs where the signature gives a value)."""
    import torch
    import inspect
    sig = [s.strip() for s in cfg["signature"].split(",")]
    names = list(getattr(kernel, "arg_names", None) or inspect.signature(kernel.fn).parameters)
    params = getattr(kernel, "params", None)   # Triton's KernelParam list (is_constexpr), where it has one
    if len(sig) != len(names):
        raise RuntimeError("signature has %d entries, %s has %d parameters" % (len(sig), cfg["kernel"], len(names)))
    if set(case.args) != set(names):
        raise RuntimeError("arguments %s != parameters %s" % (sorted(case.args), sorted(names)))
    for i, (s, n) in enumerate(zip(sig, names)):
        v = case.args[n]
        constexpr = getattr(params[i], "is_constexpr", None) if params and len(params) == len(names) else None
        if s.startswith("*"):
            ty, _, spec = s[1:].partition(":")
            if not isinstance(v, torch.Tensor) or str(v.dtype) != "torch." + SIG_DTYPES[ty]:
                raise RuntimeError("%s: %s is not a %s tensor" % (n, type(v).__name__ if not isinstance(
                    v, torch.Tensor) else v.dtype, ty))
            if spec == "16" and ptr_of(v) % 16:
                raise RuntimeError("%s: address not 16-byte aligned" % n)
        elif s[0].isdigit() or s in ("True", "False"):
            want = {"True": True, "False": False}.get(s, None)
            if constexpr is False or (v != want if want is not None else v != int(s)):
                raise RuntimeError("%s: constexpr %r, signature %s" % (n, v, s))
        else:
            ty, _, spec = s.partition(":")
            if constexpr is True:
                raise RuntimeError("%s is a constexpr, the signature gives %s" % (n, s))
            if ty.startswith("fp"):
                ok = isinstance(v, float)
            else:
                ok = isinstance(v, int) and not isinstance(v, bool) and (
                    (spec == "16" and v % 16 == 0) or (spec == "1" and v == 1) or (spec == "" and v % 16 and v != 1))
            if not ok:   # what Triton would specialize differently
                raise RuntimeError("%s = %r does not fit %s (Triton specializes such a value differently)" % (n, v, s))


def tilec_argv(entry, case):
    out = []
    for p in entry["params"]:
        v = case.args[p["name"]]
        out.append(ptr_of(v) if p["ctype"].endswith("*") else v)
    return out


def load_kernel(cfg):
    path = os.path.join(ROOT, "bench", "kernels", cfg["file"])
    spec = importlib.util.spec_from_file_location("bench_kernel_" + cfg["file"][:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, cfg["kernel"])


def rel_error(got, ref):
    err = 0.0
    for r, e in zip(got, ref):
        scale = max(float(e.abs().max()), 1e-30)
        d = (r.double() - e).abs()
        if bool(d.isnan().any()):
            return float("nan")
        err = max(err, float(d.max()) / scale)
    return err


def host_us_per_launch(fn, torch, n=50):
    """The host's time for one of n launches queued back to back (no wait between): a few
    microseconds where a launch only queues its kernel, about the kernel's own time where it
    waits for it (what tilec's NULL-stream launches did before 2026-11-28)."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t = (time.perf_counter() - t0) / n * 1e6
    torch.cuda.synchronize()
    return t


def mma_family(compiled):
    """Which tensor-core instructions a Triton CompiledKernel's PTX uses."""
    ptx = (getattr(compiled, "asm", None) or {}).get("ptx", "") if compiled is not None else ""
    return "wgmma" if "wgmma.mma_async" in ptx else "mma.sync" if "mma.sync" in ptx else "none" if ptx else "?"


def child(pack, name, dry, mma_sync=False):
    """One configuration, in this process: a JSON line per implementation (mma_sync: only
    Triton's, compiled with DISABLE_MMA_V3=1, which main() set before triton was imported)."""
    cfg = BY_NAME[name]
    with open(os.path.join(pack, "manifest.json")) as f:
        man = json.load(f)
    entry = man["configs"][name]
    built = (entry["signature"], entry["warps"], entry.get("stages", DEFAULT_STAGES))  # (older packs: the default)
    if built != (cfg["signature"], cfg["warps"], stages(cfg)):
        raise RuntimeError("the pack's %s was built for %s (%d warps, %d stages), configs.py says %s (%d, %d): "
                           "rebuild the pack" % ((name,) + built + (cfg["signature"], cfg["warps"], stages(cfg))))
    rt = load_pack_libs(pack, man)
    launch = launch_function(pack, entry)
    import torch
    import triton
    kernel = load_kernel(cfg)
    if not dry:
        props = torch.cuda.get_device_properties(0)
        emit({"info": {"gpu": torch.cuda.get_device_name(0), "sm": "sm_%d%d" % (props.major, props.minor),
                       "sms": props.multi_processor_count, "cuda": torch.version.cuda, "torch": torch.__version__,
                       "triton": triton.__version__, "python": sys.version.split()[0]}})
    case = setup(cfg, "meta" if dry else "cuda")
    check_args(cfg, kernel, case)
    argv = tilec_argv(entry, case)
    grid = tuple(case.grid) + (1,) * (3 - len(case.grid))
    if dry:
        try:
            ctypes.CDLL("libcuda.so.1")
            called = "not called: a CUDA driver is installed here"
        except OSError:
            rc = launch(None, *grid, *argv)
            msg = (rt.tilec_last_error() or b"").decode(errors="replace")
            if rc == 0:
                raise RuntimeError("%s returned 0 without a CUDA driver" % entry["symbol"])
            called = "launch refused as expected: " + msg
        emit({"name": name, "impl": "dry-run", "ok": True, "symbol": entry["symbol"], "grid": list(grid),
              "tilec_args": len(argv), "triton_args": len(case.args), "note": called})
        return 0
    from triton.testing import do_bench
    import inspect
    bench_kw = {"return_mode": "median"} if "return_mode" in inspect.signature(do_bench).parameters else {}
    stream = torch.cuda.current_stream().cuda_stream

    def run_tilec():
        rc = launch(stream, *grid, *argv)
        if rc:
            raise RuntimeError("%s returned %d: %s" % (entry["symbol"], rc,
                                                       (rt.tilec_last_error() or b"").decode(errors="replace")))

    compiled = []

    def run_triton():
        k = kernel[case.grid](**case.args, num_warps=cfg["warps"], num_stages=stages(cfg))
        if not compiled:
            compiled.append(k)
    ref = case.reference()
    torch.cuda.synchronize()
    runs = (("torch", case.torch_fn, None), ("triton", run_triton, case.outputs), ("tilec", run_tilec, case.outputs))
    if mma_sync:
        runs = ((MMA_SYNC, run_triton, case.outputs),)
    for impl, fn, outputs in runs:
        line = {"name": name, "impl": impl}
        try:
            if outputs is not None:
                case.clear()
                fn()
                torch.cuda.synchronize()
                got = outputs()
            else:
                got = fn()
                torch.cuda.synchronize()
            err = rel_error(got, ref)
            tol = case.tol["triton" if impl == MMA_SYNC else impl]   # Triton's, whichever MMA it used
            line.update(err=err, tol=tol, ok=bool(err <= tol))
            if impl in ("triton", MMA_SYNC) and uses_dot(cfg):
                line["mma"] = mma_family(compiled[0] if compiled else None)
            ms = do_bench(fn, **bench_kw)
            torch.cuda.synchronize()
            line.update(ms=float(ms), rate=case.work / (ms * 1e-3) / (1e9 if case.unit == "GB/s" else 1e12),
                        unit=case.unit)
            if impl in ("triton", "tilec"):
                line["host_us"] = host_us_per_launch(fn, torch)
        except Exception as e:   # a Triton compile error, a failed launch: this line only
            # the message's last lines (a CompilationError's last line is only a caret)
            text = " | ".join(ln.strip() for ln in str(e).strip().splitlines()[-6:] if ln.strip())
            if e.__cause__ is not None:   # Triton's CompilationError keeps the reason here
                text += " | caused by %s: %s" % (type(e.__cause__).__name__, str(e.__cause__).strip()[:400])
            line.update(ok=False, error="%s: %s" % (type(e).__name__, text[-800:]))
        emit(line)
    if not mma_sync:
        emit({"name": name, "impl": "note", "note": case.note})
    return 0


# ---- the parent: one child per configuration, the report -------------------------------------
def fmt_ms(line):
    if line is None:
        return "–"
    if "ms" not in line:
        return line.get("status", "error")
    return "%.3f" % line["ms"]


def fmt_rate(line):
    return "%.0f %s" % (line["rate"], line["unit"]) if line and "rate" in line else "–"


def fmt_ok(line):
    if line is None:
        return "not run"
    if "err" not in line:
        return line.get("status", "error")
    return ("yes" if line["ok"] else "**NO**") + (" (%.1e)" % line["err"] if line["err"] else " (exact)")


def driver_version():
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=30)
        if p.returncode == 0 and p.stdout.strip():
            return p.stdout.strip().splitlines()[0]
    except (OSError, subprocess.TimeoutExpired):
        pass
    try:
        v = ctypes.c_int()
        ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(v))
        return "CUDA driver API %d.%d" % (v.value // 1000, v.value % 1000 // 10)
    except OSError:
        return "unknown"


def ratio_of(a, b):
    return "%.2fx" % (a["ms"] / b["ms"]) if a and b and "ms" in a and "ms" in b else "–"


def write_report(path, man, info, rows, started, elapsed):
    L = ["# tilec vs Triton vs torch on an NVIDIA GPU (`bench/gpu/run.py`)", ""]
    L.append("- GPU: %s (%s, %s SMs), driver %s, CUDA %s (torch's)" % (
        info.get("gpu", "?"), info.get("sm", "?"), info.get("sms", "?"), driver_version(), info.get("cuda", "?")))
    L.append("- torch %s, triton %s, Python %s; tilec: %s, commit %s, libraries built with `--target nvptx --arch %s`" % (
        info.get("torch", "?"), info.get("triton", "?"), info.get("python", "?"), man["tilec"], man["commit"],
        man["arch"]))
    L.append("- date %s; the whole run took %.0f s" % (started, elapsed))
    L.append("- Each kernel in one process: torch's equivalent, Triton 3 compiling the same `bench/kernels` source "
             "(same constexprs, num_warps and num_stages), tilec's library of that specialization through "
             "ctypes on torch's stream. Time: `triton.testing.do_bench` median (L2 flushed between calls). "
             "correct?: max |got - ref| / max |ref| against a float64 reference computed on the GPU, per "
             "implementation tilec / Triton / torch.")
    L.append("- tl.dot rows: Triton's default (its MMA in brackets: wgmma on sm_90), and again with "
             "DISABLE_MMA_V3=1 (\"Triton mma.sync\": tilec's family for sm_80/sm_90, and on sm_90a for all but "
             "the fp16/bf16 K-loop accumulators, which are wgmma), each ratio tilec's time over that Triton's.")
    L += ["", "| kernel | config | tilec ms | Triton ms | torch ms | tilec rate | Triton rate | torch rate | "
              "tilec/Triton time | Triton mma.sync ms | tilec/Triton mma.sync | correct? tilec / Triton / torch |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for cfg, r in rows:
        t, tr, to, tm = r.get("tilec"), r.get("triton"), r.get("torch"), r.get(MMA_SYNC)
        ratio, ratio_m = ratio_of(t, tr), ratio_of(t, tm)
        mma = " [%s]" % tr["mma"] if tr and tr.get("mma") else ""
        m_ms = fmt_ms(tm) + (" [%s]" % tm["mma"] if tm and tm.get("mma") else "") if uses_dot(cfg) else "–"
        L.append("| %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s |" % (
            cfg["name"], cfg["what"], fmt_ms(t), fmt_ms(tr), mma, fmt_ms(to), fmt_rate(t), fmt_rate(tr), fmt_rate(to),
            ratio, m_ms, ratio_m, fmt_ok(t), fmt_ok(tr), fmt_ok(to)))
        if tm and "err" in tm and not tm.get("ok"):
            notes.append("- %s, Triton mma.sync: wrong result (%.1e)" % (cfg["name"], tm["err"]))
        if r.get("note"):
            notes.append("- %s: %s" % (cfg["name"], r["note"]))
        if (t or {}).get("host_us") is not None and (tr or {}).get("host_us") is not None:
            notes.append("- %s: host time a launch (50 queued back to back): tilec %.1f us, Triton %.1f us" % (
                cfg["name"], t["host_us"], tr["host_us"]))
        for impl in IMPLS + (MMA_SYNC,):
            line = r.get(impl)
            if line and line.get("error"):
                notes.append("- %s, %s: %s" % (cfg["name"], impl, line["error"]))
    L += ["", "Notes:"] + notes + [""]
    with open(path, "w") as f:
        f.write("\n".join(L))


def parent(opts):
    pack = os.path.abspath(opts.dir)
    with open(os.path.join(pack, "manifest.json")) as f:
        man = json.load(f)
    names = [c["name"] for c in CONFIGS if c["name"] in man["configs"]]
    if opts.only:
        want = opts.only.split(",")
        bad = [n for n in want if n not in man["configs"]]
        if bad:
            print("run.py: %s not in the pack (it has %s)" % (", ".join(bad), ", ".join(names)))
            return 2
        names = [n for n in names if n in want]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(pack, "lib") + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH")
                                                          else "")
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    t0 = time.time()
    info, rows, lines, failed = {}, [], [], 0
    def run_child(name, extra):
        """The child's stdout, stderr and exit status (None: timed out)."""
        cmd = [sys.executable, os.path.abspath(__file__), pack, "--one", name] + extra
        try:
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=opts.timeout)
            return p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            return out, "timed out after %d s" % opts.timeout, None

    def read_lines(out, r):
        nonlocal info
        for text in out.splitlines():
            if not text.startswith(TAG):
                continue
            obj = json.loads(text[len(TAG):])
            if "info" in obj:
                info = info or obj["info"]
            elif obj["impl"] == "note":
                r["note"] = obj["note"]
            else:
                r[obj["impl"]] = obj
                lines.append(obj)

    for name in names:
        r = {}
        out, err, rc = run_child(name, ["--dry-run"] if opts.dry_run else [])
        read_lines(out, r)
        if not opts.dry_run and uses_dot(BY_NAME[name]):
            m_out, m_err, m_rc = run_child(name, ["--mma-sync"])
            read_lines(m_out, r)
            if MMA_SYNC not in r:
                why = "timed out" if m_rc is None else "exit %s" % m_rc
                r[MMA_SYNC] = {"name": name, "impl": MMA_SYNC, "ok": False, "status": why,
                               "error": "%s: %s" % (why, (m_err.strip().splitlines() or [""])[-1][:300])}
                lines.append(r[MMA_SYNC])
        why = None
        if rc is None:
            why = "timed out"
        elif rc != 0:
            why = "crashed (exit %d)" % rc if rc > 0 else "crashed (signal %d)" % -rc
        last = (err.strip().splitlines() or [""])[-1][:300]
        if why:
            for impl in (("dry-run",) if opts.dry_run else IMPLS):
                if impl not in r:
                    r[impl] = {"name": name, "impl": impl, "ok": False, "status": why, "error": "%s: %s" % (why, last)}
                    lines.append(r[impl])
        if opts.dry_run:
            d = r["dry-run"]
            failed += not d.get("ok")
            print("%-14s %s" % (name, "ok: %s, grid %s, %d tilec / %d Triton arguments; %s" % (
                d["symbol"], d["grid"], d["tilec_args"], d["triton_args"], d["note"]) if d.get("ok") else
                "FAILED: " + d.get("error", "")), flush=True)
            continue
        rows.append((BY_NAME[name], r))
        t, tr = r.get("tilec") or {}, r.get("triton") or {}
        failed += not all((r.get(i) or {}).get("ok") for i in ("tilec",))
        print("%-14s tilec %s ms (%s)  Triton %s ms (%s)  torch %s ms (%s)%s" % (
            name, fmt_ms(t), fmt_ok(t), fmt_ms(tr), fmt_ok(tr), fmt_ms(r.get("torch")), fmt_ok(r.get("torch")),
            "  [%s]" % last if why else ""), flush=True)
    elapsed = time.time() - t0
    if opts.dry_run:
        print("dry run: %d of %d configurations ok (%.0f s)" % (len(names) - failed, len(names), elapsed))
        return 1 if failed else 0
    out = opts.out or os.path.join(HERE, "REPORT.md")
    write_report(out, man, info, rows, started, elapsed)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump({"info": info, "driver": driver_version(), "started": started, "elapsed_s": elapsed,
                   "pack": {k: man[k] for k in ("tilec", "commit", "arch", "packed")}, "lines": lines}, f, indent=1)
    print("wrote %s and %s (%.0f s); tilec correct in %d of %d configurations" % (
        out, os.path.splitext(out)[0] + ".json", elapsed, len(names) - failed, len(names)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="the pack (bench/gpu/pack.sh's DIR)")
    ap.add_argument("--out", help="the markdown report (default bench/gpu/REPORT.md; the JSON beside it)")
    ap.add_argument("--only", help="comma-separated configuration names")
    ap.add_argument("--dry-run", action="store_true", help="no GPU: check the code paths (see above)")
    ap.add_argument("--timeout", type=int, default=150, help="seconds per configuration's child (default 150)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--mma-sync", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.one:
        if opts.mma_sync:   # before triton is imported: Triton reads it when it compiles, in its own cache
            import tempfile
            os.environ["DISABLE_MMA_V3"] = "1"
            os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilec-bench-mma-sync-")
        return child(os.path.abspath(opts.dir), opts.one, opts.dry_run, opts.mma_sync)
    return parent(opts)


if __name__ == "__main__":
    sys.exit(main())
