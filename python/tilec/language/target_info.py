"""``tl.target_info`` — Triton's questions about the target a kernel compiles for, answered
on the host for tilec's target, the CPU: ``current_target()`` is the active driver's
``GPUTarget("cpu", <machine>, 1)`` and every GPU predicate (``is_cuda()``,
``cuda_capability_geq(8)``, ``is_hip_cdna3()``, ...) is False.

Inside a kernel the compiler answers them for the target it compiles for, as Triton's
constexpr functions do: on the CPU every GPU predicate is False, for an NVIDIA chip
(``--target nvptx --arch sm_90a``) ``is_cuda()`` is True and ``cuda_capability_geq(9)``
compares with its capability. ``current_target()`` is a host object, refused in kernels."""

__tilec_path__ = "triton.language.target_info"
__all__ = ["current_target"]


def current_target():
    """The target kernels compile for (the drop-in's driver: the CPU), or None without one."""
    try:
        from tilec.triton.runtime.driver import driver
        return driver.active.get_current_target()
    except RuntimeError:
        return None


def _backend_is(name, arch=None):
    target = current_target()
    return target is not None and target.backend == name and (arch is None or target.arch == arch)


def is_cuda():
    return _backend_is("cuda")


def cuda_capability_geq(major, minor=0):
    """Compute capability >= (major, minor): never on the CPU."""
    return _backend_is("cuda") and isinstance(current_target().arch, int) and \
        current_target().arch >= major * 10 + minor


def is_hip():
    return _backend_is("hip")


def is_hip_cdna3():
    return _backend_is("hip", "gfx942")


def is_hip_cdna4():
    return _backend_is("hip", "gfx950")


def is_hip_gfx1250():
    target = current_target()
    return target is not None and target.backend == "hip" and str(target.arch).startswith("gfx1250")


for _f in (is_cuda, cuda_capability_geq, is_hip, is_hip_cdna3, is_hip_cdna4, is_hip_gfx1250, current_target):
    _f.__tilec_path__ = "triton.language.target_info." + _f.__name__  # kernels may import them by name
del _f
