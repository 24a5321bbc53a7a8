"""The Python example host program runs (from outside the source tree) and checks itself."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_softmax_example(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", "softmax.py")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "numpy: softmax (1823, 781)" in r.stdout and "OK" in r.stdout
    assert "WRONG" not in r.stdout
