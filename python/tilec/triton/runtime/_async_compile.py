"""triton.AsyncCompileMode / FutureKernel for the drop-in.

In Triton, launches and warmups inside `with AsyncCompileMode(executor):` submit their
compilation to the executor and return FutureKernel placeholders, finalized when the mode
exits. tilec compiles a kernel when the launch or warmup asks for it, in C, so inside the
mode they return the CompiledKernel itself (compiled, or loaded from the disk cache);
`AsyncCompileMode.submit` runs work on the executor and returns FutureKernels as Triton's
does, for code that calls it directly.
"""

from concurrent.futures import as_completed
from contextvars import ContextVar

active_mode = ContextVar("async_compile_active_mode", default=None)


class FutureKernel:
    """A compilation submitted to an executor; `result()` waits for it (attribute lookups
    wait too, so it stands in for the CompiledKernel)."""

    def __init__(self, finalize_compile, cleanup_compile, future):
        self.finalize_compile = finalize_compile
        self.cleanup_compile = cleanup_compile
        self.kernel = None
        self.future = future

    def result(self, ignore_errors=False):
        if self.kernel is not None:
            return self.kernel
        try:
            kernel = self.future.result()
        except Exception:
            self.cleanup_compile(self)
            self.future = None
            if ignore_errors:
                return None
            raise
        self.finalize_compile(kernel)
        self.future = None
        self.kernel = kernel
        return kernel

    def __getattr__(self, name):
        return getattr(self.result(), name)


class AsyncCompileMode:
    """Context manager: `with AsyncCompileMode(executor, ignore_errors=False): ...` (see the
    module docstring for what changes on tilec)."""

    def __init__(self, executor, *, ignore_errors=False):
        self.executor = executor
        self.ignore_errors = ignore_errors
        self.raw_futures = []
        self.future_kernels = {}

    def submit(self, key, compile_fn, finalize_fn, cleanup_fn):
        """Runs compile_fn on the executor (once per key); returns its FutureKernel."""
        future_kernel = self.future_kernels.get(key)
        if future_kernel is not None:
            return future_kernel
        future = self.executor.submit(compile_fn)
        future._tilec_key = key
        self.raw_futures.append(future)
        future_kernel = FutureKernel(finalize_fn, cleanup_fn, future)
        self.future_kernels[key] = future_kernel
        return future_kernel

    def __enter__(self):
        if active_mode.get() is not None:
            raise RuntimeError("Another AsyncCompileMode is already active")
        active_mode.set(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        active_mode.set(None)
        try:
            for future in as_completed(self.raw_futures):
                future_kernel = self.future_kernels[future._tilec_key]
                if future_kernel.future is not None:
                    future_kernel.result(self.ignore_errors)
        finally:
            self.raw_futures = []
            self.future_kernels = {}


__all__ = ["AsyncCompileMode", "FutureKernel", "active_mode"]
