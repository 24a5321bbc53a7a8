"""``triton._C``: the host facts Triton's (and triton-cpu's) test files read from Triton's
C++ extension. tilec compiles in its own C library; only ``libtriton.cpu.llvm`` is here."""
