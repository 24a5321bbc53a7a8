"""The drop-in's API surface against the real Triton installed beside it (torch from PyPI
brings Triton 3.9): every public name of the modules and classes below that Triton has,
the drop-in has too — implemented, or on the drop-in's short list of refusals
(tilec.triton._refused.REFUSED, docs/triton_api.md), whose objects raise
NotImplementedError naming the feature. Both sides are listed in fresh interpreters: the
real Triton with TILEC_TRITON unset (never imported into a process that has the drop-in),
the drop-in with TILEC_TRITON=1. Skipped when no real Triton is importable."""

import importlib
import json
import os
import subprocess
import sys

import pytest

import tilec

tilec.install_triton()

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from tilec.triton._refused import REFUSED  # noqa: E402

# Modules compared name by name, then classes (their dir(): methods, properties, class
# attributes) and dtype instances (their attributes too).
MODULES = ["triton", "triton.language", "triton.language.math", "triton.language.extra.libdevice",
           "triton.runtime", "triton.runtime.autotuner", "triton.runtime.driver", "triton.testing",
           "triton.compiler", "triton.tools.tensor_descriptor", "triton._internal_testing"]
CLASSES = ["triton.language.dtype", "triton.language.pointer_type", "triton.language.block_type",
           "triton.runtime.jit.JITFunction", "triton.runtime.autotuner.Autotuner", "triton.Config"]
INSTANCES = ["triton.language.int32", "triton.language.uint8", "triton.language.float16",
             "triton.language.float8e4nv", "triton.language.pi32_t"]

# Lists `name -> kind` ("module", "class", "callable", "value") of the public names of
# MODULES, CLASSES and INSTANCES in the `triton` this interpreter imports. Public: no
# leading underscore, and for modules not an import of something outside triton (typing
# names, `from __future__ import annotations`, os, torch, ...).
_LISTER = r"""
import __future__, importlib, inspect, json, sys, types

def kind(v):
    if isinstance(v, types.ModuleType):
        return "module"
    if inspect.isclass(v):
        return "class"
    return "callable" if callable(v) else "value"

def foreign(v):
    if isinstance(v, types.ModuleType):
        return not v.__name__.startswith(("triton.", "tilec."))
    if isinstance(v, __future__._Feature) or type(v).__module__ in ("typing", "typing_extensions"):
        return True
    mod = getattr(v, "__module__", None)
    return (inspect.isclass(v) or inspect.isroutine(v)) and isinstance(mod, str) and \
        not mod.startswith(("triton", "tilec"))

def public(obj, is_module):
    out = {}
    for n in dir(obj):
        if n.startswith("_") or n == "TYPE_CHECKING":
            continue
        try:
            v = getattr(obj, n)
        except Exception:
            out[n] = "value"
            continue
        if is_module and foreign(v):
            continue
        out[n] = kind(v)
    return out

def resolve(path):
    mod, _, attr = path.rpartition(".")
    try:
        return getattr(importlib.import_module(mod), attr)
    except ModuleNotFoundError:
        m2, _, a2 = mod.rpartition(".")
        return getattr(getattr(importlib.import_module(m2), a2), attr)

modules, classes, instances = json.loads(sys.argv[1])
import triton
out = {"__file__": triton.__file__, "__version__": triton.__version__, "__dropin__": hasattr(triton, "__tilec_path__")}
for m in modules:
    out[m] = public(importlib.import_module(m), True)
for c in classes + instances:
    out[c] = public(resolve(c), False)
print(json.dumps(out))
"""


def _list_surface(dropin):
    env = {k: v for k, v in os.environ.items() if k != "TILEC_TRITON"}
    if dropin:
        env["TILEC_TRITON"] = "1"
    r = subprocess.run([sys.executable, "-c", _LISTER, json.dumps([MODULES, CLASSES, INSTANCES])], env=env,
                       capture_output=True, text=True, timeout=300)
    return r, (json.loads(r.stdout.splitlines()[-1]) if r.returncode == 0 and r.stdout.strip() else None)


@pytest.fixture(scope="module")
def surfaces():
    real_run, real = _list_surface(dropin=False)
    if real is None:
        pytest.skip(f"no real Triton importable beside the drop-in: {real_run.stderr.strip().splitlines()[-1:]}")
    assert not real["__dropin__"], real["__file__"]
    ours_run, ours = _list_surface(dropin=True)
    assert ours is not None, ours_run.stderr
    assert ours["__dropin__"], ours["__file__"]
    return real, ours


def test_dropin_has_every_public_name_of_the_installed_triton(surfaces):
    real, ours = surfaces
    missing = {key: sorted(set(real[key]) - set(ours[key])) for key in MODULES + CLASSES + INSTANCES}
    missing = {k: v for k, v in missing.items() if v}
    compared = sum(len(real[key]) for key in MODULES + CLASSES + INSTANCES)
    assert compared > 700, compared  # the lists are Triton's, not empty by mistake
    assert not missing, f"names of triton {real['__version__']} the drop-in lacks: {missing}"


# Kinds may differ where the drop-in's object is the CPU's counterpart of a GPU one.
_KIND_EXCEPTIONS = {
    # Triton's is a pybind enum class, the drop-in's an IntEnum: both classes; listed in case
    # a Triton build exposes it as an instance
}


def test_names_have_tritons_kind(surfaces):
    """A class in Triton is a class in the drop-in, a module a module, a function a
    callable (a refusal is a function or class of the same kind)."""
    real, ours = surfaces
    wrong = {}
    for key in MODULES + CLASSES + INSTANCES:
        for name, k in real[key].items():
            mine = ours[key].get(name)
            if mine is None or mine == k or (k == "callable" and mine == "class") \
                    or (k, mine) == ("class", "callable") and f"{key}.{name}" in REFUSED:
                continue
            if f"{key}.{name}" not in _KIND_EXCEPTIONS:
                wrong[f"{key}.{name}"] = (k, mine)
    assert not wrong, f"(Triton's kind, the drop-in's): {wrong}"


def _resolve(path):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise AssertionError(path)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_raise_naming_the_feature(name):
    obj = _resolve(name)
    if name == "triton.runtime.build":  # a module of refused functions
        obj = obj.compile_module_from_src
    elif name == "triton.runtime.jit.JITFunction.create_binder":
        obj = _plain_kernel.create_binder
    with pytest.raises(NotImplementedError) as info:
        obj()
    text = str(info.value)
    assert name in text and "not supported by tilec's Triton drop-in" in text and REFUSED[name] in text


@triton.jit
def _plain_kernel(x_ptr):
    tl.store(x_ptr, 1.0)


def test_refusal_list_is_short_and_documented():
    assert len(REFUSED) <= 15
    doc = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "triton_api.md")).read()
    for name in REFUSED:
        assert f"`{name}`" in doc, name
