"""How `import triton` becomes tilec's drop-in: the TILEC_TRITON=1 .pth hook,
`python -m tilec run`, tilec.install_triton() (and its refusal once the real triton is
imported), submodule aliasing. Each case runs in a fresh interpreter."""

import os
import subprocess
import sys
import textwrap

import pytest


def _python(code, env_extra=None, args=(), cwd=None):
    env = dict(os.environ)
    env.pop("TILEC_TRITON", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args, "-c", textwrap.dedent(code)] if code is not None
                          else [sys.executable, *args], env=env, capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _ok(proc):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


CHECK_DROPIN = """
import sys, tilec
import triton, triton.language as tl, triton.runtime.driver
import triton.language.extra.cuda.libdevice as cl
from triton.language.extra import libdevice
from triton.runtime import driver
import triton.testing, triton.tools.tensor_descriptor, triton._internal_testing
import triton.compiler.errors, triton.runtime.errors, triton.runtime.autotuner
assert triton is sys.modules["tilec.triton"], triton
assert triton.jit is tilec.jit
assert triton.JITFunction is tilec.JITFunction
assert tl.float16 is tilec.language.float16
assert triton.CompilationError is tilec.CompilationError
assert issubclass(triton.CompilationError, triton.TritonError)
assert driver.active.get_current_target().backend == "cpu"
assert cl.__tilec_path__ == "triton.language.extra.libdevice"
assert tl.extra.cuda.libdevice is cl and tl.extra.libdevice is libdevice
assert triton.runtime.driver is driver
print("DROPIN", triton.__version__)
"""


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_env_variable_installs_hook(value):
    out = _ok(_python(CHECK_DROPIN, {"TILEC_TRITON": value}))
    assert "DROPIN 3.9.0" in out


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_env_variable_off_leaves_triton_alone(value):
    proc = _python("""
        import sys
        try:
            import triton
        except ImportError:
            print("NO-TRITON")
        else:
            print("REAL" if not triton.__name__.startswith("tilec") else "TILEC")
        print("hook loaded:", "tilec._hook" in sys.modules)
    """, {"TILEC_TRITON": value})
    out = _ok(proc)
    assert "TILEC" not in out
    assert "hook loaded: False" in out


def test_env_hook_loads_no_more_than_the_hook():
    # TILEC_TRITON=1 costs every Python process a little: the package (C extension, numpy)
    # is imported by `import triton`, not at start-up.
    out = _ok(_python("""
        import sys
        print(sorted(m for m in sys.modules if m.startswith(("tilec", "numpy", "torch"))))
        import triton, tilec
        print(tilec._hook is sys.modules["tilec._hook"], tilec.install_triton is tilec._hook.install_triton)
    """, {"TILEC_TRITON": "1"}))
    assert out.splitlines() == ["['tilec._hook']", "True True"]


def test_install_triton_in_process():
    out = _ok(_python("import tilec; tilec.install_triton(); tilec.install_triton()\n" + CHECK_DROPIN))
    assert "DROPIN" in out


def test_install_after_real_triton_is_an_error():
    pytest.importorskip("triton")  # the real one, in this interpreter
    proc = _python("""
        import triton, tilec
        try:
            tilec.install_triton()
        except RuntimeError as e:
            print("ERR", e)
        tilec.install_triton(force=True)
        import triton as t2
        print("SWAPPED", t2.__name__)
    """)
    out = _ok(proc)
    assert "ERR tilec.install_triton() must run before the first `import triton`" in out
    assert "SWAPPED tilec.triton" in out


def test_missing_submodule_is_a_clear_error():
    proc = _python("""
        import tilec; tilec.install_triton()
        try:
            import triton.experimental.gluon
        except ModuleNotFoundError as e:
            print("ERR", e.name, "|", e)
    """)
    out = _ok(proc)
    assert "ERR triton.experimental |" in out
    assert "tilec's Triton drop-in" in out


def test_uninstall_restores_import():
    out = _ok(_python("""
        import sys, tilec
        from tilec._hook import uninstall_triton, is_triton_installed
        tilec.install_triton(); import triton
        uninstall_triton()
        assert not is_triton_installed() and "triton" not in sys.modules
        print("OK")
    """))
    assert "OK" in out


def test_python_m_tilec_run(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import os, sys
        import triton
        import helper_mod
        print("NAME", __name__, "ARGV", sys.argv[1:], "PATH0", sys.path[0] == os.path.dirname(__file__))
        print("TRITON", triton.__name__, helper_mod.VALUE)
        sys.exit(int(sys.argv[1]))
    """))
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    proc = _python(None, args=("-m", "tilec", "run", str(script), "3", "--flag"), cwd="/")
    assert proc.returncode == 3, proc.stderr
    assert "NAME __main__ ARGV ['3', '--flag'] PATH0 True" in proc.stdout
    assert "TRITON tilec.triton 42" in proc.stdout


def test_python_m_tilec_run_module(tmp_path):
    (tmp_path / "progmod.py").write_text("import sys, triton\nprint('MOD', __name__, sys.argv[1:], triton.__name__)\n")
    proc = _python(None, args=("-m", "tilec", "run", "-m", "progmod", "a"), cwd=str(tmp_path))
    assert _ok(proc).strip() == "MOD __main__ ['a'] tilec.triton"


def test_python_m_tilec_run_traceback_of_script(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("import triton\nraise ValueError('from the script')\n")
    proc = _python(None, args=("-m", "tilec", "run", str(script)))
    assert proc.returncode == 1
    assert "ValueError: from the script" in proc.stderr
    assert str(script) in proc.stderr


@pytest.mark.parametrize("args, message", [
    ((), "usage: python -m tilec run SCRIPT.py"),
    (("compile", "x.py"), "unknown command 'compile'"),
    (("run",), "'run' needs a script"),
    (("run", "/nonexistent/x.py"), "no such file: '/nonexistent/x.py'"),
    (("run", "-m"), "'run -m' needs a module name"),
])
def test_python_m_tilec_usage_errors(args, message):
    proc = _python(None, args=("-m", "tilec", *args))
    assert proc.returncode == 2
    assert message in proc.stdout + proc.stderr


def test_pth_file_is_installed():
    import tilec
    site_dir = os.path.dirname(os.path.dirname(os.path.abspath(tilec.__file__)))
    pth = os.path.join(site_dir, "tilec_triton.pth")
    assert os.path.exists(pth), f"{pth} missing: `pip install .` must install the TILEC_TRITON hook"
    with open(pth) as f:
        assert "install_from_env" in f.read()
