"""Cases of the lang family 'robustness': truncated and byte-mangled kernels (the dropout and
softmax families' and the layer norm kernel of bench/) never crash the compiler (no kernels of
its own)."""
import concurrent.futures
import os
import random
import shutil
import tempfile

import harness
from harness import func, path_of, run_tilec


# (case name, kernel file, kernel, signature)
ROBUST_INPUTS = [
    ("dropout", "dropout/kernels.py", "dropout_kernel", "*fp32, *fp32, *i8, i32, fp32, i32, 512"),
    ("layernorm", "../../bench/kernels/layernorm.py", "layernorm_fwd_kernel",
     "*fp32, *fp32, *fp32, *fp32, *fp32, *fp32, i32, i32, fp32, 64"),
    ("softmax", "softmax/kernels.py", "row_softmax_kernel", "*fp32, *fp32, i32, i32, i32, i32, 64, 2"),
]


def _mangle(data, r):
    data = bytearray(data)
    op = r.randrange(5)
    pos = r.randrange(len(data))
    if op == 0:      # one random byte (any value, also NUL and non-UTF-8)
        data[pos] = r.randrange(256)
    elif op == 1:    # a random punctuation / keyword-ish character
        data[pos] = ord(r.choice("()[]{}:,.=+-*/%<>!~^&|@#'\"\\\t\n 0123456789_"))
    elif op == 2:    # delete a span
        del data[pos:pos + r.randrange(1, 40)]
    elif op == 3:    # duplicate a span
        data[pos:pos] = data[pos:pos + r.randrange(1, 60)]
    else:            # swap two lines
        lines = bytes(data).split(b"\n")
        i, j = r.randrange(len(lines)), r.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        data = bytearray(b"\n".join(lines))
    return bytes(data)


def _robust(tag, file, kernel, sig, mode):
    src = open(path_of(file), "rb").read()
    # keep the imports and the named kernel only (cut before the next @triton.jit)
    start = src.index(b"def " + kernel.encode() + b"(")
    end = src.find(b"\n@triton.jit", start)
    src = src if end < 0 else src[:end + 1]
    if mode == "truncated":
        variants = [src[:n] for n in range(0, len(src) + 1, 7)]
    else:
        r = random.Random(len(src))      # deterministic per input
        variants = []
        for i in range(25):
            v = src
            for _ in range(1 + i % 3):
                v = _mangle(v, r)
            variants.append(v)
    tmp = tempfile.mkdtemp(prefix="tilec-robust-")
    try:
        def one(idx):
            path = os.path.join(tmp, "v%04d_%s.py" % (idx, tag))
            with open(path, "wb") as f:
                f.write(variants[idx])
            rc, out, err = run_tilec([harness.TILEC, "compile", path, "-k", kernel, "-s", sig, "--emit", "tile"], tmp, 60)
            bad = None
            if rc is None:
                bad = "timeout"
            elif rc < 0:
                bad = "killed by signal %d" % -rc
            elif rc not in (0, 1):
                bad = "exit status %d" % rc
            elif rc == 1 and not err.strip():
                bad = "exit status 1 without a message"
            if bad:
                keep = os.path.join(tempfile.gettempdir(), "tilec-robust-fail-" + os.path.basename(path))
                shutil.copy(path, keep)
                return "%s variant %d (%s, %d bytes; kept as %s): %s: %s" % (
                    mode, idx, file, len(variants[idx]), keep, bad, err.strip()[-200:])
            os.unlink(path)
            return None
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            for res in ex.map(one, range(len(variants))):
                if res:
                    return res
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cases():
    for tag, file, kernel, sig in ROBUST_INPUTS:
        for mode in ("truncated", "mangled"):
            func("robustness", "robust_%s_%s" % (mode, tag),
                 lambda tag=tag, file=file, kernel=kernel, sig=sig, mode=mode: _robust(tag, file, kernel, sig, mode))
