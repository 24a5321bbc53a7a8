"""Each specialization compiles once per process (the function's dict of kernels) and
once per machine (tilec's disk cache, TILEC_CACHE_DIR): a second process loads it.
Runs the installed package from a directory outside the source tree."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import tilec
from kernels_native import scale_kernel

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    import tilec
    import tilec.language as tl

    @tilec.jit
    def triple(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3, mask=mask)

    x = np.arange(300, dtype=np.float32)
    k = triple[(3,)](x, 300, BLOCK=128)
    assert (x == 3 * np.arange(300)).all()
    print(k.origin, tilec.__file__)
''')


def _run(tmp_path, cache):
    script = tmp_path / "triple.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, TILEC_CACHE_DIR=str(cache))
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_second_process_loads_from_disk(tmp_path):
    cache = tmp_path / "cache"
    origin, path = _run(tmp_path, cache)
    assert origin == "compiled"
    assert not path.startswith(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    origin, _ = _run(tmp_path, cache)
    assert origin == "disk"
    assert any(cache.iterdir())


def test_memory_cache_per_process():
    x = np.zeros(32, np.float32)
    k = scale_kernel[(1,)](x, x, 32, 1.0, BLOCK=32)
    assert k.cache_path is None or os.path.exists(k.cache_path)
    assert scale_kernel[(1,)](x, x, 32, 3.0, BLOCK=32) is k
    assert len([key for key in scale_kernel.cache if scale_kernel.cache[key] is k]) == 1


def test_kernel_library_links_the_packaged_runtime():
    """Kernel libraries the JIT builds find libtilec-runtime in the installed package."""
    x = np.zeros(16, np.float32)
    k = scale_kernel[(1,)](x, x, 16, 1.0, BLOCK=16)
    assert k.cache_path and os.path.exists(k.cache_path)
    data = open(k.cache_path, "rb").read()
    assert b"libtilec-runtime.so" in data
    assert os.path.dirname(os.path.realpath(tilec.__file__)).encode() in data  # its RUNPATH
