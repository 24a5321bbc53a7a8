#!/usr/bin/env python3
"""bench/nvptx/triton_sass.py — tilec's and Triton's GPU code for the bench kernels side by
side, statically: no GPU. Each configuration of bench/gpu/configs.py (or those named with
--only) is compiled by tilec (--target nvptx) and by Triton offline for the same chip
(triton.compile with a GPUTarget: the ptxas Triton picks for the chip makes its cubin),
tilec's PTX assembled by that ptxas, and both cubins disassembled (cuobjdump --dump-sass). Prints a markdown
table: registers, SASS instructions (NOPs and the trailing self-branch left out), global
loads/stores, shared loads/stores, barriers, shuffles and MUFU (ex2, rcp, rsqrt, lg2) counts.

usage: triton_sass.py [--tilec build/tilec] [--arch sm_90|sm_90a] [--only NAME,...] [--const]
                      [--keep DIR]
  --const  also the memory-bound rows with n_cols (N) a constant equal to BLOCK: the masks
           fold for both compilers, each emits the bench's hot path as one straight-line copy
  --keep   write each kernel's .ptx / .cubin / .sass (tilec_NAME.*, triton_NAME.*) there

DISABLE_MMA_V3=1 in the environment makes Triton emit mma.sync (the instructions tilec emits)
instead of wgmma on sm_90: the tl.dot rows then compare code of one instruction family.

Needs Python with triton (3.x: triton.compile, ASTSource, GPUTarget) and NVIDIA's cuobjdump
(the nvidia-cuda-* wheels', CUDA's, or Triton's bundled one). Times nothing.
"""
import argparse
import collections
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
from configs import CONFIGS  # noqa: E402

# n_cols / N as the constant BLOCK (the parameter's position in the signature)
CONST = {"softmax_8192": 5, "softmax_1024": 5, "layernorm": 7, "rmsnorm_fwd": 5, "swiglu_fwd": 4}
COUNTED = ("LDG", "STG", "LDS", "STS", "BAR", "SHFL", "MUFU")


def const_config(c):
    """c with its column bound a constant equal to its BLOCK (the signature's last entry)."""
    sig = [s.strip() for s in c["signature"].split(",")]
    i = CONST.get(c["name"])
    if i is None:
        return None
    sig[i] = sig[-1]
    return dict(c, name=c["name"] + " (N const)", signature=", ".join(sig))


def tool(name, triton_dir):
    """An NVIDIA tool: Triton's bundled one, else the PATH's."""
    p = os.path.join(triton_dir, "backends", "nvidia", "bin", name)
    if os.access(p, os.X_OK):
        return p
    p = shutil.which(name)
    if p:
        return p
    sys.exit(f"triton_sass.py: no {name}")


def capability(arch):
    """sm_90a -> 90: Triton's target is the compute capability (it picks sm_90a for 90 itself)."""
    return int(re.match(r"sm_(\d+)", arch).group(1))


def triton_compile(c, arch):
    """Triton's PTX and cubin for configuration c, with the specialization its signature says."""
    import triton
    import triton.backends.compiler
    spec = importlib.util.spec_from_file_location(c["kernel"], os.path.join(ROOT, "bench", "kernels", c["file"]))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fn = getattr(mod, c["kernel"])
    sig = [s.strip() for s in c["signature"].split(",")]
    types, consts, attrs = {}, {}, {}
    for i, (name, s) in enumerate(zip(fn.arg_names, sig)):
        ty, _, hint = s.partition(":")
        if re.fullmatch(r"-?\d+(\.\d*)?|True|False", ty):
            consts[name] = True if ty == "True" else False if ty == "False" else (float(ty) if "." in ty else int(ty))
            types[name] = "constexpr"
        elif hint == "1":
            consts[name] = 1
            types[name] = "constexpr"
        else:
            types[name] = ty
            if hint == "16":
                attrs[(i,)] = [["tt.divisibility", 16]]
    src = triton.compiler.ASTSource(fn=fn, signature=types, constexprs=consts, attrs=attrs)
    target = triton.backends.compiler.GPUTarget("cuda", capability(arch), 32)
    backend = triton.compiler.make_backend(target)
    opts = backend.parse_options({"num_warps": c["warps"], "num_stages": 3})
    k = triton.compile(src, target=target, options=opts.__dict__)
    return k.asm["ptx"], k.asm["cubin"]


