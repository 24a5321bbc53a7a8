"""triton.backends for the drop-in: one backend, "cpu" (tilec), always active.
`backends` is built on first access (runtime.driver imports this package)."""

from .compiler import GPUTarget


class Backend:
    """An entry of `backends`: its name and driver class (with `is_active()`)."""

    def __init__(self, name, driver):
        self.name = name
        self.driver = driver


def __getattr__(name):
    if name == "backends":
        from ..runtime.driver import CPUDriver
        value = {"cpu": Backend("cpu", CPUDriver)}
        globals()["backends"] = value
        return value
    raise AttributeError(f"module 'triton.backends' has no attribute '{name}'")


__all__ = ["GPUTarget", "Backend", "backends"]
