"""The Triton drop-in's yardstick: whole programs of the shape of Triton's tutorials
(tests/python/dropin/*.py, written for this project) run unmodified on torch CPU
tensors, each with its own correctness checks, in a fresh interpreter:
`TILEC_TRITON=1 python PROGRAM.py` and `python -m tilec run PROGRAM.py`."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM_DIR = os.path.join(HERE, "dropin")

# program -> reason, for programs that need a compiler feature tilec lacks (none today;
# fused_attention_causal was here until a dot operand buffered inside a loop that ran zero
# times stopped being reused after it, 2026-11-26).
MISSING = {}

PROGRAMS = sorted(f[:-3] for f in os.listdir(PROGRAM_DIR) if f.endswith(".py"))


def _run(argv, env_extra):
    env = dict(os.environ)
    env.pop("TILEC_TRITON", None)
    env.update(env_extra)
    env.setdefault("TILEC_NUM_THREADS", "2")
    return subprocess.run(argv, cwd=PROGRAM_DIR, env=env, capture_output=True, text=True, timeout=600)


def _params():
    for name in PROGRAMS:
        marks = [pytest.mark.xfail(reason=MISSING[name], strict=True)] if name in MISSING else []
        for mode in ("env", "run"):
            yield pytest.param(name, mode, id=f"{name}-{mode}", marks=marks)


@pytest.mark.parametrize("name, mode", list(_params()))
def test_program(name, mode):
    path = os.path.join(PROGRAM_DIR, name + ".py")
    if mode == "env":
        proc = _run([sys.executable, path], {"TILEC_TRITON": "1"})
    else:
        proc = _run([sys.executable, "-m", "tilec", "run", path], {})
    assert proc.returncode == 0, f"{name} ({mode}) failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert f"OK {name}" in proc.stdout, proc.stdout[-3000:]
