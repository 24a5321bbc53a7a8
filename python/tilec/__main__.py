"""`python -m tilec run SCRIPT.py [ARGS...]` (or `run -m MODULE [ARGS...]`): run a
Triton program with `import triton` served by tilec.

In:  the command line. Out: the script runs as __main__ (sys.argv = [SCRIPT, ARGS...],
     sys.path[0] = the script's folder, as `python SCRIPT.py` would), after
     tilec.install_triton(); its exit status is the process's.
"""

import os
import runpy
import sys

_USAGE = """usage: python -m tilec run SCRIPT.py [ARGS...]
       python -m tilec run -m MODULE [ARGS...]

Runs a Triton program with `import triton` resolved to tilec (the Triton drop-in);
the same as `TILEC_TRITON=1 python SCRIPT.py [ARGS...]`."""


def _usage_error(message):
    print(f"python -m tilec: error: {message}\n{_USAGE}", file=sys.stderr)
    return 2


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command != "run":
        return _usage_error(f"unknown command '{command}' (the only command is 'run')")
    if not rest:
        return _usage_error("'run' needs a script (or -m MODULE)")

    from ._hook import install_triton
    install_triton()

    if rest[0] == "-m":
        if len(rest) < 2:
            return _usage_error("'run -m' needs a module name")
        module = rest[1]
        sys.argv = [module] + rest[2:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0

    script = rest[0]
    if not os.path.exists(script):
        return _usage_error(f"no such file: '{script}'")
    sys.argv = [script] + rest[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
