#!/usr/bin/env python3
"""Builds the GPU bench's pack: what bench/gpu/run.py needs on a GPU machine without LLVM/MLIR.

usage: pack.py TILEC DIR [--arch sm_90a] [--only NAME[,NAME]]   (bench/gpu/pack.sh wraps it)

Here (no GPU; ptxas for the cubins, libdevice for the math): for every configuration of
bench/gpu/configs.py, `tilec compile bench/kernels/FILE -k KERNEL -s SIGNATURE --target nvptx
--arch ARCH --num-warps W --num-stages S -o DIR/kernels/NAME.so --header DIR/kernels/NAME.h` (the
host library embeds the PTX and, where ptxas is found, the chip's cubin; it exports `int
KERNEL_launch_async(void *cuda_stream, grid_x, grid_y, grid_z, <params>)`, pointers device
pointers, parameters specialized to 1 left out). Then DIR/lib gets libtilec-runtime and every
non-glibc library `ldd` says the kernel libraries need (libomp), checked to resolve
inside DIR/lib with LD_LIBRARY_PATH=DIR/lib alone, and DIR/manifest.json: tilec's version and
commit, the chip, the libraries in load order, and per configuration its signature, warps,
stages, library, launch symbol, the launch's parameters (name and C type, from the header) and
whether a cubin is embedded. Standard library only. Prints what it packed and DIR's size.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

from configs import CONFIGS, stages  # noqa: E402

# glibc's libraries (every Linux has them): not packed
SYSTEM_LIBS = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
               "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}


def ldd(path, env=None):
    """[(soname, resolved path or None)] of the non-glibc libraries path needs (the closure)."""
    p = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit("pack: ldd %s failed: %s" % (path, p.stdout.strip()))
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"^\s*(\S+)\s*=>\s*(\S+)", line)
        if m and os.path.basename(m.group(1)) not in SYSTEM_LIBS:
            out.append((m.group(1), None if m.group(2) == "not" else m.group(2)))
    return out


def launch_params(header, symbol):
    """[{name, ctype}] of the parameters after grid_z in the header's SYMBOL prototype."""
    with open(header) as f:
        text = f.read()
    m = re.search(r"\bint\s+%s\s*\(([^)]*)\)\s*;" % re.escape(symbol), text)
    if not m:
        raise SystemExit("pack: %s declares no %s" % (header, symbol))
    parts = [p.strip() for p in m.group(1).split(",")]
    if [p.split()[-1].lstrip("*") for p in parts[:4]] != ["cuda_stream", "grid_x", "grid_y", "grid_z"]:
        raise SystemExit("pack: %s: unexpected prototype %s" % (header, m.group(0)))
    params = []
    for p in parts[4:]:
        pm = re.match(r"^(.*?)(\**)\s*(\w+)$", p.replace(" *", "* ").replace("* *", "**"))
        ctype = (pm.group(1).strip() + " " + pm.group(2)).strip() if pm.group(2) else pm.group(1).strip()
        params.append({"name": pm.group(3), "ctype": ctype})
    return params


def load_order(libdir, names):
    """names ordered so that each comes after the packed libraries it needs."""
    deps = {n: {os.path.basename(s) for s, _ in ldd(os.path.join(libdir, n))} & set(names) for n in names}
    order = []
    while len(order) < len(names):
        ready = sorted(n for n in names if n not in order and deps[n] <= set(order))
        if not ready:
            raise SystemExit("pack: circular library dependencies among %s" % ", ".join(names))
        order += ready
    return order


def git_commit():
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    return (p.stdout.strip() or "unknown") + (" (working tree with uncommitted changes)" if dirty else "")


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilec")
    ap.add_argument("dir")
    ap.add_argument("--arch", default="sm_90a",
                    help="the GPU's chip (default sm_90a: H100/H200, wgmma; sm_90's PTX also runs on newer chips)")
    ap.add_argument("--only", help="comma-separated configuration names (default: all)")
    opts = ap.parse_args()
    names = [c["name"] for c in CONFIGS]
    only = opts.only.split(",") if opts.only else names
    bad = [n for n in only if n not in names]
    if bad:
        print("pack: unknown configuration %s (known: %s)" % (", ".join(bad), ", ".join(names)))
        return 2
    tilec = os.path.abspath(opts.tilec)
    out = os.path.abspath(opts.dir)
    if os.path.isdir(out) and os.listdir(out) and not os.path.exists(os.path.join(out, "manifest.json")):
        print("pack: %s is not empty and not a pack (no manifest.json): not writing there" % out)
        return 2
    for sub in ("kernels", "lib"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
        os.makedirs(os.path.join(out, sub))
    version = subprocess.run([tilec, "--version"], capture_output=True, text=True).stdout.strip()
    manifest = {"tilec": version, "commit": git_commit(), "arch": opts.arch,
                "packed": datetime.datetime.now().astimezone().isoformat(timespec="seconds"), "libs": [], "configs": {}}
    need = {}
    for c in CONFIGS:
        if c["name"] not in only:
            continue
        so = os.path.join(out, "kernels", c["name"] + ".so")
        h = os.path.join(out, "kernels", c["name"] + ".h")
        cmd = [tilec, "compile", os.path.join(ROOT, "bench", "kernels", c["file"]), "-k", c["kernel"],
               "-s", c["signature"], "--target", "nvptx", "--arch", opts.arch, "--num-warps", str(c["warps"]),
               "--num-stages", str(stages(c)), "-o", so, "--header", h]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print("pack: %s: tilec compile failed (exit %d):\n%s" % (c["name"], p.returncode, p.stderr.strip()))
            return 1
        symbol = c["kernel"] + "_launch_async"
        with open(so, "rb") as f:
            cubin = f.read().find(b"\x7fELF", 1) > 0   # an ELF inside the ELF: ptxas's cubin
        manifest["configs"][c["name"]] = {
            "file": c["file"], "kernel": c["kernel"], "signature": c["signature"], "warps": c["warps"],
            "stages": stages(c), "lib": "kernels/%s.so" % c["name"], "symbol": symbol,
            "params": launch_params(h, symbol), "cubin": cubin}
        for soname, path in ldd(so):
            if path is None:
                print("pack: %s needs %s, which ldd does not find" % (so, soname))
                return 1
            need[os.path.basename(soname)] = path
        print("packed %-14s %s (%d bytes%s)" % (c["name"], c["signature"], os.path.getsize(so),
                                              ", PTX + cubin" if cubin else ", PTX only: ptxas not found"))
    libdir = os.path.join(out, "lib")
    for soname, path in sorted(need.items()):
        shutil.copyfile(os.path.realpath(path), os.path.join(libdir, soname))   # under the name the loader asks for
    manifest["libs"] = load_order(libdir, sorted(need))
    # With only DIR/lib on LD_LIBRARY_PATH, everything must resolve inside the pack (or be glibc's):
    # the GPU machine has nothing else of ours. The libraries' RUNPATH (this build) comes after it.
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    for f in [os.path.join(out, e["lib"]) for e in manifest["configs"].values()] + \
            [os.path.join(libdir, n) for n in manifest["libs"]]:
        for soname, path in ldd(f, env):
            if path is None or not os.path.realpath(path).startswith(os.path.realpath(out) + os.sep):
                print("pack: %s: %s resolves outside the pack (%s)" % (f, soname, path))
                return 1
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("pack: %d configurations, libraries %s; %s is %.1f MB" % (
        len(manifest["configs"]), ", ".join(manifest["libs"]), out, du(out) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
