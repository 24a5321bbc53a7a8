"""Shared fixtures of the tilec Python tests.

The tests import the installed package (``pip install .``; scripts/test.sh prepares the
venv) and never the source tree: ``python/`` is not on sys.path. Compiled kernels go to a
disk cache private to the session, so every run compiles what it tests.
"""

import importlib.util
import os
import tempfile

import pytest

_CACHE = tempfile.TemporaryDirectory(prefix="tilec-pytest-cache-")
os.environ["TILEC_CACHE_DIR"] = _CACHE.name
for _var in ("TILEC_CHECK", "TILEC_CHECK_BOUNDS", "TILEC_CHECK_RACES", "TILEC_CHECK_NAN", "TRITON_DEBUG", "TILEC_TRITON"):
    os.environ.pop(_var, None)

HAVE_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")


@pytest.fixture
def cache_dir():
    """The session's disk cache directory (TILEC_CACHE_DIR)."""
    return _CACHE.name