def sass_stats(cubin_path, cuobjdump):
    """(registers, instruction count, Counter of counted opcodes, the SASS text)."""
    sass = subprocess.run([cuobjdump, "--dump-sass", cubin_path], capture_output=True, text=True, check=True).stdout
    res = subprocess.run([cuobjdump, "--dump-resource-usage", cubin_path], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"REG:(\d+)", res)
    ops = []
    for line in sass.splitlines():
        op = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if op and not op.group(1).startswith("NOP"):
            ops.append(op.group(1))
    while ops and ops[-1] == "BRA":  # the self-branch after EXIT
        ops.pop()
    return int(m.group(1)) if m else -1, len(ops), collections.Counter(o.split(".")[0] for o in ops), sass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", default=os.path.join(ROOT, "build", "tilec"))
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--only", default="")
    ap.add_argument("--const", action="store_true")
    ap.add_argument("--keep")
    a = ap.parse_args()
    import triton
    from triton.backends.nvidia.compiler import get_ptxas
    tdir = os.path.dirname(triton.__file__)
    ptxas, cuobjdump = get_ptxas(capability(a.arch)).path, tool("cuobjdump", tdir)  # the ptxas Triton runs
    only = set(filter(None, a.only.split(",")))
    rows = [c for c in CONFIGS if not only or c["name"] in only]
    if a.const:
        rows += [k for k in map(const_config, rows) if k]
    out = a.keep or tempfile.mkdtemp()
    os.makedirs(out, exist_ok=True)
    ver = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    print(f"tilec ({a.tilec}) and Triton {triton.__version__} for {a.arch}, both cubins by {ver} (Triton's with its"
          " own options, e.g. --regAllocOptLevel=2; tilec's PTX with none, as tilec assembles it).\n")
    print("| kernel | warps | compiler | registers | SASS | " + " | ".join(COUNTED) + " |")
    print("|---|---|---|---|---|" + "---|" * len(COUNTED))
    for c in rows:
        tag = re.sub(r"\W+", "_", c["name"]).strip("_")
        r = subprocess.run([a.tilec, "compile", os.path.join(ROOT, "bench", "kernels", c["file"]), "-k", c["kernel"],
                            "-s", c["signature"], "--target", "nvptx", "--arch", a.arch, "--num-warps",
                            str(c["warps"]), "--emit", "ptx"], capture_output=True, text=True)
        results = []
        if r.returncode == 0:
            with open(os.path.join(out, f"tilec_{tag}.ptx"), "w") as f:
                f.write(r.stdout)
            subprocess.run([ptxas, f"-arch={a.arch}", os.path.join(out, f"tilec_{tag}.ptx"), "-o",
                            os.path.join(out, f"tilec_{tag}.cubin")], check=True)
            results.append(("tilec", os.path.join(out, f"tilec_{tag}.cubin")))
        else:
            print(f"| {c['name']} | {c['warps']} | tilec | not compiled: {r.stderr.strip().splitlines()[0]} |")
        try:
            ptx, cubin = triton_compile(c, a.arch)
            with open(os.path.join(out, f"triton_{tag}.ptx"), "w") as f:
                f.write(ptx)
            with open(os.path.join(out, f"triton_{tag}.cubin"), "wb") as f:
                f.write(cubin)
            results.append(("Triton", os.path.join(out, f"triton_{tag}.cubin")))
        except Exception as e:  # a kernel Triton rejects: its row says so
            print(f"| {c['name']} | {c['warps']} | Triton | not compiled: {str(e).splitlines()[0][:100]} |")
        for who, cub in results:
            regs, n, ops, sass = sass_stats(cub, cuobjdump)
            with open(cub[:-len(".cubin")] + ".sass", "w") as f:
                f.write(sass)
            print(f"| {c['name']} | {c['warps']} | {who} | {regs} | {n} | " + " | ".join(str(ops[k]) for k in COUNTED)
                  + " |")
    if not a.keep:
        shutil.rmtree(out)


if __name__ == "__main__":
    main()
