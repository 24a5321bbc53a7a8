"""Cases of the lang family 'generated': random tile kernels (gen.py) from fixed seeds, each
checked against numpy's float64 evaluation of the same program (seeds 1 to 32, or to
TILEC_GENERATED_COUNT).

Being cases of the suite, they run wherever the suite runs: on the CPU (lang.generated), in
the CTA emulator at every num_warps, num_stages and chip the nvptx_emu tests use, through
ptxas, and on a GPU (lang.nvptx_gpu, the GPU pack). property/targets.py runs any number of
other seeds across configurations from the command line. The kernels are written to a
temporary folder when the cases are built (removed at exit); `property/targets.py TILEC
--seed S --print` prints one."""
import atexit
import os
import shutil
import sys
import tempfile

import numpy as np

from harness import add

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen import Gen, tolerance  # noqa: E402

# seeds 1 .. TILEC_GENERATED_COUNT (default 32; scripts/gpu_session.sh packs more for a GPU)
COUNT = int(os.environ.get("TILEC_GENERATED_COUNT", "32"))


def cases():
    folder = tempfile.mkdtemp(prefix="tilec-generated-")
    atexit.register(shutil.rmtree, folder, True)
    for seed in range(1, COUNT + 1):
        src, args, outs, grid = Gen(seed).build()
        path = os.path.join(folder, "seed%d.py" % seed)
        with open(path, "w") as f:
            f.write(src)
        rtol, atol = 0.0, 0.0
        for exp in outs.values():
            if exp.dtype.kind == "f":
                r, a = tolerance(exp, "f")
                rtol, atol = max(rtol, r), max(atol, a)
        add("generated", "generated_seed%d" % seed, path, "kernel", grid, args, list(outs),
            lambda a, o=outs: {k: np.asarray(v) for k, v in o.items()}, rtol=rtol, atol=atol)
