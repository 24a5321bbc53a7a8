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


# pytest's assertion-rewriting import hook sits before the drop-in's finder in sys.meta_path
# (it is inserted after start-up) and, with a broad `python_files`, claims every module whose
# source PathFinder can find -- the real triton in site-packages included, unless the drop-in
# hides it. Each layout runs a real pytest in a fresh interpreter with TILEC_TRITON=1, in
# this venv, where torch's real triton is installed beside the drop-in.
PYTEST_TEST_FILE = """
import sys
import triton
import triton.language as tl
import triton.tools.tensor_descriptor

def test_triton_is_the_dropin():
    assert triton.__name__ == "tilec.triton", triton.__file__
    assert tl.__name__ == "tilec.triton.language", tl.__file__
    assert all(m.__name__.startswith("tilec.") for n, m in sys.modules.items()
               if (n == "triton" or n.startswith("triton.")) and m is not None)
"""

PYTEST_LAYOUTS = {
    # Triton's own tutorials folder ships this ini
    "python_files_all": {"pytest.ini": "[pytest]\npython_files = *.py\n"},
    "python_files_all_toml": {"pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["*.py"]\n'},
    # a rootdir conftest (always rewritten) that imports triton before any test module
    "conftest_imports_triton": {"pytest.ini": "[pytest]\npython_files = *.py\n",
                                "conftest.py": "import triton\nimport triton.language as tl\n"},
    "default_config": {},
    # assertion rewriting off: the plain import path
    "assert_plain": {"pytest.ini": "[pytest]\npython_files = *.py\naddopts = --assert=plain\n"},
}


@pytest.mark.parametrize("layout", sorted(PYTEST_LAYOUTS))
def test_pytest_runs_dropin_tests_whatever_its_configuration(tmp_path, layout):
    for name, text in PYTEST_LAYOUTS[layout].items():
        (tmp_path / name).write_text(text)
    (tmp_path / "test_kernel_mod.py").write_text(PYTEST_TEST_FILE)
    (tmp_path / "kernels.py").write_text(PYTEST_TEST_FILE)  # matched by *.py only
    args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    try:
        import pytest_timeout  # noqa: F401  (a plugin real suites use; loaded by its entry point)
        args += ["--timeout", "240"]
    except ImportError:
        pass
    proc = _python(None, {"TILEC_TRITON": "1"}, args=args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expect = 1 if layout in ("default_config",) else 2
    assert f"{expect} passed" in proc.stdout, proc.stdout


def test_dropin_hides_the_real_triton_from_path_finders():
    # what pytest's hook (and any hook before ours) asks: PathFinder finds no triton while
    # the drop-in is installed, and finds it again after uninstall_triton()
    out = _ok(_python("""
        import importlib.machinery as m, importlib.util, sys, tilec
        from tilec._hook import uninstall_triton
        before = m.PathFinder.find_spec("triton")
        tilec.install_triton()
        sys.path_importer_cache.clear()  # finders made afresh go through the wrapped hooks
        print("HIDDEN", m.PathFinder.find_spec("triton"), m.PathFinder.find_spec("triton.language"))
        print("OWN", m.PathFinder.find_spec("tilec") is not None)
        uninstall_triton()
        after = m.PathFinder.find_spec("triton")
        print("RESTORED", (before is None) == (after is None))
    """))
    assert "HIDDEN None None" in out
    assert "OWN True" in out
    assert "RESTORED True" in out


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
