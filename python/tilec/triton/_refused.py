"""The names of Triton 3.9's host API that tilec's drop-in has but refuses to run.

In:  a name of Triton's API whose behaviour has no meaning for tilec (Triton's own GPU
compiler and its inputs, CUDA-only tooling, GPU clocks). Out: an object under that name
(so `import` and attribute lookups succeed) that raises NotImplementedError naming the
feature and what to use instead when it is called or instantiated.

REFUSED is the whole list (docs/triton_api.md prints it; tests/python/test_dropin_surface.py
checks every entry exists and raises). Names of the kernel language that the compiler
refuses are not here: their stand-ins exist and a kernel calling one fails to compile with
a located error (tilec.language.COMPILER_FUNCTIONS, libdevice.NOT_COMPILED).
"""

__all__ = ["REFUSED", "refused_function", "refused_class", "refusal_message"]

#: dotted Triton name -> why tilec refuses it
REFUSED = {
    "triton.aggregate": "@triton.aggregate classes (user-defined structs of tensors in kernels) are not compiled by "
                        "tilec's front end; pass the fields as separate arguments or a tuple",
    "triton.compiler.IRSource": "Triton's compiler input (TTIR/TTGIR/PTX files), also `triton.compile(PATH)`; "
                                "tilec compiles Python kernel source only (`triton.compile(ASTSource(fn, ...))`, "
                                "`tilec compile FILE.py` ahead of time)",
    "triton.compiler.make_backend": "Triton's GPU compiler backends (CUDA, HIP); tilec is its own compiler, for "
                                    "the CPU",
    "triton.compiler.get_cache_key": "the cache key of Triton's compiler over an ASTSource; tilec keys its "
                                     "kernel cache in C (JITFunction.cache_key names a kernel's source)",
    "triton.runtime.jit.JITFunction.create_binder": "Triton's Python argument binder for its GPU launcher; "
                                                    "tilec binds and specializes arguments in C",
    "triton.runtime.build": "Triton builds its GPU launchers as C extensions at run time; tilec's launcher is "
                            "part of the package",
    "triton.runtime.cache.RedisRemoteCacheBackend": "a Redis-backed cache of Triton's GPU binaries; tilec "
                                                    "caches kernels on local disk (TILEC_CACHE_DIR)",
    "triton.testing.cuda_graph_without_gc": "CUDA graph capture (torch.cuda.graph) needs a CUDA device; tilec's "
                                            "kernels run on the CPU",
    "triton.testing.set_gpu_clock": "locks an NVIDIA GPU's clocks with nvidia-smi; there is no GPU",
}


def refusal_message(name):
    return f"{name} is not supported by tilec's Triton drop-in (kernels run on the CPU): {REFUSED[name]}"


def refused_function(name):
    """A function called like the last component of `name` that raises NotImplementedError."""
    short = name.rsplit(".", 1)[-1]

    def refused(*args, **kwargs):
        raise NotImplementedError(refusal_message(name))

    refused.__name__ = refused.__qualname__ = short
    refused.__doc__ = f"Refused: {REFUSED[name]}."
    refused.__tilec_refused__ = name
    return refused


def refused_class(name):
    """A class named like the last component of `name` whose instantiation raises
    NotImplementedError (isinstance checks against it are False, as for any foreign class)."""
    short = name.rsplit(".", 1)[-1]

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(refusal_message(name))

    return type(short, (), {"__init__": __init__, "__doc__": f"Refused: {REFUSED[name]}.",
                            "__tilec_refused__": name, "__module__": name.rsplit(".", 1)[0]})
