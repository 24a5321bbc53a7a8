"""Host-side stand-ins for kernel-language functions.

Inside a ``@jit`` kernel, ``tl.load`` and friends are compiled by tilec's C front end; the
Python objects only have to exist (host code imports them, the module-context builder
reads their ``__tilec_path__`` to tell the compiler what a kernel's global names mean).
Calling one outside a kernel raises RuntimeError, as in Triton.
"""

__all__ = ["make_stub", "export_stubs"]


def make_stub(path, nargs=None, refusal=None):
    """A function object named after the last component of the dotted ``path``; with
    ``nargs``, its signature is ``(arg0, ..., arg{nargs-1})`` as Triton's libdevice functions
    have it (host code counts the parameters with ``inspect.signature``). ``refusal``: why
    the compiler refuses a call (the docstring says so)."""
    name = path.rsplit(".", 1)[-1]

    def stub(*args, **kwargs):
        raise RuntimeError(f"{path}() can only be called inside a @tilec.jit / @triton.jit kernel")

    if nargs is not None:
        import inspect

        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        stub.__signature__ = inspect.Signature([inspect.Parameter(f"arg{i}", kind) for i in range(nargs)])
    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = (f"``{path}``: compiled by tilec inside kernels; not callable from host code." if refusal is None
                    else f"``{path}``: not compiled by tilec (a call in a kernel is a compile error: {refusal}).")
    stub.__tilec_path__ = path
    return stub


def export_stubs(namespace, module_path, names, arity=None, refusal=None):
    """Defines one stub per name in ``namespace`` (a module's globals) that it does not
    define already; ``arity`` maps a name to its number of arguments or None, ``refusal`` to
    why the compiler refuses it or None (see make_stub)."""
    for name in names:
        if name not in namespace:
            namespace[name] = make_stub(f"{module_path}.{name}", None if arity is None else arity(name),
                                        None if refusal is None else refusal(name))
