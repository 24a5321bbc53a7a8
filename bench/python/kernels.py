"""The kernel of bench/python/launch.py, in Triton's language, compiled by tilec (``tilec.jit``).
The kernels timed against the peers are bench/kernels/*.py (bench/python/peers.py)."""

import tilec as _front
import tilec.language as tl

jit = _front.jit


@jit
def launch_kernel(a_ptr, b_ptr, n, alpha):
    """Four arguments and almost no work: what a launch costs."""
    if n < 0:
        tl.store(a_ptr, tl.load(b_ptr) * alpha)
