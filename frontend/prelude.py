# The tilec prelude: tl.* functions written in the kernel language itself. tilec parses
# this file with every kernel; `tl.NAME` resolves here before the native builtins, so a
# function defined below is callable as tl.NAME (and as libdevice.NAME when marked so).
import triton
import triton.language as tl
