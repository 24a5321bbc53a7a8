"""Debugging helpers: memory marked "not yet written" for the init check.

    out = tilec.debug.uninitialized(torch.empty(n))   # or np.empty(n)
    kernel[grid](x, out, n, BLOCK=256)                 # with TILEC_CHECK=init (or all)

A kernel compiled with the init check (``TILEC_CHECK=init``, ``TILEC_CHECK=all`` or
``TRITON_DEBUG=1``) that loads an element of a marked array no kernel has stored since raises
``tilec.KernelError`` naming the load's source line, the element and the program; its stores
mark what they write, across launches. What the host writes is not seen: mark an array
right after making it.
"""

import weakref

from . import _C
from .errors import TilecError

__all__ = ["uninitialized", "forget"]


def _memory(t, what):
    """(address, nbytes) of the contiguous CPU memory of a numpy array or torch tensor."""
    if hasattr(t, "data_ptr") and hasattr(t, "element_size"):  # torch.Tensor
        if getattr(t, "device", None) is not None and str(t.device) != "cpu":
            raise ValueError(f"{what}: the tensor is on {t.device}, not in CPU memory")
        if not t.is_contiguous():
            raise ValueError(f"{what}: the tensor is not contiguous")
        return t.data_ptr(), t.numel() * t.element_size()
    face = getattr(t, "__array_interface__", None)
    if face is not None:  # numpy and what quacks like it
        if face.get("strides") is not None and not getattr(t, "flags", {"C_CONTIGUOUS": False})["C_CONTIGUOUS"]:
            raise ValueError(f"{what}: the array is not C-contiguous")
        return face["data"][0], int(t.nbytes)
    raise TypeError(f"{what}: expected a numpy array or a torch tensor, got {type(t).__name__}")


def uninitialized(t):
    """Marks the memory of ``t`` (a contiguous numpy array or CPU torch tensor) as not yet
    written and returns ``t``. The mark lasts until ``t`` is garbage collected or
    :func:`forget` drops it; marking ``t`` again clears what was written."""
    address, nbytes = _memory(t, "tilec.debug.uninitialized")
    if nbytes == 0:
        return t
    try:
        _C.mark_uninitialized(address, nbytes)
    except TilecError as e:
        raise ValueError(f"tilec.debug.uninitialized: {getattr(e, 'message', e)}") from None
    weakref.finalize(t, _C.forget, address)
    return t


def forget(t):
    """Drops the mark :func:`uninitialized` put on ``t``; whether there was one."""
    address, _ = _memory(t, "tilec.debug.forget")
    return _C.forget(address)
